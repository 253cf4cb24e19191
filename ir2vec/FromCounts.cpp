#include "ir2vec/FromCounts.h"

#include "llvm/Support/FileSystem.h"

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

llvm::Expected<vocab::BatchSummary> embeddingsFromCounts(const std::string &CountsPath,
                                                         const vocab::Vocabulary &V,
                                                         const std::string &VocabSHA256,
                                                         const std::string &Out,
                                                         unsigned Compress) {
  auto R = EmbeddingFileReader::open(CountsPath);
  if (!R)
    return R.takeError();
  const FileHeader &In = R->header();
  if (!In.Counts)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   CountsPath + ": not an entity-counts file (schema " +
                                       CountsSchema + "); write one with --counts");
  FileHeader H = In;
  H.Counts = false;
  H.Method = "counts";
  H.Dimension = V.dimension();
  H.W = V.weights();
  H.VocabSHA256 = VocabSHA256;
  const std::string Partial = Out + ".partial";
  vocab::BatchSummary S;
  {
    auto W = EmbeddingFileWriter::create(Partial, H, Compress);
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
  if (std::error_code EC = llvm::sys::fs::rename(Partial, Out))
    return llvm::createStringError(EC, Out + ": cannot move output into place: " + EC.message());
  return S;
}

} // namespace wb::ir2vec
