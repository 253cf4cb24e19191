// Feature-ablation studies for inlining-for-size (`ir2vec mlgo ablate SPEC -o DIR`; shared doc
// policy-training.md, section 6). One exploration of the training side serves every arm: its
// labels (the best decisions) do not depend on the features a model reads. Each arm trains a
// model per seed on those labels with its own feature groups and embedding vocabulary, and is
// evaluated on the held-out side against -Oz (.text of native objects). The report says, per
// arm, the held-out reduction (mean over seeds, 95% bootstrap interval over modules), its
// difference to the reference arm, the training-side reduction, the agreement with the best
// labels of held-out modules and the modules that grow, answers "do embeddings help, and can
// they stand in for the cost features?" from the arms it finds, and plots the reductions and
// the permutation importance of each feature on held-out decisions (gnuplot).
//
// Output (docs/formats/mlgo-ablation.md): DIR/report.md, DIR/report.json
// (ir2vec.mlgo-ablation/2), DIR/results.h5, DIR/reduction.{png,svg}, DIR/importance.{png,svg},
// DIR/exploration.h5, DIR/heldout.h5, DIR/models/.
//
// This header is the study's face; its steps are files of their own: AblationSpec.cpp (the
// spec), InlineArms.cpp (the inliner's arms: the exploration, made or reused, and the models),
// EvictArms.cpp (eviction's), AblationAnswers.cpp (the statistics and answers),
// AblationReport.cpp (the renderers), Ablation.cpp (the command).
#pragma once

#include "mlgo/studies/Eval.h"
#include "mlgo/pipelines/FineTune.h"
#include "mlgo/pipelines/Explore.h"
#include "mlgo/pipelines/Train.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb::mlgo {

inline constexpr const char *AblationSchema = "ir2vec.mlgo-ablation/2";

struct AblationArm {
  std::string Name;
  std::vector<std::string> Groups;
  /// Null (no embedding features), or "default", a vocabulary file or "counts" (the counting
  /// vocabulary: the histogram control of embeddings) with the IR2Vec kind of the workbench's
  /// embedding features (module_embedding for the inliner, function_embedding for eviction;
  /// LLVM computes callee_ and caller_embedding symbolic).
  ir2vec::EmbeddingChoice Vocab;
};
/// How reports name an arm's embeddings: "none", "counts", the vocabulary file's name, followed
/// by the kind in parentheses when it is not symbolic.
std::string armEmbeddingName(const AblationArm &A);

/// Eviction studies (`"task": "evict"`, docs/ablation-regalloc.md): each arm's MLP starts from
/// the density rule (mlgo/pipelines/EvictTrain.h evictStartMLP) and is tuned by evolution strategies on
/// the training side's register allocation cost; the held-out packages are judged against the
/// default advisor.
struct EvictStudySettings {
  ESSettings ES = ESSettings::evict();
  std::vector<unsigned> Hidden = {16};
};

/// A study of trained inliner policies (arms): one exploration serves every arm, whose models
/// are trained per seed (and fold) on its labels and judged on the modules they never saw.
/// What an ablation spec describes, and what `mlgo benchmark` makes of its trained policies.
struct ArmsStudy {
  std::vector<std::string> Corpus;
  /// Transfer (the default): every module explored once, each fold of packages scored by
  /// models trained on the other folds. Split: one split by package (a spec with "split" and no
  /// "protocol").
  JudgingProtocol Proto = JudgingProtocol::Transfer;
  unsigned Folds = 5; // transfer: folds of whole packages (0: one per package)
  SplitOptions Split;
  double Timeout = 0;
  SearchSettings Search;
  TrainConfig Model;
  std::vector<uint64_t> Seeds = {1, 2, 3};
  std::vector<AblationArm> Arms; // the first is the reference arm
  bool TrainingSide = true;      // also evaluate each arm's first model on the training side

  /// The corpus as the judging kernel takes it (transfer: folds of packages).
  CorpusPlan plan() const;
};

struct AblationSpec : ArmsStudy {
  std::string Path; // the spec file (relative paths in it are relative to its directory)
  std::string SHA256; // of the bytes read
  features::Task T = features::Task::Inline; // inline: explore and clone; evict: ES on the cost
  EvictStudySettings Evict;
};

/// Reads and checks a spec (JSON, docs/formats/mlgo-ablation.md): unknown keys, unknown
/// feature groups, arms that read embeddings without a vocabulary and duplicate arm names are
/// errors naming the key.
llvm::Expected<AblationSpec> readAblationSpec(const std::string &Path);

struct AblationConfig : CompileSetup {
  std::string Gnuplot = "gnuplot";
};

