// ir2vec.Vocabulary, as the other parts of the Python module use it.
#pragma once

#include "python/Convert.h"

#include "vocab/VocabularyFile.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace wb::python {

struct PyVocabulary {
  std::string Path;                 // "" for the default vocabulary
  vocab::EntityVectors Raw;         // unweighted, as in the file (export writes these)
  vocab::EmbeddingVocabulary Ready; // weighted: what embeddings use

  std::string source() const { return vocab::vocabularySource(Path).str(); }

  /// path None: the default vocabulary. ValueError for an empty path or a bad file.
  static std::shared_ptr<PyVocabulary> load(const std::optional<std::filesystem::path> &File,
                                            float Opc, float Type, float Arg);

};

/// The 110 entity names, in vocabulary row order.
py::list entityNames();
/// A call's vocab= argument: None (the default vocabulary), a Vocabulary or a path.
std::shared_ptr<PyVocabulary> vocabularyArg(const py::object &V);

} // namespace wb::python
