// Exploration for inlining-for-size (BC-Max, arXiv 2403.19462; shared doc policy-training.md,
// sections 1 and 7): per module, the heuristic's trajectory, then (with rules) whole-module
// rollouts of margin rules around the heuristic, then single flips of the best trajectory's
// decisions, each rollout replaying the best trajectory so far up to the flipped decision and
// following the best's policy (the heuristic or its rule) afterwards; a rollout that gives a
// smaller .text becomes the best (greedy refinement). Every rollout's decisions and .text are kept, and the best trajectory's
// observations with every feature the compiler sent; observations with embedding features
// for other vocabularies come from replaying the best decisions once per vocabulary.
//
// Written as HDF5, schema ir2vec.mlgo-exploration/3 (docs/formats/mlgo-exploration.md).
// Resumable: each finished module is kept in OUT.parts/ until the file is complete.
#pragma once

#include "features/TrainingLog.h"
#include "mlgo/pipelines/Compile.h"
#include "mlgo/pipelines/ExplorationFile.h"
#include "mlgo/pipelines/Split.h"
#include "runners/Policies.h"
#include "support/Diagnostics.h"
#include "support/RunSettings.h"
#include "support/Error.h"
#include "support/Names.h"

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb::mlgo {

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

inline constexpr support::Named<ExploredSide> ExploredSideNames[] = {
    {ExploredSide::Train, "train"}, {ExploredSide::Test, "test"}, {ExploredSide::All, "all"}};

/// How the search goes: what `mlgo explore`'s options and the specs' "exploration" set.
struct SearchSettings {
  unsigned Budget = 16; // compilations per module in the search, the heuristic's included
  uint64_t Seed = 1;
  FlipOrder Order = FlipOrder::Inlined;
  /// Margin rules (runners::marginRules) rolled out on the whole module after the heuristic's
  /// trajectory and before the flips, within the budget; the flips then refine the best
  /// trajectory with its own rule answering after the flipped decision.
  std::vector<const runners::InlineRule *> Rules;

  /// As the specs write it: {"budget", "seed", "flip_order", "rules"}.
  llvm::json::Object toJSON() const;
  /// "16 compilations per module, flip order inlined, 7 margin rules" for reports.
  std::string describe() const;
};

/// "inline+10, inline+30, ...": the names of runners::marginRules.
std::string marginRuleNames();
/// Rules by name: "all", "none" or names of runners::marginRules, comma-separated.
llvm::Expected<std::vector<const runners::InlineRule *>> parseRules(llvm::StringRef Text);

/// Rank 0 of an MPI run writes the parts and the file.
struct ExploreConfig : CompileSetup {
  SearchSettings Search;
  /// Observations are also recorded with the embedding features of each, by one replay of the
  /// best decisions per embedding and module.
  std::vector<ir2vec::EmbeddingChoice> Vocabularies;
  /// Which modules: the training side; the held-out side (labels for measuring a policy's
  /// agreement on modules it never saw; `mlgo train` refuses such files); or every module
  /// (the transfer protocol: each fold trains on the others). Recorded as attribute side.
  ExploredSide Side = ExploredSide::Train;
  /// The corpus descriptions among the inputs (absolute), recorded in the file.
  std::vector<std::string> Corpus;

  llvm::Error validate() const;
};

/// The file header an exploration with these settings writes (Split: the split's JSON text).
ExplorationHeader explorationHeader(const ExploreConfig &C, const std::string &Split);

/// Explores one module. ModuleSeed makes the random order reproducible per module.
ModuleExploration exploreModule(const std::string &Path, const ExploreConfig &C,
                                uint64_t ModuleSeed);

/// `ir2vec mlgo explore`: splits Inputs, explores the training side, writes Output.
llvm::Expected<support::Outcome> runExploration(const std::vector<std::string> &Inputs,
                                                const SplitOptions &Split,
                                                const ExploreConfig &C,
                                                const std::string &Output, bool Resume);

} // namespace wb::mlgo
