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

/// The embeddings IR2VEC_INLINE_EMBEDDINGS names ("default" or a vocabulary file), resolved:
/// the plugin keeps the value for the process, so the file is read once.
COMPANION llvm::Expected<wb::ir2vec::EmbeddingChoice>
ir2vecInlineResolveEmbeddings(const std::string &Setting) {
  wb::ir2vec::EmbeddingRequest R;
  if (Setting != "default") {
    R.From = wb::ir2vec::VocabSource::File;
    R.File = Setting;
  }
  return wb::ir2vec::EmbeddingChoice::resolve(R);
}

COMPANION llvm::Expected<wb::features::Augmentation>
ir2vecInlineModuleFeatures(const llvm::Module &M, const wb::ir2vec::EmbeddingChoice &E) {
  return wb::features::workbenchFeatures(wb::runners::Task::Inline, M, E);
}

/// The path LLVM's -ir2vec-vocab-path reads the vocabulary from: in this process's memory.
COMPANION llvm::Expected<std::string>
ir2vecInlineVocabularyPath(const wb::ir2vec::EmbeddingChoice &E) {
  return E.compilerVocabularyPath(wb::support::MemoryFile::Readers::ThisProcess);
}
