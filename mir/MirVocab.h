// A MIR vocabulary of our own: the machine IR triplets of a corpus as an OpenKE directory
// (`ir2vec triplets --mode=mir --format openke`), TransE on them with the trainer LLVM IR
// vocabularies use (`ir2vec vocab train --mode=mir`), link prediction on the held-out split, and
// the result written as LLVM's MIR vocabulary JSON, which llvm-ir2vec-22 --mode=mir loads
// (docs/mir2vec.md, docs/formats/triplets-openke.md).
#pragma once

#include "corpus/Batch.h"
#include "mir/MirCorpus.h"
#include "vocab/KnowledgeGraph.h"
#include "vocab/LinkEval.h"
#include "vocab/TransE.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb::mir {

/// The machine IR triplets of a corpus for one target, counted per unique triplet.
struct MirTripletCorpus {
  std::string Triple;
  MirLayout Layout;
  std::vector<std::pair<MirTriplet, uint64_t>> Unique; // sorted by (head, tail, relation)
  unsigned MaxRelation = MirNextRelation;
  uint64_t Total = 0;
  size_t Modules = 0, Failed = 0;
  std::vector<std::string> FailedModules;
  MirOddities Odd;
};

/// The triplets of every input at each stop point in turn (IR inputs are compiled once per
/// stop point; .mir inputs are read as they are, once per stop point too), for one target (as
/// MirSource), with IO's workers and ranks. O.Stop is ignored.
llvm::Expected<MirTripletCorpus> collectMirTriplets(const std::vector<std::string> &Inputs,
                                                    const MirRunOptions &O,
                                                    const std::vector<StopPoint> &Stops,
                                                    const corpus::BatchIO &IO);

/// `ir2vec triplets --mode=mir --format openke -o Dir`: train2id.txt, entity2id.txt (the
/// target's entities), relation2id.txt (Next, Arg0, ...), triplet_counts.txt and manifest.json
/// (mode "mir", target, stages), appearing together. Partial when some modules failed.
llvm::Expected<support::Outcome> runMirTripletCorpus(const std::vector<std::string> &Inputs,
                                                     const MirRunOptions &O,
                                                     const std::vector<StopPoint> &Stops,
                                                     const std::string &Dir, const corpus::BatchIO &IO);

/// The relation names of MIR triplets: "Next", then "Arg<i>".
std::string mirRelationName(unsigned Relation);

/// What `vocab train --mode=mir` writes and reports.
struct MirTrainedVocabulary {
  std::string JSON;             // LLVM's MIR vocabulary JSON
  vocab::TrainingResult Result;
  vocab::LinkReport Test;       // link prediction on the held-out triplets
  size_t TestTriplets = 0, Entities = 0, Trained = 0; // entities of the layout, with a vector
};

/// Trains TransE on Dir (an OpenKE directory of MIR triplets: its manifest names the target),
/// from InitPath's vectors where it has them (a MIR vocabulary JSON; "": random), and renders
/// the entity vectors as LLVM's MIR vocabulary JSON: the entities that occur in the graph or in
/// InitPath, with Digits significant digits (the others are missing keys: zero vectors).
llvm::Expected<MirTrainedVocabulary> trainMirVocabulary(const std::string &Dir,
                                                        const vocab::SplitOptions &Split,
                                                        const vocab::TransEConfig &C, unsigned Digits,
                                                        const vocab::EpochCallback &OnEpoch = {},
                                                        const std::string &InitPath = "");

/// `ir2vec vocab train --mode=mir DIR -o OUT.json`: the vocabulary written atomically, the
/// training and the test metrics reported.
llvm::Expected<support::Outcome> runMirVocabTraining(const std::string &Dir, const vocab::SplitOptions &Split,
                                                     const vocab::TransEConfig &C, const std::string &Output,
                                                     const std::string &InitPath, bool ShowProgress,
                                                     const support::DiagnosticHandler &Report);

} // namespace wb::mir
