// Vocabulary files in every form the workbench reads and writes, as unweighted entity
// vectors (weights are applied only when a Vocabulary is built for embedding):
//   - LLVM 22's vocabulary JSON (read: Vocabulary.h; written here with all 110 keys, in the
//     layout llvm-ir2vec and opt -ir2vec-vocab-path load), and
//   - our HDF5 vocabulary, schema ir2vec.vocabulary/1 (docs/formats/vocabulary-hdf5.md): the
//     entity matrix, the relation vectors TransE learned, and provenance attributes.
// The format of an input is recognised by its content (the HDF5 signature), not its name.
#pragma once

#include "support/Isolate.h"
#include "vocab/Vocabulary.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wb::vocab {

inline constexpr const char *VocabularyHDF5Schema = "ir2vec.vocabulary/1";

/// The name the default vocabulary goes by in messages and output headers.
inline constexpr const char *DefaultVocabularyName = "<default vocabulary>";
/// How messages name the vocabulary file Path ("" = the default vocabulary).
inline llvm::StringRef vocabularySource(llvm::StringRef Path) {
  return Path.empty() ? llvm::StringRef(DefaultVocabularyName) : Path;
}
/// The vocabulary the project trains and ships (vocab/default/), built into the library.
llvm::StringRef defaultVocabularyJSON();
/// The counting vocabulary: entity E's row is the unit vector e_E (NumEntities dimensions), so
/// an embedding with it is the entity histogram (each section scaled by its weight). As a file
/// (`vocab export --counts`) it gives LLVM's own embedders, and every study that takes a
/// vocabulary, the histogram control.
EntityVectors countingEntityVectors();

/// The bytes of a vocabulary file, read once (Path "" = the default vocabulary's JSON, built
/// in); bounded as support::readInput bounds inputs that are not regular files.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readVocabularyBytes(llvm::StringRef Path);
/// Whether Bytes are HDF5 (its signature); anything else is read as JSON.
bool isHDF5(llvm::StringRef Bytes);
/// The entity vectors in Bytes, JSON or HDF5 by content (Source names the file in messages).
/// HDF5 is read from the bytes behind a process boundary (support/Isolate.h) that gives up
/// after IsolatedSeconds (BoundBySize: by the bytes' size).
llvm::Expected<EntityVectors> parseEntityVectors(llvm::StringRef Bytes, llvm::StringRef Source,
                                                 double IsolatedSeconds = support::BoundBySize);
/// readVocabularyBytes, then parseEntityVectors.
llvm::Expected<EntityVectors>
readEntityVectors(llvm::StringRef Path, double IsolatedSeconds = support::BoundBySize);

/// LLVM 22 vocabulary JSON: "Opcodes", "Types", "Arguments" with every entity's key, values
/// printed so that they read back as the same doubles. Atomic (temporary file + rename).
llvm::Error writeVocabularyJSON(llvm::StringRef Path, const EntityVectors &V);
/// The same JSON as text.
std::string vocabularyJSON(const EntityVectors &V);
/// The HDF5 form, with relations and provenance when present. Atomic.
llvm::Error writeVocabularyHDF5(llvm::StringRef Path, const EntityVectors &V);
enum class VocabularyFormat { JSON, HDF5 };
/// The format an output name asks for: .h5/.hdf5 -> HDF5, anything else -> JSON.
VocabularyFormat vocabularyFormatFor(llvm::StringRef Path);
/// Writes V in format F (by default the one Path's name asks for).
llvm::Error writeVocabularyFile(llvm::StringRef Path, const EntityVectors &V,
                                std::optional<VocabularyFormat> F = std::nullopt);

} // namespace wb::vocab
