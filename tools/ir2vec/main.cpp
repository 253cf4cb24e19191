// ir2vec: the workbench's command-line driver. Option names and output formats follow
// llvm-ir2vec (LLVM 22.1.8) so it can replace it in scripts; all logic lives in the libraries.
#include "ir2vec/EmbeddingBatch.h"
#include "ir2vec/FromCounts.h"
#include "tools/ir2vec/Mlgo.h"
#include "tools/ir2vec/MlgoRun.h"
#include "vocab/IO.h"
#include "vocab/Inputs.h"
#include "vocab/TripletCorpus.h"
#include "vocab/Triplets.h"
#include "vocab/Progress.h"
#include "vocab/VocabTraining.h"
#include "vocab/Vocabulary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"

#include <CLI/CLI.hpp>

#include <malloc.h>

#include <set>
#include <string>
#include <vector>

namespace {

constexpr const char *ToolName = "ir2vec";

// Exit statuses, also listed in --help and README.md.
enum ExitCode : int { ExitOK = 0, ExitError = 1, ExitSomeFailed = 2 };

constexpr const char *ExitCodeHelp =
    "Exit status:\n"
    "  0  every module was processed\n"
    "  1  nothing usable: bad usage, no input, bad vocabulary, unknown --function, output\n"
    "     that cannot be written, or every module failed; no output file is left behind\n"
    "  2  some modules failed to read or verify (each is reported, and recorded in\n"
    "     modules/error with --format hdf5); the output holds all the others\n";

struct Options {
  std::vector<std::string> Inputs;
  std::string Output = "-";
  std::string Mode = "llvm";
  std::string VocabPath;
  std::string KindName = "symbolic";
  std::string OpcWeight = "1.0", TypeWeight = "0.5", ArgWeight = "0.2";
  std::string LevelName = "func";
  std::string Function;
  std::string Format = "text";
  unsigned Precision = 2;
  unsigned Jobs = 0;
  unsigned Compress = 0;
  bool Counts = false;
  bool InstText = false;
  bool Resume = false;
  bool Quiet = false;
  // triplets
  bool Extended = false;
  std::string OptLevels;
  unsigned OptSample = 0;
  std::string Weighting = "unique";
  uint64_t Seed = 0;
  // vocab
  std::vector<std::string> Vocabs;
  std::string HDF5Output;
  std::string Distance = "l1", OptimizerName = "adam", CorruptionName = "bernoulli";
  bool NoFilter = false, NoNormalize = false, JSONReport = false;
  wb::vocab::TransEConfig Train;
  wb::vocab::SplitOptions Split;
};

int reportError(const llvm::Twine &Msg) {
  llvm::WithColor::error(llvm::errs(), ToolName) << Msg << "\n";
  return ExitError;
}

void reportWarnings(const Options &O, const std::vector<std::string> &Warnings) {
  if (O.Quiet)
    return;
  for (const std::string &W : Warnings)
    llvm::WithColor::warning(llvm::errs(), ToolName) << W << "\n";
}

wb::vocab::BatchIO batchIO(const Options &O, wb::vocab::ContextPolicy Policy) {
  wb::vocab::BatchIO IO;
  IO.Jobs = O.Jobs ? O.Jobs : llvm::hardware_concurrency().compute_thread_count();
  IO.Policy = Policy;
  IO.ShowProgress = !O.Quiet;
  IO.Report = [&O](const wb::vocab::Diagnostic &D) {
    if (D.IsError)
      reportError(D.Message);
    else
      reportWarnings(O, {D.Message});
  };
  return IO;
}

/// The exit status of a batch: all fine, some modules failed, or nothing usable.
int statusOf(const wb::vocab::BatchSummary &S) {
  if (S.Failed == S.Modules)
    return reportError(S.Modules == 1 ? "the input could not be processed"
                                      : "none of the " + std::to_string(S.Modules) +
                                            " inputs could be processed");
  if (S.Failed) {
    llvm::WithColor::warning(llvm::errs(), ToolName)
        << S.Failed << " of " << S.Modules << " modules failed and were skipped\n";
    return ExitSomeFailed;
  }
  return ExitOK;
}

// LLVM's cl::opt<float> parses the text as a double (strtod) and then narrows it to float;
// parsing straight to float can round differently, so do exactly the same.
llvm::Expected<float> parseWeight(llvm::StringRef Name, llvm::StringRef Text) {
  double D;
  if (!llvm::to_float(Text, D))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--" + Name.str() + ": '" + Text.str() +
                                       "' is not a number");
  return static_cast<float>(D);
}

