// Fold vocabularies (downstream/FoldVocab.h): a vocabulary trained without a kernel has seen
// only the other kernels' triplets. The oracle is the command-line path: `ir2vec triplets
// --format openke --extended-relations` of just those files (vocab/TripletCorpus.h), read back
// as OpenKE and trained by TransE with the same settings, gives the same vocabulary bit for
// bit; with the held-out kernel it differs.
#include "downstream/FoldVocab.h"
#include "vocab/EntityLayout.h"
#include "vocab/KnowledgeGraph.h"
#include "vocab/TripletCorpus.h"
#include "vocab/VocabularyFile.h"

#include "llvm/IR/Instruction.h"

#include <gtest/gtest.h>

#include <fstream>

namespace {

using namespace wb;

std::vector<std::string> writeKernels() {
  const char *Bodies[] = {
      "define float @k(float %a, float %b) {\n  %r = frem float %a, %b\n  ret float %r\n}\n",
      "define i32 @k(i32 %a, i32 %b) {\n  %r = add i32 %a, %b\n  ret i32 %r\n}\n",
      "define i32 @k(i32 %a, i32 %b) {\n  %r = mul i32 %a, %b\n  %s = add i32 %r, %b\n  ret i32 %s\n}\n"};
  std::vector<std::string> Files;
  for (size_t I = 0; I < 3; ++I) {
    Files.push_back(::testing::TempDir() + "fold-kernel" + std::to_string(I) + ".ll");
    std::ofstream(Files.back()) << Bodies[I];
  }
  return Files;
}

std::vector<double> rows(const vocab::Vocabulary &V) {
  return {V.matrix().begin(), V.matrix().end()};
}

TEST(FoldVocab, TrainedOnTheTrainingKernelsOnly) {
  const std::vector<std::string> Files = writeKernels();
  auto T = downstream::KernelTriplets::collect(Files, {true, true, true});
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  downstream::FoldVocabSettings S;
  S.Init = "default";
  S.Epochs = 20;
  S.Seed = 7;
  auto Init = downstream::foldInit(S);
  ASSERT_TRUE(bool(Init)) << llvm::toString(Init.takeError());
  ASSERT_TRUE(Init->has_value());
  const vocab::Weights Unit{1.0f, 1.0f, 1.0f};
  auto Without = T->train({1, 2}, S, Unit, &**Init);
  ASSERT_TRUE(bool(Without)) << llvm::toString(Without.takeError());
  auto With = T->train({0, 1, 2}, S, Unit, &**Init);
  ASSERT_TRUE(bool(With)) << llvm::toString(With.takeError());

  // The oracle: OpenKE files of kernels 1 and 2 as `ir2vec triplets` writes them.
  vocab::TripletCorpusJob J;
  J.Inputs = {Files[1], Files[2]};
  J.Opts.Extended = true;
  const std::string Dir = ::testing::TempDir() + "fold-openke";
  auto Written = vocab::runTripletCorpus(J, Dir, corpus::BatchIO{});
  ASSERT_TRUE(bool(Written)) << llvm::toString(Written.takeError());
  auto G = vocab::readOpenKE(Dir, vocab::SplitOptions{0, 0, 1});
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  EXPECT_EQ(G->Train.size(), T->uniqueTriplets({1, 2}));
  vocab::TransEConfig C;
  C.Dim = S.Dim;
  C.Epochs = S.Epochs;
  C.Seed = S.Seed;
  C.EvalEvery = 0;
  auto Trained = vocab::trainTransE(*G, C, {}, &**Init);
  ASSERT_TRUE(bool(Trained)) << llvm::toString(Trained.takeError());
  const arma::mat &E = Trained->Model.Entities;
  EXPECT_EQ(rows(*Without), std::vector<double>(E.memptr(), E.memptr() + E.n_elem));
  EXPECT_NE(rows(*With), rows(*Without));
  // Kernel 2 repeats kernel 1's add triplets: the union counts them once.
  EXPECT_LT(T->uniqueTriplets({1, 2}), T->uniqueTriplets({1}) + T->uniqueTriplets({2}));
}

TEST(FoldVocab, ALeftOutKernelHasNoTriplets) {
  const std::vector<std::string> Files = writeKernels();
  auto T = downstream::KernelTriplets::collect(Files, {false, true, true});
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(T->uniqueTriplets({0}), 0u);
  downstream::FoldVocabSettings S;
  auto V = T->train({0}, S, vocab::Weights{}, nullptr);
  ASSERT_FALSE(bool(V));
  EXPECT_NE(llvm::toString(V.takeError()).find("no triplets"), std::string::npos);
}

} // namespace
