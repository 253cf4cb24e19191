// What an `evaluate devmap` study returns (runDevmapStudy, Study.h): the rows it judged, the
// folds, every arm's features and predictions and the statistics over them. Each stage of the
// study fills its part; the renderers (Report.cpp) read it.
#pragma once

#include "downstream/Devmap.h"
#include "downstream/DevmapSpec.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wb::downstream {

struct Interval {
  double Mean = 0, Low = 0, High = 0;
};

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

/// The seconds since Since: how the study measures its times (Seconds, EmbedSeconds,
/// TrainSeconds).
inline double seconds(std::chrono::steady_clock::time_point Since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Since).count();
}

} // namespace wb::downstream
