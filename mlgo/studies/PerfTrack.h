// The open benchmark's performance track as `mlgo benchmark --perf-results FILE` takes it:
// the results file of scripts/perf-track.py (schema ir2vec.perf-results/1, docs/perf.md), read
// without trusting it (every count, hash and name checked; the relative changes recomputed from
// the counts and compared with the file's own), then pinned in the benchmark's manifest and
// drawn in its page. The valgrind runs themselves stay in the script: they build Debian
// packages, which is a job for a script, not for the compiler driver.
#pragma once

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wb::mlgo {

inline constexpr const char *PerfResultsSchema = "ir2vec.perf-results/1";

/// One table drives the counts: the file's keys, in the order they are shown.
struct PerfCountKey {
  const char *Key;
  bool Compared; // compared with the baseline (relative change, interval)
};
inline constexpr PerfCountKey PerfCountKeys[] = {
    {"Ir", true}, {"Dr", true}, {"Dw", true}, {"D1mr", false}, {"D1mw", false}};
inline constexpr size_t NumPerfCounts = std::size(PerfCountKeys);

struct PerfRun {
  uint64_t Counts[NumPerfCounts] = {};
  double StaticCost = 0, ValgrindSeconds = 0;
  std::string OutputSHA256;
};

struct PerfPolicy {
  std::string Label;
  llvm::json::Object Described;         // the policy as the track names it (name, model, ...)
  std::map<std::string, PerfRun> Runs;  // by program
  // Against the baseline (none for the baseline itself): as the track computed them, after
  // the totals were checked against the counts.
  std::optional<llvm::json::Object> Intervals; // {"Ir": [lo, hi], ...} over programs
  std::optional<llvm::json::Object> StaticVsDynamic;
};

struct PerfTrack {
  std::string Path, SHA256;
  std::vector<std::string> Programs; // sorted
  std::vector<PerfPolicy> Policies;  // the baseline first
  llvm::json::Object Pins;           // spec, its SHA-256, packages, sources, inputs, tools
};

/// Reads and checks a perf-track results file; errors name the file and the key.
llvm::Expected<PerfTrack> readPerfResults(const std::string &Path);

/// For results.json: every count (no times), the changes against the baseline (computed here)
/// and the track's intervals and rank correlations.
llvm::json::Object perfTrackResultsJSON(const PerfTrack &T);
/// For manifest.json: the file and its SHA-256, the track's pins, valgrind's wall seconds.
llvm::json::Object perfTrackManifestJSON(const PerfTrack &T);

} // namespace wb::mlgo
