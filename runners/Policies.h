// The policies a session can run:
//   default   inliner: answers the compiler's own heuristic decision (inlining_default)
//   no-evict  eviction: never evicts (column 32), or the first legal column when the
//             compiler marks "no eviction" illegal
//   random    seeded exploration around the base policy: with probability --explore a
//             uniformly random legal answer, otherwise the base answer (inliner: default;
//             eviction: no-evict; priority: li_size)
//   linear    a linear model, weights in HDF5 (docs/formats/mlgo-model.md)
//   mlp       a multi-layer perceptron with ReLU hidden layers, same file format
//   replay    answers the decisions recorded in a session log, in order
#pragma once

#include "runners/ModelRunner.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace wb::runners {

struct PolicyOptions {
  std::string Name = "default";
  std::string ModelPath;  // linear, mlp
  std::string ReplayPath; // replay
  uint64_t Seed = 0;
  double Explore = 0.1; // random
  /// Loads linear/mlp models (runners/Models.h, loadModelPolicy). Models need HDF5 and
  /// Armadillo, which the launcher's fast path does not link; unset there.
  std::function<llvm::Expected<std::unique_ptr<Policy>>(Task, const PolicyOptions &)> LoadModel;
};

llvm::Expected<std::unique_ptr<Policy>> makePolicy(Task T, const PolicyOptions &O);

/// Advice bytes and eviction legality, shared by every policy.
inline constexpr size_t EvictionColumns = 33, NoEviction = 32;
std::string int64Advice(int64_t V);
std::string floatAdvice(float V);
features::TensorSpec evictionMaskSpec();
/// Columns whose mask (input MaskIdx) is 1.
std::vector<size_t> legalColumns(const Inputs &In, size_t MaskIdx);

} // namespace wb::runners
