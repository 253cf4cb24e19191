// `ir2vec evaluate devmap`: downstream evaluation of embeddings on the IR2Vec paper's
// device-mapping task (downstream/Study.h, docs/downstream.md).
#include "tools/ir2vec/Groups.h"

#include "downstream/Study.h"
#include "support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace wb::tool {

namespace {

struct DevmapOptions {
  std::string Data, Spec, Output, Gnuplot = "gnuplot", Clang = "clang-22";
  std::vector<std::string> Vocabularies;
  bool Quiet = false;
  unsigned Jobs = 0;
  double ModuleSeconds = 300;
};

llvm::Expected<support::Outcome> runDevmap(const DevmapOptions &O, const support::Reporter &R) {
  if (!O.Spec.empty() && !O.Vocabularies.empty())
    return support::usageError("--vocab adds arms to the built-in spec; with --spec, name the "
                               "vocabularies in the spec's arms");
  // The vocabularies --vocab adds, resolved once before any work.
  std::vector<ir2vec::EmbeddingChoice> Vocabularies;
  for (const std::string &V : O.Vocabularies) {
    auto E = ir2vec::EmbeddingChoice::resolve(embeddingRequest(V));
    if (!E)
      return E.takeError();
    Vocabularies.push_back(std::move(*E));
  }
  llvm::Expected<downstream::DevmapSpec> Spec =
      O.Spec.empty() ? downstream::defaultDevmapSpec(Vocabularies) : downstream::readDevmapSpec(O.Spec);
  if (!Spec)
    return Spec.takeError();
  // Before any work: the output is no input (the dataset, the spec, a vocabulary; nothing
  // inside the dataset either), and the plot can be drawn (it comes last).
  std::vector<std::string> Inputs = {O.Data, O.Spec};
  for (const downstream::DevmapArm &A : Spec->Arms)
    if (!A.Vocabulary.empty())
      Inputs.push_back(A.Vocabulary);
  llvm::SmallString<256> DataReal, OutReal(O.Output);
  if (!llvm::sys::fs::real_path(O.Data, DataReal)) {
    llvm::sys::fs::make_absolute(OutReal);
    llvm::sys::path::remove_dots(OutReal, /*remove_dot_dot=*/true);
    llvm::SmallString<256> Parent(llvm::sys::path::parent_path(OutReal)), ParentReal;
    if (!llvm::sys::fs::real_path(Parent, ParentReal)) {
      llvm::sys::path::append(ParentReal, llvm::sys::path::filename(OutReal));
      if (ParentReal == DataReal || llvm::StringRef(ParentReal).starts_with((DataReal + "/").str()))
        return support::fileError(O.Output, "cannot write the output: it is inside the dataset " + O.Data);
    }
  }
  // The output is a directory (an existing one keeps its other files): what is checked
  // against the inputs is each entry written in it (an entry that is a symlink is replaced,
  // not what it names).
  std::vector<std::string> Outputs;
  for (const char *N : downstream::DevmapOutputFiles)
    Outputs.push_back(support::pathIn(O.Output, N));
  if (llvm::Error E = checkOutputs(Outputs, Inputs, {}, support::Within::Directory))
    return E;
  // findProgramByName returns a name with a slash as it is: whether it runs is asked too.
  if (auto G = llvm::sys::findProgramByName(O.Gnuplot); !G || !llvm::sys::fs::can_execute(*G))
    return support::usageError("cannot draw the plot: no program " + O.Gnuplot +
                               " (install Debian's gnuplot-nox, or name it with --gnuplot)");
  auto Data = downstream::readDevmap(O.Data);
  if (!Data)
    return Data.takeError();
  downstream::DevmapConfig C;
  C.Run = runSettings(R, O.Jobs);
  C.Clang = O.Clang;
  C.ModuleSeconds = O.ModuleSeconds;
  return support::withCancellation([&](int Cancel) -> llvm::Expected<support::Outcome> {
    C.Run.CancelFd = Cancel;
    auto Result = downstream::runDevmapStudy(*Data, *Spec, C);
    if (!Result)
      return Result.takeError();
    if (llvm::Error E = downstream::writeDevmapOutputs(*Result, O.Output, O.Gnuplot, Cancel))
      return E;
    R.note("wrote " + O.Output + "/report.md: " + std::to_string(Result->Arms.size()) + " arms, " +
           std::to_string(Result->Trainings) + " trainings in " +
           llvm::formatv("{0:f1}", Result->Seconds).str() + " s (embedding " +
           llvm::formatv("{0:f1}", Result->EmbedSeconds).str() + " s, training " +
           llvm::formatv("{0:f1}", Result->TrainSeconds).str() + " s)");
    for (const auto &[F, Why] : Result->LeftOut)
      R.warning(F + ": left out of every arm: " + Why);
    return support::Outcome::complete();
  });
}

} // namespace

void addEvaluateCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx) {
  CLI::App *G = addGroup(App, "evaluate", "Judge embeddings on downstream tasks (docs/downstream.md)");
  auto O = std::make_shared<DevmapOptions>();
  ExitTable Exits = simpleExits();
  Exits.row("0").Meaning = "every arm was trained and judged with every seed and protocol";
  Exits.row("1").Meaning = "nothing usable (bad usage, spec or dataset, a vocabulary that cannot "
                          "be read, an XGBoost or gnuplot failure); nothing is written under "
                          "the output name";
  Exits.Rows.push_back({"130", "interrupted (SIGINT, SIGTERM, SIGHUP); nothing is written"});
  CLI::App *D = addCommand(
      *G, Cmds, "devmap",
      "Heterogeneous device mapping (the IR2Vec paper's task): each arm's features classify "
      "CPU vs GPU with XGBoost under the paper's protocol, folds by kernel and leave one suite "
      "out, over seeds, against the static mapping, Grewe's features and the entity histogram "
      "(paired intervals): report.json, report.md, results.h5, accuracy.png/.svg",
      Exits);
  D->add_option("data", O->Data, "The dataset directory (cgo17-PLATFORM.csv files and kernels_ir/)")
      ->type_name("DIR")
      ->required();
  D->add_option("-o,--output", O->Output,
                "Output directory (report.json, report.md, results.h5, accuracy.png, accuracy.svg)")
      ->type_name("DIR")
      ->required();
  D->add_option("--spec", O->Spec,
                "The arms and settings (JSON, docs/downstream.md); default: the controls and the "
                "default vocabulary, symbolic and flow-aware, 10 seeds, all three protocols")
      ->type_name("FILE");
  D->add_option("--vocab", O->Vocabularies,
                "Without --spec: also this vocabulary file, symbolic and flow-aware (repeatable)")
      ->type_name("FILE");
  D->add_option("--clang", O->Clang, "The clang that recompiles kernels LLVM 22 cannot read");
  D->add_option("--gnuplot", O->Gnuplot, "The gnuplot that draws the plot");
  addModuleTimeLimit(*D, O->ModuleSeconds);
  addJobs(*D, O->Jobs, "Kernels embedded and classifiers trained in parallel");
  addQuiet(*D, O->Quiet, "No notes, warnings or progress line");
  setRun(Cmds, D, [&Ctx, O, Exits] {
    support::Reporter R = Ctx.reporter(ToolName, O->Quiet);
    return finish(R, Exits, runDevmap(*O, R));
  });
}

} // namespace wb::tool
