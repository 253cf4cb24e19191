// runners/: the policy table, an MLP's forward pass and eviction answers worked out by hand.
#include "tests/mlgo/Common.h"

namespace {

TEST(Policies, TableGivesDefaultsTasksAndTheLaunchersChoice) {
  EXPECT_EQ(*runners::defaultPolicyFor(features::Task::Inline), "default");
  EXPECT_EQ(*runners::defaultPolicyFor(features::Task::Evict), "no-evict");
  auto None = runners::defaultPolicyFor(features::Task::Priority);
  ASSERT_FALSE(bool(None));
  EXPECT_THAT(llvm::toString(None.takeError()), testing::HasSubstr("no default policy"));
  // The launcher runs what needs nothing beyond LLVM Support; any policy that reads a model
  // file, and any name it does not know, goes to the full tool (which then reports it).
  // A shipped policy is built in: only another model file given for it needs the full tool.
  for (const runners::PolicyInfo &P : runners::policyTable()) {
    EXPECT_EQ(runners::needsFullTool(P.Name), P.Needs == runners::PolicyNeeds::ModelFile) << P.Name;
    EXPECT_EQ(runners::needsFullTool(P.Name, "m.h5"),
              P.Needs == runners::PolicyNeeds::ModelFile || P.Needs == runners::PolicyNeeds::ShippedModel)
        << P.Name;
  }
  EXPECT_TRUE(runners::needsFullTool("a-policy-added-later"));
  // A policy asked for a task it does not serve is a usage error naming both.
  runners::PolicyOptions O;
  O.Name = "no-evict";
  auto P = runners::makePolicy(features::Task::Inline, O);
  ASSERT_FALSE(bool(P));
  auto [Kind, Msg] = wb::support::describeFailure(P.takeError());
  EXPECT_EQ(Kind, wb::support::FailureKind::Usage);
  EXPECT_THAT(Msg, testing::HasSubstr("'no-evict' is for --task evict"));
  // Without a name, the task's default.
  O.Name = "";
  auto D = runners::makePolicy(features::Task::Inline, O);
  ASSERT_TRUE(bool(D));
  EXPECT_EQ((*D)->describe(), "default");
}

TEST(Policies, MLPForwardPassByHand) {
  // inputs: num_loops (x), threshold (y); hidden = relu([1 -1; 2 0] [x y] + [0, -30]);
  // out = [1 -1] hidden - 0.5
  runners::ModelFile M;
  M.ForTask = features::Task::Inline;
  M.Kind = runners::ModelKind::MLP;
  std::vector<TensorSpec> H = inlinerHeader(false);
  M.Inputs = {H[13], H[24]};
  M.FeatureSet = H;
  M.FeatureSetVersion = features::featureSetVersion(features::Task::Inline, H);
  M.Layers = {{2, 2, {1, -1, 2, 0}, {0, -30}}, {2, 1, {1, -1}, {-0.5}}};
  std::string Path = tempPath("mlp");
  ASSERT_FALSE(bool(runners::writeModelFile(Path, M)));
  runners::PolicyOptions O;
  O.Name = "mlp";
  O.ModelPath = Path;
  O.LoadModel = runners::loadModelPolicy;
  auto P = runners::makePolicy(features::Task::Inline, O);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  auto R = runners::ModelRunner::create(std::move(*P), features::Task::Inline, H,
                                        features::taskInfo(features::Task::Inline).Advice, {});
  ASSERT_TRUE(bool(R));
  auto Decide = [&](int64_t X, int64_t Y) {
    std::string Pl = inlinerPayload(H);
    std::memcpy(Pl.data() + 13 * 8, &X, 8);
    std::memcpy(Pl.data() + 24 * 8, &Y, 8);
    llvm::Expected<std::string> A = R->evaluate(Pl);
    EXPECT_TRUE(bool(A));
    int64_t V;
    std::memcpy(&V, A->data(), 8);
    return V;
  };
  // x=5,y=2: h=relu(3, -20)=(3,0): out 2.5 -> inline
  EXPECT_EQ(Decide(5, 2), 1);
  // x=20,y=2: h=relu(18, 10)=(18,10): out 7.5 -> inline; x=20,y=19: h=(1,10): -9.5 -> no
  EXPECT_EQ(Decide(20, 2), 1);
  EXPECT_EQ(Decide(20, 19), 0);
  // x=0,y=0: h=(0,0): -0.5 -> no
  EXPECT_EQ(Decide(0, 0), 0);
  runners::ModelFile Back = *runners::readModelFile(Path);
  EXPECT_EQ(Back.FeatureSetVersion, M.FeatureSetVersion);
  EXPECT_EQ(Back.Layers[0].Weight, M.Layers[0].Weight);
  llvm::sys::fs::remove(Path);
}

TEST(Policies, EvictionAnswersOnlyLegalColumns) {
  std::vector<TensorSpec> H;
  for (const features::FeatureDef &F : features::taskInfo(features::Task::Evict).Features)
    if (F.From == features::Origin::Compiler)
      H.push_back(features::specOf(F, 0));
  const TensorSpec Advice = features::taskInfo(features::Task::Evict).Advice;
  auto Payload = [&](std::vector<int> Legal) {
    std::string P(3436, '\0');
    for (int C : Legal) {
      int64_t One = 1;
      std::memcpy(P.data() + C * 8, &One, 8);
    }
    return P;
  };
  auto Answer = [&](runners::ModelRunner &R, std::vector<int> Legal) {
    int64_t V;
    std::memcpy(&V, R.evaluate(Payload(Legal))->data(), 8);
    return V;
  };
  runners::PolicyOptions O;
  O.Name = "no-evict";
  auto NoEvict = runners::ModelRunner::create(std::move(*runners::makePolicy(features::Task::Evict, O)),
                                              features::Task::Evict, H, Advice, {});
  ASSERT_TRUE(bool(NoEvict));
  EXPECT_EQ(Answer(*NoEvict, {0, 3, 32}), 32);
  EXPECT_EQ(Answer(*NoEvict, {5, 9}), 5); // "no eviction" illegal: first legal column
  O.Name = "random";
  O.Explore = 1;
  O.Seed = 7;
  auto Rand = runners::ModelRunner::create(std::move(*runners::makePolicy(features::Task::Evict, O)),
                                           features::Task::Evict, H, Advice, {});
  std::set<int64_t> Got;
  for (int I = 0; I < 200; ++I)
    Got.insert(Answer(*Rand, {2, 17, 32}));
  EXPECT_THAT(Got, testing::ElementsAre(2, 17, 32));
  O.Explore = 0;
  Rand = runners::ModelRunner::create(std::move(*runners::makePolicy(features::Task::Evict, O)),
                                      features::Task::Evict, H, Advice, {});
  for (int I = 0; I < 50; ++I)
    EXPECT_EQ(Answer(*Rand, {2, 17, 32}), 32);
}

} // namespace
