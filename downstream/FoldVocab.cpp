#include "downstream/FoldVocab.h"

#include "corpus/ModuleReader.h"
#include "support/Error.h"
#include "vocab/KnowledgeGraph.h"
#include "vocab/Triplets.h"
#include "vocab/VocabTraining.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <algorithm>

namespace wb::downstream {

llvm::json::Object FoldVocabSettings::toJSON() const {
  return llvm::json::Object{{"dim", int64_t(Dim)},
                            {"epochs", int64_t(Epochs)},
                            {"seed", int64_t(Seed)},
                            {"init", Init}};
}

llvm::Expected<KernelTriplets> KernelTriplets::collect(const std::vector<std::string> &Files,
                                                       const std::vector<bool> &Usable) {
  KernelTriplets K;
  K.Keys.resize(Files.size());
  K.MaxRelation = vocab::NextRelation;
  for (size_t I = 0; I < Files.size(); ++I) {
    if (!Usable[I])
      continue;
    llvm::LLVMContext Ctx;
    llvm::Expected<corpus::ModuleInput> M = corpus::readModule(Files[I], Ctx);
    if (!M)
      return support::prefixError(Files[I], M.takeError());
    vocab::TripletOptions O;
    O.Extended = true; // as the default vocabulary was trained: predicates and operand types too
    vocab::TripletList T = vocab::collectTriplets(*M->M, O);
    K.MaxRelation = std::max(K.MaxRelation, T.MaxRelation);
    std::vector<uint64_t> &Out = K.Keys[I];
    for (const vocab::Triplet &X : T.Triplets)
      Out.push_back(vocab::tripletKey(X));
    std::sort(Out.begin(), Out.end());
    Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  }
  return K;
}

namespace {
std::vector<uint64_t> unionOf(const std::vector<std::vector<uint64_t>> &Keys,
                              const std::vector<size_t> &Kernels) {
  std::vector<uint64_t> All;
  for (size_t K : Kernels)
    All.insert(All.end(), Keys[K].begin(), Keys[K].end());
  std::sort(All.begin(), All.end());
  All.erase(std::unique(All.begin(), All.end()), All.end());
  return All;
}
} // namespace

size_t KernelTriplets::uniqueTriplets(const std::vector<size_t> &Kernels) const {
  return unionOf(Keys, Kernels).size();
}

llvm::Expected<vocab::Vocabulary> KernelTriplets::train(const std::vector<size_t> &Kernels,
                                                        const FoldVocabSettings &S,
                                                        vocab::Weights W,
                                                        const vocab::InitialEntities *Init) const {
  vocab::KnowledgeGraph G;
  for (vocab::EntityId E = 0; E < vocab::NumEntities; ++E)
    G.EntityNames.emplace_back(vocab::entityName(E));
  const uint32_t Relations = MaxRelation + 1 + vocab::NumExtendedRelations;
  for (uint32_t R = 0; R < Relations; ++R)
    G.RelationNames.push_back(vocab::relationName(R, MaxRelation));
  for (uint64_t Key : unionOf(Keys, Kernels)) {
    vocab::Triplet T = vocab::tripletOfKey(Key);
    T.Relation = vocab::finalRelation(T.Relation, MaxRelation);
    G.Train.push_back(T);
    G.TrainCount.push_back(1);
  }
  if (G.Train.empty())
    return support::makeError("no triplets to train a fold vocabulary on");
  vocab::TransEConfig C;
  C.Dim = S.Dim;
  C.Epochs = S.Epochs;
  C.Seed = S.Seed;
  C.EvalEvery = 0; // no validation split: the fixed number of epochs
  auto T = vocab::trainTransE(G, C, {}, Init);
  if (!T)
    return T.takeError();
  const arma::mat &E = T->Model.Entities; // Dim x NumEntities: entity e's vector is contiguous
  return vocab::Vocabulary::fromUnweightedRows(std::vector<double>(E.memptr(), E.memptr() + E.n_elem),
                                               S.Dim, W);
}

llvm::Expected<std::optional<vocab::InitialEntities>> foldInit(const FoldVocabSettings &S) {
  if (S.Init == "none")
    return std::nullopt;
  auto I = vocab::initialEntitiesFrom(S.Init == "default" ? "" : S.Init, S.Dim);
  if (!I)
    return I.takeError();
  return std::optional<vocab::InitialEntities>(std::move(*I));
}

} // namespace wb::downstream
