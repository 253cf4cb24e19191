// mlgo/Train and the ablation's pooling: quantiles, a learnt rule, errors, pooled reductions by
// hand.
#include "tests/mlgo/Common.h"

namespace {

TEST(Training, QuantileEdgesAndBucketsByHand) {
  // Values 0, 0, 0, 1, 5: the order statistics at every quantile are 0, 1 or 5, so the unique
  // edges are {0, 1, 5}; x -> #(edges <= x) / 3, fed with its square.
  EXPECT_THAT(mlgo::quantileEdges({5, 0, 1, 0, 0}, 1000), testing::ElementsAre(0, 1, 5));
  EXPECT_THAT(mlgo::quantileEdges({3, 1, 2}, 2), testing::ElementsAre(1, 2, 3));
  runners::Normalization Q;
  Q.K = runners::Normalization::Quantile;
  Q.Edges = {0, 1, 5};
  const std::pair<double, double> Cases[] = {{-1, 0}, {0, 1.0 / 3}, {0.5, 1.0 / 3}, {1, 2.0 / 3},
                                             {3, 2.0 / 3}, {5, 1}, {9, 1}};
  for (auto [X, Want] : Cases) {
    double Out[2];
    EXPECT_EQ(Q.apply(0, X, Out), Out + 2);
    EXPECT_DOUBLE_EQ(Out[0], Want) << X;
    EXPECT_DOUBLE_EQ(Out[1], Want * Want) << X;
  }
  // z-scores per element: (x - mean) / std.
  runners::Normalization Z;
  Z.K = runners::Normalization::ZScore;
  Z.Mean = {1, -2};
  Z.Std = {2, 0.5};
  double Out;
  Z.apply(0, 4, &Out);
  EXPECT_DOUBLE_EQ(Out, 1.5);
  Z.apply(1, -1, &Out);
  EXPECT_DOUBLE_EQ(Out, 2.0);
}

// A dataset of the inliner's feature set whose label is a rule of two features.
features::DatasetTable ruleDataset(size_t Rows) {
  features::DatasetTable D;
  D.T = features::Task::Inline;
  for (const features::FeatureDef &F : features::taskInfo(features::Task::Inline).Features)
    if (F.From != features::Origin::Workbench && std::string(F.Name) != "callee_embedding" &&
        std::string(F.Name) != "caller_embedding")
      D.Features.push_back(features::specOf(F, 0));
  D.Decision = features::taskInfo(features::Task::Inline).Advice;
  D.FeatureSetVersion = features::featureSetVersion(D.T, D.Features);
  D.Columns.resize(D.Features.size());
  D.ModulePaths = {"m"};
  const size_t Users = *D.find("callee_users"), Blocks = *D.find("callee_basic_block_count");
  for (size_t R = 0; R < Rows; ++R) {
    for (size_t F = 0; F < D.Features.size(); ++F) {
      int64_t V = int64_t((R * 7919 + F * 104729) % 97); // arbitrary, reproducible
      D.Columns[F].append(reinterpret_cast<const char *>(&V), 8);
    }
    auto At = [&](size_t F) {
      int64_t V;
      std::memcpy(&V, D.Columns[F].data() + R * 8, 8);
      return V;
    };
    // Inline small callees with few users.
    D.Decisions.push_back(At(Users) < 30 && At(Blocks) < 40);
    D.RowModule.push_back(0);
  }
  return D;
}

TEST(Training, LearnsARuleAndStoresWhatItLearnedFrom) {
  features::DatasetTable D = ruleDataset(2000);
  mlgo::TrainConfig C;
  C.Groups = {"callgraph"};
  C.Epochs = 60;
  mlgo::TrainingReport R;
  auto M = mlgo::trainPolicy(D, C, R);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_GE(R.Accuracy, 0.97);
  EXPECT_EQ(R.Rows, 2000u);
  // The model reads exactly the callgraph group, each with a quantile normalisation.
  EXPECT_EQ(M->Inputs.size(), 13u);
  for (size_t I = 0; I < M->Inputs.size(); ++I)
    EXPECT_EQ(M->norm(I).K, runners::Normalization::Quantile) << M->Inputs[I].Name;
  EXPECT_THAT(M->Groups, testing::ElementsAre("callgraph"));
  // Written and read back, the model predicts the same decisions (training and inference
  // share the input vector and the network).
  std::string Path = tempPath("trained");
  ASSERT_FALSE(bool(runners::writeModelFile(Path, *M)));
  auto Back = runners::readModelFile(Path);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(mlgo::predict(*Back, D), mlgo::predict(*M, D));
  // The same seed gives the same model.
  mlgo::TrainingReport R2;
  auto M2 = mlgo::trainPolicy(D, C, R2);
  ASSERT_TRUE(bool(M2));
  EXPECT_EQ(M2->Layers[0].Weight, M->Layers[0].Weight);
}

TEST(Training, UnknownGroupsAndMissingFeaturesAreErrors) {
  features::DatasetTable D = ruleDataset(10);
  mlgo::TrainConfig C;
  C.Groups = {"callgraph", "nonsense"};
  mlgo::TrainingReport R;
  auto M = mlgo::trainPolicy(D, C, R);
  ASSERT_FALSE(bool(M));
  EXPECT_THAT(llvm::toString(M.takeError()),
              testing::AllOf(testing::HasSubstr("unknown feature group 'nonsense'"),
                             testing::HasSubstr("cost, callgraph, heuristic, embedding, module")));
  C.Groups = {"embedding"};
  M = mlgo::trainPolicy(D, C, R);
  ASSERT_FALSE(bool(M));
  EXPECT_THAT(llvm::toString(M.takeError()), testing::HasSubstr("callee_embedding"));
  features::DatasetTable Empty = ruleDataset(0);
  C.Groups = {"cost"};
  M = mlgo::trainPolicy(Empty, C, R);
  ASSERT_FALSE(bool(M));
  EXPECT_THAT(llvm::toString(M.takeError()), testing::HasSubstr("no training rows"));
}

// Pooled reductions worked out by hand. Arm A, two seeds, three modules with -Oz sizes 100,
// 200, 300 (total 600): seed 1 gives 90, 200, 310 (total 600, reduction 0), seed 2 gives 80,
// 190, 300 (total 570, reduction 0.05): mean 0.025. The reference gives 100, 200, 300 with
// both seeds (reduction 0): difference 0.025. A fourth module failed in one evaluation and is
// left out of every sum.
TEST(Ablation, PooledReductionByHand) {
  auto Evals = [](std::vector<int64_t> Policy) {
    std::vector<mlgo::EvalModule> E;
    const int64_t Base[] = {100, 200, 300, 400};
    for (size_t I = 0; I < 4; ++I)
      E.push_back({"m" + std::to_string(I), "", double(Base[I]), double(Policy[I]), 1, ""});
    return E;
  };
  std::vector<std::vector<mlgo::EvalModule>> A = {Evals({90, 200, 310, 1}), Evals({80, 190, 300, 1})};
  A[1][3].Error = "crashed";
  A[1][3].Policy = -1;
  const std::vector<std::vector<mlgo::EvalModule>> Ref = {Evals({100, 200, 300, 400}),
                                                           Evals({100, 200, 300, 400})};
  const mlgo::PooledReduction P = mlgo::poolReductions(A, Ref, 7, 500);
  EXPECT_NEAR(P.Mean, 0.025, 1e-15);
  EXPECT_NEAR(P.Diff, 0.025, 1e-15);
  EXPECT_LE(P.Low, P.Mean);
  EXPECT_GE(P.High, P.Mean);
  // A resample's reduction per seed is a baseline-weighted mean of module reductions (seed 1:
  // 0.1, 0, -1/30; seed 2: 0.2, 0.05, 0), so the pooled one lies in [-1/60, 0.15].
  EXPECT_GE(P.Low, -1.0 / 60 - 1e-12);
  EXPECT_LE(P.High, 0.15 + 1e-12);
  EXPECT_LT(P.Low, P.High);
  // Against itself the difference is zero in every resample.
  const mlgo::PooledReduction Self = mlgo::poolReductions(A, A, 7, 500);
  EXPECT_EQ(Self.Diff, 0);
  EXPECT_EQ(Self.DiffLow, 0);
  EXPECT_EQ(Self.DiffHigh, 0);
  EXPECT_DOUBLE_EQ(Self.Mean, P.Mean);
}

} // namespace