/// Pooled statistics of arms evaluated with several seeds on the same modules.
struct PooledReduction {
  double Mean = 0, Low = 0, High = 0;  // seed-averaged reduction, 95% bootstrap over modules
  double Diff = 0, DiffLow = 0, DiffHigh = 0; // minus the reference's, paired resamples
};
/// PerSeed[s][m]: the arm's evaluation of module m with seed s; Reference likewise (may be
/// the arm itself). Modules failed in any evaluation are left out of every sum.
PooledReduction poolReductions(const std::vector<std::vector<EvalModule>> &PerSeed,
                               const std::vector<std::vector<EvalModule>> &Reference,
                               uint64_t Seed, unsigned Resamples = 1000);

/// One arm's results: per seed, every judged module, its summary and its agreement with the
/// exploration's best decisions.
struct AblationArmResult {
  std::vector<std::vector<std::string>> Models;     // per seed: the model files (one per fold)
  std::vector<std::vector<EvalModule>> PerSeed;     // per seed, the judged modules in order
  std::vector<EvalSummary> Summaries;               // per seed
  std::vector<double> Agreement;                    // per seed
  std::optional<EvalSummary> TrainingSide;          // split protocol: the first seed's
  PooledReduction Pooled;                           // seed mean, intervals, vs the reference
  /// Per package, the mean over seeds of its reduction; the worst of those.
  std::vector<std::pair<std::string, double>> PackageMeans;
  int Worst = -1;
  double HeadroomCaptured = 0; // seed mean of the captured share (NaN without headroom)
  /// Eviction studies, per seed: ES's training-side reduction of the start and tuned model.
  std::vector<std::pair<double, double>> TrainingReductions;
};

/// What the arms of a study found.
struct ArmsResult {
  std::string Dir;
  CorpusSplit Split;                 // split protocol
  std::optional<PackageFolds> Folds; // transfer protocol
  std::vector<EvalModule> Judged;    // the judged modules' baselines (and best .text)
  size_t ExploredModules = 0, Rollouts = 0, Smaller = 0;
  std::vector<AblationArmResult> Arms;
  std::vector<std::pair<std::string, double>> Importance;
  double ExploreSeconds = 0, EvalSeconds = 0;
  size_t Compilations = 0, Failed = 0;
  std::string Compile; // how a module is compiled (Toolchain::describe)
  Toolchain Tools;
};

/// What a study found, for the renderers (JSON, HDF5, Markdown, plots).
struct AblationResult : ArmsResult {
  AblationSpec Spec;
  std::vector<std::string> Answers;
  double Seconds = 0;
};

/// The arms of an inliner study on P (prepared from S.plan()): explorations (reused when Dir
/// has them with the study's settings), models per arm, seed (and fold) written into
/// Dir/models, and their verdicts.
llvm::Expected<ArmsResult> runArms(const ArmsStudy &S, const Prepared &P, const std::string &Dir);

/// The study on P (prepared from Spec.plan(), or its split for eviction): the arms, then the
/// statistics and answers. Writes the explorations and models into Dir; the reports are the
/// renderers' job.
llvm::Expected<AblationResult> runAblationStudy(const AblationSpec &Spec, const Prepared &P,
                                                const std::string &Dir);

/// A study's output directory and its models/ in it, made as `mkdir` makes them; each is
/// removed again (with what it holds) unless kept. The directory is the run's alone while it
/// lasts (DIR/study.lock): a second study into it is refused, as a second run on any output is,
/// so that it can neither reuse an exploration the first is still reading nor mix its models
/// and reports with the first's.
struct StudyDirs {
  support::OutputDirectory Out, Models;
  support::OutputState Lock; // last: released before the directories are cleaned up
};
llvm::Expected<StudyDirs> prepareStudyDirs(const std::string &Dir);

/// Before any work: the files a study writes in Dir (Names) can be written there (entries of
/// the directory, replaced themselves, never followed), and none is one of its inputs (the
/// corpus's modules and @lists, Extra: the spec, models, manifests).
llvm::Error checkStudyOutputs(const std::string &Dir, const std::vector<std::string> &Names,
                              const CorpusPlan &Plan, const Prepared &P,
                              const std::vector<std::string> &Extra);

/// X as a percentage with two decimals (0.1234 -> "12.34%"); NaN, a number the study could not
/// measure, as "–". The reports and the study's log lines write numbers alike.
std::string percent(double X);

/// Renderers of a result.
llvm::json::Object ablationJSON(const AblationResult &R);
llvm::Error writeAblationHDF5(const AblationResult &R, const std::string &ReportText,
                              const std::string &Path);
llvm::Error drawAblationPlots(const AblationResult &R, const std::string &Gnuplot, int CancelFd);
llvm::Error writeAblationMarkdown(const AblationResult &R, const std::string &Path);

/// `ir2vec mlgo ablate`: the study, then every renderer into Dir.
llvm::Expected<support::Outcome> runAblation(const AblationSpec &Spec, const std::string &Dir,
                                             const AblationConfig &C);

} // namespace wb::mlgo