llvm::Expected<wb::vocab::Weights> weightsOf(const Options &O) {
  wb::vocab::Weights W;
  for (auto [Name, Text, Dest] :
       {std::tuple{"ir2vec-opc-weight", &O.OpcWeight, &W.Opcode},
        std::tuple{"ir2vec-type-weight", &O.TypeWeight, &W.Type},
        std::tuple{"ir2vec-arg-weight", &O.ArgWeight, &W.Arg}}) {
    auto F = parseWeight(Name, *Text);
    if (!F)
      return F.takeError();
    *Dest = *F;
  }
  return W;
}

struct LoadedVocab {
  wb::vocab::LoadedVocabulary V;
  std::string SHA256;
};

llvm::Expected<LoadedVocab> loadVocabulary(const Options &O) {
  auto W = weightsOf(O);
  if (!W)
    return W.takeError();
  // No --ir2vec-vocab-path: the project's default vocabulary (built in).
  auto V = wb::vocab::readVocabularyFile(O.VocabPath, *W);
  if (!V)
    return V.takeError();
  auto SHA = wb::vocab::vocabularySHA256(O.VocabPath);
  if (!SHA)
    return SHA.takeError();
  reportWarnings(O, V->warnings(O.VocabPath.empty() ? wb::vocab::DefaultVocabularyName
                                                      : O.VocabPath));
  return LoadedVocab{std::move(*V), *SHA};
}

llvm::Expected<std::vector<std::string>> inputsOf(const Options &O) {
  auto In = wb::vocab::expandInputs(O.Inputs.empty() ? std::vector<std::string>{"-"} : O.Inputs);
  if (In && In->empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "no input modules");
  return In;
}

// Runs Write into Path (atomically, unless standard output) and keeps the file only when the
// batch produced something usable.
template <typename WriteFn> int writeText(const std::string &Path, WriteFn Write) {
  auto Out = wb::vocab::AtomicOutput::create(Path);
  if (!Out)
    return reportError(llvm::toString(Out.takeError()));
  llvm::Expected<int> Status = Write(Out->os());
  if (!Status)
    return reportError(llvm::toString(Status.takeError()));
  if (*Status != ExitError)
    if (llvm::Error E = Out->commit())
      return reportError(llvm::toString(std::move(E)));
  return *Status;
}

int runEntities(const Options &O) {
  return writeText(O.Output, [](llvm::raw_ostream &OS) -> llvm::Expected<int> {
    wb::vocab::writeEntitiesText(OS);
    return ExitOK;
  });
}

void reportCoverage(const Options &O, const wb::vocab::TripletCorpus &C) {
  if (O.Quiet)
    return;
  const auto Occ = C.entityOccurrences();
  std::string Never;
  unsigned Seen = 0;
  for (wb::vocab::EntityId Id = 0; Id < wb::vocab::NumEntities; ++Id) {
    if (Occ[Id]) {
      ++Seen;
      continue;
    }
    Never += Never.empty() ? " " : ", ";
    Never += wb::vocab::entityName(Id);
  }
  llvm::errs() << ToolName << ": " << C.Unique.size() << " unique triplets (" << C.Total
               << " in all) from " << C.Runs << " extractions; " << Seen << " of "
               << wb::vocab::NumEntities << " entities occur";
  if (!Never.empty())
    llvm::errs() << "; never:" << Never;
  llvm::errs() << "\n";
}

int runTripletsOpenKE(const Options &O, std::vector<std::string> Inputs,
                      wb::vocab::ContextPolicy Policy) {
  if (O.Output == "-")
    return reportError("--format openke needs an output directory: -o DIR");
  wb::vocab::TripletCorpusJob J;
  J.Inputs = std::move(Inputs);
  J.Opts.Extended = O.Extended;
  J.Sample = O.OptSample;
  J.Seed = O.Seed;
  wb::vocab::OpenKEWriteOptions W;
  if (!O.OptLevels.empty()) {
    auto L = wb::vocab::parseOptLevels(O.OptLevels);
    if (!L)
      return reportError("--opt-levels: " + llvm::toString(L.takeError()));
    J.Levels = std::move(*L);
    for (wb::vocab::OptLevel Level : J.Levels)
      W.LevelNames.push_back(wb::vocab::optLevelName(Level).str());
  } else if (O.OptSample) {
    return reportError("--opt-sample needs --opt-levels");
  }
  W.Weighting = O.Weighting == "frequency" ? wb::vocab::TripletWeighting::Frequency
                                           : wb::vocab::TripletWeighting::Unique;
  W.CorpusListSHA256 = wb::vocab::inputListSHA256(J.Inputs);
  W.Sample = O.OptSample;
  W.Seed = O.Seed;
  // Optimisation passes must see each module exactly as opt would, alone in its context
  // (a shared context carries types and constants over from earlier modules).
  if (!J.Levels.empty())
    Policy.ReuseContext = 1;
  auto C = wb::vocab::collectTripletCorpus(J, batchIO(O, Policy));
  if (!C)
    return reportError(llvm::toString(C.takeError()));
  wb::vocab::BatchSummary S{C->Modules, C->Failed};
  if (S.Failed == S.Modules)
    return statusOf(S);
  if (llvm::Error E = wb::vocab::writeOpenKE(O.Output, *C, W))
    return reportError(llvm::toString(std::move(E)));
  reportCoverage(O, *C);
  return statusOf(S);
}

