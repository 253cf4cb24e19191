// mlgo/FineTune's evolution strategies on a toy objective whose optimum is known: the same
// perturbations and update fineTune uses (esPerturbations, esUpdate), with the fitness of a
// candidate u computed here instead of by compiling modules.
#include "tests/mlgo/Common.h"

#include "mlgo/pipelines/FineTune.h"

namespace {

// f(u) = -|u - u*|^2 with u* = (1, -2, 0.5): from u = 0, ES with the defaults' sigma and Adam
// must end near u*, and every step's mean fitness at the end beats the start's.
TEST(EvolutionStrategies, FindsTheOptimumOfAQuadratic) {
  const arma::vec Star{1.0, -2.0, 0.5};
  auto Fitness = [&](const arma::vec &U) { return -arma::accu(arma::square(U - Star)); };
  mlgo::ESSettings S;
  S.Pairs = 8;
  arma::mat U(3, 1, arma::fill::zeros);
  learn::Optimizer Opt(S.Optimizer, {arma::size(U)});
  double FirstMean = 0, LastMean = 0;
  for (unsigned Step = 0; Step < 400; ++Step) {
    learn::Rng G(Step + 1);
    const std::vector<arma::vec> Eps = mlgo::esPerturbations(G, S.Pairs, U.n_rows);
    ASSERT_EQ(Eps.size(), S.Pairs);
    std::vector<double> F;
    for (const arma::vec &E : Eps) {
      F.push_back(Fitness(U.col(0) + S.Sigma * E));
      F.push_back(Fitness(U.col(0) - S.Sigma * E));
    }
    const double Mean = arma::mean(arma::vec(F));
    (Step == 0 ? FirstMean : LastMean) = Mean;
    mlgo::esUpdate(U, Opt, Eps, F, S);
  }
  EXPECT_LT(arma::norm(U.col(0) - Star), 0.1) << U.t();
  EXPECT_GT(LastMean, FirstMean);
}

// A step whose candidates all score the same moves nothing (no spread: no direction).
TEST(EvolutionStrategies, FlatFitnessDoesNotMove) {
  mlgo::ESSettings S;
  arma::mat U(2, 1, arma::fill::ones);
  learn::Optimizer Opt(S.Optimizer, {arma::size(U)});
  learn::Rng G(1);
  const std::vector<arma::vec> Eps = mlgo::esPerturbations(G, 3, 2);
  mlgo::esUpdate(U, Opt, Eps, std::vector<double>(6, 0.25), S);
  EXPECT_EQ(U(0, 0), 1.0);
  EXPECT_EQ(U(1, 0), 1.0);
}

// The gradient estimate by hand: one pair, eps = (1, 0), fitness 3 at u + sigma eps and 1 at
// u - sigma eps. Spread = stddev(3, 1) = sqrt(2); the ascent direction is (3 - 1) eps /
// (2 sigma spread) = (1/(0.1 sqrt 2), 0); plain SGD with rate 0.5 moves u by 0.5 times that.
TEST(EvolutionStrategies, AntitheticStepByHand) {
  mlgo::ESSettings S;
  S.Sigma = 0.1;
  S.Optimizer = {learn::OptimizerKind::SGD, 0.5};
  arma::mat U(2, 1, arma::fill::zeros);
  learn::Optimizer Opt(S.Optimizer, {arma::size(U)});
  mlgo::esUpdate(U, Opt, {arma::vec{1.0, 0.0}}, {3.0, 1.0}, S);
  EXPECT_NEAR(U(0, 0), 0.5 / (0.1 * std::sqrt(2.0)), 1e-12);
  EXPECT_EQ(U(1, 0), 0.0);
}

} // namespace
