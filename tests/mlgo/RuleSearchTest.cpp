// Rules around the heuristic and the search that chooses one, worked out by hand.
#include "tests/mlgo/Common.h"

namespace {

/// A session's payload for header H with Values by name (every other element 0).
std::string payloadWith(const std::vector<TensorSpec> &H,
                        const std::map<std::string, int64_t> &Values) {
  std::string P;
  for (const TensorSpec &S : H)
    for (size_t J = 0; J < S.elementCount(); ++J) {
      auto It = Values.find(S.Name);
      const int64_t V = It == Values.end() ? 0 : It->second;
      P += S.Type == TensorType::Float ? bytesOf<float>({float(V)}) : bytesOf<int64_t>({V});
    }
  return P;
}

// M = threshold - cost_estimate. inline+10[users<=2,blocks<=1]: declined sites with M > -10,
// at most 2 callee users and 1 callee block are inlined; refuse-5[users>=8]: inlined sites with
// M <= 5 and at least 8 callee users are refused. Worked out by hand, through a model file of
// kind rule and the `rule` policy, as a session binds it (a 41-feature inliner header).
TEST(Rules, RulePolicyFromItsFileByHand) {
  runners::InlineRule Rule;
  Rule.Add = 10;
  Rule.AddMaxCalleeUsers = 2;
  Rule.AddMaxCalleeBlocks = 1;
  Rule.Refuse = 5;
  Rule.RefuseMinCalleeUsers = 8;
  EXPECT_EQ(Rule.name(), "refuse-5[users>=8]+inline+10[users<=2,blocks<=1]");
  const std::string Path = tempPath("rule");
  ASSERT_FALSE(bool(runners::writeModelFile(Path, runners::ruleModel(Rule, {{"created_by", "test"}}))));
  runners::PolicyOptions O;
  O.Name = "rule";
  O.ModelPath = Path;
  O.LoadModel = runners::loadModelPolicy;
  auto P = runners::makePolicy(features::Task::Inline, O);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const std::vector<TensorSpec> H = inlinerHeader(true, 4);
  auto R = runners::ModelRunner::create(std::move(*P), features::Task::Inline, H,
                                        features::taskInfo(features::Task::Inline).Advice, {});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto Decide = [&](int64_t Default, int64_t Threshold, int64_t Cost, int64_t Users,
                    int64_t Blocks) {
    llvm::Expected<std::string> A = R->evaluate(payloadWith(
        H, {{"inlining_default", Default}, {"threshold", Threshold}, {"cost_estimate", Cost},
            {"callee_users", Users}, {"callee_basic_block_count", Blocks}}));
    EXPECT_TRUE(bool(A));
    int64_t V;
    std::memcpy(&V, A->data(), 8);
    return V;
  };
  // Declined by the heuristic (cost 14 against threshold 5: M = -9 > -10).
  EXPECT_EQ(Decide(0, 5, 14, 2, 1), 1);
  EXPECT_EQ(Decide(0, 5, 15, 2, 1), 0); // M = -10: not above -10
  EXPECT_EQ(Decide(0, 5, 14, 3, 1), 0); // three users
  EXPECT_EQ(Decide(0, 5, 14, 2, 2), 0); // two blocks
  // Inlined by the heuristic (M = 5 - 0 = 5 <= 5).
  EXPECT_EQ(Decide(1, 5, 0, 8, 3), 0);
  EXPECT_EQ(Decide(1, 5, 0, 7, 3), 1);  // seven users
  EXPECT_EQ(Decide(1, 5, -1, 8, 3), 1); // M = 6
  // The file says what it holds; a changed key is named.
  auto Back = runners::readModelFile(Path);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Kind, runners::ModelKind::Rule);
  ASSERT_TRUE(Back->Rule.has_value());
  EXPECT_TRUE(*Back->Rule == Rule);
  auto Bad = runners::InlineRule::fromJSON(llvm::json::Object{{"add", 10}, {"users", 2}});
  ASSERT_FALSE(bool(Bad));
  EXPECT_THAT(llvm::toString(Bad.takeError()), testing::HasSubstr("unknown key 'users'"));
  // A rule file is not an mlp.
  O.Name = "mlp";
  auto NotMlp = runners::makePolicy(features::Task::Inline, O);
  ASSERT_FALSE(bool(NotMlp));
  EXPECT_THAT(llvm::toString(NotMlp.takeError()), testing::HasSubstr("a rule model, not mlp"));
  llvm::sys::fs::remove(Path);
}

// A linear model out = cost_estimate - 10 abstaining with margin 3: it answers the heuristic
// unless out < -3 where the heuristic inlines (cost < 7) or out > 3 where it declines
// (cost > 13).
TEST(Rules, AbstainingModelByHand) {
  const std::vector<TensorSpec> H = inlinerHeader(true, 4);
  runners::ModelFile M;
  M.ForTask = features::Task::Inline;
  M.Kind = runners::ModelKind::Linear;
  M.Inputs = {H[29]}; // cost_estimate
  M.FeatureSet = H;
  M.FeatureSetVersion = features::featureSetVersion(features::Task::Inline, H);
  M.Layers = {{1, 1, {1}, {-10}}};
  M.AbstainMargin = 3;
  const std::string Path = tempPath("abstain");
  ASSERT_FALSE(bool(runners::writeModelFile(Path, M)));
  auto Back = runners::readModelFile(Path);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  ASSERT_TRUE(Back->AbstainMargin.has_value());
  EXPECT_EQ(*Back->AbstainMargin, 3);
  auto R = runners::ModelRunner::create(runners::makeModelPolicy(*Back), features::Task::Inline,
                                        H, features::taskInfo(features::Task::Inline).Advice, {});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto Decide = [&](int64_t Default, int64_t Cost) {
    llvm::Expected<std::string> A =
        R->evaluate(payloadWith(H, {{"inlining_default", Default}, {"cost_estimate", Cost}}));
    EXPECT_TRUE(bool(A));
    int64_t V;
    std::memcpy(&V, A->data(), 8);
    return V;
  };
  EXPECT_EQ(Decide(1, 6), 0);  // out -4 < -3: refused
  EXPECT_EQ(Decide(1, 7), 1);  // out -3: the heuristic
  EXPECT_EQ(Decide(1, 30), 1); // the network says inline too
  EXPECT_EQ(Decide(0, 14), 1); // out 4 > 3: inlined
  EXPECT_EQ(Decide(0, 13), 0); // out 3: the heuristic
  EXPECT_EQ(Decide(0, 0), 0);
  llvm::sys::fs::remove(Path);
}

