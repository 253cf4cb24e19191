// ir2vec.Vocabulary, as the other parts of the Python module use it.
#pragma once

#include "python/Convert.h"

#include "ir2vec/EmbeddingChoice.h"
#include "vocab/VocabularyFile.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace wb::python {

struct PyVocabulary {
  std::string Path; // "" for the default vocabulary
  /// The vocabulary resolved once: E.entityVectors() as in the file (export writes these),
  /// E.vocabulary() weighted (what embeddings use).
  ir2vec::EmbeddingChoice E;

  const vocab::EntityVectors &raw() const { return E.entityVectors(); }
  std::string source() const { return vocab::vocabularySource(Path).str(); }
  /// Of the file's bytes; "" for vectors made in memory (no file).
  std::string sha256() const {
    return E.source() == ir2vec::VocabSource::Memory ? std::string() : E.vocabularySHA256();
  }

  /// path None: the default vocabulary. ValueError for an empty path or a bad file.
  static std::shared_ptr<PyVocabulary> load(const std::optional<std::filesystem::path> &File,
                                            float Opc, float Type, float Arg);

};

/// The 110 entity names, in vocabulary row order.
py::list entityNames();
/// A call's vocab= argument: None (the default vocabulary), a Vocabulary or a path.
std::shared_ptr<PyVocabulary> vocabularyArg(const py::object &V);

} // namespace wb::python