int runTriplets(const Options &O) {
  auto Inputs = inputsOf(O);
  if (!Inputs)
    return reportError(llvm::toString(Inputs.takeError()));
  wb::vocab::ContextPolicy Policy{32, /*DiscardValueNames=*/true};
  if (O.Format == "openke")
    return runTripletsOpenKE(O, std::move(*Inputs), Policy);
  if (!O.OptLevels.empty() || O.OptSample || O.Weighting != "unique")
    return reportError("--opt-levels, --opt-sample and --weighting apply to --format openke");
  const wb::vocab::TripletOptions Opts{O.Extended};
  return writeText(O.Output, [&](llvm::raw_ostream &OS) -> llvm::Expected<int> {
    auto S = wb::vocab::runTextBatch(
        *Inputs, OS, batchIO(O, Policy), [Opts](const std::string &Path, llvm::LLVMContext &Ctx) {
          wb::vocab::ModuleText T;
          auto In = wb::vocab::readModule(Path, Ctx);
          if (!In) {
            T.Error = llvm::toString(In.takeError());
            return T;
          }
          T.Warnings = std::move(In->Warnings);
          llvm::raw_string_ostream OS(T.Text);
          wb::vocab::writeTripletsText(OS, wb::vocab::collectTriplets(*In->M, Opts));
          return T;
        });
    if (!S)
      return S.takeError();
    return statusOf(*S);
  });
}

int functionNotFound(const Options &O, const std::vector<std::string> &Inputs) {
  return reportError("function '" + O.Function + "' not found in " +
                     (Inputs.size() == 1 ? "'" + Inputs[0] + "'"
                                         : "any of the " + std::to_string(Inputs.size()) +
                                               " inputs"));
}

int runEmbeddings(const Options &O) {
  auto K = wb::ir2vec::parseKind(O.KindName);
  if (!K)
    return reportError(llvm::toString(K.takeError()));
  auto L = wb::ir2vec::parseLevel(O.LevelName);
  if (!L)
    return reportError(llvm::toString(L.takeError()));
  const bool HDF5 = O.Format == "hdf5";
  if (O.Counts && !HDF5)
    return reportError("--counts needs --format hdf5");
  if (HDF5 && O.Output == "-")
    return reportError("--format hdf5 needs an output file: -o FILE.h5");
  if (O.Resume && !HDF5)
    return reportError("--resume applies to --format hdf5 runs");
  if (O.Compress && !HDF5)
    return reportError("--compress applies to --format hdf5");
  if (O.InstText && (!HDF5 || *L != wb::ir2vec::Level::Inst))
    return reportError("--inst-text applies to --format hdf5 --level inst (the text format "
                       "always prints instructions)");

  wb::ir2vec::EmbeddingJob J;
  std::optional<LoadedVocab> Vocab;
  if (O.Counts) {
    J.Vocab = &wb::ir2vec::countingVocabulary();
    J.Header.Counts = true;
  } else {
    auto V = loadVocabulary(O);
    if (!V)
      return reportError(llvm::toString(V.takeError()));
    Vocab.emplace(std::move(*V));
    J.Vocab = &Vocab->V.Vocab;
    J.Header.W = J.Vocab->weights();
    J.Header.VocabSHA256 = Vocab->SHA256;
  }
  auto Inputs = inputsOf(O);
  if (!Inputs)
    return reportError(llvm::toString(Inputs.takeError()));
  J.Inputs = std::move(*Inputs);
  J.EmbeddingKind = *K;
  J.Granularity = *L;
  if (!O.Function.empty())
    J.FunctionName = O.Function;
  J.Precision = O.Precision;
  J.Output = O.Output;
  J.Compress = O.Compress;
  J.Resume = O.Resume;
  J.Header.EmbeddingKind = *K;
  J.Header.Granularity = *L;
  J.Header.Dimension = J.Vocab->dimension();
  J.Header.InstructionText = O.InstText;

  const wb::vocab::BatchIO IO = batchIO(O, wb::ir2vec::contextPolicyFor(*L));
  auto Finish = [&](const wb::ir2vec::EmbeddingRun &R) {
    if (J.FunctionName && !R.FunctionFound && R.Summary.Failed < R.Summary.Modules)
      return functionNotFound(O, J.Inputs);
    return statusOf(R.Summary);
  };
  if (HDF5) {
    auto R = wb::ir2vec::runEmbeddingsHDF5(J, IO);
    if (!R)
      return reportError(llvm::toString(R.takeError()));
    if (R->Resumed && !O.Quiet)
      llvm::errs() << ToolName << ": resumed after " << R->ResumedModules << " modules\n";
    return Finish(*R);
  }
  return writeText(O.Output, [&](llvm::raw_ostream &OS) -> llvm::Expected<int> {
    auto R = wb::ir2vec::runEmbeddingsText(J, OS, IO);
    if (!R)
      return R.takeError();
    return Finish(*R);
  });
}

