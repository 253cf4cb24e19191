// mlgo/Judge, the judging kernel: summaries, packages, bootstrap intervals, the worst package and
// the headroom by hand; folds by package; the transfer exclusion; a fixed candidate judged on a
// tiny corpus against opt-22, llc-22 and llvm-size-22 run by the test.
#include "tests/mlgo/Common.h"

#include "mlgo/studies/Judge.h"
#include "support/Files.h"

#include "llvm/Support/Program.h"

#include <fstream>

namespace {

// Per-package sums and the package bootstrap by hand. Package A: two modules, -Oz 60 + 40,
// policy 54 + 36 (reduction 0.1); package B: two modules, -Oz 50 + 50, policy 50 + 50 (0). A
// package resample is {A,A} (0.1), {B,B} (0) or {A,B} (0.05), each of the extremes with
// probability 1/4, far above 2.5%: the package interval is exactly [0, 0.1]. A failed module
// counts in no package.
TEST(Evaluation, PackagesAndTheirBootstrapByHand) {
  std::vector<mlgo::EvalModule> E = {{"a1", "", 60, 54, 1, "A"}, {"b1", "", 50, 50, 1, "B"},
                                     {"a2", "", 40, 36, 1, "A"}, {"b2", "", 50, 50, 1, "B"},
                                     {"b3", "crashed", 10, -1, 0, "B"}};
  const mlgo::EvalSummary S = mlgo::summarize(E, 3, 1000);
  ASSERT_EQ(S.Packages.size(), 2u);
  EXPECT_EQ(S.Packages[0].Key, "A");
  EXPECT_EQ(S.Packages[0].Modules, 2u);
  EXPECT_EQ(S.Packages[0].BaselineTotal, 100);
  EXPECT_EQ(S.Packages[0].PolicyTotal, 90);
  EXPECT_EQ(S.Packages[0].Shrunk, 2u);
  EXPECT_NEAR(S.Packages[0].Reduction, 0.1, 1e-15);
  EXPECT_EQ(S.Packages[1].Key, "B");
  EXPECT_EQ(S.Packages[1].Modules, 2u);
  EXPECT_EQ(S.Packages[1].Reduction, 0.0);
  EXPECT_NEAR(S.Reduction, 0.05, 1e-15);
  EXPECT_EQ(S.Failed, 1u);
  EXPECT_EQ(S.PackageLow, 0.0);
  EXPECT_NEAR(S.PackageHigh, 0.1, 1e-15);
  // Modules resampled one by one mix the packages: an interval inside [0, 0.1].
  EXPECT_GE(S.Low, 0.0);
  EXPECT_LE(S.High, 0.1 + 1e-15);
  // One package: the package interval is the reduction itself.
  const mlgo::EvalSummary One = mlgo::summarize({E[0], E[2]}, 3, 1000);
  EXPECT_NEAR(One.PackageLow, 0.1, 1e-15);
  EXPECT_NEAR(One.PackageHigh, 0.1, 1e-15);
}

// The worst package and the headroom by hand. Package A: -Oz 60 + 40, policy 54 + 36, best
// found 50 + 30 (headroom 1 - 80/100 = 0.2; captured (100-90)/(100-80) = 0.5); package B:
// -Oz 50 + 50, policy 55 + 50 (reduction -0.05, the worst), best 45 for b1 and unknown for b2
// (headroom over b1 alone: 1 - 45/50 = 0.1, captured (50-55)/(50-45) = -1). The total's
// headroom is over the three modules with a best: 1 - (50+30+45)/(60+40+50) = 1/6, captured
// (150 - (54+36+55)) / (150 - 125) = 5/25 = 0.2.
TEST(Evaluation, WorstPackageAndHeadroomByHand) {
  std::vector<mlgo::EvalModule> E = {{"a1", "", 60, 54, 1, "A", 50}, {"b1", "", 50, 55, 1, "B", 45},
                                     {"a2", "", 40, 36, 1, "A", 30}, {"b2", "", 50, 50, 1, "B"}};
  const mlgo::EvalSummary S = mlgo::summarize(E, 3, 100);
  ASSERT_EQ(S.Packages.size(), 2u);
  ASSERT_EQ(S.Worst, 1);
  EXPECT_NEAR(S.Packages[1].Reduction, -0.05, 1e-15);
  EXPECT_EQ(S.Packages[0].Room.Modules, 2u);
  EXPECT_NEAR(S.Packages[0].Room.Headroom, 0.2, 1e-15);
  EXPECT_NEAR(S.Packages[0].Room.Captured, 0.5, 1e-15);
  EXPECT_EQ(S.Packages[1].Room.Modules, 1u);
  EXPECT_NEAR(S.Packages[1].Room.Headroom, 0.1, 1e-15);
  EXPECT_NEAR(S.Packages[1].Room.Captured, -1.0, 1e-15);
  EXPECT_EQ(S.Room.Modules, 3u);
  EXPECT_NEAR(S.Room.Headroom, 1.0 / 6, 1e-15);
  EXPECT_NEAR(S.Room.Captured, 0.2, 1e-15);
  // No best known anywhere: no headroom, and "captured" is not a number.
  const mlgo::EvalSummary None = mlgo::summarize({E[3]}, 3, 100);
  EXPECT_EQ(None.Room.Modules, 0u);
  EXPECT_TRUE(std::isnan(None.Room.Captured));
}

// Folds by package by hand: keys ordered by SHA-256("1\n" + key) (with sha256sum: d 124b9f...,
// b 2c3b67..., c 6d73c8..., a 87a4ad...), each to the fold with the fewest modules so far.
TEST(Transfer, FoldsByPackageByHand) {
  // 5 modules of a, 1 of b, 2 of c, 2 of d.
  const std::vector<std::string> Keys = {"a", "a", "a", "a", "a", "b", "c", "c", "d", "d"};
  auto F = mlgo::foldsByPackage(Keys, 2, 1);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_EQ(F->Count, 2u);
  // Every module's fold is its package's.
  for (size_t I = 0; I < Keys.size(); ++I)
    EXPECT_EQ(F->Fold[I], F->FoldOfKey.at(Keys[I]));
  // Order d, b, c, a: d -> 0 (sizes 2,0); b -> 1 (2,1); c -> 1 (2,3); a -> 0 (7,3).
  EXPECT_EQ(F->FoldOfKey.at("d"), 0u);
  EXPECT_EQ(F->FoldOfKey.at("b"), 1u);
  EXPECT_EQ(F->FoldOfKey.at("c"), 1u);
  EXPECT_EQ(F->FoldOfKey.at("a"), 0u);
  EXPECT_EQ(F->keys(0), (std::vector<std::string>{"a", "d"}));
  // The same folds in any input order.
  std::vector<std::string> Reversed(Keys.rbegin(), Keys.rend());
  auto R = mlgo::foldsByPackage(Reversed, 2, 1);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->FoldOfKey, F->FoldOfKey);
  // 0 folds, or more than packages: one per package.
  auto L = mlgo::foldsByPackage(Keys, 0, 1);
  ASSERT_TRUE(bool(L));
  EXPECT_EQ(L->Count, 4u);
  EXPECT_EQ(mlgo::foldsByPackage(Keys, 9, 1)->Count, 4u);
  // One fold, or one package: nothing to train on.
  auto One = mlgo::foldsByPackage(Keys, 1, 1);
  EXPECT_FALSE(bool(One));
  llvm::consumeError(One.takeError());
  auto Single = mlgo::foldsByPackage({"a", "a"}, 2, 1);
  EXPECT_FALSE(bool(Single));
  llvm::consumeError(Single.takeError());
}

