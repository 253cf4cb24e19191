// `ir2vec mlgo train-evict` (issue 25): the corpus split by package, an eviction policy tuned
// on the training side (mlgo/pipelines/EvictTrain.h), the held-out packages judged with the
// inliner's protocol (mlgo/studies/Judge.h: per package, the worst, bootstrap intervals over
// modules and packages). Resumable (each finished step is kept in OUT.parts/) and spread over
// the ranks of an MPI run like the inliner's commands: every rank compiles, rank 0 decides and
// writes.
#pragma once

#include "mlgo/pipelines/EvictTrain.h"
#include "mlgo/studies/Judge.h"

#include <string>
#include <vector>

namespace wb::mlgo {

struct EvictTrainJob {
  /// The corpus, its split by package and the timeout of each compiler run.
  CorpusPlan Plan;
  std::string StartModel; // "" = the density rule (evictStartModel)
  FineTuneConfig Tune;    // Method is es
  std::string Output;     // the model
  std::string Report;     // the held-out report (JSON, schema ir2vec.mlgo-evict-eval/1); "" = none
  uint64_t BootstrapSeed = 1;
  /// Continue an interrupted run from the steps kept in Output + ".parts" (mlgo/Parts.h).
  bool Resume = false;
};

/// One eviction policy trained and judged, what `mlgo train-evict` makes once and an eviction
/// study once per arm and seed: tuneEvictPolicy, then the result judged on Judged (their
/// baselines measured) against the default advisor, bootstrap seed BootstrapSeed. The model is
/// not yet stamped: each caller records its own run.
struct EvictPolicy {
  FineTuneResult Tuned;
  Verdict HeldOut;
};
llvm::Expected<EvictPolicy> trainEvictPolicy(const runners::ModelFile &Start,
                                             const std::vector<TuneModule> &Tune,
                                             const features::DatasetTable &Observations,
                                             std::vector<EvalModule> Judged,
                                             const FineTuneConfig &C, uint64_t BootstrapSeed);

/// `ir2vec mlgo train-evict`.
llvm::Expected<support::Outcome> runEvictTraining(EvictTrainJob J);

} // namespace wb::mlgo
