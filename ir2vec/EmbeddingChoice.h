// Which embedding: what a command line (--embeddings, --ir2vec-vocab-path), a spec ("vocabulary",
// "kind") or a Python call names, resolved once into one immutable value that every pipeline,
// study and session takes. Resolving reads the vocabulary's bytes once: they are hashed, parsed
// (JSON, or HDF5 from memory behind a process boundary) and weighed from that one read, and
// the JSON LLVM's -ir2vec-vocab-path reads is made from them once per process, in memory
// (support/MemoryFile.h). Copies share the vocabulary; none is ever read again per session.
//
// The digest names the embedding's content: SHA-256 of the vocabulary's bytes, its kind and its
// weights. Files that record an embedding record it, and a run that would reuse results made
// with another embedding (an exploration, resumable parts) compares it.
#pragma once

#include "ir2vec/Embedder.h"
#include "support/MemoryFile.h"
#include "support/Names.h"
#include "vocab/Vocabulary.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace wb::ir2vec {

/// Where an embedding's vocabulary comes from.
enum class VocabSource {
  Default, ///< the vocabulary the project ships (vocab/default/), built in
  Counts,  ///< the counting vocabulary: the entity histogram in place of embeddings
  File,    ///< LLVM's JSON or the workbench's HDF5, read by content
  Memory,  ///< entity vectors made in this process (the Python module's trained ones)
};
/// How specs and reports spell the sources that are not files.
inline constexpr support::Named<VocabSource> VocabSourceNames[] = {
    {VocabSource::Default, "default"}, {VocabSource::Counts, "counts"}};

/// What names an embedding before it is resolved.
struct EmbeddingRequest {
  VocabSource From = VocabSource::Default;
  std::string File; ///< VocabSource::File: the path, as given (messages and records say it)
  Kind K = Kind::Symbolic;
  vocab::Weights W;
};

/// An embedding resolved: a null value (default-constructed) is "no embedding". Thread-safe:
/// immutable once made (the compiler's in-memory file is made on first use, once).
class EmbeddingChoice {
public:
  EmbeddingChoice() = default;
  /// Reads the vocabulary once (a file: errors name it), checks and weighs it.
  static llvm::Expected<EmbeddingChoice> resolve(const EmbeddingRequest &R);
  /// Entity vectors made in this process; Name says where they came from in messages and
  /// records, their digest is of their JSON text.
  static llvm::Expected<EmbeddingChoice> fromEntityVectors(vocab::EntityVectors V,
                                                           std::string Name, Kind K,
                                                           vocab::Weights W);
  /// The same vocabulary (shared, not read again) with another kind.
  EmbeddingChoice withKind(Kind K) const;

  explicit operator bool() const { return S != nullptr; }
  VocabSource source() const;
  bool counts() const { return S && source() == VocabSource::Counts; }
  Kind kind() const { return K; }
  const vocab::Weights &weights() const;
  /// The weighted matrix the embedders read.
  const vocab::Vocabulary &vocabulary() const;
  /// The vectors as the file holds them (unweighted).
  const vocab::EntityVectors &entityVectors() const;
  /// How specs, reports and models record the vocabulary: "default", "counts", the file as
  /// given, or a memory vocabulary's name.
  const std::string &spelling() const;
  /// How messages name it: vocab::DefaultVocabularyName for the default, else spelling().
  llvm::StringRef sourceName() const;
  /// SHA-256 of the vocabulary's bytes (the file's; the built-in JSON's; a counting or memory
  /// vocabulary's JSON text).
  const std::string &vocabularySHA256() const;
  /// SHA-256 of the vocabulary's bytes, the kind and the weights ("ir2vec.embedding/1" text,
  /// docs/embeddings.md): equal digests embed every module the same.
  std::string digest() const;
  /// The file's keys LLVM 22 would not find or would not look up, one line (none: empty).
  std::vector<std::string> warnings() const;
  /// Same vocabulary bytes, whatever the kind and weights.
  bool sameVocabulary(const EmbeddingChoice &O) const;

  /// How exploration files key the observation sets made with this embedding (their
  /// "vocabularies" attribute): "" for the default vocabulary, "counts", the file; "KIND:"
  /// before it for a kind other than symbolic (docs/formats/mlgo-exploration.md).
  std::string explorationKey() const;

  /// The vocabulary as the JSON LLVM 22's -ir2vec-vocab-path reads (a JSON file's own bytes).
  llvm::StringRef compilerJSON() const;
  /// A path to compilerJSON() that the compilers this process starts open (Children), or that
  /// this process alone opens (ThisProcess: a library inside the compiler, the inliner
  /// plugin): a support::MemoryFile made on first use, once per process.
  llvm::Expected<std::string>
  compilerVocabularyPath(support::MemoryFile::Readers Who = support::MemoryFile::Readers::Children) const;

  struct State;

private:
  EmbeddingChoice(std::shared_ptr<const State> S, Kind K) : S(std::move(S)), K(K) {}
  std::shared_ptr<const State> S;
  Kind K = Kind::Symbolic;
};

/// Resolves requests once each: requests naming the same source, file and weights share one
/// read (a spec whose arms name one file reads it once). Not thread-safe; a reader of specs or
/// command lines owns one while it reads.
class EmbeddingResolver {
public:
  llvm::Expected<EmbeddingChoice> resolve(const EmbeddingRequest &R);

private:
  std::vector<std::pair<EmbeddingRequest, EmbeddingChoice>> Done;
};

} // namespace wb::ir2vec
