// The eviction policies' training on the register allocator's static cost (issue 25): a linear
// policy that scores every column (the 32 candidates and "do not evict") with the same weights
// starts from a rule that approximates the default advisor's test, evict the candidate whose
// interference has the lowest use/def density when it is lower than the evicting range's own
// (weight -1 on use_def_density), or an MLP that decides so at the start; evolution strategies
// (mlgo/pipelines/FineTune.h, method es) then move every weight to lower the cost, 1 -
// sum(cost) / sum(default advisor's cost) over sampled training modules. Judging the held-out
// packages is the studies' (mlgo/studies/TrainEvict.h).
#pragma once

#include "mlgo/pipelines/Measure.h"
#include "mlgo/pipelines/FineTune.h"
#include "mlgo/pipelines/Split.h"

#include <string>
#include <vector>

namespace wb::mlgo {

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
                                                             const CompileSetup &EC);

/// Observations of Start's own decisions on a sample of Modules of Tune, spread evenly (every
/// input Start reads, with Embeddings' function_embedding when set): what fineTune scales its
/// perturbations by. Empty when no module asked a question.
llvm::Expected<features::DatasetTable>
evictObservations(const runners::ModelFile &Start, const std::vector<TuneModule> &Tune,
                  size_t Modules, const ir2vec::EmbeddingChoice &Embeddings, const CompileSetup &EC);

/// The error of a side of a split on which no module compiled (Modules: its measurements),
/// naming the first cause.
llvm::Error everyModuleFailed(llvm::StringRef Side, const std::vector<EvalModule> &Modules);

/// Evolution strategies from Start on the training modules Tune, the perturbations scaled by
/// Observations (C.Method is es; C.Embeddings the policy's function_embedding); without
/// training modules (--test-fraction 1), Start as it is. The model is not yet stamped.
llvm::Expected<FineTuneResult> tuneEvictPolicy(const runners::ModelFile &Start,
                                               const std::vector<TuneModule> &Tune,
                                               const features::DatasetTable &Observations,
                                               const FineTuneConfig &C);

} // namespace wb::mlgo
