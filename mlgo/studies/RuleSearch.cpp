#include "mlgo/studies/RuleSearch.h"

#include "runners/Models.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/JSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

namespace wb::mlgo {

using runners::InlineRule;

std::vector<InlineRule> RuleGrid::candidates() const {
  std::vector<InlineRule> Out = {InlineRule{}};
  for (const std::optional<int64_t> &R : Refuse)
    for (int64_t RU : RefuseMinCalleeUsers)
      for (const std::optional<int64_t> &A : Add)
        for (int64_t AU : AddMaxCalleeUsers)
          for (int64_t AB : AddMaxCalleeBlocks) {
            InlineRule X;
            X.Refuse = R;
            X.Add = A;
            // A condition of a side that is off changes nothing: leave it at its default so
            // that such combinations are recognised as one.
            X.RefuseMinCalleeUsers = R ? RU : 0;
            X.AddMaxCalleeUsers = A ? AU : InlineRule::Any;
            X.AddMaxCalleeBlocks = A ? AB : InlineRule::Any;
            if (std::find(Out.begin(), Out.end(), X) == Out.end())
              Out.push_back(X);
          }
  return Out;
}

namespace {

llvm::json::Value optional(const std::optional<int64_t> &V) {
  return V ? llvm::json::Value(*V) : llvm::json::Value(nullptr);
}
llvm::json::Value limit(int64_t V) {
  return V == InlineRule::Any ? llvm::json::Value(nullptr) : llvm::json::Value(V);
}

} // namespace

llvm::json::Object RuleGrid::toJSON() const {
  llvm::json::Array A, R, AU, AB, RU;
  for (const auto &V : Add)
    A.push_back(optional(V));
  for (const auto &V : Refuse)
    R.push_back(optional(V));
  for (int64_t V : AddMaxCalleeUsers)
    AU.push_back(limit(V));
  for (int64_t V : AddMaxCalleeBlocks)
    AB.push_back(limit(V));
  for (int64_t V : RefuseMinCalleeUsers)
    RU.push_back(V);
  return llvm::json::Object{{"add", std::move(A)},
                            {"add_max_callee_users", std::move(AU)},
                            {"add_max_callee_blocks", std::move(AB)},
                            {"refuse", std::move(R)},
                            {"refuse_min_callee_users", std::move(RU)},
                            {"max_package_growth", MaxPackageGrowth}};
}

llvm::Expected<RuleGrid> ruleGridFromJSON(const support::SpecReader &R, const llvm::json::Object &O,
                                          const std::string &Where) {
  RuleGrid G;
  auto Bad = [&](llvm::StringRef Key, llvm::StringRef What) { return R.error(Where + "." + Key, What); };
  // A list of values of one of the rule's keys (InlineRule::keys(): its range); null is "off"
  // (add, refuse) or "no limit" (the others).
  auto List = [&](llvm::StringRef Key, std::vector<std::optional<int64_t>> &Out) -> llvm::Error {
    const InlineRule::Key &K =
        *llvm::find_if(InlineRule::keys(), [&](const InlineRule::Key &X) { return Key == X.Name; });
    const llvm::json::Value *V = O.get(Key);
    if (!V)
      return llvm::Error::success();
    const llvm::json::Array *A = V->getAsArray();
    if (!A || A->empty())
      return Bad(Key, "expected a non-empty array");
    Out.clear();
    for (const llvm::json::Value &X : *A) {
      if (!K.accepts(X))
        return Bad(Key, llvm::formatv("expected integers >= {0}{1}", K.Min,
                                      K.NullAllowed ? " or null" : "")
                            .str());
      Out.push_back(X.getAsInteger());
    }
    return llvm::Error::success();
  };
  auto Limits = [&](llvm::StringRef Key, int64_t NullIs, std::vector<int64_t> &Out) -> llvm::Error {
    std::vector<std::optional<int64_t>> L;
    if (llvm::Error E = List(Key, L))
      return E;
    if (!L.empty()) {
      Out.clear();
      for (const auto &X : L)
        Out.push_back(X.value_or(NullIs));
    }
    return llvm::Error::success();
  };
  std::vector<llvm::StringRef> Known;
  for (const InlineRule::Key &K : InlineRule::keys())
    Known.push_back(K.Name);
  Known.push_back("max_package_growth");
  for (const auto &KV : O)
    if (!llvm::is_contained(Known, KV.first.str()))
      return Bad(KV.first, "unknown key (" + llvm::join(Known, ", ") + ")");
  if (llvm::Error E = List("add", G.Add))
    return E;
  if (llvm::Error E = List("refuse", G.Refuse))
    return E;
  if (llvm::Error E = Limits("add_max_callee_users", InlineRule::Any, G.AddMaxCalleeUsers))
    return E;
  if (llvm::Error E = Limits("add_max_callee_blocks", InlineRule::Any, G.AddMaxCalleeBlocks))
    return E;
  if (llvm::Error E = Limits("refuse_min_callee_users", 0, G.RefuseMinCalleeUsers))
    return E;
  // Every combination is compiled on every module: a grid too large to run is refused before
  // any work (sizes multiplied in double: lists of any length cannot overflow it).
  const double Combinations = double(G.Add.size()) * G.Refuse.size() * G.AddMaxCalleeUsers.size() *
                              G.AddMaxCalleeBlocks.size() * G.RefuseMinCalleeUsers.size();
  if (Combinations > double(RuleGrid::MaxCombinations))
    return R.error(Where, llvm::formatv("{0} combinations; at most {1} (each is compiled on every "
                                        "module)",
                                        uint64_t(std::min(Combinations, 1e18)), RuleGrid::MaxCombinations));
  if (const llvm::json::Value *V = O.get("max_package_growth")) {
    std::optional<double> D = V->getAsNumber();
    if (!D || !(*D >= 0 && *D < 1))
      return Bad("max_package_growth", "expected a fraction in [0, 1)");
    G.MaxPackageGrowth = *D;
  }
  return G;
}

std::vector<CandidateScore> scoreCandidates(const std::vector<std::vector<EvalModule>> &PerCandidate,
                                            const std::function<bool(size_t)> &Selected,
                                            double MaxPackageGrowth) {
  std::vector<CandidateScore> Scores(PerCandidate.size());
  if (PerCandidate.empty())
    return Scores;
  const size_t N = PerCandidate.front().size();
  std::vector<bool> Use(N);
  for (size_t M = 0; M < N; ++M) {
    Use[M] = Selected(M);
    for (const std::vector<EvalModule> &C : PerCandidate)
      Use[M] = Use[M] && C[M].Error.empty() && C[M].Baseline >= 0 && C[M].Policy >= 0;
  }
  for (size_t C = 0; C < PerCandidate.size(); ++C) {
    double Base = 0, Pol = 0;
    std::map<std::string, std::pair<double, double>> Packages; // sorted: ties by name
    for (size_t M = 0; M < N; ++M) {
      if (!Use[M])
        continue;
      const EvalModule &E = PerCandidate[C][M];
      Base += E.Baseline;
      Pol += E.Policy;
      Packages[E.Package].first += E.Baseline;
      Packages[E.Package].second += E.Policy;
    }
    CandidateScore &S = Scores[C];
    S.Reduction = Base ? 1 - double(Pol) / double(Base) : 0;
    S.WorstPackage = 0;
    bool First = true;
    for (const auto &[K, BP] : Packages) {
      const double R = BP.first ? 1 - double(BP.second) / double(BP.first) : 0;
      if (First || R < S.WorstPackage) {
        S.WorstPackage = R;
        S.Worst = K;
        First = false;
      }
    }
    S.Qualifies = S.WorstPackage >= -MaxPackageGrowth;
  }
  return Scores;
}

size_t chooseCandidate(const std::vector<CandidateScore> &Scores) {
  size_t Best = 0;
  bool Found = false;
  for (size_t C = 0; C < Scores.size(); ++C)
    if (Scores[C].Qualifies && (!Found || Scores[C].Reduction > Scores[Best].Reduction)) {
      Best = C;
      Found = true;
    }
  if (Found)
    return Best;
  for (size_t C = 1; C < Scores.size(); ++C)
    if (Scores[C].WorstPackage > Scores[Best].WorstPackage)
      Best = C;
  return Best;
}

namespace {

llvm::json::Object scoreJSON(const CandidateScore &S) {
  return llvm::json::Object{{"reduction", S.Reduction},
                            {"worst_package", S.Worst},
                            {"worst_package_reduction", S.WorstPackage},
                            {"qualifies", S.Qualifies}};
}

} // namespace

llvm::Expected<RuleSearchResult> runRuleSearch(const RuleSearchJob &J, const CompileSetup &RC) {
  RuleSearchResult R;
  R.Candidates = J.Grid.candidates();
  for (const InlineRule &Rule : R.Candidates) {
    if (RC.Run.cancelled())
      return support::interruptedError("interrupted during the rule search");
    runners::SessionConfig Session;
    Session.T = runners::Task::Inline;
    Session.MakePolicy = [Rule]() -> llvm::Expected<std::unique_ptr<runners::Policy>> {
      return runners::makeRulePolicy(Rule);
    };
    std::vector<EvalModule> Measured = J.Judged;
    measurePolicy(Measured, Session, {}, RC);
    R.Compilations += Measured.size();
    R.PerCandidate.push_back(std::move(Measured));
  }
  if (RC.Run.cancelled())
    return support::interruptedError("interrupted during the rule search");
  const double Growth = J.Grid.MaxPackageGrowth;
  R.Overall = scoreCandidates(R.PerCandidate, [](size_t) { return true; }, Growth);
  R.Final = chooseCandidate(R.Overall);
  R.Judged = J.Judged;
  auto ModelFile = [&](const std::string &File, const InlineRule &Rule, const CorpusSplit &Own,
                       const std::vector<CandidateScore> &ChosenBy) -> llvm::Error {
    auto Provenance = J.Provenance;
    Provenance.emplace_back("split", Own.toJSONText());
    llvm::json::Array Scores;
    for (size_t C = 0; C < R.Candidates.size(); ++C)
      Scores.push_back(support::withKeys(scoreJSON(ChosenBy[C]),
                                         llvm::json::Object{{"rule", R.Candidates[C].name()}}));
    std::string Text;
    llvm::raw_string_ostream(Text) << llvm::json::Value(llvm::json::Object{
        {"grid", J.Grid.toJSON()}, {"candidates", std::move(Scores)}});
    Provenance.emplace_back("rule_search", Text);
    return runners::writeModelFile(File, runners::ruleModel(Rule, std::move(Provenance)));
  };
  for (unsigned F = 0; F < J.Folds->Count; ++F) {
    auto InFold = [&](size_t M) { return J.Folds->inFold(J.Judged[M].Package, F); };
    R.FoldScores.push_back(
        scoreCandidates(R.PerCandidate, [&](size_t M) { return !InFold(M); }, Growth));
    const size_t C = chooseCandidate(R.FoldScores.back());
    R.FoldChoice.push_back(C);
    for (size_t M = 0; M < R.Judged.size(); ++M)
      if (InFold(M))
        R.Judged[M] = R.PerCandidate[C][M];
    const std::string File =
        support::pathIn(J.ModelsDir, J.Name + "-fold" + std::to_string(F) + ".h5");
    if (llvm::Error E =
            ModelFile(File, R.Candidates[C], J.Folds->splitOf(*J.Split, F), R.FoldScores.back()))
      return E;
    R.ModelFiles.push_back(File);
  }
  CorpusSplit All = *J.Split;
  All.TrainKeys.clear();
  All.TestKeys.clear();
  for (const auto &KV : J.Folds->FoldOfKey)
    All.TrainKeys.push_back(KV.first);
  const std::string File = support::pathIn(J.ModelsDir, J.Name + ".h5");
  if (llvm::Error E = ModelFile(File, R.Candidates[R.Final], All, R.Overall))
    return E;
  R.ModelFiles.push_back(File);
  return R;
}

llvm::json::Object ruleSearchJSON(const RuleGrid &G, const PackageFolds &FoldsOf,
                                  const RuleSearchResult &R) {
  llvm::json::Array Cands, Folds;
  for (size_t C = 0; C < R.Candidates.size(); ++C)
    Cands.push_back(support::withKeys(scoreJSON(R.Overall[C]),
                                      llvm::json::Object{{"rule", R.Candidates[C].name()},
                                                         {"parameters", R.Candidates[C].toJSON()}}));
  for (size_t F = 0; F < R.FoldChoice.size(); ++F) {
    llvm::json::Array Keys;
    for (const std::string &K : FoldsOf.keys(unsigned(F)))
      Keys.push_back(K);
    // Every candidate's score on the other folds, so that the choice can be checked.
    llvm::json::Array Scores;
    for (size_t C = 0; C < R.Candidates.size(); ++C)
      Scores.push_back(support::withKeys(scoreJSON(R.FoldScores[F][C]),
                                         llvm::json::Object{{"rule", R.Candidates[C].name()}}));
    Folds.push_back(llvm::json::Object{
        {"fold", int64_t(F)},
        {"packages", std::move(Keys)},
        {"rule", R.Candidates[R.FoldChoice[F]].name()},
        {"scores_on", "the other folds' modules"},
        {"scores", std::move(Scores)}});
  }
  return llvm::json::Object{{"grid", G.toJSON()},
                            {"candidates", std::move(Cands)},
                            {"folds", std::move(Folds)},
                            {"final_rule", R.Candidates[R.Final].name()},
                            {"final_parameters", R.Candidates[R.Final].toJSON()}};
}

} // namespace wb::mlgo