int runFromCounts(const Options &O) {
  if (O.Inputs.size() != 1)
    return reportError("from-counts takes one counts file");
  if (O.Output == "-")
    return reportError("from-counts needs an output file: -o FILE.h5");
  auto V = loadVocabulary(O);
  if (!V)
    return reportError(llvm::toString(V.takeError()));
  auto S = wb::ir2vec::embeddingsFromCounts(O.Inputs[0], V->V.Vocab, V->SHA256, O.Output,
                                            O.Compress);
  if (!S)
    return reportError(llvm::toString(S.takeError()));
  return ExitOK;
}

llvm::Expected<wb::vocab::KnowledgeGraph> graphOf(const Options &O) {
  if (O.Inputs.size() != 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "expected one OpenKE directory (as written by `ir2vec "
                                   "triplets --format openke -o DIR`)");
  return wb::vocab::readOpenKE(O.Inputs[0], O.Split);
}

wb::vocab::Distance distanceOf(const Options &O) {
  return O.Distance == "l2" ? wb::vocab::Distance::L2 : wb::vocab::Distance::L1;
}

int runVocabTrain(Options O) {
  if (O.Output == "-")
    return reportError("vocab train needs an output file: -o OUT.json (or OUT.h5)");
  auto G = graphOf(O);
  if (!G)
    return reportError(llvm::toString(G.takeError()));
  wb::vocab::TransEConfig &C = O.Train;
  C.Dist = distanceOf(O);
  C.Opt = O.OptimizerName == "sgd" ? wb::vocab::Optimizer::SGD : wb::vocab::Optimizer::Adam;
  C.Corrupt = O.CorruptionName == "uniform" ? wb::vocab::Corruption::Uniform
                                            : wb::vocab::Corruption::Bernoulli;
  C.FilterNegatives = !O.NoFilter;
  C.NormalizeEntities = !O.NoNormalize;
  C.Weights = O.Weighting == "frequency" ? wb::vocab::TripletWeights::Frequency
              : O.Weighting == "log"     ? wb::vocab::TripletWeights::Log
                                         : wb::vocab::TripletWeights::Unique;
  C.Threads = O.Jobs ? O.Jobs : 1;
  if (C.Weights != wb::vocab::TripletWeights::Unique && !G->HasCounts && !O.Quiet)
    llvm::WithColor::warning(llvm::errs(), ToolName)
        << O.Inputs[0] << ": no triplet_counts.txt and no repeated triplets: every triplet "
                          "counts once\n";
  if (!O.Quiet)
    llvm::errs() << ToolName << ": training on " << G->Train.size() << " triplets ("
                 << G->Valid.size() << " validation, " << G->Test.size() << " test), "
                 << G->numEntities() << " entities, " << G->numRelations() << " relations\n";
  wb::vocab::Progress P("epochs", C.Epochs, !O.Quiet);
  auto T = wb::vocab::trainVocabulary(
      O.Inputs[0], *G, C, O.Split, [&](const wb::vocab::EpochReport &R) {
        std::string Extra = llvm::formatv("loss {0:f5}", R.Loss).str();
        if (R.ValidMRR >= 0)
          Extra += llvm::formatv("  valid MRR {0:f4}{1}", R.ValidMRR, R.Best ? " *" : "").str();
        P.update(R.Epoch, Extra);
      });
  P.clear();
  if (!T)
    return reportError(llvm::toString(T.takeError()));
  for (const std::string &Out : {O.Output, O.HDF5Output})
    if (!Out.empty())
      if (llvm::Error E = wb::vocab::writeVocabularyFile(Out, T->Vocab))
        return reportError(llvm::toString(std::move(E)));
  if (!O.Quiet) {
    const auto &R = T->Result;
    llvm::errs() << ToolName << ": " << R.Epochs << " epochs (" << llvm::formatv("{0:f6}", R.SecondsPerEpoch)
                 << " s/epoch), final loss " << llvm::formatv("{0:f5}", R.FinalLoss);
    if (R.BestValidMRR >= 0)
      llvm::errs() << ", best validation MRR " << llvm::formatv("{0:f4}", R.BestValidMRR)
                   << " at epoch " << R.BestEpoch;
    llvm::errs() << "\n";
    const auto &L = T->Eval.Own ? *T->Eval.Own : T->Eval.Fitted;
    llvm::errs() << ToolName << ": test filtered " << wb::vocab::formatLinkMetrics(L.Filtered)
                 << "\n";
  }
  return ExitOK;
}

