// Exploration for inlining-for-size (BC-Max, arXiv 2403.19462; shared doc policy-training.md,
// sections 1 and 7): per module, the heuristic's trajectory, then single flips of its
// decisions, each rollout replaying the best trajectory so far up to the flipped decision and
// following the heuristic afterwards; a rollout that gives a smaller .text becomes the best
// (greedy refinement). Every rollout's decisions and .text are kept, and the best trajectory's
// observations with every feature the compiler sent; observations with embedding features
// for other vocabularies come from replaying the best decisions once per vocabulary.
//
// Written as HDF5, schema ir2vec.mlgo-exploration/1 (docs/formats/mlgo-exploration.md).
// Resumable: each finished module is kept in OUT.parts/ until the file is complete.
#pragma once

#include "features/TrainingLog.h"
#include "mlgo/Compile.h"
#include "mlgo/Split.h"
#include "support/Diagnostics.h"
#include "support/Ranks.h"
#include "support/Error.h"
#include "support/Names.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb::mlgo {

inline constexpr const char *ExplorationSchema = "ir2vec.mlgo-exploration/1";

/// The order in which single flips of a trajectory are tried.
enum class FlipOrder {
  Inlined,  // the heuristic's inline decisions first, each group by margin
  Margin,   // decisions the heuristic made closest to its -Oz threshold first
  Position, // in the order the compiler asked
  Random,   // a seeded permutation
};
inline constexpr support::Named<FlipOrder> FlipOrderNames[] = {{FlipOrder::Inlined, "inlined"},
                                                              {FlipOrder::Margin, "margin"},
                                                              {FlipOrder::Position, "position"},
                                                              {FlipOrder::Random, "random"}};

struct ExploreConfig {
  Toolchain Tools;
  unsigned Budget = 16; // compilations per module in the search, the heuristic's included
  uint64_t Seed = 1;
  FlipOrder Order = FlipOrder::Inlined;
  /// Observations are also recorded with embedding features for each ("" = the default
  /// vocabulary), by one replay of the best decisions per vocabulary and module.
  std::vector<std::string> Vocabularies;
  /// Explore the held-out side instead: labels for measuring a policy's agreement on modules
  /// it never saw. Recorded in the file (attribute side), and `mlgo train` refuses such files.
  bool HeldOut = false;
  unsigned Jobs = 1;
  bool ShowProgress = false;
  /// The ranks of an MPI run (support/Ranks.h): each explores with Jobs workers; rank 0
  /// writes the parts and the file.
  support::Distribution Dist;
  support::DiagnosticHandler Report = [](const support::Diagnostic &) {};

  llvm::Error validate() const;
};

struct Rollout {
  std::vector<int64_t> Decisions;
  int64_t TextSize = -1; // -1: failed
  int64_t Flip = -1;     // the flipped decision's index (-1: the heuristic's trajectory)
  std::string Error;
};

struct ModuleExploration {
  std::string Path, Error; // Error: the heuristic's trajectory could not be compiled
  int64_t BaselineSize = -1, BestSize = -1;
  size_t Best = 0; // index into Rollouts
  std::vector<Rollout> Rollouts;
  /// [0]: the best trajectory's observations as explored; [1 + v]: replayed with
  /// Vocabularies[v] (the same decisions, more features).
  std::vector<features::Log> Observations;
};

/// Explores one module. ModuleSeed makes the random order reproducible per module.
ModuleExploration exploreModule(const std::string &Path, const ExploreConfig &C,
                                uint64_t ModuleSeed);

/// `ir2vec mlgo explore`: splits Inputs, explores the training side, writes Output.
llvm::Expected<support::Outcome> runExploration(const std::vector<std::string> &Inputs,
                                                const SplitOptions &Split,
                                                const ExploreConfig &C,
                                                const std::string &Output, bool Resume);

} // namespace wb::mlgo
