#include "downstream/Boost.h"

#include "support/Error.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <xgboost/c_api.h>

#include <memory>

namespace wb::downstream {

namespace {

llvm::Error boostError(const char *Call) {
  return support::makeError(llvm::Twine("XGBoost: ") + Call + " failed: " + XGBGetLastError());
}

struct MatrixFree {
  void operator()(void *H) const { XGDMatrixFree(H); }
};
struct BoosterFree {
  void operator()(void *H) const { XGBoosterFree(H); }
};
using Matrix = std::unique_ptr<void, MatrixFree>;
using Booster = std::unique_ptr<void, BoosterFree>;

/// X's rows Rows as an XGBoost matrix (NaN = missing, as the Python package passes it), with
/// labels when Y is given.
llvm::Expected<Matrix> subMatrix(const FloatMatrix &X, const std::vector<size_t> &Rows,
                                 const std::vector<int> *Y) {
  std::vector<float> Data;
  Data.reserve(Rows.size() * X.Cols);
  for (size_t R : Rows)
    Data.insert(Data.end(), X.row(R), X.row(R) + X.Cols);
  DMatrixHandle H = nullptr;
  if (XGDMatrixCreateFromMat(Data.data(), Rows.size(), X.Cols, std::numeric_limits<float>::quiet_NaN(), &H))
    return boostError("XGDMatrixCreateFromMat");
  Matrix M(H);
  if (Y) {
    std::vector<float> L;
    for (size_t R : Rows)
      L.push_back(float((*Y)[R]));
    if (XGDMatrixSetFloatInfo(H, "label", L.data(), L.size()))
      return boostError("XGDMatrixSetFloatInfo");
  }
  return M;
}

} // namespace

llvm::Expected<std::vector<float>> trainAndPredict(const FloatMatrix &X, const std::vector<int> &Y,
                                                   const std::vector<size_t> &Train,
                                                   const std::vector<size_t> &Test,
                                                   const BoostSettings &S) {
  if (Train.empty() || Test.empty())
    return support::makeError("internal error: an empty training or test side");
  auto D = subMatrix(X, Train, &Y);
  if (!D)
    return D.takeError();
  DMatrixHandle Handles[] = {D->get()};
  BoosterHandle BH = nullptr;
  if (XGBoosterCreate(Handles, 1, &BH))
    return boostError("XGBoosterCreate");
  Booster B(BH);
  const std::string Depth = std::to_string(S.MaxDepth), Eta = llvm::formatv("{0:g17}", S.LearningRate).str();
  const std::pair<const char *, std::string> Params[] = {
      {"objective", "binary:logistic"}, {"max_depth", Depth}, {"eta", Eta},
      {"tree_method", "exact"},         {"nthread", "1"},     {"verbosity", "0"}};
  for (const auto &[K, V] : Params)
    if (XGBoosterSetParam(BH, K, V.c_str()))
      return boostError("XGBoosterSetParam");
  for (unsigned It = 0; It < S.Trees; ++It)
    if (XGBoosterUpdateOneIter(BH, int(It), D->get()))
      return boostError("XGBoosterUpdateOneIter");
  auto T = subMatrix(X, Test, nullptr);
  if (!T)
    return T.takeError();
  bst_ulong Len = 0;
  const float *Out = nullptr;
  // option_mask 0 (probabilities), ntree_limit 0 (every tree), training 0.
  if (XGBoosterPredict(BH, T->get(), 0, 0, 0, &Len, &Out))
    return boostError("XGBoosterPredict");
  if (Len != Test.size())
    return support::makeError("XGBoost: " + llvm::Twine(Len) + " predictions for " +
                              llvm::Twine(Test.size()) + " rows");
  return std::vector<float>(Out, Out + Len);
}

std::string boostVersion() {
  int Major = 0, Minor = 0, Patch = 0;
  XGBoostVersion(&Major, &Minor, &Patch);
  return std::to_string(Major) + "." + std::to_string(Minor) + "." + std::to_string(Patch);
}

} // namespace wb::downstream
