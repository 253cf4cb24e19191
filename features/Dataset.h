// MLGO datasets in HDF5 (schema ir2vec.mlgo-dataset/3, docs/formats/mlgo-dataset.md): one
// row per decision with every feature (compiler features, workbench extras), the decision,
// the module, the context, the observation id and the reward (the inliner: the module's .text
// size; register allocation: the function's static cost, features/RegallocScore.h).
#pragma once

#include "features/FeatureSets.h"
#include "features/RegallocScore.h"
#include "features/TrainingLog.h"

#include <H5Cpp.h>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace wb::features {

inline constexpr const char *DatasetSchema = "ir2vec.mlgo-dataset/3";

struct DatasetModule {
  std::string Path;
  std::string SHA256;           // of the module's bytes as compiled ("" when not known)
  std::string Error;            // empty: collected
  int64_t TextSize = -1;        // .text bytes with the policy
  int64_t BaselineTextSize = -1; // .text bytes with the compiler's default heuristic
  double Reward = NAN;          // 1 - (size + 0.01) / (baseline + 0.01), or of the costs
  /// Register allocation: what the greedy allocator inserted per function with the policy and
  /// with the default advisor (empty for the inliner).
  std::vector<FunctionRegalloc> Regalloc, BaselineRegalloc;
};

/// The cost of every function of Fs, summed (features/RegallocScore.h).
double totalCost(const RegallocWeights &W, const std::vector<FunctionRegalloc> &Fs);

class DatasetBuilder {
public:
  /// With Costs (register allocation with rewards), each row's reward is its function's and
  /// every context's costs are written.
  DatasetBuilder(Task T, std::string Policy, std::optional<RegallocWeights> Costs = std::nullopt)
      : T(T), Policy(std::move(Policy)), Costs(Costs) {}
  /// Adds a module and its session log (features..., decision last). Every log of a dataset
  /// must have the same header; a different one is an error naming the feature set.
  llvm::Error add(const DatasetModule &M, const Log &SessionLog);
  /// A module that failed (no rows).
  void addFailed(const DatasetModule &M) { Modules.push_back(M); }
  /// The embedding features' vocabulary as specs spell it and its digest
  /// (ir2vec::EmbeddingChoice::digest); by default "none" and "".
  void setEmbeddings(std::string Spelling, std::string Digest) {
    Embeddings = std::move(Spelling);
    EmbeddingsDigest = std::move(Digest);
  }
  size_t rows() const { return RowModule.size(); }
  /// Writes the file atomically (temporary file, then rename).
  llvm::Error write(llvm::StringRef Path) const;
  /// Writes the dataset (attributes and datasets) into G, e.g. a group of a larger file.
  void writeTo(H5::Group &G) const;

private:
  Task T;
  std::string Policy;
  bool HaveHeader = false;
  LogHeader Header; // features + decision last
  std::vector<std::string> Columns; // raw bytes per feature, rows concatenated
  std::vector<int64_t> RowModule, RowContext, RowObservation;
  std::optional<RegallocWeights> Costs;
  std::vector<double> RowReward;
  std::vector<std::string> Contexts;
  std::vector<double> ContextCost, ContextBaselineCost; // with Costs
  std::vector<DatasetModule> Modules;
  std::string Embeddings = "none", EmbeddingsDigest;
};

/// The per-module and per-context numbers a dataset holds beside its rows
/// (docs/formats/mlgo-dataset.md): what DatasetBuilder writes and readDataset reads back.
struct DatasetNumbers {
  const char *Path; // within the dataset's group
  bool Integer;     // int64 in the file (else float64)
  bool RegallocOnly; // written with register-allocation costs only
};
inline constexpr DatasetNumbers DatasetNumberColumns[] = {
    {"modules/text_size", true, false},      {"modules/baseline_text_size", true, false},
    {"modules/reward", false, false},        {"modules/decisions", true, false},
    {"modules/cost", false, true},           {"modules/baseline_cost", false, true},
    {"context/cost", false, true},           {"context/baseline_cost", false, true},
    {"context/reward", false, true},
};

/// A dataset read back (from a file, or a group of one such as an exploration's
/// observations): every feature's raw values in its own type, rows concatenated.
struct DatasetTable {
  Task T = Task::Inline;
  std::string FeatureSetVersion;
  std::vector<TensorSpec> Features; // without the decision
  TensorSpec Decision;
  std::vector<std::string> Columns; // per feature: rows x elementCount values, raw bytes
  std::vector<int64_t> Decisions;   // per row
  std::vector<int64_t> RowModule;   // per row: index into ModulePaths
  std::vector<std::string> ModulePaths;
  // What the file holds beside the features (absent in what selectRows makes): per row its
  // reward, context (index into Contexts) and observation id; per module its error; the
  // DatasetNumberColumns the file has (Numbers[i] is column i's, empty when absent).
  std::vector<double> RowReward;
  std::vector<int64_t> RowContext, RowObservation;
  std::vector<std::string> Contexts, ModuleErrors;
  std::vector<std::string> ModuleSHA256; // empty in files of schema 1 and 2
  std::vector<std::vector<double>> Numbers;

  size_t rows() const { return Decisions.size(); }
  /// Element J of feature F in row R, as double.
  double value(size_t F, size_t R, size_t J) const {
    const size_t N = Features[F].elementCount(), Size = elementSize(Features[F].Type);
    return elementAsDouble(Features[F].Type, Columns[F].data() + (R * N + J) * Size, 0);
  }
  /// Index of the feature named Name, if present.
  std::optional<size_t> find(llvm::StringRef Name) const;
};

/// The rows of D whose module Keep(module index) accepts, in order (ModulePaths unchanged): the
/// training rows of a fold, or its held-out labels.
DatasetTable selectRows(const DatasetTable &D, const std::function<bool(size_t Module)> &Keep);

/// Reads the dataset in group Group of File ("/" for a dataset file). Shapes, types and row
/// counts are checked against the dataset's own feature set; every mismatch names the file,
/// the dataset and what was expected.
llvm::Expected<DatasetTable> readDataset(llvm::StringRef File, llvm::StringRef Group = "/");

/// `ir2vec mlgo log export`: session logs of task T (their last feature is the decision) into
/// one dataset at Output (policy "log", no rewards).
llvm::Error exportLogs(Task T, const std::vector<std::string> &Logs, llvm::StringRef Output);

/// Reward as ml-compiler-opt computes it (compilation_runner.calculate_reward).
inline double sizeReward(int64_t Size, int64_t Baseline) {
  return relativeReward(static_cast<double>(Size), static_cast<double>(Baseline));
}

} // namespace wb::features