// The transfer exclusion: the packages a model's recorded split trained it on, among those of
// the corpus; all of them is an error; a model that records no split excludes nothing.
TEST(Judge, TransferExclusionByHand) {
  const std::string Trained = tempPath("trained"), Plain = tempPath("plain");
  runners::InlineRule Rule;
  ASSERT_FALSE(bool(runners::writeModelFile(
      Trained, runners::ruleModel(Rule, {{"split", R"({"train_keys": ["b", "a", "z"]})"}}))));
  ASSERT_FALSE(bool(runners::writeModelFile(Plain, runners::ruleModel(Rule, {}))));
  auto X = mlgo::transferExclusion(Trained, {"a", "c", "b", "a"});
  ASSERT_TRUE(bool(X)) << llvm::toString(X.takeError());
  EXPECT_EQ(X->Packages, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(X->excludes("a"));
  EXPECT_FALSE(X->excludes("c"));
  EXPECT_FALSE(X->excludes("z")); // not in the corpus: nothing to leave out
  auto All = mlgo::transferExclusion(Trained, {"a", "b"});
  ASSERT_FALSE(bool(All));
  EXPECT_THAT(llvm::toString(All.takeError()), testing::HasSubstr("trained on every package"));
  auto None = mlgo::transferExclusion(Plain, {"a"});
  ASSERT_TRUE(bool(None));
  EXPECT_TRUE(None->Packages.empty());
  auto NoModel = mlgo::transferExclusion("", {"a"});
  ASSERT_TRUE(bool(NoModel));
  EXPECT_TRUE(NoModel->Packages.empty());
}

/// Runs a program of the LLVM tools' directory; its standard output.
std::string runTool(llvm::StringRef Name, std::vector<llvm::StringRef> Args) {
  const std::string Prog = std::string(WB_LLVM_BINDIR) + "/" + Name.str();
  Args.insert(Args.begin(), Prog);
  llvm::SmallString<128> Out;
  llvm::sys::fs::createTemporaryFile("tool", "txt", Out);
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef(Out), std::nullopt};
  if (llvm::sys::ExecuteAndWait(Prog, Args, std::nullopt, Redirects) != 0)
    return "failed: " + Prog;
  auto B = llvm::MemoryBuffer::getFile(Out);
  return B ? (*B)->getBuffer().str() : "";
}