int runVocabEval(const Options &O) {
  auto G = graphOf(O);
  if (!G)
    return reportError(llvm::toString(G.takeError()));
  std::vector<std::string> Files = O.Vocabs.empty() ? std::vector<std::string>{""} : O.Vocabs;
  llvm::json::Array Report;
  if (!O.JSONReport)
    llvm::outs() << "# " << G->Test.size() << " test triplets (" << G->Train.size()
                 << " train, " << G->Valid.size() << " validation), " << O.Distance
                 << " distance, ranks over " << G->numEntities() << " entities\n";
  for (const std::string &F : Files) {
    const std::string Name = F.empty() ? wb::vocab::DefaultVocabularyName : F;
    auto V = wb::vocab::readEntityVectors(F);
    if (!V)
      return reportError(llvm::toString(V.takeError()));
    auto E = wb::vocab::evaluateVocabulary(*G, *V, distanceOf(O));
    if (!E)
      return reportError(Name + ": " + llvm::toString(E.takeError()));
    Report.push_back(wb::vocab::evaluationJSON(Name, *E));
    if (O.JSONReport)
      continue;
    llvm::outs() << Name << "\n";
    auto Line = [&](const char *What, const wb::vocab::LinkReport &L) {
      llvm::outs() << "  " << What << " raw       " << wb::vocab::formatLinkMetrics(L.Raw) << "\n"
                   << "  " << What << " filtered  " << wb::vocab::formatLinkMetrics(L.Filtered)
                   << "\n";
    };
    if (E->Own)
      Line("own relations   ", *E->Own);
    Line("fitted relations", E->Fitted);
    llvm::outs() << "  analogies: " << E->Analogies.Questions << " questions, top-1 "
                 << llvm::formatv("{0:f4}", E->Analogies.Top1) << ", top-5 "
                 << llvm::formatv("{0:f4}", E->Analogies.Top5) << "\n";
  }
  if (O.JSONReport)
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                               {"schema", "ir2vec.vocab-eval/1"},
                                               {"test_triplets", int64_t(G->Test.size())},
                                               {"distance", O.Distance},
                                               {"results", std::move(Report)}}))
                 << "\n";
  return ExitOK;
}

int runVocabSplit(const Options &O) {
  if (O.Output == "-")
    return reportError("vocab split needs an output directory: -o DIR");
  auto G = graphOf(O);
  if (!G)
    return reportError(llvm::toString(G.takeError()));
  if (llvm::Error E = wb::vocab::writeOpenKESplit(O.Output, *G))
    return reportError(llvm::toString(std::move(E)));
  return ExitOK;
}

int runVocabExport(const Options &O) {
  if (O.Output == "-")
    return reportError("vocab export needs an output file: -o FILE.json (or FILE.h5)");
  auto V = wb::vocab::readEntityVectors(O.VocabPath);
  if (!V)
    return reportError(llvm::toString(V.takeError()));
  reportWarnings(O, wb::vocab::LoadedVocabulary{*wb::vocab::Vocabulary::fromUnweightedRows(
                                                    V->Rows, V->Dim, {}),
                                                V->MissingKeys, V->UnknownKeys}
                        .warnings(O.VocabPath.empty() ? wb::vocab::DefaultVocabularyName
                                                      : O.VocabPath));
  if (llvm::Error E = wb::vocab::writeVocabularyFile(O.Output, *V))
    return reportError(llvm::toString(std::move(E)));
  return ExitOK;
}

