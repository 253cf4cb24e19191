// Triplets of a whole corpus for vocabulary training: every module (optionally after LLVM's
// default pipelines, as generateTriplets.py does), streamed through the ordered pipeline and
// counted per unique triplet. Written as OpenKE files, in the layout of LLVM's
// generateTriplets.py, plus our counts file and manifest (docs/formats/triplets-openke.md).
#pragma once

#include "corpus/Batch.h"
#include "corpus/OptPipeline.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Names.h"
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

/// How often train2id.txt lists a triplet: once (as generateTriplets.py), or as often as it
/// occurs.
enum class TripletWeighting { Unique, Frequency };
inline constexpr support::Named<TripletWeighting> TripletWeightingNames[] = {
    {TripletWeighting::Unique, "unique"}, {TripletWeighting::Frequency, "frequency"}};

struct TripletCorpusJob {
  std::vector<std::string> Inputs;
  TripletOptions Opts;
  std::vector<corpus::OptLevel> Levels; // empty: the modules as they are
  unsigned Sample = 0;          // >0: that many of Levels per module, chosen with Seed
  uint64_t Seed = 0;
  TripletWeighting Weighting = TripletWeighting::Unique; // of train2id.txt

  /// Usage errors (e.g. a sample without levels).
  llvm::Error validate() const;
  /// How extraction uses contexts: shared by up to 32 modules, without local names; a fresh
  /// context per module when pipelines run (they must see each module as opt would, alone in
  /// its context: a shared one carries types and constants over from earlier modules).
  corpus::ContextPolicy contextPolicy() const;
};

/// The levels one module is optimised at: all of Levels, or Sample of them drawn with a
/// generator seeded by Seed and the module's index (reproducible for any -j).
std::vector<corpus::OptLevel> levelsForModule(const TripletCorpusJob &J, size_t ModuleIndex);

llvm::Expected<TripletCorpus> collectTripletCorpus(const TripletCorpusJob &J,
                                                   const corpus::BatchIO &IO);

/// Writes train2id.txt, entity2id.txt, relation2id.txt, triplet_counts.txt and
/// manifest.json (which records J's inputs, levels, sample and seed) into Dir (created when
/// its parent exists). Each file appears complete or not at all.
llvm::Error writeOpenKE(support::OutputDirectory &Dir, const TripletCorpus &C,
                        const TripletCorpusJob &J);

/// "N unique triplets (T in all) from R extractions; S of 110 entities occur; never: ...".
std::string coverageSummary(const TripletCorpus &C);

/// `ir2vec triplets --format openke -o Dir`: collects J's corpus and writes it; the
/// coverage summary goes to IO.Run.Report as a note. Partial when some modules failed.
llvm::Expected<support::Outcome> runTripletCorpus(const TripletCorpusJob &J,
                                                  const std::string &Dir,
                                                  const corpus::BatchIO &IO);

/// `ir2vec triplets` in llvm-ir2vec's text format: each input's triplets in input order
/// ("Module: <path>" before each when there are several) into Output ("-" = standard
/// output), atomically. J's levels, sample and weighting do not apply (a usage error).
llvm::Expected<support::Outcome> runTripletsText(const TripletCorpusJob &J,
                                                 const std::string &Output,
                                                 const corpus::BatchIO &IO);

/// SHA-256 of the input list ("path\n" per module), naming a corpus in provenance records.
std::string inputListSHA256(const std::vector<std::string> &Inputs);

} // namespace wb::vocab
