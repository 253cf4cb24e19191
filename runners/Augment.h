// Embedding augmentation (--embeddings): what docs/mlgo.md "Embedding features" describes.
//   inliner:  the compiler's callee_embedding/caller_embedding (both LLVM 22 flags, with the
//             vocabulary as JSON), plus the workbench's module_embedding;
//   eviction: the workbench's function_embedding of the function being allocated.
// Needs the IR reader and the embedder (libLLVM), so it lives on the full tool's side.
#pragma once

#include "runners/InteractiveHost.h"

namespace wb::runners {

/// The IR input among the compiler's arguments: the first existing .bc or .ll that is not an
/// option's value ("" when there is none).
std::string findModule(const std::vector<std::string> &Command);

/// The task's workbench features (Origin::Workbench in the table) from the IR file the
/// compiler gets, with the given vocabulary ("" = the default vocabulary).
llvm::Expected<Augmentation> workbenchFeatures(Task T, llvm::StringRef ModulePath,
                                               llvm::StringRef VocabPath);

/// SessionConfig::Augment for --embeddings VOCAB ("" = default vocabulary). ModulePath ""
/// = found in the compiler command.
std::function<llvm::Expected<Augmentation>(llvm::StringRef)>
embeddingAugmenter(Task T, std::string Vocab, std::string ModulePath,
                   std::vector<std::string> Command);

} // namespace wb::runners
