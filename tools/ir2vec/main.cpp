// ir2vec-full: every command of the workbench (the launcher `ir2vec` hands it everything it
// does not serve itself). Option names and output formats follow llvm-ir2vec (LLVM 22.1.8) so
// it can replace it in scripts. The subcommands live in one file per group (Groups.h); each
// is a thin driver over one library call.
#include "cluster/Job.h"
#include "corpus/H5.h"
#include "support/Files.h"
#include "support/Interrupts.h"
#include "tools/ir2vec/Groups.h"

#include "llvm/Support/InitLLVM.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>

namespace {

constexpr const char *ExitHelp =
    "Exit status: 0 success; 1 nothing usable (bad usage, no input, every input failed; no "
    "output is left behind); 2 some inputs failed and were skipped; 130 interrupted (commands "
    "that stop by themselves exit 130; the others end by the signal, which shells show as 128 + "
    "its number: 130 for SIGINT). `mlgo "
    "run` exits with the compiler's status (64, 124, 125 for its own failures). Each "
    "subcommand's --help lists its own.";

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  // Before anything starts a thread: SIGINT, SIGTERM and SIGHUP go to one watcher thread, not
  // to LLVM's handler (support/Interrupts.h says why).
  if (llvm::Error E = wb::support::takeInterrupts()) {
    llvm::errs() << wb::tool::ToolName << ": error: " << llvm::toString(std::move(E)) << "\n";
    return 1;
  }
  // A write past a file-size limit (RLIMIT_FSIZE) must fail with EFBIG and become an error
  // naming the file, not kill us by SIGXFSZ with a stack dump and partial output. (After
  // InitLLVM, whose handlers would otherwise take the signal; children get the default back,
  // support/Process.cpp.)
  signal(SIGXFSZ, SIG_IGN);
  // Every module's IR is built and torn down in turn; by default glibc hands the freed memory
  // back to the kernel and page-faults it in again for the next module, which cost as much
  // system time as parsing itself. Keep it in the process instead (peak RSS is unchanged).
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  // Started by mpirun or srun as one of several ranks: join the job (cluster/Job.h).
  wb::tool::RunContext Ctx;
  llvm::Expected<std::unique_ptr<wb::support::Ranks>> Job = wb::cluster::joinJob(argc, argv);
  if (!Job) {
    llvm::errs() << wb::tool::ToolName << ": error: " << llvm::toString(Job.takeError()) << "\n";
    return 1;
  }
  std::unique_ptr<wb::support::Ranks> Ranks = std::move(*Job);
  Ctx.Ranks = Ranks.get();
  CLI::App App("IR2Vec workbench: LLVM 22 IR2Vec embeddings, exact to the bit.",
               wb::tool::ToolName);
  App.set_version_flag("--version", std::string("ir2vec ") + WB_VERSION + " (LLVM " +
                                        WB_LLVM_VERSION + ")");
  App.footer(ExitHelp);
  App.require_subcommand(1);
  // Every option's help shows its default.
  App.option_defaults()->always_capture_default();
  // Everything after "--" is another program's command line (mlgo run): not ours to parse.
  std::vector<std::string> Args(argv + 1, argv + argc);
  std::vector<std::string> Compiler = wb::tool::splitCompilerCommand(Args);
  wb::tool::Commands Cmds;
  wb::tool::addTripletCommands(App, Cmds, Ctx);
  wb::tool::addEmbeddingCommands(App, Cmds, Ctx);
  wb::tool::addVocabCommands(App, Cmds, Ctx);
  wb::tool::addCorpusCommands(App, Cmds, Ctx);
  wb::tool::addEvaluateCommands(App, Cmds, Ctx);
  wb::tool::addMlgoCommands(App, Cmds, std::move(Compiler), Ctx);
  int Status = wb::tool::parseAndRun(App, Cmds, std::move(Args), Ctx);
  // `ir2vec ... | head`: a reader that went away ends us by SIGPIPE, silently, as Unix tools.
  if (llvm::Error E = wb::support::finishStandardOutput()) {
    llvm::errs() << wb::tool::ToolName << ": error: " << llvm::toString(std::move(E)) << "\n";
    Status = Status ? Status : 1;
  }
  if (Ranks && !Ranks->root() && Status != 0 && !wb::cluster::awaitFinish(*Ranks)) {
    // This rank failed where rank 0 did not (a file missing on this node): rank 0 would wait
    // for it for ever. Its errors, then the end of the job.
    llvm::errs() << Ctx.Held;
    wb::cluster::abortJob(*Ranks, Status);
  }
  wb::cluster::leaveJob(std::move(Ranks));
  if (wb::corpus::h5::filesLeftOpen()) {
    // Our outputs are settled (the error is reported, nothing is under a requested name);
    // HDF5's termination would crash on the file it could not close.
    llvm::outs().flush();
    llvm::errs().flush();
    std::fflush(nullptr);
    std::_Exit(Status);
  }
  return Status;
}
