// `ir2vec vocab train|eval|split|export`: vocabularies from OpenKE triplets, their evaluation
// and their files (vocab/VocabTraining.h).
#include "tools/ir2vec/Groups.h"

#include "downstream/VocabScore.h"
#include "mir/MirVocab.h"
#include "support/Files.h"
#include "vocab/VocabTraining.h"

namespace wb::tool {

namespace {

/// The OpenKE directory and the split options train, eval and split share.
struct GraphOptions {
  std::string Dir;
  vocab::SplitOptions Split;
};

struct TrainOptions {
  GraphOptions Graph;
  std::string Output, HDF5Output, Mode = "llvm", Init;
  std::string Distance = "l1", Optimizer = "adam", Corruption = "bernoulli",
              Weighting = "unique";
  bool NoFilter = false, NoNormalize = false, Quiet = false;
  unsigned Jobs = 1;
  vocab::TransEConfig Config;
};

struct EvalOptions {
  GraphOptions Graph;
  std::vector<std::string> Vocabularies;
  std::string Distance = "l1";
  bool JSON = false, Quiet = false;
  std::string Devmap; // a device-mapping dataset: also judge downstream
  unsigned DevmapSeeds = 10, Jobs = 0;
};

struct SplitOptions {
  GraphOptions Graph;
  std::string Output;
};

struct ExportOptions {
  std::string Input, Output, Mode = "llvm";
  bool Quiet = false, Counts = false;
};

/// `vocab export --mode=mir`: the default MIR vocabulary as the LLVM JSON it is compiled from,
/// for llvm-ir2vec-22 --mir2vec-vocab-path (the only form LLVM reads a MIR vocabulary in).
llvm::Expected<support::Outcome> exportMirVocabulary(const ExportOptions &X) {
  if (!X.Input.empty())
    return support::usageError("--mode=mir exports the default MIR vocabulary; a MIR vocabulary "
                               "file is LLVM JSON already");
  if (llvm::StringRef(X.Output).ends_with(".h5"))
    return support::usageError("--mode=mir: a MIR vocabulary is written as LLVM JSON only");
  return outcomeOf(support::writeFileAtomically(
      X.Output, [](llvm::raw_ostream &OS) { OS << mir::defaultMirVocabularyJSON(); }));
}

/// `vocab eval`: --devmap's study can be interrupted.
ExitTable evalExits() {
  ExitTable T = simpleExits();
  T.Rows.push_back({"130", "interrupted (--devmap): its table is not printed"});
  return T;
}

void addGraphOptions(CLI::App &Sub, GraphOptions &G, bool Required = true) {
  Sub.add_option("dir", G.Dir, "OpenKE directory (ir2vec triplets --format openke -o DIR)")
      ->type_name("DIR")
      ->required(Required);
  Sub.add_option("--valid-fraction", G.Split.Valid,
                 "Held-out validation fraction of the unique triplets (without valid2id.txt)");
  Sub.add_option("--test-fraction", G.Split.Test,
                 "Held-out test fraction (without test2id.txt)");
  Sub.add_option("--split-seed", G.Split.Seed, "Seed of the train/valid/test split");
}

CLI::Option *addDistance(CLI::App &Sub, std::string &Distance) {
  return Sub.add_option("--distance", Distance, "TransE distance: l1 or l2")
      ->check(CLI::IsMember(support::names<vocab::Distance>(vocab::DistanceNames)));
}

llvm::Expected<support::Outcome> runTrain(TrainOptions O, const support::Reporter &R) {
  vocab::TransEConfig &C = O.Config;
  auto D = support::parseNamed<vocab::Distance>(vocab::DistanceNames, O.Distance, "distance");
  if (!D)
    return D.takeError();
  auto Opt = learn::parseOptimizer(O.Optimizer);
  if (!Opt)
    return Opt.takeError();
  auto Cor = support::parseNamed<vocab::Corruption>(vocab::CorruptionNames, O.Corruption,
                                                    "corruption");
  if (!Cor)
    return Cor.takeError();
  auto W = support::parseNamed<vocab::TripletWeights>(vocab::TripletWeightsNames, O.Weighting,
                                                      "weighting");
  if (!W)
    return W.takeError();
  C.Dist = *D;
  C.Optimizer.Kind = *Opt;
  C.Corrupt = *Cor;
  C.Weights = *W;
  C.FilterNegatives = !O.NoFilter;
  C.NormalizeEntities = !O.NoNormalize;
  C.Threads = O.Jobs;
  if (O.Mode == "mir") {
    if (!O.HDF5Output.empty())
      return support::usageError("--hdf5: a MIR vocabulary is LLVM's MIR vocabulary JSON only");
    return mir::runMirVocabTraining(O.Graph.Dir, O.Graph.Split, C, O.Output, O.Init, !O.Quiet,
                                    R.handler());
  }
  vocab::VocabTrainingJob J{O.Graph.Dir, O.Graph.Split, C, {}, O.Init};
  if (!O.Output.empty())
    J.Outputs.push_back({O.Output, vocab::vocabularyFormatFor(O.Output)});
  if (!O.HDF5Output.empty())
    J.Outputs.push_back({O.HDF5Output, vocab::VocabularyFormat::HDF5});
  return vocab::runVocabTraining(J, !O.Quiet, R.handler());
}

llvm::Expected<support::Outcome> runEval(const EvalOptions &O, const support::Reporter &R) {
  if (O.Graph.Dir.empty() && O.Devmap.empty())
    return support::usageError("name an OpenKE directory (link prediction), --devmap DATA "
                               "(device mapping), or both");
  if (!O.Graph.Dir.empty() && !O.Devmap.empty() && O.JSON)
    return support::usageError("--json prints one report: run link prediction and --devmap "
                               "separately");
  // Every vocabulary resolved once, before any work: link prediction and --devmap share it.
  std::vector<ir2vec::EmbeddingChoice> Vocabularies;
  for (const std::string &V : O.Vocabularies.empty() ? std::vector<std::string>{""} : O.Vocabularies) {
    auto E = ir2vec::EmbeddingChoice::resolve(embeddingRequest(V));
    if (!E)
      return E.takeError();
    Vocabularies.push_back(std::move(*E));
  }
  if (!O.Graph.Dir.empty()) {
    auto D = support::parseNamed<vocab::Distance>(vocab::DistanceNames, O.Distance, "distance");
    if (!D)
      return D.takeError();
    std::vector<vocab::NamedVectors> Named;
    for (const ir2vec::EmbeddingChoice &E : Vocabularies)
      Named.push_back({E.sourceName().str(), &E.entityVectors()});
    auto Out = vocab::runVocabEvaluation(O.Graph.Dir, O.Graph.Split, Named, *D, O.JSON, llvm::outs());
    if (!Out || O.Devmap.empty())
      return Out;
  }
  for (size_t I = 0; I < O.Vocabularies.size(); ++I)
    for (size_t K = 0; K < I; ++K)
      if (O.Vocabularies[I] == O.Vocabularies[K])
        return support::usageError("--vocab " + O.Vocabularies[I] + " is given twice");
  downstream::VocabularyScoreJob J;
  J.Data = O.Devmap;
  J.Vocabularies = std::move(Vocabularies);
  J.Seeds = O.DevmapSeeds;
  J.JSON = O.JSON;
  downstream::DevmapConfig C;
  C.Run = runSettings(R, O.Jobs);
  return support::withCancellation([&](int Cancel) -> llvm::Expected<support::Outcome> {
    C.Run.CancelFd = Cancel;
    return outcomeOf(downstream::scoreVocabularies(J, C, llvm::outs()));
  });
}

/// `vocab train`.
void addVocabTrain(CLI::App &Vocab, Commands &Cmds, RunContext &Ctx) {
  auto T = std::make_shared<TrainOptions>();
  ExitTable TrainExits = simpleExits();
  TrainExits.Rows.push_back({"130", "interrupted: the run ends by the signal (a shell shows 130 "
                                    "for SIGINT, 143 for SIGTERM, 129 for SIGHUP); no output "
                                    "written"});
  CLI::App *Train = addCommand(
      Vocab, Cmds, "train",
      "Train a TransE vocabulary on OpenKE triplets (ir2vec triplets --format openke)",
      TrainExits);
  addGraphOptions(*Train, T->Graph);
  addOutput(*Train, T->Output,
            "Output vocabulary: .json (LLVM 22 format) or .h5 ('-' = JSON on standard output)",
            /*Stdout=*/false);
  Train->add_option("--hdf5", T->HDF5Output,
                    "Also write the HDF5 form (relations and provenance included)")
      ->type_name("FILE");
  addDistance(*Train, T->Distance);
  addMode(*Train, T->Mode)
      ->description("llvm (an LLVM IR vocabulary) or mir (a MIR vocabulary from `triplets --mode=mir "
                    "--format openke`, written as LLVM's MIR vocabulary JSON)");
  Train->add_option("--dim", T->Config.Dim, "Vector dimension")->check(CLI::Range(1u, 4096u));
  Train->add_option("--init", T->Init,
                    "Start from this vocabulary's entity vectors (a warm start; its dimension is "
                    "--dim's; --mode=mir: a MIR vocabulary JSON), random where it has no key")
      ->type_name("VOCAB");
  Train->add_option("--epochs", T->Config.Epochs, "Training epochs (at most)");
  Train->add_option("--seed", T->Config.Seed, "Seed (initialisation, shuffling, negatives)");
  Train->add_option("--batch-size", T->Config.BatchSize, "Triplets per minibatch");
  Train->add_option("--negatives", T->Config.Negatives, "Corrupted triplets per true one (1 to 4096)");
  Train->add_option("--margin", T->Config.Margin, "Margin of the ranking loss");
  Train->add_option("--lr", T->Config.Optimizer.LearningRate, "Learning rate");
  Train->add_option("--optimizer", T->Optimizer, "sgd or adam (sparse: touched columns only)")
      ->check(CLI::IsMember(support::names<learn::OptimizerKind>(learn::OptimizerNames)));
  Train
      ->add_option("--corruption", T->Corruption,
                   "Which side to corrupt: uniform (50/50) or bernoulli (by relation "
                   "cardinality, Wang et al. 2014)")
      ->check(CLI::IsMember(support::names<vocab::Corruption>(vocab::CorruptionNames)));
  Train->add_flag("--no-filter", T->NoFilter,
                  "Allow known training triplets as negatives (default: never)");
  Train->add_flag("--no-normalize", T->NoNormalize,
                  "Do not keep entity vectors at unit length (default: unit length, as the "
                  "default vocabulary was trained)");
  Train
      ->add_option("--weighting", T->Weighting,
                   "unique (each triplet once), frequency (by occurrences) or log (by "
                   "log(1 + occurrences)); counts from triplet_counts.txt")
      ->check(CLI::IsMember(support::names<vocab::TripletWeights>(vocab::TripletWeightsNames)));
  Train->add_option("-j,--jobs", T->Jobs, "Threads (Hogwild updates; 1 is reproducible)")
      ->check(CLI::Range(1u, 1024u));
  Train->add_option("--eval-every", T->Config.EvalEvery,
                    "Check filtered validation MRR every N epochs and keep the best model "
                    "(0: no early stopping)");
  Train->add_option("--patience", T->Config.Patience,
                    "Stop after this many checks without improvement");
  addQuiet(*Train, T->Quiet, "No warnings, progress line or summary");
  setRun(Cmds, Train, [&Ctx, T, TrainExits] {
    support::Reporter R = Ctx.reporter(ToolName, T->Quiet);
    return finish(R, TrainExits, runTrain(*T, R));
  });
}

} // namespace

void addVocabCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx) {
  CLI::App *Vocab = addGroup(App, "vocab", "Train, evaluate and export vocabularies");

  addVocabTrain(*Vocab, Cmds, Ctx);

  auto E = std::make_shared<EvalOptions>();
  CLI::App *Eval = addCommand(
      *Vocab, Cmds, "eval",
      "Link prediction (MR, MRR, Hits@k) on held-out triplets and analogies, and with --devmap "
      "device-mapping accuracy (folds by kernel, against the entity histogram), for any "
      "vocabulary files",
      evalExits());
  addGraphOptions(*Eval, E->Graph, /*Required=*/false);
  addDistance(*Eval, E->Distance);
  Eval->add_option("--vocab,--ir2vec-vocab-path", E->Vocabularies,
                   "Vocabularies to compare: LLVM JSON or the workbench's HDF5, repeatable "
                   "(default: the default vocabulary, built into the tool)")
      ->type_name("FILE");
  Eval->add_flag("--json", E->JSON,
                 "Print the report as JSON (schema ir2vec.vocab-eval/1; with --devmap "
                 "ir2vec.vocab-devmap/1)");
  Eval->add_option("--devmap", E->Devmap,
                   "Also judge each vocabulary downstream on this device-mapping dataset "
                   "(cgo17-*.csv and kernels_ir/, docs/downstream.md): symbolic and flow-aware, "
                   "folds by kernel, paired with the first vocabulary and the entity histogram")
      ->type_name("DATA");
  Eval->add_option("--devmap-seeds", E->DevmapSeeds, "Seeds of the folds by kernel (104, 105, ...)")
      ->check(CLI::Range(1u, 1000u));
  addJobs(*Eval, E->Jobs, "--devmap: kernels embedded and classifiers trained in parallel");
  addQuiet(*Eval, E->Quiet, "--devmap: no progress line");
  setRun(Cmds, Eval, [&Ctx, E] {
    support::Reporter R = Ctx.reporter(ToolName, E->Quiet);
    return finish(R, evalExits(), runEval(*E, R));
  });

  auto S = std::make_shared<SplitOptions>();
  CLI::App *Split = addCommand(
      *Vocab, Cmds, "split",
      "Write an OpenKE directory with the train/valid/test split made explicit", simpleExits());
  addGraphOptions(*Split, S->Graph);
  addOutput(*Split, S->Output, "Output directory (created when its parent exists)",
            /*Stdout=*/false)
      ->type_name("DIR");
  setRun(Cmds, Split, [S] {
    return finish(support::Reporter(ToolName, false), simpleExits(),
                  vocab::runVocabSplit(S->Graph.Dir, S->Graph.Split, S->Output));
  });

  auto X = std::make_shared<ExportOptions>();
  CLI::App *Export = addCommand(
      *Vocab, Cmds, "export",
      "Write the default vocabulary (or --vocab IN) as LLVM JSON or HDF5", simpleExits());
  addOutput(*Export, X->Output,
            "Output: .json (LLVM 22 format) or .h5 ('-' = JSON on standard output)",
            /*Stdout=*/false);
  Export->add_option("--vocab,--ir2vec-vocab-path", X->Input,
                     "Convert this vocabulary (LLVM JSON or the workbench's HDF5) instead of "
                     "the default one")
      ->type_name("FILE");
  addQuiet(*Export, X->Quiet, "No warnings");
  Export->add_flag("--counts", X->Counts,
                   "Write the counting vocabulary instead: entity E's row is the unit vector e_E "
                   "(110 dimensions), so embedding with it gives the entity histogram, each "
                   "section scaled by its weight (an ablation arm's histogram control)")
      ->excludes("--vocab");
  Export
      ->add_option("--mode", X->Mode,
                   "llvm (the IR2Vec vocabulary) or mir (the default x86-64 MIR vocabulary, "
                   "LLVM JSON, for llvm-ir2vec --mir2vec-vocab-path)")
      ->check(CLI::IsMember({"llvm", "mir"}));
  setRun(Cmds, Export, [&Ctx, X] {
    support::Reporter R = Ctx.reporter(ToolName, X->Quiet);
    if (X->Mode == "mir" && X->Counts)
      return finish(R, simpleExits(), support::usageError("--counts writes the IR counting vocabulary; "
                                                          "it does not go with --mode=mir"));
    if (X->Mode == "mir")
      return finish(R, simpleExits(), exportMirVocabulary(*X));
    if (X->Counts)
      return finish(R, simpleExits(), outcomeOf(vocab::writeVocabularyFile(X->Output, vocab::countingEntityVectors())));
    return finish(R, simpleExits(), vocab::exportVocabulary(X->Input, X->Output, R.handler()));
  });
}

} // namespace wb::tool
