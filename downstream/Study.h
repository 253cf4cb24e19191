// `ir2vec evaluate devmap`: does an embedding carry more than a count of what is in the code?
// Each arm (an embedding configuration or feature set) classifies the device-mapping rows with
// XGBoost under three protocols (Folds.h), repeated over seeds; the always-present controls
// are the static mapping, Grewe et al.'s features and the entity histogram, and every arm is
// compared with the histogram as a paired difference (same folds, seeds and bootstrap
// resamples of kernels). docs/downstream.md; report schema docs/formats/downstream-report.md.
#pragma once

#include "downstream/Boost.h"
#include "downstream/Devmap.h"
#include "downstream/Folds.h"
#include "downstream/FoldVocab.h"
#include "ir2vec/EmbeddingChoice.h"
#include "ir2vec/Embedder.h"
#include "support/Names.h"
#include "support/RunSettings.h"
#include "vocab/Vocabulary.h"

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb::downstream {

inline constexpr const char *DevmapReportSchema = "ir2vec.downstream-devmap/1";

/// How an embedding arm turns a kernel into one vector: the module vector (the sum of its
/// function vectors, `--level module`), that sum over the number of instructions counted in it,
/// the element-wise maximum over its blocks' vectors, or the sum of its blocks' vectors each
/// weighted by LoopWeight to the power of the block's loop depth.
enum class Aggregation { Sum, Mean, Max, Loop };
inline constexpr support::Named<Aggregation> AggregationNames[] = {{Aggregation::Sum, "sum"},
                                                                   {Aggregation::Mean, "mean"},
                                                                   {Aggregation::Max, "max"},
                                                                   {Aggregation::Loop, "loop"}};

enum class ArmKind { Static, Grewe, Histogram, Embedding };

struct DevmapArm {
  std::string Name;
  ArmKind K = ArmKind::Embedding;
  ir2vec::Kind EmbeddingKind = ir2vec::Kind::Symbolic;
  std::string Vocabulary;   // "" = the default vocabulary, else a file
  vocab::Weights Weights;   // of the vocabulary's sections
  /// LLVM IR embedding arms (not "folds", not machine IR): Vocabulary with EmbeddingKind and
  /// Weights, resolved when the spec is read (the file read once, never again).
  ir2vec::EmbeddingChoice Embedding;
  bool WithGrewe = false;   // Grewe's six columns too
  bool WithHistogram = false; // the entity histogram's 110 columns too (after the embedding)
  Aggregation Aggregate = Aggregation::Sum; // LLVM IR embedding arms only
  double LoopWeight = 2;                    // Aggregation::Loop: a block's weight per depth
  /// "vocabulary": "folds": every training of the arm uses a vocabulary trained on the
  /// triplets of its training rows' kernels only (FoldVocab.h); symbolic, sum or mean.
  std::optional<FoldVocabSettings> FoldVocab;
  bool Control = false;
  /// Machine IR: the kernel compiled for x86-64 by llc-22 -O2's code generation up to
  /// MirStage, embedded with MIR2Vec (Vocabulary: a MIR vocabulary, "" = the default one).
  bool Machine = false;
  std::string MirStage = "post-ra";
  /// What the arm reads, in words (report tables).
  std::string describe() const;
};

struct DevmapSpec {
  std::string Path, SHA256; // both empty for the built-in spec
  std::vector<DevmapArm> Arms; // the controls (static, grewe, histogram) first
  std::vector<Protocol> Protocols = {Protocol::Paper, Protocol::Kernel, Protocol::Suite};
  std::vector<uint32_t> Seeds;                 // default 104 .. 113 (104: the paper's)
  unsigned Folds = 10;                         // paper and kernel protocols
  unsigned Resamples = 1000;                   // bootstrap resamples of kernels
  uint64_t BootstrapSeed = 1;
  bool Recompile = true; // kernels LLVM 22 cannot read: recompiled from `src` with clang-22
  BoostSettings Boost;
  llvm::json::Object settingsJSON() const;
};

/// The built-in spec: the controls and the default vocabulary, symbolic and flow-aware, plus
/// each of Vocabularies (files) symbolic and flow-aware; an error when one cannot be read.
llvm::Expected<DevmapSpec> defaultDevmapSpec(const std::vector<std::string> &Vocabularies = {});
/// Reads a spec (JSON, docs/downstream.md): unknown keys, duplicate or reserved arm names,
/// unreadable vocabularies are errors naming the file and the key. The controls are added.
llvm::Expected<DevmapSpec> readDevmapSpec(const std::string &Path);

struct DevmapConfig {
  support::RunSettings Run;
  std::string Clang = "clang-22";
  double ModuleSeconds = 300;
};

struct Interval {
  double Mean = 0, Low = 0, High = 0;
};

/// {"mean", "low", "high"}, a number that could not be measured (NaN) as null: how every
/// report of this layer writes an interval.
llvm::json::Value intervalJSON(const Interval &I);

/// One arm on one protocol: per platform and their mean (the last entry).
struct CellResult {
  std::vector<Interval> Accuracy, Speedup, VsHistogram; // [platform..., mean]
  std::vector<double> WorstSeedAccuracy;                // [platform..., mean]: the seed's
  std::string WorstSuite;                                // lowest mean accuracy over platforms
  double WorstSuiteAccuracy = 0;
  std::string Answer; // "yes", "no" (worse) or "not shown" (vs the histogram, mean)
};

struct DevmapArmResult {
  size_t Columns = 0, UsedColumns = 0; // features, and those not constant (the rest never split)
  std::vector<CellResult> Cells;       // [protocol]
  /// [platform][protocol][seed][row]: 1 = GPU.
  std::vector<std::vector<std::vector<std::vector<uint8_t>>>> Predictions;
  /// [platform]: rows x Columns, unscaled (embedding columns, then Grewe's, transfer, wgsize).
  std::vector<std::vector<double>> Features;
  std::vector<std::string> ColumnNames;
};

struct DevmapRowRef {
  size_t Row;    // in its platform's CSV rows
  int Kernel;    // in Kernels
};

struct DevmapResult {
  DevmapSpec Spec;
  std::string DataDir;
  std::vector<std::string> Platforms, CSVs;
  std::vector<std::vector<DevmapRowRef>> Used; // [platform]: the rows every arm judged
  std::vector<std::vector<DevmapRow>> Rows;    // [platform]: the used rows
  std::vector<std::string> Kernels, Suites;    // kernel names; suite of each kernel
  std::vector<int> SuiteOf;                    // [kernel]
  std::vector<std::string> SuiteNames;
  /// Kernel files LLVM 22 could not read: recompiled from src, or left out (with why).
  std::vector<std::pair<std::string, std::string>> Recompiled, LeftOut;
  std::vector<std::vector<std::vector<std::vector<int>>>> Folds; // [platform][protocol][seed][row]
  std::vector<bool> StaticGPU;                                   // [platform]
  std::vector<Interval> OracleSpeedup;                           // [platform]
  std::vector<DevmapArmResult> Arms;
  size_t Trainings = 0, DistinctKernelFiles = 0;
  size_t FoldVocabularies = 0; // vocabularies trained for arms with "vocabulary": "folds"
  double Seconds = 0, EmbedSeconds = 0, TrainSeconds = 0;
  std::string BoostVersion;
};

/// The study. Fails (nothing to write) on an unusable dataset or arm, an interrupt or an
/// XGBoost error; kernels that cannot be embedded are left out of every arm and reported.
llvm::Expected<DevmapResult> runDevmapStudy(const DevmapData &Data, const DevmapSpec &Spec,
                                            const DevmapConfig &C);

/// Arm A's accuracy minus arm B's on the study's protocol number Protocol, per platform and
/// the mean last: paired (same rows, folds, seeds and bootstrap resamples of kernels).
std::vector<Interval> pairedDifference(const DevmapResult &R, size_t A, size_t B, size_t Protocol);

/// The files writeDevmapOutputs puts in its directory.
inline constexpr const char *DevmapOutputFiles[] = {"report.json", "report.md", "results.h5",
                                                    "accuracy.png", "accuracy.svg"};

/// Renderers (Report.cpp).
llvm::json::Value devmapReportJSON(const DevmapResult &R);
std::string devmapReportMarkdown(const DevmapResult &R);
/// The whole output: report.json, report.md, results.h5 and the plot (accuracy.png/.svg, by
/// gnuplot) in Dir, together or not at all.
llvm::Error writeDevmapOutputs(const DevmapResult &R, const std::string &Dir,
                               const std::string &Gnuplot, int CancelFd);

} // namespace wb::downstream
