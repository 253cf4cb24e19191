// `ir2vec corpus ...`: corpora from real builds (corpus/Extract.h).
#include "tools/ir2vec/Groups.h"

#include "corpus/Extract.h"
#include "support/Process.h"

#include <unistd.h>

namespace wb::tool {

namespace {

struct ExtractOptions {
  corpus::ExtractConfig Config;
  std::vector<std::string> Inputs;
  std::string CmdFilter;
  unsigned Jobs = 0;
  bool Quiet = false;
};

llvm::Expected<support::Outcome> runExtract(ExtractOptions &O, const support::Reporter &R) {
  corpus::ExtractConfig &C = O.Config;
  if (!O.CmdFilter.empty())
    C.CmdFilter = O.CmdFilter;
  C.Run = runSettings(R, O.Jobs);
  return support::withCancellation([&](int Cancel) {
    C.Run.CancelFd = Cancel;
    return corpus::runExtraction(O.Inputs, C);
  });
}

} // namespace

void addCorpusCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx) {
  CLI::App *Corpus = addGroup(App, "corpus", "Make corpora from real builds");

  auto X = std::make_shared<ExtractOptions>();
  ExitTable Exits = batchExits();
  Exits.Rows = {
      {"0", "every object gave a module"},
      {"1", "nothing usable (bad usage, no object, no object with embedded bitcode); no corpus "
            "description is written"},
      {"2", "some objects had no embedded bitcode or command line, or could not be read (each "
            "is reported); the corpus holds the others"},
      {"130", "interrupted (SIGINT, SIGTERM, SIGHUP): no corpus description is written"}};
  CLI::App *Extract = addCommand(
      *Corpus, Cmds, "extract",
      "Extract a corpus from objects built with -Xclang -fembed-bitcode=all: each object's "
      "module (.llvmbc) and clang -cc1 command line (.llvmcmd) in ml-compiler-opt's layout "
      "(NAME.bc, NAME.cmd, corpus_description.json), as LLVM's extract_ir; mlgo collect, "
      "explore, eval and ablate then compile each module with its own command line",
      Exits);
  Extract
      ->add_option("inputs", X->Inputs,
                   "Objects, directories (every *.o below), @lists, compilation databases "
                   "(compile_commands.json)")
      ->required();
  addOutput(*Extract, X->Config.OutputDir, "Output corpus directory", /*Stdout=*/false)
      ->type_name("DIR")
      ->required();
  Extract
      ->add_option("--obj-base-dir", X->Config.ObjBaseDir,
                   "Module names are object paths relative to this directory (default: a "
                   "directory input, a database entry's directory, else the current directory)")
      ->type_name("DIR");
  Extract
      ->add_option("--cmd-filter", X->CmdFilter,
                   "Keep only modules with a recorded argument matching this regular "
                   "expression (e.g. '^-Oz$')")
      ->type_name("REGEX");
  addJobs(*Extract, X->Jobs, "Objects in parallel");
  addQuiet(*Extract, X->Quiet, "No notes or progress line");
  setRun(Cmds, Extract, [&Ctx, X, Exits] {
    support::Reporter R = Ctx.reporter("ir2vec corpus", X->Quiet);
    return finish(R, Exits, runExtract(*X, R));
  });
}

} // namespace wb::tool
