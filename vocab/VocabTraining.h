// The vocabulary workflow over one OpenKE directory: train TransE and package the result as
// a vocabulary with provenance; evaluate any vocabulary file on the same held-out split.
#pragma once

#include "vocab/LinkEval.h"
#include "vocab/TransE.h"
#include "vocab/VocabularyFile.h"

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
                const std::function<void(const EpochReport &)> &OnEpoch = {});

/// One entry of the `vocab eval --json` report (schema ir2vec.vocab-eval/1).
llvm::json::Object evaluationJSON(std::string Vocabulary, const VocabEvaluation &E);

/// One line per metric group, for terminals and logs.
std::string formatLinkMetrics(const LinkMetrics &M);

} // namespace wb::vocab
