// Held-out evaluation of an inliner policy against -Oz (shared doc policy-training.md, sections
// 3 and 4): every module of one side of the split compiled with the heuristic and with the
// policy, each to a native object whose .text is measured; the total reduction
// 1 - sum(policy) / sum(-Oz), the modules that grow or shrink, and a 95% bootstrap interval
// over modules. Written as JSON (schema ir2vec.mlgo-eval/1) and HDF5 with a manifest of
// versions, command lines and hashes (docs/formats/mlgo-eval.md), so anyone can rerun it.
#pragma once

#include "mlgo/Compile.h"
#include "mlgo/Split.h"
#include "runners/InteractiveHost.h"
#include "support/Diagnostics.h"
#include "support/Ranks.h"
#include "support/Error.h"

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace wb::mlgo {

inline constexpr const char *EvalSchema = "ir2vec.mlgo-eval/1";

struct EvalModule {
  std::string Path, Error;
  int64_t Baseline = -1, Policy = -1; // .text bytes; -1 when not measured
  size_t Decisions = 0;
  std::string Package; // the module's key in the split ("" when not known)
};

/// The sums of one package (split key).
struct PackageSummary {
  std::string Key;
  size_t Modules = 0, Grown = 0, Shrunk = 0;
  int64_t BaselineTotal = 0, PolicyTotal = 0;
  double Reduction = 0;
};

struct EvalSummary {
  size_t Modules = 0, Failed = 0, Grown = 0, Shrunk = 0;
  int64_t BaselineTotal = 0, PolicyTotal = 0;
  double Reduction = 0;        // 1 - PolicyTotal / BaselineTotal
  double Low = 0, High = 0;    // 95% bootstrap interval of Reduction over modules
  /// The same with packages as the unit resampled: modules of one package are alike, so this
  /// interval says how much the figure depends on which packages were held out. Equal to
  /// Reduction when the modules come from one package.
  double PackageLow = 0, PackageHigh = 0;
  std::vector<PackageSummary> Packages; // in order of first appearance
};

/// Sums, per-package sums and both bootstrap intervals (Resamples resamplings of the measured
/// modules, and of their packages, seeded).
EvalSummary summarize(const std::vector<EvalModule> &Modules, uint64_t Seed,
                      unsigned Resamples = 1000);

struct EvalRunConfig {
  Toolchain Tools;
  unsigned Jobs = 1;
  bool ShowProgress = false;
  /// The ranks of an MPI run (support/Ranks.h): each compiles with Jobs workers; rank 0 keeps
  /// the measurements and writes the reports.
  support::Distribution Dist;
  support::DiagnosticHandler Report = [](const support::Diagnostic &) {};
};

/// .text with the heuristic (opt -Oz alone) for each module.
std::vector<EvalModule> measureBaselines(const std::vector<std::string> &Modules,
                                         const EvalRunConfig &C);
/// .text with the session's policy for each module of Measured (baselines kept); with
/// Embeddings, each session gets the embedding features of that vocabulary ("" = default).
void measurePolicy(std::vector<EvalModule> &Measured, const runners::SessionConfig &Session,
                   const std::optional<std::string> &Embeddings, const EvalRunConfig &C);

struct EvalJob {
  std::vector<std::string> Inputs;
  SplitOptions Split;
  bool TestSide = true;              // evaluate the held-out side (or the training side)
  runners::SessionConfig Session;    // the policy (Policy and Bind; Command unused)
  std::optional<std::string> Embeddings; // embedding features with this vocabulary
  std::string PolicyLabel;           // how the report names it
  std::string ModelPath;             // hashed into the manifest when set
  uint64_t Seed = 1;                 // the bootstrap's
  std::string JSONOutput, HDF5Output; // "-": JSON on standard output
};

/// `ir2vec mlgo eval`.
llvm::Expected<support::Outcome> runEvaluation(const EvalJob &J, const EvalRunConfig &C);

/// The report as JSON (the manifest, the summary and every module).
llvm::json::Object evaluationJSON(const EvalJob &J, const CorpusSplit &S, const EvalRunConfig &C,
                                  const std::vector<EvalModule> &Modules, const EvalSummary &Sum);

} // namespace wb::mlgo
