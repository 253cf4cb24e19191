// `ir2vec mlgo run`: options and the session command, shared by the full tool and the
// launcher's fast path (tools/ir2vec/launcher.cpp), which links only LLVM's Support library.
#pragma once

#include "runners/InteractiveHost.h"
#include "runners/Policies.h"

#include "llvm/ADT/Twine.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace wb::tool {

using runners::Task;

struct MlgoOptions {
  std::string TaskName = "inline";
  runners::PolicyOptions Policy;
  bool ZeroMissing = false;
  std::string LogPath, TranscriptPath, ModulePath, Output;
  std::vector<std::string> Embeddings; // 0 or 1 values when given
  double Timeout = 0;
  bool Stats = false, Quiet = false;
  unsigned Jobs = 0;
  std::vector<std::string> Command, Inputs;
  std::string Opt = "opt-22", Llc = "llc-22";
};

/// What only the full tool can do: load HDF5 models and compute embeddings.
struct FullHooks {
  std::function<llvm::Expected<std::unique_ptr<runners::Policy>>(Task,
                                                                 const runners::PolicyOptions &)>
      LoadModel;
  std::function<std::function<llvm::Expected<runners::Augmentation>(llvm::StringRef)>(
      Task, std::string Vocab, std::string Module, std::vector<std::string> Command)>
      Augmenter;
};

inline constexpr const char *MlgoToolName = "ir2vec mlgo";

/// For `ir2vec mlgo ...` command lines: removes "--" and what follows from Args and returns it
/// (another program's command line, never parsed as ours). Other command lines are left
/// alone and give an empty result.
std::vector<std::string> splitCompilerCommand(std::vector<std::string> &Args);

/// "ir2vec mlgo: error: Msg" on standard error; returns Status.
int fail(const llvm::Twine &Msg, int Status = 1);
/// Blocks SIGINT/SIGTERM/SIGHUP in this thread and the threads it starts and returns a
/// signalfd for them (sessions poll it: a stopped session leaves nothing behind).
int cancellationFd();
std::optional<Task> taskOf(const MlgoOptions &O);
/// --embeddings: std::nullopt when not given, "" for the default vocabulary.
std::optional<std::string> embeddingsOf(const MlgoOptions &O, const CLI::Option *Flag);

/// --task, for every mlgo subcommand that has one.
void addTaskOption(CLI::App &Sub, MlgoOptions &O);
/// The policy options of run and collect; returns the --embeddings option.
CLI::Option *addPolicyOptions(CLI::App &Sub, MlgoOptions &O);
/// Adds `run` under the mlgo subcommand; returns it and its --embeddings option.
std::pair<CLI::App *, CLI::Option *> addRunCommand(CLI::App &Mlgo, MlgoOptions &O);
int runRun(const MlgoOptions &O, const CLI::Option *EmbFlag, const FullHooks &H);

} // namespace wb::tool
