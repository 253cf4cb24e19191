// Embedding augmentation (--embeddings): what docs/mlgo.md "Embedding features" describes.
//   inliner:  the compiler's callee_embedding/caller_embedding (both LLVM 22 flags, with the
//             vocabulary as JSON), plus the workbench's module_embedding;
//   register allocation (eviction, priority): the workbench's function_embedding (IR2Vec) and
//             machine_function_embedding (MIR2Vec, before the greedy allocator) of the function
//             being allocated.
// The Augmentation type is all a host needs; computing one needs the IR reader and the
// embedder (libLLVM), which the launcher's host never links.
#pragma once

#include "features/FeatureSets.h"
#include "ir2vec/EmbeddingChoice.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace wb::features {

/// Embedding augmentation of a session: compiler flags that switch on the compiler's own
/// embedding features, and tensors the workbench adds to every observation.
struct Augmentation {
  std::vector<std::string> CompilerFlags;
  std::vector<TensorSpec> Specs;
  /// The extra tensors' bytes for an observation in the given context.
  std::function<std::string(llvm::StringRef Context)> Bytes;
};

/// Makes a session's augmentation, given the session's private directory (files written
/// there are removed with it) and the compiler command it runs.
using Augmenter = std::function<llvm::Expected<Augmentation>(
    llvm::StringRef SessionDir, llvm::ArrayRef<std::string> Command)>;

/// The IR input among the compiler's arguments: the first existing .bc or .ll that is not an
/// option's value ("" when there is none).
std::string findModule(llvm::ArrayRef<std::string> Command);

/// The task's workbench features (Origin::Workbench in the table) from the IR file the
/// compiler gets, with the given embedding (its vocabulary as loaded: never read again). The
/// machine IR is
/// compiled for the target the compiler Command asks for (llc's -mtriple, -mcpu, -mattr; else
/// the module's).
llvm::Expected<Augmentation> workbenchFeatures(Task T, llvm::StringRef ModulePath,
                                               const ir2vec::EmbeddingChoice &E,
                                               llvm::ArrayRef<std::string> Command = {});

/// The same from a module in memory (the inliner plugin's, as the compiler holds it): tasks
/// whose workbench features are IR2Vec vectors only (the inliner's module_embedding).
llvm::Expected<Augmentation> workbenchFeatures(Task T, const llvm::Module &M,
                                               const ir2vec::EmbeddingChoice &E);

/// The augmenter of sessions with embedding features E: the workbench's features of the module
/// (ModulePath; "" = the IR input of the session's compiler command) and, for the inliner,
/// LLVM's own embedding features with E's vocabulary, read by the compiler from memory
/// (ir2vec::EmbeddingChoice::compilerVocabularyPath).
Augmenter embeddingAugmenter(Task T, ir2vec::EmbeddingChoice E, std::string ModulePath);

} // namespace wb::features
