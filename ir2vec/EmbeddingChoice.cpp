#include "ir2vec/EmbeddingChoice.h"

#include "support/Error.h"
#include "support/Files.h"
#include "vocab/VocabularyFile.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>

namespace wb::ir2vec {

struct EmbeddingChoice::State {
  State(VocabSource From, std::string Spelling, vocab::Weights W, vocab::EntityVectors V,
        vocab::Vocabulary Weighted, std::string SHA256, std::string CompilerJSON)
      : From(From), Spelling(std::move(Spelling)), W(W), Vectors(std::move(V)),
        Weighted(std::move(Weighted)), SHA256(std::move(SHA256)),
        CompilerJSON(std::move(CompilerJSON)) {}

  VocabSource From;
  std::string Spelling;
  vocab::Weights W;
  vocab::EntityVectors Vectors;
  vocab::Vocabulary Weighted;
  std::string SHA256;
  std::string CompilerJSON;

  /// The compiler's in-memory file, one per kind of reader, made on first use.
  struct Lazy {
    std::once_flag Once;
    std::optional<support::MemoryFile> File;
    std::string Error;
  };
  mutable Lazy Files[2];
};

namespace {

/// The state of a vocabulary whose entity vectors are known: weighed, its records made.
llvm::Expected<std::shared_ptr<const EmbeddingChoice::State>>
makeState(VocabSource From, std::string Spelling, llvm::StringRef Source, vocab::Weights W,
          vocab::EntityVectors V, std::string SHA256, std::string CompilerJSON) {
  llvm::Expected<vocab::Vocabulary> Weighted = vocab::Vocabulary::weigh(V, W);
  if (!Weighted)
    return support::fileError(Source, llvm::toString(Weighted.takeError()));
  return std::make_shared<const EmbeddingChoice::State>(From, std::move(Spelling), W, std::move(V),
                                                        std::move(*Weighted), std::move(SHA256),
                                                        std::move(CompilerJSON));
}

/// Exact text of a weight: the float's IEEE-754 bits in hexadecimal, so that the digest tells
/// any two weights apart (and a reader can recompute it: docs/embeddings.md).
std::string floatText(float F) {
  uint32_t Bits = 0;
  std::memcpy(&Bits, &F, sizeof Bits);
  char Buf[16];
  std::snprintf(Buf, sizeof Buf, "%08x", unsigned(Bits));
  return Buf;
}

bool sameWeights(const vocab::Weights &A, const vocab::Weights &B) {
  return floatText(A.Opcode) == floatText(B.Opcode) && floatText(A.Type) == floatText(B.Type) &&
         floatText(A.Arg) == floatText(B.Arg);
}

} // namespace

llvm::Expected<EmbeddingChoice> EmbeddingChoice::resolve(const EmbeddingRequest &R) {
  llvm::Expected<std::shared_ptr<const State>> S = nullptr;
  switch (R.From) {
  case VocabSource::Counts: {
    vocab::EntityVectors V = vocab::countingEntityVectors();
    std::string JSON = vocab::vocabularyJSON(V);
    std::string SHA = support::sha256Hex(JSON);
    S = makeState(R.From, "counts", "the counting vocabulary", R.W, std::move(V), std::move(SHA),
                  std::move(JSON));
    break;
  }
  case VocabSource::Memory:
    return support::makeError("internal error: a memory vocabulary is made from its vectors");
  case VocabSource::Default:
  case VocabSource::File: {
    if (R.From == VocabSource::File && R.File.empty())
      return support::usageError("the vocabulary path is empty");
    const std::string Path = R.From == VocabSource::File ? R.File : std::string();
    const llvm::StringRef Source = vocab::vocabularySource(Path);
    // The one read of the file: its SHA-256, its vectors and the compiler's JSON come from it.
    auto Bytes = vocab::readVocabularyBytes(Path);
    if (!Bytes)
      return Bytes.takeError();
    const llvm::StringRef B = (*Bytes)->getBuffer();
    llvm::Expected<vocab::EntityVectors> V = vocab::parseEntityVectors(B, Source);
    if (!V)
      return V.takeError();
    // LLVM reads JSON: a JSON file as it is, an HDF5 one as the same vectors in JSON.
    std::string CompilerJSON = vocab::isHDF5(B) ? vocab::vocabularyJSON(*V) : B.str();
    S = makeState(R.From, R.From == VocabSource::File ? R.File : std::string("default"), Source,
                  R.W, std::move(*V), support::sha256Hex(B), std::move(CompilerJSON));
    break;
  }
  }
  if (!S)
    return S.takeError();
  return EmbeddingChoice(std::move(*S), R.K);
}

llvm::Expected<EmbeddingChoice> EmbeddingChoice::fromEntityVectors(vocab::EntityVectors V,
                                                                   std::string Name, Kind K,
                                                                   vocab::Weights W) {
  std::string JSON = vocab::vocabularyJSON(V);
  std::string SHA = support::sha256Hex(JSON);
  const std::string Source = Name;
  auto S = makeState(VocabSource::Memory, std::move(Name), Source, W, std::move(V), std::move(SHA),
                     std::move(JSON));
  if (!S)
    return S.takeError();
  return EmbeddingChoice(std::move(*S), K);
}

EmbeddingChoice EmbeddingChoice::withKind(Kind NewKind) const { return EmbeddingChoice(S, NewKind); }

VocabSource EmbeddingChoice::source() const { return S->From; }
const vocab::Weights &EmbeddingChoice::weights() const { return S->W; }
const vocab::Vocabulary &EmbeddingChoice::vocabulary() const { return S->Weighted; }
const vocab::EntityVectors &EmbeddingChoice::entityVectors() const { return S->Vectors; }
const std::string &EmbeddingChoice::spelling() const { return S->Spelling; }
const std::string &EmbeddingChoice::vocabularySHA256() const { return S->SHA256; }
llvm::StringRef EmbeddingChoice::compilerJSON() const { return S->CompilerJSON; }

llvm::StringRef EmbeddingChoice::sourceName() const {
  return S->From == VocabSource::Default ? llvm::StringRef(vocab::DefaultVocabularyName)
                                         : llvm::StringRef(S->Spelling);
}

std::string EmbeddingChoice::digest() const {
  return support::sha256Hex("ir2vec.embedding/1\nvocabulary " + S->SHA256 + "\nkind " +
                            kindName(K).str() + "\nweights " + floatText(S->W.Opcode) + " " +
                            floatText(S->W.Type) + " " + floatText(S->W.Arg) + "\n");
}

std::vector<std::string> EmbeddingChoice::warnings() const {
  return S->Vectors.warnings(sourceName());
}

bool EmbeddingChoice::sameVocabulary(const EmbeddingChoice &O) const {
  return S && O.S && S->SHA256 == O.S->SHA256 && S->From == O.S->From;
}

std::string EmbeddingChoice::explorationKey() const {
  const std::string Vocab = S->From == VocabSource::Default ? std::string() : S->Spelling;
  if (K == Kind::Symbolic)
    return Vocab;
  return (kindName(K) + ":" + Vocab).str();
}

llvm::Expected<std::string> EmbeddingChoice::compilerVocabularyPath(support::MemoryFile::Readers Who) const {
  State::Lazy &L = S->Files[Who == support::MemoryFile::Readers::Children ? 0 : 1];
  std::call_once(L.Once, [&] {
    llvm::Expected<support::MemoryFile> F =
        support::MemoryFile::create("ir2vec-vocabulary.json", S->CompilerJSON, Who);
    if (F)
      L.File.emplace(std::move(*F));
    else
      L.Error = llvm::toString(F.takeError());
  });
  if (!L.File)
    return support::makeError("the vocabulary for the compiler: " + L.Error);
  return L.File->path();
}

llvm::Expected<EmbeddingChoice> EmbeddingResolver::resolve(const EmbeddingRequest &R) {
  for (const auto &[Req, Choice] : Done)
    if (Req.From == R.From && Req.File == R.File && sameWeights(Req.W, R.W))
      return Choice.withKind(R.K);
  llvm::Expected<EmbeddingChoice> C = EmbeddingChoice::resolve(R);
  if (!C)
    return C.takeError();
  Done.emplace_back(R, *C);
  return C;
}

} // namespace wb::ir2vec
