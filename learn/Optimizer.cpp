#include "learn/Optimizer.h"

#include "support/Error.h"

#include <algorithm>
#include <cmath>

namespace wb::learn {

llvm::Expected<OptimizerKind> parseOptimizer(llvm::StringRef Name) {
  return support::parseNamed<OptimizerKind>(OptimizerNames, Name, "optimizer");
}

llvm::StringRef optimizerName(OptimizerKind K) {
  return support::nameOf<OptimizerKind>(OptimizerNames, K);
}

llvm::Error OptimizerConfig::validate() const {
  if (!(LearningRate > 0) || !std::isfinite(LearningRate))
    return support::makeError("--lr must be a positive number");
  if (!(Beta1 >= 0 && Beta1 < 1) || !(Beta2 >= 0 && Beta2 < 1) || !(Epsilon > 0))
    return support::makeError("Adam needs 0 <= beta1, beta2 < 1 and epsilon > 0");
  return llvm::Error::success();
}

Optimizer::Optimizer(const OptimizerConfig &C, llvm::ArrayRef<arma::SizeMat> Shapes) : C(C) {
  for (const arma::SizeMat &S : Shapes) {
    auto B = std::make_unique<Block>();
    B->Rows = S.n_rows;
    if (C.Kind == OptimizerKind::Adam) {
      B->M.zeros(S);
      B->V.zeros(S);
    }
    State.push_back(std::move(B));
  }
}

double Optimizer::adamRate(uint64_t T) const {
  return C.LearningRate * std::sqrt(1 - std::pow(C.Beta2, double(T))) /
         (1 - std::pow(C.Beta1, double(T)));
}

template <bool Clear>
void Optimizer::updateColumn(Block &S, double Rate, double *P, GradPtr<Clear> G,
                             arma::uword Col) {
  const arma::uword N = S.Rows;
  if (C.Kind == OptimizerKind::SGD) {
    for (arma::uword K = 0; K < N; ++K) {
      P[K] -= Rate * G[K];
      if constexpr (Clear)
        G[K] = 0;
    }
    return;
  }
  double *Mp = S.M.colptr(Col), *Vp = S.V.colptr(Col);
  const double B1 = C.Beta1, B2 = C.Beta2, Eps = C.Epsilon;
  for (arma::uword K = 0; K < N; ++K) {
    Mp[K] = B1 * Mp[K] + (1 - B1) * G[K];
    Vp[K] = B2 * Vp[K] + (1 - B2) * G[K] * G[K];
    P[K] -= Rate * Mp[K] / (std::sqrt(Vp[K]) + Eps);
    if constexpr (Clear)
      G[K] = 0;
  }
}

double Optimizer::nextRate(Block &S) {
  const uint64_t T = ++S.Steps;
  return C.Kind == OptimizerKind::SGD ? C.LearningRate : adamRate(T);
}

void Optimizer::stepColumns(size_t B, arma::mat &Params, arma::mat &Grad,
                            std::vector<arma::uword> &Cols) {
  std::sort(Cols.begin(), Cols.end());
  Cols.erase(std::unique(Cols.begin(), Cols.end()), Cols.end());
  Block &S = *State[B];
  const double Rate = nextRate(S);
  for (arma::uword Col : Cols)
    updateColumn<true>(S, Rate, Params.colptr(Col), Grad.colptr(Col), Col);
}

void Optimizer::step(size_t B, arma::mat &Params, const arma::mat &Grad) {
  Block &S = *State[B];
  const double Rate = nextRate(S);
  for (arma::uword Col = 0; Col < Params.n_cols; ++Col)
    updateColumn<false>(S, Rate, Params.colptr(Col), Grad.colptr(Col), Col);
}

} // namespace wb::learn
