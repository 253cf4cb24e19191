// The policies a session can run:
//   default   inliner: answers the compiler's own heuristic decision (inlining_default)
//   no-evict  eviction: never evicts (column 32), or the first legal column when the
//             compiler marks "no eviction" illegal
//   random    seeded exploration around the base policy: with probability --explore a
//             uniformly random legal answer, otherwise the base answer (inliner: default;
//             eviction: no-evict; priority: li_size)
//   linear    a linear model, weights in HDF5 (docs/formats/mlgo-model.md)
//   mlp       a multi-layer perceptron with ReLU hidden layers, same file format
//   replay    answers the decisions recorded in a session log, in order
#pragma once

#include "runners/ModelRunner.h"

#include <cstdint>
#include <memory>
#include <string>

namespace wb::runners {

struct PolicyOptions {
  std::string Name = "default";
  std::string ModelPath;  // linear, mlp
  std::string ReplayPath; // replay
  uint64_t Seed = 0;
  double Explore = 0.1; // random
};

llvm::Expected<std::unique_ptr<Policy>> makePolicy(Task T, const PolicyOptions &O);

/// A linear or MLP model as stored in its file.
struct ModelFile {
  Task ForTask = Task::Inline;
  std::string Kind;                      // "linear" or "mlp"
  std::vector<TensorSpec> Inputs;        // what the model reads, in input-vector order
  std::string FeatureSetVersion;         // of the feature set it was trained on
  std::vector<TensorSpec> FeatureSet;    // that whole feature set
  struct Layer {
    unsigned In = 0, Out = 0;
    std::vector<double> Weight; // Out x In, row-major
    std::vector<double> Bias;   // Out
  };
  std::vector<Layer> Layers;
};

llvm::Expected<ModelFile> readModelFile(llvm::StringRef Path);
/// Atomic (temporary file, then rename).
llvm::Error writeModelFile(llvm::StringRef Path, const ModelFile &M);
/// Width of the model's input vector for its task (per column for eviction).
unsigned modelInputWidth(const ModelFile &M);

} // namespace wb::runners
