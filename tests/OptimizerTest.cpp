// learn::Optimizer: steps worked out by hand (SGD) and computed independently (Adam, in the
// "efficient" ordering of Kingma and Ba 2015, Section 2: eps added to sqrt(v), the bias
// correction folded into the step size; values from a separate Python computation), sparse
// steps that touch only their columns, and dense steps equal to sparse ones over every column.
#include "learn/Optimizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace wb::learn;

namespace {

OptimizerConfig config(OptimizerKind K, double LR) {
  OptimizerConfig C;
  C.Kind = K;
  C.LearningRate = LR;
  return C;
}

TEST(Optimizer, SGDStepByHand) {
  Optimizer O(config(OptimizerKind::SGD, 0.1), {arma::size(2, 2)});
  arma::mat P = {{1, 2}, {3, 4}};
  arma::mat G = {{0.5, 7}, {1, 7}};
  std::vector<arma::uword> Cols = {0};
  O.stepColumns(0, P, G, Cols);
  // Column 0: 1 - 0.1 * 0.5 = 0.95, 3 - 0.1 * 1 = 2.9; column 1 is not touched.
  EXPECT_DOUBLE_EQ(P(0, 0), 0.95);
  EXPECT_DOUBLE_EQ(P(1, 0), 2.9);
  EXPECT_EQ(P(0, 1), 2);
  EXPECT_EQ(P(1, 1), 4);
  // The used gradient column is cleared for the next minibatch, the other one is left.
  EXPECT_EQ(G(0, 0), 0);
  EXPECT_EQ(G(1, 0), 0);
  EXPECT_EQ(G(0, 1), 7);
}

TEST(Optimizer, AdamStepsMatchAnIndependentComputation) {
  Optimizer O(config(OptimizerKind::Adam, 0.1), {arma::size(1, 1)});
  arma::mat P(1, 1, arma::fill::ones);
  const double Grads[] = {0.5, 0.5, -2.0};
  // p after each step (lr 0.1, b1 0.9, b2 0.999, eps 1e-8).
  const double Expected[] = {0.9000000632455132, 0.800000107978038, 0.8344834619532517};
  for (int T = 0; T < 3; ++T) {
    arma::mat G(1, 1);
    G(0, 0) = Grads[T];
    O.step(0, P, G);
    EXPECT_NEAR(P(0, 0), Expected[T], 1e-15) << "step " << T + 1;
  }
  EXPECT_EQ(O.steps(0), 3u);
}

TEST(Optimizer, SparseStepsTouchOnlyTheirColumnsAndCountPerBlock) {
  Optimizer O(config(OptimizerKind::Adam, 0.01), {arma::size(3, 4), arma::size(3, 2)});
  arma::mat E(3, 4, arma::fill::ones), R(3, 2, arma::fill::ones);
  arma::mat GE(3, 4, arma::fill::ones), GR(3, 2, arma::fill::ones);
  const arma::mat E0 = E;
  std::vector<arma::uword> Cols = {2, 0, 2}; // repeated and unsorted: each column once
  O.stepColumns(0, E, GE, Cols);
  EXPECT_THAT(Cols, testing::ElementsAre(0, 2));
  EXPECT_EQ(O.steps(0), 1u);
  EXPECT_EQ(O.steps(1), 0u); // blocks keep their own step counts
  for (arma::uword C : {1u, 3u})
    EXPECT_TRUE(arma::all(E.col(C) == E0.col(C))) << "column " << C << " moved";
  for (arma::uword C : {0u, 2u}) {
    EXPECT_NEAR(E(0, C), 1 - 0.01, 1e-8); // Adam's first step: the learning rate, up to eps
    EXPECT_TRUE(arma::all(GE.col(C) == 0));
  }
  std::vector<arma::uword> RC = {1};
  O.stepColumns(1, R, GR, RC);
  EXPECT_EQ(O.steps(1), 1u);
  EXPECT_EQ(R(0, 0), 1);
}

TEST(Optimizer, DenseStepEqualsSparseStepOverEveryColumn) {
  for (OptimizerKind K : {OptimizerKind::SGD, OptimizerKind::Adam}) {
    Optimizer Dense(config(K, 0.05), {arma::size(4, 3)}), Sparse(config(K, 0.05), {arma::size(4, 3)});
    arma::mat A = arma::reshape(arma::linspace(-1, 2, 12), 4, 3), B = A;
    for (int T = 0; T < 5; ++T) {
      arma::mat G = arma::reshape(arma::linspace(0.3 * T - 1, 0.7 * T, 12), 4, 3), H = G;
      Dense.step(0, A, G);
      std::vector<arma::uword> All = {0, 1, 2};
      Sparse.stepColumns(0, B, H, All);
    }
    EXPECT_TRUE(arma::all(arma::vectorise(A == B))) << optimizerName(K).str();
  }
}

TEST(Optimizer, NamesAndBadSettings) {
  for (OptimizerKind K : {OptimizerKind::SGD, OptimizerKind::Adam})
    EXPECT_EQ(*parseOptimizer(optimizerName(K)), K);
  auto Bad = parseOptimizer("rmsprop");
  ASSERT_FALSE(bool(Bad));
  EXPECT_THAT(llvm::toString(Bad.takeError()), testing::HasSubstr("sgd or adam"));
  OptimizerConfig C;
  C.LearningRate = 0;
  EXPECT_THAT(llvm::toString(C.validate()), testing::HasSubstr("--lr"));
  C.LearningRate = 0.1;
  C.Beta2 = 1;
  EXPECT_THAT(llvm::toString(C.validate()), testing::HasSubstr("beta2"));
  C.Beta2 = 0.999;
  EXPECT_FALSE(bool(C.validate()));
}

} // namespace
