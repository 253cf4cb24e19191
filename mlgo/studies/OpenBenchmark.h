// The open benchmark for inliner policies (`ir2vec mlgo benchmark SPEC -o DIR`,
// docs/benchmark.md): a set of policies judged by the transfer protocol on one corpus. Fixed
// policies (the heuristic, `size`, any model file) are judged on every package their model was
// not trained on; trained policies (feature groups and a vocabulary, as the arms of an
// ablation) by cross-validation by package. One exploration of every module gives the -Oz
// sizes, the labels of the trained policies and the headroom.
//
// With --perf-results, the performance track's results (scripts/perf-track.py, mlgo/studies/PerfTrack.h)
// join them: their counts in results.json and the page, their pins in the manifest.
//
// Output: DIR/results.json (ir2vec.benchmark-results/2: everything measured, no times, paths
// relative to DIR or as the corpus names them, so two runs give the same bytes),
// DIR/manifest.json (ir2vec.benchmark-manifest/2: versions, commands, seeds, hashes, times),
// DIR/index.html (a self-contained page drawn from the results), DIR/exploration.h5,
// DIR/models/.
#pragma once

#include "mlgo/studies/Ablation.h"
#include "mlgo/studies/PerfTrack.h"
#include "mlgo/studies/RuleSearch.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wb::mlgo {

inline constexpr const char *OpenBenchmarkResultsSchema = "ir2vec.benchmark-results/2";
inline constexpr const char *OpenBenchmarkManifestSchema = "ir2vec.benchmark-manifest/2";

struct OpenBenchmarkPolicy {
  std::string Name;
  /// A fixed policy: a name of the policy table (`default`, `size`, `linear`, `mlp`, ...), its
  /// model file when it reads one, and the vocabulary of its embedding features.
  std::string Policy, Model;
  ir2vec::EmbeddingChoice Embeddings;
  /// A policy made in-process by its front end (a Python callable, `ir2vec.mlgo.benchmark`):
  /// judged as a fixed policy without a model; Policy then says what it is ("python").
  std::function<llvm::Expected<std::unique_ptr<runners::Policy>>()> Make;
  /// A trained policy (Policy empty, no Search): trained per fold as an ablation arm.
  AblationArm Train;
  /// A searched policy: the rule of the grid chosen per fold (mlgo/studies/RuleSearch.h).
  std::optional<RuleGrid> Search;
  bool trained() const { return Policy.empty() && !Search; }
  bool searched() const { return Search.has_value(); }
  bool fixed() const { return !Policy.empty(); }
};

struct OpenBenchmarkSpec {
  std::string Path;
  std::string SHA256; // of the bytes read
  std::vector<std::string> Corpus;
  std::string CorpusManifest; // the corpus's manifest.json, hashed into the run's manifest
  unsigned Folds = 5;
  uint64_t Seed = 1; // folds, bootstrap and the trained policies' training
  SearchSettings Search;
  TrainConfig Model;
  double Timeout = 0;
  std::vector<OpenBenchmarkPolicy> Policies;
};

/// Reads and checks a spec (docs/benchmark.md): unknown keys, policies that are neither fixed
/// nor trained, unknown policy names and duplicate names are errors naming the key.
llvm::Expected<OpenBenchmarkSpec> readOpenBenchmarkSpec(const std::string &Path);

/// Adds a policy made in-process (a front end's own, e.g. a Python callable) under Name; an
/// error when the name is not a name or is taken.
llvm::Error addMadePolicy(OpenBenchmarkSpec &Spec, const std::string &Name, const std::string &What,
                          std::function<llvm::Expected<std::unique_ptr<runners::Policy>>()> Make);

/// One policy's evaluation.
struct OpenBenchmarkEntry {
  const OpenBenchmarkPolicy *Policy = nullptr;
  std::vector<EvalModule> Modules;       // the judged modules
  EvalSummary Summary;
  std::vector<std::string> Excluded;     // packages its model was trained on
  std::vector<std::string> ModelFiles;   // relative to the output directory when inside it
  std::optional<RuleSearchResult> Search; // a searched policy's candidates and choices
};

struct OpenBenchmarkResult {
  OpenBenchmarkSpec Spec;
  ArmsResult Study; // the exploration and the trained policies
  std::vector<OpenBenchmarkEntry> Entries; // in the spec's order
  std::optional<PerfTrack> Perf;       // the performance track, when given
  double Seconds = 0, FixedSeconds = 0;
};

struct OpenBenchmarkConfig : CompileSetup {
  std::string PerfResults; // the performance track's results.json ("" = none)
};

/// `ir2vec mlgo benchmark`.
llvm::Expected<support::Outcome> runOpenBenchmark(const OpenBenchmarkSpec &Spec, const std::string &Dir,
                                              const OpenBenchmarkConfig &C);

/// Renderers.
llvm::json::Object benchmarkResultsJSON(const OpenBenchmarkResult &R);
llvm::json::Object benchmarkManifestJSON(const OpenBenchmarkResult &R);
/// The page: the results embedded as JSON, drawn by the page's own script (no network).
std::string benchmarkPage(const std::string &ResultsJSON);

} // namespace wb::mlgo
