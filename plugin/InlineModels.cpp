// libir2vec-inline-models.so: what the inliner plugin needs HDF5 and Armadillo for (model files,
// vocabularies, the workbench's embeddings), whose ~40 shared libraries cost every compiler
// process ~8 ms to load (measured: an empty module under opt-22 took 28.3 ms instead of
// 20.2 ms); libir2vec-inline.so loads this object only when a setting needs it.
#include "features/Augment.h"
#include "runners/Models.h"

#define COMPANION extern "C" __attribute__((visibility("default")))

COMPANION llvm::Expected<std::unique_ptr<wb::runners::Policy>>
ir2vecInlineLoadModel(wb::runners::Task T, const wb::runners::PolicyOptions &O) {
  return wb::runners::loadModelPolicy(T, O);
}

COMPANION llvm::Expected<wb::features::Augmentation>
ir2vecInlineModuleFeatures(const llvm::Module &M, const wb::features::EmbeddingChoice &E) {
  return wb::features::workbenchFeatures(wb::runners::Task::Inline, M, E);
}

COMPANION llvm::Expected<std::optional<std::string>>
ir2vecInlineVocabularyJSON(const wb::features::EmbeddingChoice &E) {
  return wb::features::compilerVocabularyJSON(E);
}
