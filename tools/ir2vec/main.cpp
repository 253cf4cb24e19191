// ir2vec: the workbench's command-line driver. Option names and output formats follow
// llvm-ir2vec (LLVM 22.1.8) so it can replace it in scripts; all logic lives in the libraries.
#include "ir2vec/TextFormat.h"
#include "vocab/IO.h"
#include "vocab/Triplets.h"
#include "vocab/Vocabulary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

#include <CLI/CLI.hpp>

#include <set>
#include <string>
#include <vector>

namespace {

constexpr const char *ToolName = "ir2vec";

// Exit statuses, also listed in --help and README.md.
enum ExitCode : int { ExitOK = 0, ExitError = 1 };

constexpr const char *ExitCodeHelp =
    "Exit status:\n"
    "  0  success\n"
    "  1  error: bad usage, unreadable or invalid IR (the LLVM verifier's message is shown),\n"
    "     bad vocabulary (file, section, key and element are named), unknown --function,\n"
    "     or output that cannot be written. No output file is left behind on error.\n";

struct Options {
  std::string Input = "-";
  std::string Output = "-";
  std::string Mode = "llvm";
  std::string VocabPath;
  std::string KindName = "symbolic";
  std::string OpcWeight = "1.0", TypeWeight = "0.5", ArgWeight = "0.2";
  std::string LevelName = "func";
  std::string Function;
  unsigned Precision = 2;
  bool Quiet = false;
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

// Opens Path, lets Write fill it, and renames it into place only if everything succeeded.
template <typename WriteFn> int writeOutput(const std::string &Path, WriteFn Write) {
  auto Out = wb::vocab::AtomicOutput::create(Path);
  if (!Out)
    return reportError(llvm::toString(Out.takeError()));
  if (llvm::Error E = Write(Out->os()))
    return reportError(llvm::toString(std::move(E)));
  if (llvm::Error E = Out->commit())
    return reportError(llvm::toString(std::move(E)));
  return ExitOK;
}

llvm::Expected<wb::vocab::ModuleInput> readInput(const Options &O, llvm::LLVMContext &Ctx) {
  auto In = wb::vocab::readModule(O.Input, Ctx);
  if (In)
    reportWarnings(O, In->Warnings);
  return In;
}

int runEntities(const Options &O) {
  return writeOutput(O.Output, [](llvm::raw_ostream &OS) {
    wb::vocab::writeEntitiesText(OS);
    return llvm::Error::success();
  });
}

int runTriplets(const Options &O) {
  llvm::LLVMContext Ctx;
  auto In = readInput(O, Ctx);
  if (!In)
    return reportError(llvm::toString(In.takeError()));
  return writeOutput(O.Output, [&](llvm::raw_ostream &OS) {
    wb::vocab::writeTripletsText(OS, wb::vocab::collectTriplets(*In->M));
    return llvm::Error::success();
  });
}

int runEmbeddings(const Options &O) {
  auto W = weightsOf(O);
  if (!W)
    return reportError(llvm::toString(W.takeError()));
  auto K = wb::ir2vec::parseKind(O.KindName);
  if (!K)
    return reportError(llvm::toString(K.takeError()));
  auto L = wb::ir2vec::parseLevel(O.LevelName);
  if (!L)
    return reportError(llvm::toString(L.takeError()));
  if (O.VocabPath.empty())
    return reportError("no vocabulary given: pass --ir2vec-vocab-path FILE (an LLVM IR2Vec "
                       "vocabulary JSON file)");
  auto Vocab = wb::vocab::readVocabularyJSON(O.VocabPath, *W);
  if (!Vocab)
    return reportError(llvm::toString(Vocab.takeError()));
  reportWarnings(O, Vocab->warnings(O.VocabPath));

  llvm::LLVMContext Ctx;
  auto In = readInput(O, Ctx);
  if (!In)
    return reportError(llvm::toString(In.takeError()));

  wb::ir2vec::TextOptions T;
  T.EmbeddingKind = *K;
  T.Granularity = *L;
  T.Precision = O.Precision;
  if (!O.Function.empty())
    T.FunctionName = O.Function;
  return writeOutput(O.Output, [&](llvm::raw_ostream &OS) {
    return wb::ir2vec::writeEmbeddingsText(OS, *In->M, Vocab->Vocab, T);
  });
}

// Options every subcommand accepts, as in llvm-ir2vec (where they are global).
void addCommonOptions(CLI::App &Sub, Options &O, bool TakesInput) {
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
  Sub.add_flag("-q,--quiet", O.Quiet, "Do not print warnings");
  Sub.add_option("input", O.Input,
                 TakesInput ? "Input .ll or .bc file ('-' = standard input)"
                            : "Ignored (accepted for llvm-ir2vec compatibility)")
      ->type_name("FILE");
}

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
  Options O;
  CLI::App App("IR2Vec workbench: LLVM 22 IR2Vec embeddings, exact to the bit.", ToolName);
  App.set_version_flag("--version", std::string("ir2vec ") + WB_VERSION + " (LLVM " +
                                        WB_LLVM_VERSION + ")");
  App.footer(ExitCodeHelp);
  App.require_subcommand(1);

  CLI::App *Entities = App.add_subcommand(
      "entities", "Print the 110 vocabulary entities (name<TAB>id), as llvm-ir2vec entities");
  addCommonOptions(*Entities, O, /*TakesInput=*/false);
  CLI::App *Triplets = App.add_subcommand(
      "triplets", "Print knowledge-graph triplets of a module, as llvm-ir2vec triplets");
  addCommonOptions(*Triplets, O, /*TakesInput=*/true);
  CLI::App *Embeddings = App.add_subcommand(
      "embeddings", "Print IR2Vec embeddings of functions, blocks or instructions");
  addCommonOptions(*Embeddings, O, /*TakesInput=*/true);
  Embeddings->add_option("--level", O.LevelName, "Granularity: inst, bb or func")
      ->check(CLI::IsMember({"inst", "bb", "func"}));
  Embeddings->add_option("--function", O.Function, "Only this function (exact IR name)")
      ->type_name("NAME");
  Embeddings->add_option("--precision", O.Precision,
                         "Digits after the decimal point (llvm-ir2vec prints 2)")
      ->check(CLI::Range(0u, wb::ir2vec::MaxPrecision));
  for (CLI::App *Sub : {Entities, Triplets, Embeddings})
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
  return runEmbeddings(O);
}
