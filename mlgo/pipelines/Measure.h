// Measuring modules over the workers (and the ranks of an MPI run): each module compiled plainly
// (the baseline: the heuristic's .text, or for register allocation the default advisor's cost)
// or under the host with a policy (its .text or cost and how many decisions it made). What
// exploration-free pipelines and every study (mlgo/studies/Judge.h) measure with.
#pragma once

#include "ir2vec/EmbeddingChoice.h"
#include "mlgo/pipelines/Compile.h"
#include "runners/InteractiveHost.h"

#include <string>
#include <vector>

namespace wb::mlgo {

/// One module as a run measures it.
struct EvalModule {
  std::string Path, Error;
  /// The measure: .text bytes (the inliner), or the register allocation cost (eviction,
  /// features/RegallocScore.h); -1 when not measured.
  double Baseline = -1, Policy = -1;
  size_t Decisions = 0;
  std::string Package; // the module's key in the split ("" when not known)
  /// The smallest .text an exploration found for the module (the headroom's measure), -1 when
  /// not known.
  double Best = -1;
};

/// .text with the heuristic (opt -Oz alone) for each module; for register allocation (T evict
/// or priority), the cost of the default advisor (features/RegallocScore.h).
std::vector<EvalModule> measureBaselines(const std::vector<std::string> &Modules,
                                         const CompileSetup &C,
                                         runners::Task T = runners::Task::Inline);
/// .text (register allocation: the cost) with the session's policy for each module of
/// Measured (baselines kept); with
/// Embeddings, each session gets those embedding features.
void measurePolicy(std::vector<EvalModule> &Measured, const runners::SessionConfig &Session,
                   const ir2vec::EmbeddingChoice &Embeddings, const CompileSetup &C);

} // namespace wb::mlgo
