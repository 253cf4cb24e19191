// ir2vec: the command users run. MLGO hosts are started once per compilation, so the
// common `ir2vec mlgo run` (policies default, no-evict, random, replay; no embeddings) is
// served right here, by a program that links only LLVM's Support library statically and
// starts in about 3 ms. Every other command, and any `mlgo run` that needs models (HDF5,
// Armadillo) or embeddings (the IR reader and the engine), is handed to the full tool
// `ir2vec-full` next to this program, with the same arguments. (The full tool loads libLLVM,
// HDF5 and Armadillo: about 30 ms before main, which would be the host's whole overhead on a
// small module; see docs/mlgo.md, "Measured".)
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
  if (Args.size() < 2 || Args[1] != "run")
    return std::nullopt;
  std::vector<std::string> Compiler = wb::tool::splitCompilerCommand(Args);
  if (Compiler.empty())
    return std::nullopt;
  wb::tool::MlgoOptions O;
  O.Command = std::move(Compiler);
  CLI::App App("", "ir2vec");
  CLI::App *Mlgo = App.add_subcommand("mlgo");
  auto [Run, Emb] = wb::tool::addRunCommand(*Mlgo, O);
  try {
    std::reverse(Args.begin(), Args.end());
    App.parse(Args);
  } catch (const CLI::Error &) {
    return std::nullopt;
  }
  if (Emb->count() || O.Policy.Name == "linear" || O.Policy.Name == "mlp")
    return std::nullopt;
  return wb::tool::runRun(O, Emb, {});
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
