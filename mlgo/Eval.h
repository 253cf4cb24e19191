// Held-out evaluation of an inliner policy against -Oz (shared doc policy-training.md, sections
// 3 and 4): every module of one side of the split compiled with the heuristic and with the
// policy, each to a native object whose .text is measured; the total reduction
// 1 - sum(policy) / sum(-Oz), the modules that grow or shrink, and a 95% bootstrap interval
// over modules. Written as JSON (schema ir2vec.mlgo-eval/2) and HDF5 with a manifest of
// versions, command lines and hashes (docs/formats/mlgo-eval.md), so anyone can rerun it.
#pragma once

#include "mlgo/Compile.h"
#include "mlgo/Split.h"
#include "runners/InteractiveHost.h"
#include "support/Diagnostics.h"
#include "support/RunSettings.h"
#include "support/Error.h"
#include "support/Names.h"

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace wb::mlgo {

inline constexpr const char *EvalSchema = "ir2vec.mlgo-eval/2";

/// How a corpus is divided between what a policy learnt from and what it is judged on.
enum class Protocol {
  /// Every package the policy's model was not trained on (its file's recorded split says
  /// which it was), each scored and summed; the worst package beside the total.
  Transfer,
  /// One side of a split by package (--test-fraction, --split-seed).
  Split,
};
inline constexpr support::Named<Protocol> ProtocolNames[] = {{Protocol::Transfer, "transfer"},
                                                             {Protocol::Split, "split"}};

/// Below this many packages (a study's training side, an evaluation's judged side), or above
/// this width of a 95% interval, an answer says it is not meaningful instead of giving one.
inline constexpr size_t MinTrainingPackages = 3;
inline constexpr double MaxMeaningfulInterval = 0.10;

struct EvalModule {
  std::string Path, Error;
  /// The measure: .text bytes (the inliner), or the register allocation cost (eviction,
  /// features/RegallocScore.h); -1 when not measured.
  double Baseline = -1, Policy = -1;
  size_t Decisions = 0;
  std::string Package; // the module's key in the split ("" when not known)
  /// The smallest .text an exploration found for the module (the headroom's measure), -1 when
  /// not known.
  double Best = -1;
};

/// What there was to gain and how much of it a policy took, over the modules whose best .text
/// is known: Headroom = 1 - sum(best) / sum(baseline); Captured = sum(baseline - policy) /
/// sum(baseline - best) (above 1 when the policy beats the exploration; NaN without headroom).
struct Headroom {
  size_t Modules = 0;
  double BaselineTotal = 0, PolicyTotal = 0, BestTotal = 0;
  double Headroom = 0, Captured = 0;
  void add(const EvalModule &M);
  void finish();
};

/// The sums of one package (split key).
struct PackageSummary {
  std::string Key;
  size_t Modules = 0, Grown = 0, Shrunk = 0;
  double BaselineTotal = 0, PolicyTotal = 0;
  double Reduction = 0;
  struct Headroom Room;
};

struct EvalSummary {
  size_t Modules = 0, Failed = 0, Grown = 0, Shrunk = 0;
  double BaselineTotal = 0, PolicyTotal = 0;
  double Reduction = 0;        // 1 - PolicyTotal / BaselineTotal
  double Low = 0, High = 0;    // 95% bootstrap interval of Reduction over modules
  /// The same with packages as the unit resampled: modules of one package are alike, so this
  /// interval says how much the figure depends on which packages were held out. Equal to
  /// Reduction when the modules come from one package.
  double PackageLow = 0, PackageHigh = 0;
  std::vector<PackageSummary> Packages; // in order of first appearance
  /// The package with the smallest reduction (index into Packages; -1 when none), the figure
  /// a transfer claim has to show beside the total.
  int Worst = -1;
  struct Headroom Room;
};

/// Sums, per-package sums and both bootstrap intervals (Resamples resamplings of the measured
/// modules, and of their packages, seeded).
EvalSummary summarize(const std::vector<EvalModule> &Modules, uint64_t Seed,
                      unsigned Resamples = 1000);

struct EvalRunConfig {
  Toolchain Tools;
  /// Rank 0 of an MPI run keeps the measurements and writes the reports.
  support::RunSettings Run;
};

/// .text with the heuristic (opt -Oz alone) for each module; for register allocation (T evict
/// or priority), the cost of the default advisor (features/RegallocScore.h).
std::vector<EvalModule> measureBaselines(const std::vector<std::string> &Modules,
                                         const EvalRunConfig &C,
                                         runners::Task T = runners::Task::Inline);
/// .text (register allocation: the cost) with the session's policy for each module of
/// Measured (baselines kept); with
/// Embeddings, each session gets the embedding features of that vocabulary ("" = default).
void measurePolicy(std::vector<EvalModule> &Measured, const runners::SessionConfig &Session,
                   const std::optional<std::string> &Embeddings, const EvalRunConfig &C);

struct EvalJob {
  std::vector<std::string> Inputs;
  Protocol Proto = Protocol::Transfer;
  SplitOptions Split;
  bool TestSide = true;              // Split: evaluate the held-out side (or the training side)
  /// An exploration of these modules (any side): each module's smallest .text found, for the
  /// headroom; "" = none.
  std::string Exploration;
  runners::SessionConfig Session;    // the policy (Policy and Bind; Command unused)
  std::optional<std::string> Embeddings; // embedding features with this vocabulary
  std::string PolicyLabel;           // how the report names it
  std::string ModelPath;             // hashed into the manifest when set
  uint64_t Seed = 1;                 // the bootstrap's
  std::string JSONOutput, HDF5Output; // "-": JSON on standard output
};

/// `ir2vec mlgo eval`.
llvm::Expected<support::Outcome> runEvaluation(const EvalJob &J, const EvalRunConfig &C);

/// The packages a model file was trained on (train_keys of the split its provenance records);
/// empty when it records none.
llvm::Expected<std::vector<std::string>> trainingPackagesOf(const std::string &ModelFile);

/// Sets each module's Best from an exploration (matched by path; failed modules stay -1).
llvm::Error attachBest(std::vector<EvalModule> &Modules, const std::string &Exploration);

/// The summary as JSON: sums, both intervals, the worst package, the headroom, per package.
llvm::json::Object summaryJSON(const EvalSummary &Sum);
llvm::json::Array packagesJSON(const EvalSummary &Sum);

/// The report as JSON (the manifest, the summary and every module).
llvm::json::Object evaluationJSON(const EvalJob &J, const CorpusSplit &S, const EvalRunConfig &C,
                                  const std::vector<EvalModule> &Modules, const EvalSummary &Sum,
                                  const std::vector<std::string> &Excluded);

} // namespace wb::mlgo