// Options every subcommand accepts, as in llvm-ir2vec (where they are global).
void addCommonOptions(CLI::App &Sub, Options &O, const char *InputHelp) {
  Sub.add_option("-o", O.Output, "Output file ('-' = standard output)")->type_name("FILE");
  Sub.add_option("--mode", O.Mode, "Input kind: llvm (LLVM IR). MIR is not supported")
      ->check(CLI::IsMember({"llvm", "mir"}));
  Sub.add_option("--ir2vec-vocab-path,--vocab", O.VocabPath,
                 "Vocabulary JSON file (LLVM's IR2Vec format)")
      ->type_name("FILE");
  Sub.add_option("--ir2vec-kind,--kind", O.KindName, "Embedding kind: symbolic or flow-aware")
      ->check(CLI::IsMember({"symbolic", "flow-aware"}));
  Sub.add_option("--ir2vec-opc-weight", O.OpcWeight, "Weight of opcode vectors (float)")
      ->type_name("NUM");
  Sub.add_option("--ir2vec-type-weight", O.TypeWeight, "Weight of type vectors (float)")
      ->type_name("NUM");
  Sub.add_option("--ir2vec-arg-weight", O.ArgWeight,
                 "Weight of operand-kind and predicate vectors (float)")
      ->type_name("NUM");
  Sub.add_flag("-q,--quiet", O.Quiet, "No warnings and no progress line");
  Sub.add_option("-j,--jobs", O.Jobs, "Worker threads (default: all hardware threads)")
      ->check(CLI::Range(1u, 1024u));
  Sub.add_option("inputs", O.Inputs, InputHelp)->type_name("INPUT...");
}

constexpr const char *ManyInputs =
    "Inputs: .ll/.bc files ('-' = standard input), directories (searched recursively for "
    ".bc and .ll), @LIST files (one path per line) and ml-compiler-opt "
    "corpus_description.json files";

void longNames(CLI::App &App, std::set<std::string> &Long) {
  for (const CLI::Option *Opt : App.get_options())
    for (const std::string &N : Opt->get_lnames())
      Long.insert(N);
  for (CLI::App *Sub : App.get_subcommands([](CLI::App *) { return true; }))
    longNames(*Sub, Long);
}

