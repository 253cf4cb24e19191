// The judging kernel every MLGO study shares (issue 40): what a study measures with (`CompileSetup`:
// the compilers and how the run goes), what it is judged on (`CorpusPlan` prepared once: the
// inputs, their recorded commands, the split or the folds by package), the measurements
// (baselines and a policy's, module by module over the workers and ranks), the transfer
// exclusion (a model is never judged on a package it was trained on), the summary (sums per
// package, the worst package, the headroom an exploration found, bootstrap intervals over
// modules and over packages) and the records every report and model carries (versions,
// provenance, the bootstrap's settings). `mlgo eval`, `mlgo ablate`, `mlgo benchmark`,
// `mlgo train-evict` and the rule search are each: prepare, make candidates, judge, render.
#pragma once

#include "mlgo/pipelines/Compile.h"
#include "mlgo/pipelines/Measure.h"
#include "mlgo/pipelines/Records.h"
#include "mlgo/pipelines/Split.h"
#include "runners/InteractiveHost.h"
#include "runners/Models.h"
#include "support/Diagnostics.h"
#include "support/Error.h"
#include "support/Names.h"
#include "support/RunSettings.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wb::mlgo {

/// Resamples of every bootstrap interval a report gives.
inline constexpr unsigned BootstrapResamples = 1000;
/// How reports state their intervals' settings: {"resamples": 1000, "seed": Seed}.
llvm::json::Object bootstrapJSON(uint64_t Seed);

/// How a corpus is divided between what a policy learnt from and what it is judged on.
enum class JudgingProtocol {
  /// Every package the policy's model was not trained on (its file's recorded split says
  /// which it was), each scored and summed; the worst package beside the total.
  Transfer,
  /// One side of a split by package (--test-fraction, --split-seed).
  Split,
};
inline constexpr support::Named<JudgingProtocol> JudgingProtocolNames[] = {{JudgingProtocol::Transfer, "transfer"},
                                                             {JudgingProtocol::Split, "split"}};

/// Below this many packages (a study's training side, an evaluation's judged side), or above
/// this width of a 95% interval, an answer says it is not meaningful instead of giving one.
inline constexpr size_t MinTrainingPackages = 3;
inline constexpr double MaxMeaningfulInterval = 0.10;

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
                      unsigned Resamples = BootstrapResamples);

/// The packages a model file was trained on (train_keys of the split its provenance records);
/// empty when it records none.
llvm::Expected<std::vector<std::string>> trainingPackagesOf(const std::string &ModelFile);

/// Sets each module's Best from an exploration (matched by path; failed modules stay -1). An
/// error when an explored module's bytes are not those explored (its SHA-256); an exploration
/// that records no digests (schema 1 and 2) is taken with a warning to Report.
llvm::Error attachBest(std::vector<EvalModule> &Modules, const std::string &Exploration,
                       const support::DiagnosticHandler &Report);

/// The summary as JSON: sums, both intervals, the worst package, the headroom, per package.
llvm::json::Object summaryJSON(const EvalSummary &Sum);
llvm::json::Array packagesJSON(const EvalSummary &Sum);

/// What a study is judged on, before anything is read.
struct CorpusPlan {
  /// The arguments that name the corpus (files, directories, @lists, corpus descriptions):
  /// expanded by prepare, and where recorded command lines are looked up.
  std::vector<std::string> Corpus;
  /// Transfer: every module on the judged side, keyed by its package (Split.TestFraction is
  /// ignored); Split: the sides of Split.
  JudgingProtocol Proto = JudgingProtocol::Split;
  SplitOptions Split;
  /// Transfer: the folds of packages cross-validation trains and judges by (0: one per
  /// package), seeded by Split.Seed; none: no folds (a fixed policy is judged as it is).
  std::optional<unsigned> Folds;
  double Timeout = 0; // per compiler run (Toolchain::TimeoutSeconds); 0 = none
};

/// A study set up: its modules, split and folds, and the bench with the corpus's recorded
/// command lines and the plan's timeout.
struct Prepared {
  std::vector<std::string> Inputs;
  SplitOptions SplitOpts; // as the split was made (with the modules' names)
  CorpusSplit Split;
  std::optional<PackageFolds> Folds;
  CompileSetup Setup;

  /// The modules of one side with their packages and their baselines for task T measured.
  std::vector<EvalModule> baselines(bool TestSide, runners::Task T = runners::Task::Inline) const;
};

/// Expands the plan's inputs (diagnostics to B.Run.Report), loads their recorded command lines,
/// splits them by package and makes the folds. Reads no module.
llvm::Expected<Prepared> prepare(const CorpusPlan &Plan, const CompileSetup &B);

/// The files a study reads: its modules, the @lists among Plan's arguments and Extra.
std::vector<std::string> inputsOf(const CorpusPlan &Plan, const Prepared &P,
                                  const std::vector<std::string> &Extra);

/// Before any work: each of Outputs ("" skipped, "-" passes) can be written and is none of the
/// study's inputs (its modules, the @lists among Plan's arguments, Extra: models,
/// explorations); what runs killed by SIGKILL left beside them is swept away.
llvm::Error checkOutputs(const std::vector<std::string> &Outputs, const CorpusPlan &Plan,
                         const Prepared &P, const std::vector<std::string> &Extra);

/// The transfer protocol's exclusion: the packages among Keys that a model file was trained on
/// (the split its provenance records), sorted. An error when that is every package of Keys.
struct Exclusion {
  std::vector<std::string> Packages;
  bool excludes(const std::string &Key) const;
};
llvm::Expected<Exclusion> transferExclusion(const std::string &ModelFile,
                                            const std::vector<std::string> &Keys);

/// A policy to judge: the session that runs it and the vocabulary of the workbench's
/// embedding features it reads.
struct Candidate {
  runners::SessionConfig Session;
  ir2vec::EmbeddingChoice Embeddings;
};

/// What judging found: every judged module (the baselines given, the policy's measure) and
/// their summary.
struct Verdict {
  std::vector<EvalModule> Modules;
  EvalSummary Summary;
};

/// Measures C on Judged (their baselines measured) and summarises with bootstrap seed Seed.
Verdict judge(std::vector<EvalModule> Judged, const Candidate &C, const CompileSetup &B, uint64_t Seed);

} // namespace wb::mlgo
