// libir2vec-inline-models.so: model files for the inliner plugin. Reading them needs HDF5 and
// Armadillo, whose ~40 shared libraries cost every compiler process ~8 ms to load (measured:
// an empty module under opt-22 took 28.3 ms instead of 20.2 ms); libir2vec-inline.so loads
// this object only when a policy reads a model file.
#include "runners/Models.h"

extern "C" __attribute__((visibility("default"))) llvm::Expected<
    std::unique_ptr<wb::runners::Policy>>
ir2vecInlineLoadModel(wb::runners::Task T, const wb::runners::PolicyOptions &O) {
  return wb::runners::loadModelPolicy(T, O);
}
