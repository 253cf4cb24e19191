// Triplets of a whole corpus for vocabulary training: every module (optionally after LLVM's
// default pipelines, as generateTriplets.py does), streamed through the ordered pipeline and
// counted per unique triplet. Written as OpenKE files, in the layout of LLVM's
// generateTriplets.py, plus our counts file and manifest (docs/formats/triplets-openke.md).
#pragma once

#include "vocab/Batch.h"
#include "vocab/OptPipeline.h"
#include "vocab/Triplets.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb::vocab {

inline constexpr const char *TripletCountsSchema = "ir2vec.triplet-counts/1";
inline constexpr const char *TripletManifestSchema = "ir2vec.triplets/1";

struct TripletCount {
  Triplet T; // relation already final (see finalRelation)
  uint64_t Count;
};

/// What a corpus contributes: unique triplets with their frequency, sorted by
/// (head, tail, relation), and the relation numbering.
struct TripletCorpus {
  std::vector<TripletCount> Unique;
  uint32_t MaxRelation = NextRelation; // largest LLVM (Arg) relation id
  bool Extended = false;
  uint64_t Total = 0;                  // triplets counted with repetition
  size_t Modules = 0, Failed = 0;      // modules attempted, modules skipped
  size_t Runs = 0;                     // module x optimisation-level extractions
  std::vector<std::string> FailedModules;

  uint32_t numRelations() const {
    return MaxRelation + 1 + (Extended ? NumExtendedRelations : 0);
  }
  /// How often each entity occurs as head or tail, counted with repetition.
  std::array<uint64_t, NumEntities> entityOccurrences() const;
};

struct TripletCorpusJob {
  std::vector<std::string> Inputs;
  TripletOptions Opts;
  std::vector<OptLevel> Levels; // empty: the modules as they are
  unsigned Sample = 0;          // >0: that many of Levels per module, chosen with Seed
  uint64_t Seed = 0;
};

/// The levels one module is optimised at: all of Levels, or Sample of them drawn with a
/// generator seeded by Seed and the module's index (reproducible for any -j).
std::vector<OptLevel> levelsForModule(const TripletCorpusJob &J, size_t ModuleIndex);

llvm::Expected<TripletCorpus> collectTripletCorpus(const TripletCorpusJob &J, const BatchIO &IO);

enum class TripletWeighting { Unique, Frequency };

struct OpenKEWriteOptions {
  TripletWeighting Weighting = TripletWeighting::Unique;
  std::string CorpusListSHA256; // of the input list, for the manifest
  std::vector<std::string> LevelNames;
  unsigned Sample = 0;
  uint64_t Seed = 0;
};

/// Writes train2id.txt, entity2id.txt, relation2id.txt, triplet_counts.txt and
/// manifest.json into Dir (created if needed). Each file appears complete or not at all.
llvm::Error writeOpenKE(const std::string &Dir, const TripletCorpus &C,
                        const OpenKEWriteOptions &W);

/// SHA-256 of the input list ("path\n" per module), naming a corpus in provenance records.
std::string inputListSHA256(const std::vector<std::string> &Inputs);

} // namespace wb::vocab
