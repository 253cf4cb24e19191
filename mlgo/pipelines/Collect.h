// Collection over a corpus (`ir2vec mlgo collect`): for each module, the -Oz pipeline with the
// compiler's own heuristic (baseline) and under the host with a policy, each compiled to an
// object whose .text size is read with LLVM's Object library; the reward is
// 1 - (size + 0.01) / (baseline + 0.01) as ml-compiler-opt computes it, recorded per module
// and in every decision row of the dataset. For register allocation (evict, priority) the
// baseline is the compiler's default advisor and the reward the same form of the static cost
// from the allocator's remarks (features/RegallocScore.h), per function and per module.
#pragma once

#include "features/Dataset.h"
#include "mlgo/pipelines/Compile.h"
#include "runners/InteractiveHost.h"
#include "support/Diagnostics.h"
#include "support/RunSettings.h"
#include "support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace wb::mlgo {

using runners::PolicyOptions;
using runners::Task;

struct CollectConfig : CompileSetup {
  Task T = Task::Inline;
  PolicyOptions Policy;
  runners::BindOptions Bind;
  ir2vec::EmbeddingChoice Embeddings; // none: null
  /// Continue an interrupted run of the same settings and inputs: finished modules wait in
  /// OUT.parts/ (mlgo/pipelines/Parts.h) and are not compiled again.
  bool Resume = false;
};

struct CollectSummary {
  Task T = Task::Inline;
  size_t Modules = 0, Failed = 0, Rows = 0;
  int64_t Text = 0, BaselineText = 0; // sums over collected modules
  double Cost = 0, BaselineCost = 0;  // register allocation: sums over collected modules
  size_t SameSize = 0;                 // modules whose size equals the baseline
  bool Cancelled = false;

  /// "N modules, D decisions; .text T bytes vs baseline B (S modules the same size); reward R"
  /// (register allocation: the cost vs the baseline's).
  std::string describe() const;
};

llvm::Expected<CollectSummary> collect(const std::vector<std::string> &Inputs,
                                       llvm::StringRef Output, const CollectConfig &C);

/// A whole `mlgo collect` run: the dataset in Output, the summary line as a note, and the
/// outcome (partial when some modules failed; interrupted or nothing usable: an error, and no
/// file under Output; an interrupted run keeps its finished modules for C.Resume).
llvm::Expected<support::Outcome> collectDataset(const std::vector<std::string> &Inputs,
                                                llvm::StringRef Output, const CollectConfig &C);

} // namespace wb::mlgo
