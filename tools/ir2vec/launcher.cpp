// ir2vec: the command users run. MLGO hosts are started once per compilation, so the common
// `ir2vec mlgo run` is served right here, by a program that links LLVM's Support library
// statically and starts in about 3 ms, whenever the policy table says the policy needs
// nothing more (no model file) and no embeddings are asked for. Every other command, and any
// run this program cannot serve, is handed to the full tool `ir2vec-full` next to this
// program, with the same arguments. (The full tool loads libLLVM, HDF5 and Armadillo: about
// 30 ms before main, which would be the host's whole overhead on a small module; see
// docs/mlgo.md, "Measured".)
#include "cluster/Launch.h"
#include "tools/ir2vec/MlgoRun.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace {

/// Runs `mlgo run` here when this program can; std::nullopt = hand it to the full tool
/// (which then also prints help and usage errors, identically).
std::optional<int> fastRun(int Argc, char **Argv) {
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
  if (Args.size() < 2 || Args[0] != "mlgo" || Args[1] != "run")
    return std::nullopt;
  if (wb::cluster::launchedRanks() >= 2)
    return std::nullopt; // the full tool joins the job, and refuses to run a host per rank
  auto O = std::make_shared<wb::tool::RunOptions>();
  O->Command = wb::tool::splitCompilerCommand(Args);
  CLI::App App("", wb::tool::ToolName);
  CLI::App *Mlgo = App.add_subcommand("mlgo");
  wb::tool::Commands Cmds;
  wb::tool::addRunCommand(*Mlgo, Cmds, O, wb::tool::FullHooks{});
  try {
    App.parse(wb::tool::normaliseArgs(Args, App));
  } catch (const CLI::Error &) {
    return std::nullopt;
  }
  if (!wb::tool::servedByLauncher(*O))
    return std::nullopt;
  return Cmds.front().Run();
}

} // namespace

int main(int Argc, char **Argv) {
  if (std::optional<int> Status = fastRun(Argc, Argv))
    return *Status;
  std::string Self = llvm::sys::fs::getMainExecutable(Argv[0], (void *)&main);
  llvm::SmallString<256> Full(llvm::sys::path::parent_path(Self));
  llvm::sys::path::append(Full, "ir2vec-full");
  std::vector<char *> Args(Argv, Argv + Argc);
  Args.push_back(nullptr);
  ::execv(Full.c_str(), Args.data());
  std::fprintf(stderr, "ir2vec: error: cannot run %s: %s\n", Full.c_str(), std::strerror(errno));
  return 1;
}
