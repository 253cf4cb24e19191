// ir2vec: the workbench's command-line driver. Option names and output formats follow
// llvm-ir2vec (LLVM 22.1.8) so it can replace it in scripts; all logic lives in the libraries.
#include "ir2vec/EmbeddingBatch.h"
#include "ir2vec/FromCounts.h"
#include "vocab/IO.h"
#include "vocab/Inputs.h"
#include "vocab/TripletCorpus.h"
#include "vocab/Triplets.h"
#include "vocab/Vocabulary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/InitLLVM.h"
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
  if (O.VocabPath.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no vocabulary given: pass --ir2vec-vocab-path FILE (an LLVM "
                                   "IR2Vec vocabulary JSON file)");
  auto V = wb::vocab::readVocabularyJSON(O.VocabPath, *W);
  if (!V)
    return V.takeError();
  auto SHA = wb::vocab::sha256OfFile(O.VocabPath);
  if (!SHA)
    return SHA.takeError();
  reportWarnings(O, V->warnings(O.VocabPath));
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

// llvm-ir2vec (LLVM's cl library) also accepts long options with a single dash, e.g.
// "-level=bb". CLI11 does not, so rewrite those to "--" when the name is one of ours.
std::vector<std::string> normaliseArgs(int Argc, char **Argv, CLI::App &App) {
  std::set<std::string> Long;
  for (CLI::App *Sub : App.get_subcommands([](CLI::App *) { return true; }))
    for (const CLI::Option *Opt : Sub->get_options())
      for (const std::string &N : Opt->get_lnames())
        Long.insert(N);
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
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
  for (CLI::App *Sub : {Entities, Triplets, Embeddings, FromCounts})
    Sub->footer(ExitCodeHelp);

  try {
    std::vector<std::string> Args = normaliseArgs(argc, argv, App);
    App.parse(Args);
  } catch (const CLI::ParseError &E) {
    return App.exit(E) == 0 ? ExitOK : ExitError;
  }
  if (O.Mode == "mir")
    return reportError("--mode=mir: Machine IR is not supported (LLVM IR only)");

  if (*Entities)
    return runEntities(O);
  if (*Triplets)
    return runTriplets(O);
  if (*FromCounts)
    return runFromCounts(O);
  return runEmbeddings(O);
}
