// `ir2vec mlgo run` and the policy options it shares with `mlgo collect`. Both programs serve
// `mlgo run`: the launcher (tools/ir2vec/launcher.cpp, LLVM Support only) when the policy
// table says the policy needs nothing more, the full tool otherwise.
#pragma once

#include "features/Augment.h"
#include "features/RegallocScore.h"
#include "runners/Policies.h"
#include "tools/ir2vec/Command.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wb::tool {

/// The options of a policy-driven session, as run and collect spell them.
struct PolicyCLI {
  std::string Task = "inline";
  runners::PolicyOptions Policy;
  bool ZeroMissing = false;
  std::vector<std::string> Embeddings; // 0 or 1 values when given
  CLI::Option *EmbeddingsFlag = nullptr;
  double Timeout = 0;
  bool Quiet = false;

  /// --embeddings: std::nullopt when not given, "" for the default vocabulary.
  std::optional<std::string> embeddings() const;
};

/// --task (Tasks: the tasks the subcommand supports) and the policy options.
void addPolicyOptions(CLI::App &Sub, PolicyCLI &O, const std::vector<std::string> &Tasks);

struct RunOptions {
  PolicyCLI Session;
  std::string LogPath, TranscriptPath, ModulePath;
  bool Stats = false;
  bool Reward = false; // evict/priority: score the allocation from the compiler's remarks
  std::vector<std::string> Command; // what followed "--"
  std::vector<std::string> Stray;   // arguments before "--" that are not options
};

/// What only the full tool can do: load HDF5 models and compute embeddings.
struct FullHooks {
  std::function<llvm::Expected<std::unique_ptr<runners::Policy>>(runners::Task,
                                                                 const runners::PolicyOptions &)>
      LoadModel;
  /// The augmenter of --embeddings VOCAB ("" = the default vocabulary), resolved once.
  std::function<llvm::Expected<features::Augmenter>(runners::Task, const std::string &Vocab,
                                                     std::string Module)>
      Augmenter;
  /// Reads the register allocator's remarks (features::readRegallocRemarks).
  std::function<llvm::Expected<std::vector<features::FunctionRegalloc>>(llvm::StringRef)>
      ReadRemarks;
};

ExitTable runExits();
/// Adds `run` under Mlgo.
CLI::App *addRunCommand(CLI::App &Mlgo, Commands &Cmds, std::shared_ptr<RunOptions> O,
                        FullHooks H);
/// Whether a parsed `mlgo run` can run in the launcher: no embeddings, no --reward, and a policy that the
/// table says needs nothing beyond LLVM Support.
bool servedByLauncher(const RunOptions &O);

} // namespace wb::tool
