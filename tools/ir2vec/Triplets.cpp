// `ir2vec entities` and `ir2vec triplets`: the knowledge graph of IR, as llvm-ir2vec prints it
// and as OpenKE corpora for training (vocab/Triplets.h, vocab/TripletCorpus.h).
#include "tools/ir2vec/Groups.h"

#include "corpus/OptPipeline.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "vocab/TripletCorpus.h"
#include "vocab/Triplets.h"

namespace wb::tool {

namespace {

struct EntitiesOptions {
  std::string Output = "-", Mode = "llvm";
  std::vector<std::string> Ignored;
};

struct TripletsOptions {
  std::string Output = "-", Mode = "llvm", Format = "text";
  std::vector<std::string> Inputs;
  bool Extended = false, Quiet = false;
  std::string OptLevels, Weighting = "unique";
  unsigned OptSample = 0, Jobs = 0;
  int RootJobs = -1;
  double ModuleSeconds = corpus::DefaultModuleSeconds;
  uint64_t Seed = 0;
};

llvm::Expected<support::Outcome> runEntities(const EntitiesOptions &O) {
  if (llvm::Error E = checkMode(O.Mode))
    return E;
  return outcomeOf(support::writeFileAtomically(O.Output, vocab::writeEntitiesText));
}

llvm::Expected<support::Outcome> runTriplets(const TripletsOptions &O,
                                             const support::Reporter &R,
                                             const RunContext &Ctx) {
  if (llvm::Error E = checkMode(O.Mode))
    return E;
  vocab::TripletCorpusJob J;
  auto Inputs = commandInputs(O.Inputs, Ctx, R);
  if (!Inputs)
    return Inputs.takeError();
  if (O.Format != "openke")
    if (llvm::Error E = checkOutputs({O.Output}, *Inputs, listFiles(O.Inputs)))
      return E;
  J.Inputs = std::move(*Inputs);
  J.Opts.Extended = O.Extended;
  if (!O.OptLevels.empty()) {
    auto L = corpus::parseOptLevels(O.OptLevels);
    if (!L)
      return support::usageError("--opt-levels: " + llvm::toString(L.takeError()));
    J.Levels = std::move(*L);
  }
  J.Sample = O.OptSample;
  J.Seed = O.Seed;
  auto W = support::parseNamed<vocab::TripletWeighting>(vocab::TripletWeightingNames,
                                                        O.Weighting, "weighting");
  if (!W)
    return W.takeError();
  J.Weighting = *W;
  const corpus::BatchIO IO =
      batchIO(R, O.Jobs, O.ModuleSeconds, Ctx.distribution(O.RootJobs));
  if (O.Format == "openke")
    return vocab::runTripletCorpus(J, O.Output, IO);
  return vocab::runTripletsText(J, O.Output, IO);
}

} // namespace

void addTripletCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx) {
  auto E = std::make_shared<EntitiesOptions>();
  CLI::App *Entities = addCommand(
      App, Cmds, "entities",
      "Print the 110 vocabulary entities (name<TAB>id), as llvm-ir2vec entities", simpleExits());
  addOutput(*Entities, E->Output, "Output file", /*Stdout=*/true);
  addMode(*Entities, E->Mode);
  Entities->add_option("input", E->Ignored, "Ignored (accepted as llvm-ir2vec accepts it)")
      ->type_name("[INPUT]");
  setRun(Cmds, Entities, [E] {
    return finish(support::Reporter(ToolName, false), simpleExits(), runEntities(*E));
  });

  auto T = std::make_shared<TripletsOptions>();
  CLI::App *Triplets = addCommand(
      App, Cmds, "triplets", "Print knowledge-graph triplets of modules, as llvm-ir2vec triplets",
      batchExits());
  addOutput(*Triplets, T->Output,
            "Output file ('-' = standard output), or the directory with --format openke "
            "(created when its parent exists)",
            /*Stdout=*/false);
  addMode(*Triplets, T->Mode);
  addQuiet(*Triplets, T->Quiet, "No warnings, progress line or coverage summary");
  addJobs(*Triplets, T->Jobs, "Worker threads");
  addModuleTimeLimit(*Triplets, T->ModuleSeconds);
  addInputs(*Triplets, T->Inputs);
  Triplets
      ->add_option("--format", T->Format,
                   "text (llvm-ir2vec's) or openke (-o DIR: train2id.txt, entity2id.txt, "
                   "relation2id.txt as generateTriplets.py writes them, plus "
                   "triplet_counts.txt and manifest.json; docs/formats/triplets-openke.md)")
      ->check(CLI::IsMember({"text", "openke"}));
  Triplets->add_flag("--extended-relations", T->Extended,
                     "Also relate compares to their predicates and instructions to their "
                     "operands' types (an extension; without it the output equals "
                     "llvm-ir2vec's)");
  Triplets
      ->add_option("--opt-levels", T->OptLevels,
                   "With --format openke: run LLVM's default pipelines in-process on each "
                   "module first, as generateTriplets.py does (comma list of O0,O1,O2,O3,Os,Oz; "
                   "default: the modules as they are)")
      ->type_name("LIST");
  Triplets->add_option("--opt-sample", T->OptSample,
                       "Use only K of --opt-levels per module, drawn with --seed (0: all)")
      ->type_name("K");
  Triplets
      ->add_option("--weighting", T->Weighting,
                   "With --format openke: unique (each triplet once in train2id.txt, as "
                   "generateTriplets.py) or frequency (each as often as it occurs)")
      ->check(CLI::IsMember(support::names<vocab::TripletWeighting>(vocab::TripletWeightingNames)));
  Triplets->add_option("--seed", T->Seed, "Seed for --opt-sample");
  setRun(Cmds, Triplets, [&Ctx, T] {
    support::Reporter R = Ctx.reporter(ToolName, T->Quiet);
    return finish(R, batchExits(), runTriplets(*T, R, Ctx));
  });
  setSpreads(Cmds, Triplets, T->RootJobs);
}

} // namespace wb::tool
