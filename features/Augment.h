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
#include "ir2vec/Embedder.h"

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

/// The embeddings an augmentation computes: a vocabulary ("" = the default vocabulary) and an
/// IR2Vec kind. What the kind reaches: the workbench's features (module_embedding,
/// function_embedding); LLVM 22 computes the inliner's callee_embedding and caller_embedding
/// symbolic whatever -ir2vec-kind says.
struct EmbeddingChoice {
  std::string Vocabulary;
  ir2vec::Kind Kind = ir2vec::Kind::Symbolic;
  /// The choice as one string, as exploration settings and their fingerprints record it: the
  /// vocabulary alone for the symbolic kind (the spelling from before kinds), else
  /// "KIND:VOCABULARY" (docs/formats/mlgo-exploration.md).
  std::string key() const;
  static EmbeddingChoice fromKey(llvm::StringRef Key);
};

/// The IR input among the compiler's arguments: the first existing .bc or .ll that is not an
/// option's value ("" when there is none).
std::string findModule(llvm::ArrayRef<std::string> Command);

/// The task's workbench features (Origin::Workbench in the table) from the IR file the
/// compiler gets, with the given vocabulary ("" = the default vocabulary). The machine IR is
/// compiled for the target the compiler Command asks for (llc's -mtriple, -mcpu, -mattr; else
/// the module's).
llvm::Expected<Augmentation> workbenchFeatures(Task T, llvm::StringRef ModulePath,
                                               const EmbeddingChoice &E,
                                               llvm::ArrayRef<std::string> Command = {});

/// The same from a module in memory (the inliner plugin's, as the compiler holds it): tasks
/// whose workbench features are IR2Vec vectors only (the inliner's module_embedding).
llvm::Expected<Augmentation> workbenchFeatures(Task T, const llvm::Module &M,
                                               const EmbeddingChoice &E);

/// The vocabulary as the JSON LLVM 22's -ir2vec-vocab-path reads: std::nullopt when the chosen
/// file is JSON (LLVM reads it), else the text (the default vocabulary, the workbench's HDF5).
llvm::Expected<std::optional<std::string>> compilerVocabularyJSON(const EmbeddingChoice &E);
/// The same as a file: the chosen file itself, or the text written to WriteTo.
llvm::Expected<std::string> compilerVocabularyFile(const EmbeddingChoice &E,
                                                   llvm::StringRef WriteTo);

/// The augmenter for --embeddings VOCAB (E.Vocabulary "" = default vocabulary). ModulePath "" =
/// the IR input of the session's compiler command.
Augmenter embeddingAugmenter(Task T, EmbeddingChoice E, std::string ModulePath);

} // namespace wb::features
