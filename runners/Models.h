// linear and mlp policies: networks evaluated with Armadillo, weights in HDF5
// (docs/formats/mlgo-model.md). Eviction scores each of the 33 columns with the same network
// and answers the best legal one; the inliner inlines when the output is > 0; the priority
// advisor gets the output as the priority.
#pragma once

#include "runners/Policies.h"

namespace wb::runners {

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

/// PolicyOptions::LoadModel for the full tool.
llvm::Expected<std::unique_ptr<Policy>> loadModelPolicy(Task T, const PolicyOptions &O);

} // namespace wb::runners
