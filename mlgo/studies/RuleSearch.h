// A search for an inliner rule (runners::InlineRule) scored on folds of packages: the
// transfer protocol for a policy that is chosen rather than trained. Every candidate of a grid
// is compiled on every judged module once; each fold's rule is the candidate that reduces the
// other folds' .text the most without making any of their packages more than MaxPackageGrowth
// larger than with -Oz, and the fold's own modules are scored with it. Selecting on measured
// .text makes the no-growth rule a constraint of the search, not a hope about a model; the
// per-fold choice keeps every package judged by a rule chosen without it. The rule chosen the
// same way on every package is the search's result (how the shipped `size` policy is made:
// docs/size-policy.md).
#pragma once

#include "mlgo/studies/Judge.h"
#include "mlgo/studies/StudySpec.h"
#include "mlgo/pipelines/Split.h"
#include "runners/Policies.h"

#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace wb::mlgo {

/// The candidates: the heuristic, then every combination of the listed values (a benchmark
/// spec's "search" object, docs/benchmark.md).
struct RuleGrid {
  std::vector<std::optional<int64_t>> Add = {std::nullopt}, Refuse = {std::nullopt};
  std::vector<int64_t> AddMaxCalleeUsers = {runners::InlineRule::Any},
                       AddMaxCalleeBlocks = {runners::InlineRule::Any},
                       RefuseMinCalleeUsers = {0};
  /// A package more than this much larger than with -Oz disqualifies a candidate (0.001: the
  /// issue's 0.1 %).
  double MaxPackageGrowth = 0.001;
  /// The most combinations a grid may have (a search compiles each on every module).
  static constexpr size_t MaxCombinations = 256;

  /// The heuristic (no change) first, then the combinations in the order of the lists; a
  /// combination equal to an earlier one (a condition of a side that is off) is left out.
  std::vector<runners::InlineRule> candidates() const;
  llvm::json::Object toJSON() const;
};

/// The grid of a spec's "search" object; Where names it in errors.
llvm::Expected<RuleGrid> ruleGridFromJSON(const support::SpecReader &R, const llvm::json::Object &O,
                                          const std::string &Where);

/// How a candidate did on a selection of modules.
struct CandidateScore {
  double Reduction = 0;      // 1 - Σ policy / Σ -Oz over the selection
  double WorstPackage = 0;   // the smallest per-package reduction
  std::string Worst;         // that package
  bool Qualifies = false;    // WorstPackage >= -MaxPackageGrowth
};

/// Scores each candidate (PerCandidate[c][m]: module m with candidate c, baselines included)
/// on the modules Selected picks. Modules that failed with any candidate are left out of
/// every score, so that candidates are compared on the same modules.
std::vector<CandidateScore> scoreCandidates(const std::vector<std::vector<EvalModule>> &PerCandidate,
                                            const std::function<bool(size_t)> &Selected,
                                            double MaxPackageGrowth);

/// The chosen candidate: the largest reduction among those that qualify (the earlier on a
/// tie); when none does, the one with the least bad worst package.
size_t chooseCandidate(const std::vector<CandidateScore> &Scores);

struct RuleSearchResult {
  std::vector<runners::InlineRule> Candidates;
  std::vector<std::vector<EvalModule>> PerCandidate; // every judged module, per candidate
  std::vector<CandidateScore> Overall;               // per candidate, on every module
  std::vector<size_t> FoldChoice;                    // per fold: the candidate chosen
  std::vector<std::vector<CandidateScore>> FoldScores; // per fold: the scores it chose by
  size_t Final = 0;                                  // chosen on every module
  std::vector<EvalModule> Judged;                    // each module with its fold's rule
  std::vector<std::string> ModelFiles;               // NAME-fold<k>.h5 ..., then NAME.h5
  size_t Compilations = 0;
};

struct RuleSearchJob {
  std::string Name;                   // files: ModelsDir/NAME-fold<k>.h5, ModelsDir/NAME.h5
  RuleGrid Grid;
  std::vector<EvalModule> Judged;     // baselines, packages (and best .text)
  const CorpusSplit *Split = nullptr; // every module of the corpus keyed by package
  const PackageFolds *Folds = nullptr;
  std::string ModelsDir;
  /// Provenance written into every model file (the tool, the data).
  std::vector<std::pair<std::string, std::string>> Provenance;
};

/// Compiles every candidate on every judged module, chooses per fold and overall, writes a
/// rule model per fold (its split: trained on the other folds) and the final one (trained on
/// every package).
llvm::Expected<RuleSearchResult> runRuleSearch(const RuleSearchJob &J, const CompileSetup &RC);

/// The search as results.json records it: the grid, every candidate's overall score, each
/// fold's packages, choice and the scores it chose by, the final rule.
llvm::json::Object ruleSearchJSON(const RuleGrid &G, const PackageFolds &Folds,
                                  const RuleSearchResult &R);

} // namespace wb::mlgo
