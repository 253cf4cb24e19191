// Gradient-boosted trees through XGBoost's C API (Debian's libxgboost-dev): the classifier of
// the IR2Vec paper's downstream tasks, with the paper's settings as defaults. Each call builds
// its own booster on one thread, so calls from several threads at once are independent and
// their results do not depend on how many run (XGBoost's exact method is deterministic).
#pragma once

#include "llvm/Support/Error.h"

#include <cstddef>
#include <string>
#include <vector>

namespace wb::downstream {

struct BoostSettings {
  unsigned MaxDepth = 10;
  double LearningRate = 0.5;
  unsigned Trees = 70;
};

/// A row-major float matrix (XGBoost reads 32-bit floats, as its Python package converts).
struct FloatMatrix {
  size_t Rows = 0, Cols = 0;
  std::vector<float> Data;
  const float *row(size_t R) const { return Data.data() + R * Cols; }
};

/// Trains binary:logistic trees (objective and every other parameter at XGBoost 1.7's
/// defaults, as XGBClassifier sets them; tree_method exact) on X's rows Train with labels Y
/// (0 or 1), and returns P(label 1) for X's rows Test.
llvm::Expected<std::vector<float>> trainAndPredict(const FloatMatrix &X, const std::vector<int> &Y,
                                                   const std::vector<size_t> &Train,
                                                   const std::vector<size_t> &Test,
                                                   const BoostSettings &S);

/// The library's version ("1.7.4"), for reports.
std::string boostVersion();

} // namespace wb::downstream
