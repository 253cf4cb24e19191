// An IR2Vec vocabulary: one dense row-major matrix, NumEntities x dimension, of doubles, rows
// in EntityLayout order, with the section weights already multiplied in (as LLVM 22 does at
// load time). Row-major NumEntities x D is the same memory as an Armadillo D x NumEntities
// matrix and as an HDF5 dataset of shape [NumEntities, D].
#pragma once

#include "vocab/EntityLayout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace wb::vocab {

/// Section weights. LLVM declares them as cl::opt<float> and widens them to double when it
/// scales the vocabulary, so they are floats here too: (double)0.2f != 0.2, and the
/// difference shows in the last bits of every embedding.
struct Weights {
  /// Parses the three weights as llvm-ir2vec's --ir2vec-*-weight options: cl::opt<float>
  /// reads the text as a double (strtod) and narrows it to float; parsing straight to float
  /// can round differently.
  static llvm::Expected<Weights> parse(llvm::StringRef Opcode, llvm::StringRef Type,
                                       llvm::StringRef Arg);

  float Opcode = 1.0f;
  float Type = 0.5f;
  float Arg = 0.2f;

  float forSection(Section S) const {
    switch (S) {
    case Section::Opcodes: return Opcode;
    case Section::Types: return Type;
    case Section::OperandKinds:
    case Section::Predicates: return Arg;
    }
    return 0.0f;
  }
};

/// One short warning line for the "Section.Key" names a file lacks (rows left zero as in LLVM)
/// and has in excess (keys LLVM 22 never looks up): the counts, the source and a few names.
/// Entities and Kind say what the keys are of (LLVM IR's 110 by default; a target's MIR
/// entities).
std::vector<std::string> keyWarnings(llvm::StringRef Source,
                                     const std::vector<std::string> &MissingKeys,
                                     const std::vector<std::string> &UnknownKeys,
                                     size_t Entities = NumEntities, llvm::StringRef Kind = "IR2Vec");

/// The entity vectors a vocabulary file holds, unweighted: what files are read into and written
/// from, what TransE trains, and what a Vocabulary is weighed from.
struct EntityVectors {
  unsigned Dim = 0;
  std::vector<double> Rows; // NumEntities x Dim, row-major, unweighted
  /// The entities the file gave a vector (a JSON file may lack keys: their rows are +0.0 and
  /// stay so under any weight, as LLVM leaves them); empty = every entity.
  std::vector<bool> Present;
  // Only in files we trained: relation vectors (NumRelations x Dim) and their names.
  std::vector<double> Relations;
  std::vector<std::string> RelationNames;
  // Provenance (HDF5 attributes): name -> text. JSON has none.
  std::vector<std::pair<std::string, std::string>> Provenance;
  // Keys a JSON file lacked or had in excess ("Section.Key"), for warnings.
  std::vector<std::string> MissingKeys, UnknownKeys;

  const double *row(EntityId Id) const { return Rows.data() + size_t(Id) * Dim; }
  std::vector<std::string> warnings(llvm::StringRef Source) const {
    return keyWarnings(Source, MissingKeys, UnknownKeys);
  }
};

/// The entity vectors with the section weights multiplied in, as LLVM 22 does at load time:
/// what the embedders read.
class Vocabulary {
public:
  /// Takes unweighted rows (NumEntities x Dim, row-major) and applies the weights exactly as
  /// LLVM does: value * (double)weight. Rows not marked in Present (all rows when Present is
  /// empty) stay +0.0 unscaled, as LLVM leaves keys missing from its file (this decides the
  /// sign of zero under negative weights). Fails if the shape is wrong or a value or a
  /// weighted value is not finite.
  static llvm::Expected<Vocabulary> fromUnweightedRows(std::vector<double> Rows, unsigned Dim,
                                                       Weights W,
                                                       const std::vector<bool> &Present = {});
  /// V's rows weighted by W (its absent entities stay +0.0).
  static llvm::Expected<Vocabulary> weigh(const EntityVectors &V, Weights W);

  unsigned dimension() const { return Dim; }
  const Weights &weights() const { return W; }
  /// The weighted vector of one entity: dimension() doubles.
  const double *row(EntityId Id) const { return Data.data() + size_t(Id) * Dim; }
  llvm::ArrayRef<double> rowRef(EntityId Id) const { return {row(Id), Dim}; }
  /// The whole weighted matrix, row-major.
  llvm::ArrayRef<double> matrix() const { return Data; }

private:
  Vocabulary(std::vector<double> Data, unsigned Dim, Weights W)
      : Data(std::move(Data)), Dim(Dim), W(W) {}
  std::vector<double> Data;
  unsigned Dim = 0;
  Weights W;
};

/// One section of a vocabulary JSON as LLVM 22 reads it: keys (sorted, as LLVM's std::map) to
/// vectors of one dimension.
struct JSONSection {
  std::map<std::string, std::vector<double>> Entries;
  unsigned Dim = 0;
};
/// Largest embedding dimension a vocabulary file may claim (LLVM ships 75), in every format:
/// rows are allocated from it before anything else is read.
inline constexpr unsigned MaxDimension = 1u << 16;
/// Largest weighted matrix a vocabulary may make (entities x dimension doubles): MIR2Vec's
/// layouts have thousands of entities (7,158 on x86-64), so a dimension the cap above allows can
/// still ask for gigabytes.
inline constexpr uint64_t MaxMatrixBytes = uint64_t(1) << 30;

/// Parses Text (Source names it in errors) as an object holding the named sections, in order,
/// each checked as LLVM's parseVocabSection checks it (present, an object, not empty, arrays of
/// finite numbers of the first key's dimension, at most MaxDimension), and all of one dimension. Shared by IR2Vec's
/// and MIR2Vec's vocabulary files.
llvm::Expected<std::vector<JSONSection>> parseJSONSections(llvm::StringRef Text, llvm::StringRef Source,
                                                          llvm::ArrayRef<llvm::StringRef> Names);
/// Weight options as LLVM's cl::opt<float> reads them: the text as a double (strtod), narrowed
/// to float into *Out; the first that is not a number is a usage error naming its option.
struct WeightOption {
  const char *Option;
  llvm::StringRef Text;
  float *Out;
};
llvm::Error parseWeights(std::initializer_list<WeightOption> Options);

/// Reads LLVM's vocabulary JSON: an object with sections "Opcodes", "Types", "Arguments",
/// each mapping keys to arrays of numbers of one common dimension. Every failure names the
/// file and the section/key/element (or line and column for invalid JSON).
llvm::Expected<EntityVectors> readVocabularyJSON(llvm::StringRef Path);
/// The same for text already in memory; Source names it in messages.
llvm::Expected<EntityVectors> parseVocabularyJSON(llvm::StringRef Text, llvm::StringRef Source);
/// Parsed and weighed, as LLVM 22 loads a vocabulary (its warnings are V's: see EntityVectors).
llvm::Expected<Vocabulary> parseVocabularyJSON(llvm::StringRef Text, llvm::StringRef Source,
                                               Weights W);
llvm::Expected<Vocabulary> readVocabularyJSON(llvm::StringRef Path, Weights W);

} // namespace wb::vocab