/// .text and .text.* bytes of an object as llvm-size-22 -A counts them.
double sizeOfText(const std::string &Object) {
  double Sum = 0;
  std::istringstream In(runTool("llvm-size", {"-A", Object}));
  std::string Section;
  double Size = 0;
  std::string Line;
  while (std::getline(In, Line)) {
    std::istringstream L(Line);
    if (L >> Section >> Size && (Section == ".text" || llvm::StringRef(Section).starts_with(".text.")))
      Sum += Size;
  }
  return Sum;
}

// The kernel end to end on a corpus of three packages: prepare splits it (every module judged
// under transfer, keyed by package, in folds), the baselines are the .text of opt-22 -Oz then
// llc-22 -O2 as the test runs them itself and llvm-size-22 counts, and a fixed candidate (the
// compiler's own decisions, answered through the host) is judged: each module's .text equals
// its baseline, the reduction is 0 and every package is summed.
TEST(Judge, FixedCandidateOnATinyCorpusAgainstTheTools) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("judge-corpus", Dir));
  const std::string Root(Dir);
  const char *IR = "define internal i32 @f(i32 %x) {\n  %y = mul i32 %x, %x\n  %z = add i32 %y, "
                   "%x\n  ret i32 %z\n}\ndefine i32 @g(i32 %a) {\n  %r = call i32 @f(i32 %a)\n  "
                   "%s = call i32 @f(i32 %r)\n  ret i32 %s\n}\n";
  std::vector<std::string> Modules;
  for (const char *Pkg : {"alpha", "beta", "gamma"}) {
    ASSERT_FALSE(llvm::sys::fs::create_directories(Root + "/" + Pkg));
    const std::string LL = Root + "/" + Pkg + "/m.ll", BC = Root + "/" + Pkg + "/m.bc";
    std::ofstream(LL) << IR;
    runTool("llvm-as", {LL, "-o", BC});
    llvm::sys::fs::remove(LL);
    Modules.push_back(std::string(Pkg) + "/m");
  }
  std::ofstream(Root + "/corpus_description.json")
      << "{\"modules\": [\"alpha/m\", \"beta/m\", \"gamma/m\"], \"has_thinlto\": false}";
  mlgo::CompileSetup B;
  B.Run.Jobs = 2;
  B.Tools.Opt = std::string(WB_LLVM_BINDIR) + "/opt";
  B.Tools.Llc = std::string(WB_LLVM_BINDIR) + "/llc";
  mlgo::CorpusPlan Plan{{Root + "/corpus_description.json"}, mlgo::JudgingProtocol::Transfer, {}, 3u, 0};
  auto P = mlgo::prepare(Plan, B);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->Split.Keys, (std::vector<std::string>{"alpha", "beta", "gamma"}));
  EXPECT_EQ(P->Split.modules(true).size(), 3u); // transfer: every module judged
  ASSERT_TRUE(P->Folds.has_value());
  EXPECT_EQ(P->Folds->Count, 3u);
  std::vector<mlgo::EvalModule> Judged = P->baselines(true);
  ASSERT_EQ(Judged.size(), 3u);
  for (const mlgo::EvalModule &M : Judged) {
    EXPECT_TRUE(M.Error.empty()) << M.Error;
    const std::string Opt = Root + "/oz.bc", Obj = Root + "/oz.o";
    runTool("opt", {"-passes=default<Oz>", M.Path, "-o", Opt});
    runTool("llc", {"-O2", "-filetype=obj", Opt, "-o", Obj});
    EXPECT_EQ(M.Baseline, sizeOfText(Obj)) << M.Path;
    EXPECT_GT(M.Baseline, 0);
  }
  mlgo::Candidate C;
  C.Session.T = runners::Task::Inline;
  mlgo::Verdict V = mlgo::judge(Judged, C, B, 1);
  ASSERT_EQ(V.Modules.size(), 3u);
  double Total = 0;
  for (const mlgo::EvalModule &M : V.Modules) {
    EXPECT_TRUE(M.Error.empty()) << M.Error;
    EXPECT_EQ(M.Policy, M.Baseline) << M.Path;
    EXPECT_GT(M.Decisions, 0u) << M.Path; // the host was asked
    Total += M.Baseline;
  }
  EXPECT_EQ(V.Summary.Failed, 0u);
  EXPECT_EQ(V.Summary.Packages.size(), 3u);
  EXPECT_EQ(V.Summary.BaselineTotal, Total);
  EXPECT_EQ(V.Summary.Reduction, 0.0);
  EXPECT_EQ(V.Summary.Low, 0.0);
  EXPECT_EQ(V.Summary.High, 0.0);
  support::removeTree(Root);
}

// The records every report and model carries, in the order model files hold them.
TEST(Judge, ProvenanceAndBootstrapRecords) {
  const mlgo::Provenance P = mlgo::provenance("a tool", {{"arm", "x"}});
  ASSERT_EQ(P.size(), 4u);
  EXPECT_EQ(P[0], (std::pair<std::string, std::string>{"created_by", "a tool"}));
  EXPECT_EQ(P[1].first, "arm");
  EXPECT_EQ(P[2], (std::pair<std::string, std::string>{"llvm_version", WB_LLVM_VERSION}));
  EXPECT_EQ(P[3], (std::pair<std::string, std::string>{"tool_version", WB_VERSION}));
  const llvm::json::Object J = mlgo::bootstrapJSON(7);
  EXPECT_EQ(J.getInteger("resamples"), 1000);
  EXPECT_EQ(J.getInteger("seed"), 7);
}

} // namespace
