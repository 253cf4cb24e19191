#include "downstream/Folds.h"

#include <algorithm>
#include <map>

namespace wb::downstream {

std::vector<int> stratifiedFolds(const std::vector<int> &Labels, unsigned K, uint32_t Seed) {
  std::mt19937 G(Seed);
  // Classes by order of first appearance, as scikit-learn encodes them.
  std::map<int, int> Code;
  std::vector<int> Enc(Labels.size());
  for (size_t I = 0; I < Labels.size(); ++I)
    Enc[I] = Code.emplace(Labels[I], int(Code.size())).first->second;
  const size_t Classes = Code.size();
  std::vector<int> Sorted = Enc;
  std::sort(Sorted.begin(), Sorted.end());
  // allocation[f][c]: rows of class c in test fold f (round robin over the sorted codes).
  std::vector<std::vector<size_t>> Alloc(K, std::vector<size_t>(Classes, 0));
  for (size_t I = 0; I < Sorted.size(); ++I)
    ++Alloc[I % K][size_t(Sorted[I])];
  std::vector<int> Folds(Labels.size(), 0);
  for (size_t C = 0; C < Classes; ++C) {
    std::vector<int> ForClass;
    for (unsigned F = 0; F < K; ++F)
      ForClass.insert(ForClass.end(), Alloc[F][C], int(F));
    numpyShuffle(ForClass, G);
    size_t Next = 0;
    for (size_t I = 0; I < Enc.size(); ++I)
      if (size_t(Enc[I]) == C)
        Folds[I] = ForClass[Next++];
  }
  return Folds;
}

std::vector<int> groupFolds(const std::vector<int> &Group, unsigned K, uint32_t Seed) {
  int Groups = 0;
  for (int X : Group)
    Groups = std::max(Groups, X + 1);
  std::vector<size_t> Rows(size_t(Groups), 0);
  for (int X : Group)
    ++Rows[size_t(X)];
  std::vector<int> Order(static_cast<size_t>(Groups));
  for (int I = 0; I < Groups; ++I)
    Order[size_t(I)] = I;
  std::mt19937 G(Seed);
  numpyShuffle(Order, G);
  const unsigned Folds = std::min<unsigned>(K, unsigned(Groups));
  std::vector<size_t> Load(Folds, 0);
  std::vector<int> FoldOf(size_t(Groups), 0);
  for (int Gr : Order) {
    const size_t F = size_t(std::min_element(Load.begin(), Load.end()) - Load.begin());
    FoldOf[size_t(Gr)] = int(F);
    Load[F] += Rows[size_t(Gr)];
  }
  std::vector<int> Out(Group.size());
  for (size_t I = 0; I < Group.size(); ++I)
    Out[I] = FoldOf[size_t(Group[I])];
  return Out;
}

} // namespace wb::downstream
