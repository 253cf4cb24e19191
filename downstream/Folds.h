// Cross-validation folds of the device-mapping protocols (docs/downstream.md). Each assigns
// every row a test fold; a row is predicted by the model trained on the rows of other folds.
//   paper:  scikit-learn's StratifiedKFold(n_splits, shuffle=True, random_state=seed), exactly
//           (the IR2Vec paper's protocol: rows of one kernel land on both sides);
//   kernel: whole kernels per fold (no kernel on both sides), balanced by rows;
//   suite:  one fold per benchmark suite (leave one suite out; no randomness).
#pragma once

#include "support/Names.h"

#include <cstdint>
#include <random>
#include <vector>

namespace wb::downstream {

enum class FoldProtocol { Paper, Kernel, Suite };
inline constexpr support::Named<FoldProtocol> FoldProtocolNames[] = {
    {FoldProtocol::Paper, "paper"}, {FoldProtocol::Kernel, "kernel"}, {FoldProtocol::Suite, "suite"}};

/// numpy's legacy RandomState(seed).shuffle of a 1-D array: Fisher-Yates from the end, each
/// index drawn by rejection from the smallest bit mask over MT19937's 32-bit outputs (numpy's
/// random_interval). std::mt19937 seeds as numpy's mt19937_seed does.
template <typename T> void numpyShuffle(std::vector<T> &A, std::mt19937 &G) {
  for (size_t I = A.size(); I-- > 1;) {
    uint64_t Mask = I;
    for (unsigned S : {1u, 2u, 4u, 8u, 16u, 32u})
      Mask |= Mask >> S;
    uint64_t J;
    do
      J = uint64_t(G()) & Mask;
    while (J > I);
    std::swap(A[I], A[J]);
  }
}

/// StratifiedKFold's test folds (scikit-learn 1.2, _make_test_folds): classes numbered by first
/// appearance, each class's fold sizes by round robin over the sorted labels, then each class's
/// fold list shuffled in turn by one RandomState(Seed). K must not exceed the rows.
std::vector<int> stratifiedFolds(const std::vector<int> &Labels, unsigned K, uint32_t Seed);

/// Folds of whole groups: groups (numbered 0..G-1) shuffled as numpyShuffle with
/// RandomState(Seed), then each, in that order, put in the fold with the fewest rows so far
/// (the lowest on a tie). min(K, G) folds.
std::vector<int> groupFolds(const std::vector<int> &Group, unsigned K, uint32_t Seed);

/// One fold per group (leave one group out): the fold is the group's number.
inline std::vector<int> leaveGroupOut(const std::vector<int> &Group) { return Group; }

} // namespace wb::downstream
