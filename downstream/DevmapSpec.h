// What an `evaluate devmap` study is asked to do: its spec (a JSON file, docs/downstream.md, or
// the built-in one), the arms it compares and the controls every spec has, and how the run goes
// (DevmapConfig). DevmapSpec.cpp reads and checks specs; the study is Study.h.
#pragma once

#include "downstream/Boost.h"
#include "downstream/Folds.h"
#include "downstream/FoldVocab.h"
#include "ir2vec/EmbeddingChoice.h"
#include "ir2vec/Embedder.h"
#include "support/Names.h"
#include "support/RunSettings.h"
#include "vocab/Vocabulary.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb::downstream {

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
  std::vector<FoldProtocol> Protocols = {FoldProtocol::Paper, FoldProtocol::Kernel, FoldProtocol::Suite};
  std::vector<uint32_t> Seeds;                 // default 104 .. 113 (104: the paper's)
  unsigned Folds = 10;                         // paper and kernel protocols
  unsigned Resamples = 1000;                   // bootstrap resamples of kernels
  uint64_t BootstrapSeed = 1;
  bool Recompile = true; // kernels LLVM 22 cannot read: recompiled from `src` with clang-22
  BoostSettings Boost;
  llvm::json::Object settingsJSON() const;
};

inline constexpr size_t HistogramArm = 2; // index of the histogram control in every spec's arms

/// The built-in spec: the controls and the default vocabulary, symbolic and flow-aware, plus
/// each of Vocabularies (resolved by the caller) symbolic and flow-aware.
llvm::Expected<DevmapSpec>
defaultDevmapSpec(const std::vector<ir2vec::EmbeddingChoice> &Vocabularies = {});
/// Reads a spec (JSON, docs/downstream.md): unknown keys, duplicate or reserved arm names,
/// unreadable vocabularies are errors naming the file and the key. The controls are added.
llvm::Expected<DevmapSpec> readDevmapSpec(const std::string &Path);

struct DevmapConfig {
  support::RunSettings Run;
  std::string Clang = "clang-22";
  double ModuleSeconds = 300;
};

} // namespace wb::downstream
