// The vocabulary workflow over one OpenKE directory: train TransE and package the result as
// a vocabulary with provenance; evaluate any vocabulary file on the same held-out split; write
// the split out; export vocabularies. Each `ir2vec vocab` subcommand is one run*() call here,
// reports included.
#pragma once

#include "support/Diagnostics.h"
#include "support/Error.h"
#include "support/Progress.h"
#include "vocab/LinkEval.h"
#include "vocab/TransE.h"
#include "vocab/VocabularyFile.h"

#include "llvm/Support/raw_ostream.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace wb::vocab {

struct VocabEvaluation {
  LinkReport Fitted;             // relations fitted to the entity vectors (any vocabulary)
  std::optional<LinkReport> Own; // the file's own TransE relations, when it has them
  AnalogyReport Analogies;
  size_t TestTriplets = 0;
};

/// Link prediction on G.Test and the project's analogies, for vectors of any origin.
/// The graph must use the LLVM 22 entity layout (entity2id.txt as `ir2vec entities`).
llvm::Expected<VocabEvaluation> evaluateVocabulary(const KnowledgeGraph &G,
                                                   const EntityVectors &V, Distance D);

struct TrainedVocabulary {
  EntityVectors Vocab; // entities, relations, provenance attributes
  TrainingResult Result;
  VocabEvaluation Eval;
};

/// Trains on Dir's graph (split as given) and evaluates on its test split. Provenance
/// records the LLVM and tool versions, the hyperparameters, the split, the corpus (Dir's
/// manifest.json input hash and the SHA-256 of train2id.txt) and the test metrics.
llvm::Expected<TrainedVocabulary>
trainVocabulary(const std::string &Dir, const KnowledgeGraph &G, const TransEConfig &C,
                const SplitOptions &Split,
                const EpochCallback &OnEpoch = {}, const InitialEntities *Init = nullptr);

/// A vocabulary file's vectors (unweighted) as a warm start for a graph of LLVM IR's 110
/// entities: every key the file has (a missing key's zero row is left to the random start).
/// A usage error when its dimension is not Dim.
llvm::Expected<InitialEntities> initialEntitiesFrom(const std::string &Path, unsigned Dim);

/// The warning for entities no triplet names (they keep their initial vectors), or none.
std::optional<std::string> unmentionedWarning(const std::string &Dir,
                                              const std::vector<std::string> &EntityNames,
                                              const std::vector<bool> &Mentioned, bool Init);

/// One entry of the `vocab eval --json` report (schema ir2vec.vocab-eval/1).
llvm::json::Object evaluationJSON(std::string Vocabulary, const VocabEvaluation &E);

/// The epoch callback that shows training on P (loss, validation MRR when evaluated).
EpochCallback epochProgress(support::Progress &P);

/// One line per metric group, for terminals and logs.
std::string formatLinkMetrics(const LinkMetrics &M);

/// `ir2vec vocab train`: trains on Dir's graph and writes the vocabulary to every output in
/// its format ("-": JSON on standard output). The training set, the epochs (progress line:
/// loss, validation MRR) and the result are reported.
struct VocabTrainingJob {
  std::string Dir;
  SplitOptions Split;
  TransEConfig Config;
  std::vector<std::pair<std::string, VocabularyFormat>> Outputs;
  std::string Init; // --init: a vocabulary to start from ("" = random)
};
llvm::Expected<support::Outcome> runVocabTraining(const VocabTrainingJob &J, bool ShowProgress,
                                                  const support::DiagnosticHandler &Report);

/// A vocabulary's vectors as a report names them (its file, or vocab::DefaultVocabularyName).
struct NamedVectors {
  std::string Name;
  const EntityVectors *Vectors = nullptr;
};
/// `ir2vec vocab eval`: every vocabulary (read by the caller) on Dir's held-out split, as text
/// or as JSON (schema ir2vec.vocab-eval/1) on OS.
llvm::Expected<support::Outcome> runVocabEvaluation(const std::string &Dir,
                                                    const SplitOptions &Split,
                                                    const std::vector<NamedVectors> &Vocabularies,
                                                    Distance D, bool JSON, llvm::raw_ostream &OS);

/// `ir2vec vocab split`: Dir's graph with its split made explicit, in Output (a directory).
llvm::Expected<support::Outcome> runVocabSplit(const std::string &Dir, const SplitOptions &Split,
                                               const std::string &Output);

/// `ir2vec vocab export`: the vocabulary In ("" = the default) written as Output (.json or
/// .h5; "-": JSON on standard output); missing or unknown keys are reported as warnings.
llvm::Expected<support::Outcome> exportVocabulary(const std::string &In, const std::string &Output,
                                                  const support::DiagnosticHandler &Report);

} // namespace wb::vocab
