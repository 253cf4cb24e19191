// mlgo/ExplorationFile: the exploration format's one writer and one reader agree on every
// field of the header, of every module and of every rollout (a round trip of values chosen by
// hand, a failed module and a failed rollout among them).
#include "tests/mlgo/Common.h"

#include "mlgo/pipelines/ExplorationFile.h"

namespace {

TEST(ExplorationFile, RoundTripOfEveryField) {
  mlgo::ExplorationFile F;
  mlgo::ExplorationHeader &H = F.Header;
  H.Budget = 6;
  H.Seed = 3;
  H.FlipOrder = "inlined";
  H.Split = R"({"train_keys": ["a"]})";
  H.Side = "train";
  H.Opt = "opt-22 -passes=default<Oz>";
  H.Llc = "llc-22 -O2";
  H.Compile = "auto";
  H.Toolchain = "fingerprint";
  H.LLVMVersion = "22.1.8";
  H.ToolVersion = "test";
  H.Rules = {"inline+10"};
  H.Corpus = {"corpus_description.json"};
  mlgo::ModuleExploration A;
  A.Path = "a/m.bc";
  A.Key = "a";
  A.Command = "";
  A.BaselineSize = 120;
  A.BestSize = 100;
  A.Best = 2;
  A.Rollouts = {{{1, 0, 1}, 120, -1, -1, ""},
                {{0, 0, 1}, -1, 0, 0, "llc-22 crashed"}, // a failed rollout, after rule 0
                {{1, 1, 1}, 100, 1, -1, ""}};
  mlgo::ModuleExploration B;
  B.Path = "b/m.bc";
  B.Key = "b";
  B.Error = "opt-22: not valid IR";
  F.Modules = {A, B};
  const std::string Path = tempPath("exploration");
  ASSERT_FALSE(bool(mlgo::writeExplorationFile(Path, F)));
  auto R = mlgo::readExploration(Path);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const mlgo::ExplorationHeader &G = R->Header;
  EXPECT_EQ(G.Budget, 6);
  EXPECT_EQ(G.Seed, 3);
  EXPECT_EQ(G.FlipOrder, "inlined");
  EXPECT_EQ(G.Split, H.Split);
  EXPECT_EQ(G.Side, "train");
  EXPECT_EQ(G.Opt, H.Opt);
  EXPECT_EQ(G.Llc, H.Llc);
  EXPECT_EQ(G.Compile, "auto");
  EXPECT_EQ(G.Toolchain, "fingerprint");
  EXPECT_EQ(G.LLVMVersion, "22.1.8");
  EXPECT_EQ(G.ToolVersion, "test");
  EXPECT_EQ(G.Rules, H.Rules);
  EXPECT_EQ(G.Corpus, H.Corpus);
  ASSERT_EQ(R->Modules.size(), 2u);
  for (size_t I = 0; I < 2; ++I) {
    const mlgo::ModuleExploration &X = F.Modules[I], &Y = R->Modules[I];
    EXPECT_EQ(Y.Path, X.Path);
    EXPECT_EQ(Y.Key, X.Key);
    EXPECT_EQ(Y.Error, X.Error);
    EXPECT_EQ(Y.BaselineSize, X.BaselineSize);
    EXPECT_EQ(Y.BestSize, X.BestSize);
    EXPECT_EQ(Y.Best, X.Best);
    ASSERT_EQ(Y.Rollouts.size(), X.Rollouts.size());
    for (size_t K = 0; K < X.Rollouts.size(); ++K) {
      EXPECT_EQ(Y.Rollouts[K].Decisions, X.Rollouts[K].Decisions) << K;
      EXPECT_EQ(Y.Rollouts[K].TextSize, X.Rollouts[K].TextSize) << K;
      EXPECT_EQ(Y.Rollouts[K].Flip, X.Rollouts[K].Flip) << K;
      EXPECT_EQ(Y.Rollouts[K].Rule, X.Rollouts[K].Rule) << K;
      EXPECT_EQ(Y.Rollouts[K].Error, X.Rollouts[K].Error) << K;
    }
  }
  llvm::sys::fs::remove(Path);
}

} // namespace
