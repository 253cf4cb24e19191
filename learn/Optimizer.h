// First-order optimizers for Armadillo parameter matrices, separate from any objective
// (ensmallen's habit): an objective computes gradients, an Optimizer turns them into updates.
// Used by the TransE trainer (vocab/) and by policy training (mlgo/).
//
// The parameters are one or more matrices ("blocks", e.g. entity and relation vectors, or the
// layers of a network); each block has its own optimizer state (Adam's moments and step
// count). A step is dense (the whole block) or sparse by columns: only the columns a minibatch
// touched are updated ("lazy" Adam, as embedding trainers do), and their gradient columns are
// cleared for the next minibatch.
//
//   SGD:  p -= lr * g
//   Adam: m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
//         p -= lr_t m / (sqrt(v) + eps),  lr_t = lr sqrt(1 - b2^t) / (1 - b1^t)
// where t counts the steps taken on the block (Kingma and Ba, 2015, with the bias correction
// folded into the step size).
#pragma once

#include "support/Names.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <armadillo>

#include <atomic>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace wb::learn {

enum class OptimizerKind { SGD, Adam };
inline constexpr support::Named<OptimizerKind> OptimizerNames[] = {{OptimizerKind::SGD, "sgd"},
                                                                  {OptimizerKind::Adam, "adam"}};

llvm::Expected<OptimizerKind> parseOptimizer(llvm::StringRef Name);
llvm::StringRef optimizerName(OptimizerKind K);

struct OptimizerConfig {
  OptimizerKind Kind = OptimizerKind::Adam;
  double LearningRate = 0.01;
  double Beta1 = 0.9, Beta2 = 0.999, Epsilon = 1e-8; // Adam

  /// Fails with a message naming the bad setting.
  llvm::Error validate() const;
};

class Optimizer {
public:
  /// Shapes: rows x columns of each parameter block, in the order steps name them.
  Optimizer(const OptimizerConfig &C, llvm::ArrayRef<arma::SizeMat> Shapes);

  const OptimizerConfig &config() const { return C; }
  /// Steps taken on block B so far.
  uint64_t steps(size_t B) const { return State[B]->Steps.load(); }

  /// One step on block B over the columns Cols of Grad (sorted and made unique here), whose
  /// columns are then zeroed. Several threads may step at once (Hogwild: updates of shared
  /// columns race, the step count does not).
  void stepColumns(size_t B, arma::mat &Params, arma::mat &Grad, std::vector<arma::uword> &Cols);
  /// One dense step on block B.
  void step(size_t B, arma::mat &Params, const arma::mat &Grad);

private:
  struct Block {
    arma::uword Rows = 0;
    arma::mat M, V; // Adam's first and second moments
    std::atomic<uint64_t> Steps{0};
  };
  /// Adam's step size for the T-th step.
  double adamRate(uint64_t T) const;
  /// Counts a step on S and gives its step size.
  double nextRate(Block &S);
  /// Updates one column (Rows values at P) from its gradient G, which Clear zeroes after use.
  template <bool Clear> using GradPtr = std::conditional_t<Clear, double *, const double *>;
  template <bool Clear>
  void updateColumn(Block &S, double Rate, double *P, GradPtr<Clear> G, arma::uword Col);

  OptimizerConfig C;
  std::vector<std::unique_ptr<Block>> State;
};

} // namespace wb::learn
