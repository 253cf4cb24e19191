#include "ir2vec/FromCounts.h"

#include "support/Error.h"
#include "support/Files.h"

#include <armadillo>

namespace wb::ir2vec {

std::vector<double> countsTimesVocabulary(const std::vector<double> &Counts,
                                          const vocab::Vocabulary &V) {
  const arma::uword N = Counts.size() / vocab::NumEntities, D = V.dimension();
  std::vector<double> Out(N * D);
  if (N == 0)
    return Out;
  // Row-major [N x 110] is column-major [110 x N]; likewise for the vocabulary and the result,
  // so E^T = V^T C^T is one product over the buffers as they are, without copies.
  const arma::mat C(const_cast<double *>(Counts.data()), vocab::NumEntities, N, false, true);
  const arma::mat VT(const_cast<double *>(V.matrix().data()), D, vocab::NumEntities, false, true);
  arma::mat E(Out.data(), D, N, false, true);
  E = VT * C;
  return Out;
}

llvm::Expected<corpus::BatchSummary> embeddingsFromCounts(const std::string &CountsPath,
                                                         const vocab::Vocabulary &V,
                                                         const std::string &VocabSHA256,
                                                         const std::string &Out,
                                                         unsigned Compress) {
  auto R = EmbeddingFileReader::open(CountsPath);
  if (!R)
    return R.takeError();
  const FileHeader &In = R->header();
  if (!In.Counts)
    return support::fileError(CountsPath, llvm::Twine("not an entity-counts file (schema ") +
                                              CountsSchema + "); write one with --counts");
  // Counts × vocabulary needs one column per entity; another width would be multiplied
  // silently against the wrong rows.
  if (In.Dimension != vocab::NumEntities)
    return support::fileError(CountsPath, "attribute dimension is " + llvm::Twine(In.Dimension) +
                                              ", expected " + llvm::Twine(vocab::NumEntities) +
                                              " (one count per entity of the LLVM 22 layout)");
  FileHeader H = In;
  H.SchemaVersion = FileHeader().SchemaVersion; // a version 1 input gives a current file
  H.Counts = false;
  H.Method = "counts";
  H.Dimension = V.dimension();
  H.W = V.weights();
  H.VocabSHA256 = VocabSHA256;
  auto File = support::PendingFile::create(Out, support::PendingFile::Use::Path);
  if (!File)
    return File.takeError();
  corpus::BatchSummary S;
  {
    auto W = EmbeddingFileWriter::create(File->path(), H, Compress, R->numModules());
    if (!W)
      return W.takeError();
    for (uint64_t M = 0; M < R->numModules(); ++M) {
      auto Mod = R->module(M);
      if (!Mod)
        return Mod.takeError();
      ModuleEmbedding &E = Mod->Rows;
      E.FunctionVectors = countsTimesVocabulary(E.FunctionVectors, V);
      E.BlockVectors = countsTimesVocabulary(E.BlockVectors, V);
      E.InstVectors = countsTimesVocabulary(E.InstVectors, V);
      E.ModuleVector = countsTimesVocabulary(E.ModuleVector, V);
      E.Dim = V.dimension();
      const bool OK = Mod->Error.empty();
      ++S.Modules;
      S.Failed += !OK;
      if (llvm::Error X = W->append(Mod->Path, Mod->Error, OK ? &E : nullptr))
        return X;
    }
    if (llvm::Error X = W->close())
      return X;
  }
  if (llvm::Error E = File->commit())
    return E;
  return S;
}

llvm::Expected<support::Outcome> runFromCounts(const std::string &CountsPath,
                                               const vocab::Vocabulary &V,
                                               const std::string &VocabSHA256,
                                               const std::string &Out, unsigned Compress) {
  if (Out.empty() || Out == "-")
    return support::usageError("from-counts needs an output file: -o FILE.h5");
  auto S = embeddingsFromCounts(CountsPath, V, VocabSHA256, Out, Compress);
  if (!S)
    return S.takeError();
  return support::Outcome::complete();
}

} // namespace wb::ir2vec
