// linear and mlp policies: networks evaluated with Armadillo, weights in HDF5
// (docs/formats/mlgo-model.md). Eviction scores each of the 33 columns with the same network
// and answers the best legal one; the inliner inlines when the output is > 0; the priority
// advisor gets the output as the priority.
//
// What a network sees is defined once, here, for training (mlgo/pipelines/Train.cpp) and inference
// alike: modelInputVector (every input element, normalised as the model file says) and
// Network::forward.
#pragma once

#include "runners/Policies.h"
#include "support/Isolate.h"
#include "support/Names.h"

#include <armadillo>

#include <functional>
#include <iterator>
#include <optional>
#include <utility>

namespace wb::runners {

inline constexpr const char *ModelSchema = "ir2vec.mlgo-model/3";
inline constexpr const char *ModelSchemaV2 = "ir2vec.mlgo-model/2"; // still read
inline constexpr const char *ModelSchemaV1 = "ir2vec.mlgo-model/1"; // still read

/// How one input's values are normalised before the network sees them; fitted on the
/// training split only and stored in the model (never per batch: a batch of one, as inside
/// the compiler, has no spread).
struct Normalization {
  enum Kind { None, Quantile, ZScore } K = None;
  /// Quantile: sorted unique edges; x -> q = #(edges <= x) / #edges, fed as q and q^2.
  std::vector<double> Edges;
  /// ZScore: per element, x -> (x - Mean) / Std.
  std::vector<double> Mean, Std;

  /// Values the network gets per element of the input.
  unsigned width() const { return K == Quantile ? 2 : 1; }
  /// Writes the normalised values of element J, value X, at Out; returns the next position.
  double *apply(size_t J, double X, double *Out) const;
};

/// What a model file holds: a network (linear: one layer; mlp: hidden layers) or a rule.
enum class ModelKind { Linear, MLP, Rule };
/// The spellings, in files (attribute kind), on the command line and in policy names.
inline constexpr support::Named<ModelKind> ModelKindNames[] = {
    {ModelKind::Linear, "linear"}, {ModelKind::MLP, "mlp"}, {ModelKind::Rule, "rule"}};
/// The kinds the trainers make: all but the last, a rule (searched, not trained).
static_assert(ModelKindNames[std::size(ModelKindNames) - 1].Value == ModelKind::Rule);
inline constexpr llvm::ArrayRef<support::Named<ModelKind>> TrainedKindNames{
    ModelKindNames, std::size(ModelKindNames) - 1};
inline llvm::StringRef kindName(ModelKind K) { return support::nameOf<ModelKind>(ModelKindNames, K); }

/// The most layers a model file holds (the readers' bound, and so the trainers').
constexpr size_t MaxModelLayers = 64;

/// A linear, MLP or rule model as stored in its file.
struct ModelFile {
  Task ForTask = Task::Inline;
  ModelKind Kind = ModelKind::Linear;
  std::vector<TensorSpec> Inputs;        // what the model reads, in input-vector order
  std::vector<Normalization> Norms;      // one per input (empty: none, as in schema /1)
  std::string FeatureSetVersion;         // of the feature set it was trained on
  std::vector<TensorSpec> FeatureSet;    // that whole feature set
  std::vector<std::string> Groups;       // the feature groups it reads (when trained here)
  std::vector<std::pair<std::string, std::string>> Provenance; // further string attributes
  struct Layer {
    unsigned In = 0, Out = 0;
    std::vector<double> Weight; // Out x In, row-major
    std::vector<double> Bias;   // Out
  };
  std::vector<Layer> Layers;
  /// Inliner models only: answer the heuristic's own decision (inlining_default) unless the
  /// network disagrees with it by more than this margin (output < -margin where the heuristic
  /// inlines, > margin where it declines). Unset: the network's sign answers (schema /3
  /// attribute abstain_margin; files before /3 have none).
  std::optional<double> AbstainMargin;
  /// Kind rule (inliner only): the rule it answers with; no layers, no normalisation, and
  /// Inputs are InlineRule::inputs().
  std::optional<InlineRule> Rule;

  const Normalization &norm(size_t Input) const;
  /// Sets provenance attribute Key (replacing its value when present).
  void setProvenance(const std::string &Key, const std::string &Value);
};

/// Reads and checks a model file; libhdf5 first reads it behind a process boundary
/// (support/Isolate.h), so a crafted file that crashes or hangs it is an error naming it.
llvm::Expected<ModelFile>
readModelFile(llvm::StringRef Path, double IsolatedSeconds = support::BoundBySize);
/// Atomic (temporary file, then rename). Always the current schema.
llvm::Error writeModelFile(llvm::StringRef Path, const ModelFile &M);
/// Width of the model's input vector for its task (per column for eviction).
unsigned modelInputWidth(const ModelFile &M);
/// Writes the model's input vector (modelInputWidth values) for one observation at Out:
/// Value(I, J) is element J of input I; for eviction, Column picks the element of the
/// per-column inputs ([1, 33]).
void modelInputVector(const ModelFile &M, const std::function<double(size_t, size_t)> &Value,
                      size_t Column, double *Out);

/// The network: Out x In weights and biases per layer, ReLU between layers, the last linear.
struct Network {
  std::vector<arma::mat> W;
  std::vector<arma::vec> B;

  static Network of(const ModelFile &M);
  /// Stores the weights into M's layers.
  void storeInto(ModelFile &M) const;
  /// The outputs (1 x columns) for input columns X; Activations, when given, receives the
  /// input and every layer's output (after ReLU for hidden layers), for backpropagation.
  arma::mat forward(const arma::mat &X, std::vector<arma::mat> *Activations = nullptr) const;
};

/// A model file holding Rule (kind "rule"; Provenance as given).
ModelFile ruleModel(const InlineRule &Rule,
                    std::vector<std::pair<std::string, std::string>> Provenance);

/// A policy answering with M (what loadModelPolicy makes from a file).
std::unique_ptr<Policy> makeModelPolicy(ModelFile M);

/// PolicyOptions::LoadModel for the full tool.
llvm::Expected<std::unique_ptr<Policy>> loadModelPolicy(Task T, const PolicyOptions &O);

/// PolicyOptions::LoadModel for runs that make a policy per compilation on worker threads
/// (collect, explore, eval, ablate): each model file is read once, by the first call (make
/// that call before the workers start), and every later call gets a copy. The read forks an
/// isolated child (support/Isolate.h), which must not happen while other threads may be inside
/// libhdf5: a child that inherits its state mid-call hangs. Each loader owns its cache.
std::function<llvm::Expected<std::unique_ptr<Policy>>(Task, const PolicyOptions &)>
cachingModelLoader();

} // namespace wb::runners
