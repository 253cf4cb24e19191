// Training of an eviction policy on the register allocator's static cost (`ir2vec mlgo
// train-evict`, issue 25): the corpus is split by package; a linear policy that scores every
// column (the 32 candidates and "do not evict") with the same weights starts from a rule that
// approximates the default advisor's test, evict the candidate whose interference has the
// lowest use/def density when it is lower than the evicting range's own (weight -1 on
// use_def_density); evolution strategies (mlgo/FineTune.h, method es) then move every weight
// to lower the cost, 1 - sum(cost) / sum(default advisor's cost) over sampled training
// modules. The held-out packages are then judged with the inliner's protocol (mlgo/Eval.h:
// per package, the worst, bootstrap intervals over modules and packages). Resumable (each
// finished step is kept in OUT.parts/) and spread over the ranks of an MPI run like the
// inliner's commands: every rank compiles, rank 0 decides and writes.
#pragma once

#include "mlgo/Judge.h"
#include "mlgo/FineTune.h"
#include "mlgo/Split.h"

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

/// The start: a linear eviction model over every per-column feature the compiler sends, all
/// weights 0 but -1 on use_def_density.
runners::ModelFile evictStartModel();

/// An MLP eviction model over Inputs (per-column features, and features the same in every
/// column such as function_embedding) that decides as the density rule does where
/// use_def_density is finite: hidden unit 0 of every layer carries relu(use_def_density) to the
/// output (weight -1); the other units start with random weights (Gaussian, scaled by
/// 1/sqrt(fan-in) and, in the first layer, by 1/Spread of their input) and an output weight of
/// 0, so that evolution strategies can bring them in. Deterministic for Seed.
runners::ModelFile evictStartMLP(const std::vector<features::TensorSpec> &Inputs,
                                 const std::vector<unsigned> &Hidden,
                                 const std::vector<double> &Spread, uint64_t Seed);

/// The training modules with the default advisor's cost (those whose baseline failed are
/// left out), the same on every rank of an MPI run (rank 0's).
llvm::Expected<std::vector<TuneModule>> evictTrainingModules(const std::vector<std::string> &Paths,
                                                             const Bench &EC);

/// Observations of Start's own decisions on a sample of Modules of Tune, spread evenly (every
/// input Start reads, with Embeddings' function_embedding when set): what fineTune scales its
/// perturbations by. Empty when no module asked a question.
llvm::Expected<features::DatasetTable>
evictObservations(const runners::ModelFile &Start, const std::vector<TuneModule> &Tune,
                  size_t Modules, const ir2vec::EmbeddingChoice &Embeddings, const Bench &EC);

/// One eviction policy trained and judged, what `mlgo train-evict` makes once and an eviction
/// study once per arm and seed: evolution strategies from Start on the training modules Tune,
/// the perturbations scaled by Observations (C.Method is es; C.Embeddings the policy's
/// function_embedding), then the result judged on Judged (their baselines measured) against the
/// default advisor, bootstrap seed BootstrapSeed. Without training modules (--test-fraction 1)
/// the start model is judged as it is. The model is not yet stamped: each caller records its own
/// run.
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
