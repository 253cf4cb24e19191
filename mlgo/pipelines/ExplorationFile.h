// The exploration file (schema ir2vec.mlgo-exploration/3, docs/formats/mlgo-exploration.md):
// its one writer and its one reader. Every pipeline that reads an exploration (training,
// fine-tuning, ablation, the benchmark) reads it here, as values; nobody else opens its HDF5.
#pragma once

#include "features/Dataset.h"
#include "features/TrainingLog.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb::mlgo {

inline constexpr const char *ExplorationSchema = "ir2vec.mlgo-exploration/3";
inline constexpr const char *ExplorationSchemaV2 = "ir2vec.mlgo-exploration/2"; // still read
inline constexpr const char *ExplorationSchemaV1 = "ir2vec.mlgo-exploration/1"; // still read

/// Which modules an exploration covers: one side of a split by package, or every module (the
/// transfer protocol's cross-validation trains each fold on the others' labels).
enum class ExploredSide { Train, Test, All };

struct Rollout {
  std::vector<int64_t> Decisions;
  int64_t TextSize = -1; // -1: failed
  int64_t Flip = -1;     // the flipped decision's index (-1: none)
  /// What answered after the prefix (and the flip): the header's Rules[Rule], or -1 for the
  /// heuristic. Flip -1 and Rule -1: the heuristic's trajectory; Flip -1 and a rule: that
  /// rule's whole-module rollout.
  int64_t Rule = -1;
  std::string Error;
};

struct ModuleExploration {
  std::string Path, Error; // Error: the heuristic's trajectory could not be compiled
  int64_t BaselineSize = -1, BestSize = -1;
  size_t Best = 0; // index into Rollouts
  std::vector<Rollout> Rollouts;
  /// [0]: the best trajectory's observations as explored; [1 + v]: replayed with the
  /// header's Vocabularies[v] (the same decisions, more features). Written, never read back
  /// (readObservations gives them as a dataset).
  std::vector<features::Log> Observations;
  /// As recorded in the file: the module's split key and how it was compiled.
  std::string Key, Command;
  /// SHA-256 of the module's bytes as explored ("" in files of schema 1 and 2).
  std::string SHA256;
};

/// The root attributes. Two explorations with equal settings() are interchangeable.
struct ExplorationHeader {
  int64_t Budget = 0, Seed = 0;
  std::string FlipOrder, Split, Side, Opt, Llc, Compile, Toolchain;
  std::string LLVMVersion, ToolVersion;
  std::vector<std::string> Vocabularies; // of observation sets 1, 2, ... ("" = default)
  /// Their embeddings' digests (ir2vec::EmbeddingChoice::digest), in the same order: what the
  /// observations were embedded with (empty in files of schema 1 and 2).
  std::vector<std::string> VocabularyDigests;
  /// The margin rules rolled out before the flips (runners::marginRules names), in order.
  std::vector<std::string> Rules;
  /// The corpus descriptions the modules came from (as given, like the modules' paths): where
  /// the modules' recorded command lines are, for the runs that compile them again (finetune).
  std::vector<std::string> Corpus;

  /// Everything that decides the explored values, as one comparable string.
  std::string settings() const;
  /// The split a model trained on this exploration's labels records: its packages are the
  /// training keys (an exploration of every module, side all, learnt from every package, so
  /// the transfer protocol must never judge such a model on any of them).
  std::string trainedSplit() const;
};

struct ExplorationFile {
  ExplorationHeader Header;
  std::vector<ModuleExploration> Modules; // input order; Observations empty when read
  /// Observation set names in group order: "none", then "default" or a vocabulary path.
  std::vector<std::string> ObservationSets;
};

/// Writes F (Modules[i].Observations[v] for every set) as a complete file at Path, atomically.
llvm::Error writeExplorationFile(const std::string &Path, const ExplorationFile &F);

/// The header and observation set names only (cheap).
llvm::Expected<ExplorationFile> readExplorationHeader(const std::string &Path);
/// Header, modules and every rollout; every index and length checked against the file's own
/// sizes.
llvm::Expected<ExplorationFile> readExploration(const std::string &Path);
/// The observation set named Name ("none", "default" or a vocabulary path) as a dataset.
llvm::Expected<features::DatasetTable> readObservations(const std::string &Path,
                                                        const std::string &Name);
/// An error when the file explored the held-out side: its labels are for measuring agreement,
/// never for learning (What: the use refused, e.g. "train").
llvm::Error refuseHeldOut(const std::string &Path, const ExplorationHeader &H,
                          llvm::StringRef What);

/// The explored modules whose bytes are no longer those explored (SHA-256 now against the one
/// recorded; a file that cannot be read counts as changed), and how many could not be checked
/// (an exploration of schema 1 or 2 records no digests).
struct ModuleChanges {
  std::vector<std::string> Changed;
  size_t Unchecked = 0;
  /// "FILE: 2 explored modules changed since (a.bc, b.bc): ..." for What ("explore again").
  std::string describe(const std::string &Exploration, llvm::StringRef What) const;
};
ModuleChanges changedModules(const ExplorationFile &X);

/// An observation set's name for an embedding's key as explorations record them
/// (ir2vec::EmbeddingChoice::explorationKey; vocabulary "" = "default"): "default", "VOCAB",
/// "counts", "flow-aware-rd:default", ...
std::string observationSetName(const std::string &Key);

} // namespace wb::mlgo
