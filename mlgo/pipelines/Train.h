// Behavioural cloning of the best exploration trajectories into the linear and mlp policies
// (BC-Max: shared doc policy-training.md, section 1). The model reads the features of the
// chosen groups (features/FeatureSets.h), normalised with statistics fitted on the training
// split only and stored in the model: quantile buckets with unique edges for integer
// features, a fixed mean and standard deviation for float ones (embeddings). The loss is the
// logistic loss of "inline" (output > 0), minimised by learn::Optimizer (Adam by default) over
// minibatches; the model file records its groups, feature-set version, normalisation and the
// data it was trained on, and runs under the compiler through the versioning contract.
#pragma once

#include "mlgo/pipelines/Records.h"
#include "features/Dataset.h"
#include "learn/Optimizer.h"
#include "runners/Models.h"
#include "support/Names.h"
#include "support/Diagnostics.h"
#include "support/Error.h"

#include <string>
#include <vector>

namespace wb::mlgo {

/// How integer features are normalised: quantile buckets (auto), z-scores, or not at all
/// (float features, the embeddings, get z-scores unless none).
enum class IntegerNormalization { Quantile, ZScore, None };
inline constexpr support::Named<IntegerNormalization> IntegerNormalizationNames[] = {
    {IntegerNormalization::Quantile, "quantile"},
    {IntegerNormalization::ZScore, "zscore"},
    {IntegerNormalization::None, "none"}};

/// What is wrong with MLP hidden layer widths (each 1..65536, and a bounded number of weights
/// between them), or none: checked before any work, by `mlgo train` and by study specs.
std::optional<std::string> hiddenProblem(const std::vector<unsigned> &Hidden);

struct TrainConfig {
  std::vector<std::string> Groups = {"cost", "callgraph"};
  /// Further features by name (the union with the groups' is read, in the table's order).
  std::vector<std::string> Inputs;
  IntegerNormalization Normalize = IntegerNormalization::Quantile;
  runners::ModelKind Kind = runners::ModelKind::MLP; // or Linear (TrainedKindNames)
  std::vector<unsigned> Hidden = {40, 40, 20}; // mlp hidden layer widths
  unsigned Epochs = 40;
  unsigned BatchSize = 64;
  learn::OptimizerConfig Optimizer{learn::OptimizerKind::Adam, 1e-3};
  uint64_t Seed = 1;
  unsigned Quantiles = 1000; // edges fitted per integer feature (duplicates removed)

  llvm::Error validate() const;
};

struct TrainingReport {
  size_t Rows = 0, Modules = 0;
  double Loss = 0;     // mean logistic loss after the last epoch
  double Accuracy = 0; // on the training rows
  double LabelsFromHeuristic = -1; // share of labels equal to the heuristic's decision
};

/// Quantile edges of Values: Quantiles + 1 evenly spaced order statistics, duplicates removed.
std::vector<double> quantileEdges(std::vector<double> Values, unsigned Quantiles);

/// Trains a model on D (the training split's best decisions).
llvm::Expected<runners::ModelFile> trainPolicy(const features::DatasetTable &D,
                                               const TrainConfig &C, TrainingReport &Report);

/// The heuristic as a linear model over raw features (no normalisation), the start of
/// `mlgo finetune --from-heuristic`:
///   out = threshold - cost_estimate + W (inlining_default - 1) + B,   inline when out > 0,
/// with W = HeuristicWeight larger than any margin, so that it never inlines what the heuristic
/// declines, and inlines what the heuristic inlines when its margin threshold - cost_estimate
/// exceeds -B. At the start B = HeuristicStartBias, above any margin: exactly the heuristic.
/// Moving B (mlgo finetune --method bias) makes it more conservative: a margin the exploration
/// suggested (flips that shrink .text gather just inside the heuristic's threshold).
inline constexpr double HeuristicWeight = 1e9, HeuristicStartBias = 1e7;
llvm::Expected<runners::ModelFile> heuristicModel(const features::DatasetTable &D);

/// The network's input columns for every row of D (M's inputs bound by name; each must be
/// in D).
arma::mat inputMatrix(const runners::ModelFile &M, const features::DatasetTable &D);

/// The decisions M gives on D's rows, computed as inside the compiler (modelInputVector and
/// Network::forward): 1 = inline.
std::vector<int64_t> predict(const runners::ModelFile &M, const features::DatasetTable &D);

/// The decisions M gives on a session log's observations (features bound by name, as a
/// policy binds them); Name names the log in errors.
llvm::Expected<std::vector<int64_t>> predictOnLog(const runners::ModelFile &M,
                                                  const features::Log &L, llvm::StringRef Name);

/// The string attributes a trained model carries (docs/formats/mlgo-model.md): what made it,
/// the versions, the exploration and its SHA-256, the observation set and the digest of its
/// embeddings ("" for none), the split, the hyperparameters and how well it fits its training
/// data.
Provenance trainingProvenance(llvm::StringRef CreatedBy, const std::string &Exploration,
                              llvm::StringRef ExplorationSHA256, llvm::StringRef Observations,
                              llvm::StringRef EmbeddingsDigest, llvm::StringRef Split,
                              const TrainConfig &C, const TrainingReport &R);

/// `ir2vec mlgo train`: the observation set named Observations ("none", "default" or a
/// vocabulary file, as the exploration recorded them) of Exploration, trained as C says,
/// written to Output with its provenance; the report goes to Report.
llvm::Expected<support::Outcome> runTraining(const std::string &Exploration,
                                             const std::string &Observations,
                                             const TrainConfig &C, const std::string &Output,
                                             const support::DiagnosticHandler &Report);

} // namespace wb::mlgo