// llvm-ir2vec (LLVM's cl library) also accepts long options with a single dash, e.g.
// "-level=bb". CLI11 does not, so rewrite those to "--" when the name is one of ours.
std::vector<std::string> normaliseArgs(std::vector<std::string> Args, CLI::App &App) {
  std::set<std::string> Long;
  longNames(App, Long);
  for (std::string &A : Args) {
    if (A.size() < 3 || A[0] != '-' || A[1] == '-')
      continue;
    std::string Name = A.substr(1, A.find('=') - 1);
    if (Long.count(Name))
      A.insert(0, "-");
  }
  std::reverse(Args.begin(), Args.end()); // CLI11 takes argument vectors in reverse
  return Args;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  // Every module's IR is built and torn down in turn; by default glibc hands the freed memory
  // back to the kernel and page-faults it in again for the next module, which cost as much
  // system time as parsing itself. Keep it in the process instead (peak RSS is unchanged).
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  Options O;
  CLI::App App("IR2Vec workbench: LLVM 22 IR2Vec embeddings, exact to the bit.", ToolName);
  App.set_version_flag("--version", std::string("ir2vec ") + WB_VERSION + " (LLVM " +
                                        WB_LLVM_VERSION + ")");
  App.footer(ExitCodeHelp);
  App.require_subcommand(1);

  CLI::App *Entities = App.add_subcommand(
      "entities", "Print the 110 vocabulary entities (name<TAB>id), as llvm-ir2vec entities");
  addCommonOptions(*Entities, O, "Ignored (accepted for llvm-ir2vec compatibility)");
  CLI::App *Triplets = App.add_subcommand(
      "triplets", "Print knowledge-graph triplets of modules, as llvm-ir2vec triplets");
  addCommonOptions(*Triplets, O, ManyInputs);
  Triplets->add_option("--format", O.Format,
                       "text (llvm-ir2vec's) or openke (-o DIR: train2id.txt, entity2id.txt, "
                       "relation2id.txt as generateTriplets.py writes them, plus "
                       "triplet_counts.txt and manifest.json; docs/formats/triplets-openke.md)")
      ->check(CLI::IsMember({"text", "openke"}));
  Triplets->add_flag("--extended-relations", O.Extended,
                     "Also relate compares to their predicates and instructions to their "
                     "operands' types (an extension; without it the output equals "
                     "llvm-ir2vec's)");
  Triplets->add_option("--opt-levels", O.OptLevels,
                       "With --format openke: run LLVM's default pipelines in-process on each "
                       "module first, as generateTriplets.py does (comma list of O0,O1,O2,O3,"
                       "Os,Oz)")
      ->type_name("LIST");
  Triplets->add_option("--opt-sample", O.OptSample,
                       "Use only K of --opt-levels per module, drawn with --seed")
      ->type_name("K");
  Triplets->add_option("--weighting", O.Weighting,
                       "With --format openke: unique (each triplet once, as "
                       "generateTriplets.py) or frequency (each as often as it occurs)")
      ->check(CLI::IsMember({"unique", "frequency"}));
  Triplets->add_option("--seed", O.Seed, "Seed for --opt-sample");
  CLI::App *Embeddings = App.add_subcommand(
      "embeddings", "Embed functions, blocks or instructions of one or many modules");
  addCommonOptions(*Embeddings, O, ManyInputs);
  Embeddings->add_option("--level", O.LevelName, "Granularity: inst, bb or func")
      ->check(CLI::IsMember({"inst", "bb", "func"}));
  Embeddings->add_option("--function", O.Function, "Only this function (exact IR name)")
      ->type_name("NAME");
  Embeddings->add_option("--precision", O.Precision,
                         "Text format: digits after the decimal point (llvm-ir2vec prints 2)")
      ->check(CLI::Range(0u, wb::ir2vec::MaxPrecision));
  Embeddings->add_option("--format", O.Format,
                         "text (llvm-ir2vec's) or hdf5 (lossless float64, needs -o; schema in "
                         "docs/formats/embeddings-hdf5.md)")
      ->check(CLI::IsMember({"text", "hdf5"}));
  Embeddings->add_flag("--counts", O.Counts,
                       "With --format hdf5: write vocabulary-independent entity counts instead "
                       "of embeddings (turn them into embeddings with from-counts)");
  Embeddings->add_flag("--inst-text", O.InstText,
                       "With --format hdf5 --level inst: also store each instruction as LLVM "
                       "prints it (instructions/text); printing costs more than parsing");
  Embeddings->add_flag("--resume", O.Resume,
                       "With --format hdf5: continue an interrupted run of the same command "
                       "from its last checkpoint");
  CLI::App *FromCounts = App.add_subcommand(
      "from-counts", "Turn an entity-counts file (--counts) into embeddings with a vocabulary");
  addCommonOptions(*FromCounts, O, "The counts file (.h5)");
  for (CLI::App *Sub : {Embeddings, FromCounts})
    Sub->add_option("--compress", O.Compress,
                    "Deflate level 1-9 for embedding data (smaller file, much slower)")
        ->check(CLI::Range(0u, 9u));
  CLI::App *Vocab = App.add_subcommand("vocab", "Train, evaluate and export vocabularies");
  Vocab->require_subcommand(1);
  CLI::App *Train = Vocab->add_subcommand(
      "train", "Train a TransE vocabulary on OpenKE triplets (ir2vec triplets --format openke)");
  CLI::App *Eval = Vocab->add_subcommand(
      "eval", "Link prediction (MR, MRR, Hits@k) on held-out triplets and analogies, for any "
              "vocabulary files");
  CLI::App *Export = Vocab->add_subcommand(
      "export", "Write the default vocabulary (or --vocab IN) as LLVM JSON or HDF5");
  CLI::App *Split = Vocab->add_subcommand(
      "split", "Write an OpenKE directory with the train/valid/test split made explicit");
  Split->add_option("-o", O.Output, "Output directory")->type_name("DIR");
  for (CLI::App *Sub : {Train, Eval, Split}) {
    Sub->add_option("dir", O.Inputs, "OpenKE directory")->type_name("DIR")->expected(1);
    Sub->add_option("--valid-fraction", O.Split.Valid,
                    "Held-out validation fraction of the unique triplets (without valid2id.txt)");
    Sub->add_option("--test-fraction", O.Split.Test,
                    "Held-out test fraction (without test2id.txt)");
    Sub->add_option("--split-seed", O.Split.Seed, "Seed of the train/valid/test split");
    Sub->add_option("--distance", O.Distance, "TransE distance: l1 or l2")
        ->check(CLI::IsMember({"l1", "l2"}));
    Sub->add_flag("-q,--quiet", O.Quiet, "No progress line or summary");
  }
  Train->add_option("-o", O.Output, "Output vocabulary: .json (LLVM 22 format) or .h5")
      ->type_name("FILE");
  Train->add_option("--hdf5", O.HDF5Output,
                    "Also write the HDF5 form (relations and provenance included)")
      ->type_name("FILE");
  Train->add_option("--dim", O.Train.Dim, "Vector dimension")->check(CLI::Range(1u, 4096u));
  Train->add_option("--epochs", O.Train.Epochs, "Training epochs (at most)");
  Train->add_option("--seed", O.Train.Seed, "Seed (initialisation, shuffling, negatives)");
  Train->add_option("--batch-size", O.Train.BatchSize, "Triplets per minibatch");
  Train->add_option("--negatives", O.Train.Negatives, "Corrupted triplets per true one");
  Train->add_option("--margin", O.Train.Margin, "Margin of the ranking loss");
  Train->add_option("--lr", O.Train.LearningRate, "Learning rate");
  Train->add_option("--optimizer", O.OptimizerName, "sgd or adam")
      ->check(CLI::IsMember({"sgd", "adam"}));
  Train->add_option("--corruption", O.CorruptionName,
                    "Which side to corrupt: uniform (50/50) or bernoulli (by relation "
                    "cardinality, Wang et al. 2014)")
      ->check(CLI::IsMember({"uniform", "bernoulli"}));
  Train->add_flag("--no-filter", O.NoFilter,
                  "Allow known training triplets as negatives (default: never)");
  Train->add_flag("--no-normalize", O.NoNormalize,
                  "Do not keep entity vectors at unit length");
  Train->add_option("--weighting", O.Weighting,
                    "unique (each triplet once), frequency (by occurrences) or log "
                    "(by log(1 + occurrences)); counts from triplet_counts.txt")
      ->check(CLI::IsMember({"unique", "frequency", "log"}));
  Train->add_option("-j,--jobs", O.Jobs,
                    "Threads (Hogwild updates; 1, the default, is reproducible)")
      ->check(CLI::Range(1u, 1024u));
  Train->add_option("--eval-every", O.Train.EvalEvery,
                    "Check filtered validation MRR every N epochs and keep the best model "
                    "(0: no early stopping)");
  Train->add_option("--patience", O.Train.Patience,
                    "Stop after this many checks without improvement");
  Eval->add_option("--vocab,--ir2vec-vocab-path", O.Vocabs,
                   "Vocabulary files to compare (JSON or HDF5; repeatable; default: the "
                   "built-in default vocabulary)")
      ->type_name("FILE");
  Eval->add_flag("--json", O.JSONReport, "Print the report as JSON (schema ir2vec.vocab-eval/1)");
  Export->add_option("-o", O.Output, "Output: .json (LLVM 22 format) or .h5")->type_name("FILE");
  Export->add_option("--vocab,--ir2vec-vocab-path", O.VocabPath,
                     "Convert this vocabulary (JSON or HDF5) instead of the default one")
      ->type_name("FILE");
  Export->add_flag("-q,--quiet", O.Quiet, "No warnings");
  for (CLI::App *Sub : {Entities, Triplets, Embeddings, FromCounts, Train, Eval, Split, Export})
    Sub->footer(ExitCodeHelp);
  // Everything after "--" is another program's command line (mlgo run): not ours to parse.
  std::vector<std::string> Args(argv + 1, argv + argc);
  std::vector<std::string> Compiler = wb::tool::splitCompilerCommand(Args);
  std::function<int()> RunMlgo = wb::tool::addMlgoCommands(App, std::move(Compiler));

  try {
    App.parse(normaliseArgs(std::move(Args), App));
  } catch (const CLI::ParseError &E) {
    return App.exit(E) == 0 ? ExitOK : ExitError;
  }
  if (O.Mode == "mir")
    return reportError("--mode=mir: Machine IR is not supported (LLVM IR only)");

  if (App.got_subcommand("mlgo"))
    return RunMlgo();
  if (*Entities)
    return runEntities(O);
  if (*Triplets)
    return runTriplets(O);
  if (*FromCounts)
    return runFromCounts(O);
  if (*Train)
    return runVocabTrain(O);
  if (*Eval)
    return runVocabEval(O);
  if (*Split)
    return runVocabSplit(O);
  if (*Export)
    return runVocabExport(O);
  return runEmbeddings(O);
}