// The grid's candidates and the choice, worked out by hand.
TEST(RuleSearch, CandidatesAndChoiceByHand) {
  mlgo::RuleGrid G;
  G.Add = {10, 30};
  G.AddMaxCalleeUsers = {2};
  G.AddMaxCalleeBlocks = {1, runners::InlineRule::Any};
  G.Refuse = {std::nullopt, 5};
  G.RefuseMinCalleeUsers = {0};
  std::vector<std::string> Names;
  for (const runners::InlineRule &R : G.candidates())
    Names.push_back(R.name());
  EXPECT_THAT(Names, testing::ElementsAre(
                         "heuristic", "inline+10[users<=2,blocks<=1]", "inline+10[users<=2]",
                         "inline+30[users<=2,blocks<=1]", "inline+30[users<=2]",
                         "refuse-5+inline+10[users<=2,blocks<=1]", "refuse-5+inline+10[users<=2]",
                         "refuse-5+inline+30[users<=2,blocks<=1]", "refuse-5+inline+30[users<=2]"));
  // Conditions of a side that is off give one candidate.
  mlgo::RuleGrid Off;
  Off.AddMaxCalleeUsers = {2, 3};
  EXPECT_EQ(Off.candidates().size(), 1u);

  // Three candidates on four modules of packages A (a1, a2) and B (b1, b2), baseline 100 each.
  // c0 (the heuristic): 100 everywhere. c1: a1 90, a2 100, b1 100, b2 100.3 (B +0.15 %).
  // c2: a1 95, a2 99, b1 99, b2 100 (every package smaller).
  auto Mod = [](const char *P, const char *K, int64_t Size) {
    return mlgo::EvalModule{P, "", 100, double(Size), 1, K, -1};
  };
  // Sizes are bytes: scale by 10 to give c1's b2 0.3 % (1003 of 1000).
  std::vector<std::vector<mlgo::EvalModule>> Per = {
      {Mod("a1", "A", 100), Mod("a2", "A", 100), Mod("b1", "B", 100), Mod("b2", "B", 100)},
      {Mod("a1", "A", 90), Mod("a2", "A", 100), Mod("b1", "B", 100), Mod("b2", "B", 100)},
      {Mod("a1", "A", 95), Mod("a2", "A", 99), Mod("b1", "B", 99), Mod("b2", "B", 100)}};
  for (auto &C : Per)
    for (mlgo::EvalModule &E : C) {
      E.Baseline *= 10;
      E.Policy *= 10;
    }
  Per[1][3].Policy = 1003;
  auto All = mlgo::scoreCandidates(Per, [](size_t) { return true; }, 0.001);
  // c1: 1 - 3903/4000 = 0.02425, worst B: 1 - 2003/2000 = -0.0015 (disqualified);
  // c2: 1 - 3930/4000 = 0.0175, worst B 0.005; c0: 0, worst A 0 (by name).
  EXPECT_NEAR(All[1].Reduction, 0.02425, 1e-15);
  EXPECT_NEAR(All[1].WorstPackage, -0.0015, 1e-15);
  EXPECT_EQ(All[1].Worst, "B");
  EXPECT_FALSE(All[1].Qualifies);
  EXPECT_NEAR(All[2].Reduction, 0.0175, 1e-15);
  EXPECT_EQ(All[2].Worst, "B");
  EXPECT_NEAR(All[2].WorstPackage, 0.005, 1e-15);
  EXPECT_TRUE(All[0].Qualifies);
  EXPECT_EQ(mlgo::chooseCandidate(All), 2u);
  // With 0.2 % allowed, c1 qualifies and reduces more.
  EXPECT_EQ(mlgo::chooseCandidate(mlgo::scoreCandidates(Per, [](size_t) { return true; }, 0.002)), 1u);
  // On package A alone c1 is best (a1 90).
  auto OnA = mlgo::scoreCandidates(Per, [](size_t M) { return M < 2; }, 0.001);
  EXPECT_EQ(mlgo::chooseCandidate(OnA), 1u);
  // A module that failed with one candidate leaves every score: on a2 alone after c2 failed
  // there, nothing is compared and the heuristic (the first) is kept.
  Per[2][1].Error = "failed";
  Per[2][1].Policy = -1;
  auto A2 = mlgo::scoreCandidates(Per, [](size_t M) { return M == 1; }, 0.001);
  EXPECT_EQ(A2[1].Reduction, 0);
  EXPECT_EQ(mlgo::chooseCandidate(A2), 0u);
  // None qualifies: the least bad worst package.
  std::vector<mlgo::CandidateScore> Bad = {{0, -0.01, "A", false}, {0.1, -0.005, "B", false},
                                           {0.2, -0.02, "A", false}};
  EXPECT_EQ(mlgo::chooseCandidate(Bad), 1u);
}

} // namespace
