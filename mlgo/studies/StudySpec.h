// The parts of the MLGO studies' JSON specs (mlgo ablate, mlgo benchmark) that more than one
// spec has: folds, the training settings, the exploration, trained policies and their
// vocabularies; read with support::SpecReader (errors name the file and the key).
#pragma once

#include "features/FeatureSets.h"
#include "mlgo/pipelines/Explore.h"
#include "mlgo/pipelines/Train.h"
#include "support/SpecReader.h"

#include <string>
#include <vector>

namespace wb::mlgo {

/// "folds": folds of whole packages (0: one per package; never 1).
llvm::Error readFolds(const support::SpecReader &R, const llvm::json::Object &O,
                      unsigned &Out);
/// "model": the training settings (kind, hidden, epochs, batch_size, learning_rate).
llvm::Error readModel(const support::SpecReader &R, const llvm::json::Object *M,
                      TrainConfig &Out);
/// "exploration": budget, seed, flip_order, rules ("all", "none" or an array of names).
llvm::Error readSearch(const support::SpecReader &R, const llvm::json::Object *X,
                       SearchSettings &S);
/// A trained policy's name (no spaces or slashes), feature groups and vocabulary ("none",
/// "default" or a file; required exactly when the groups read embeddings), resolved by
/// Resolve (the symbolic kind; an arm's "kind" is the caller's).
/// With AllowCounts, "counts" names the counting vocabulary (vocab::countingEntityVectors:
/// the entity histogram in place of embeddings).
llvm::Error readArm(const support::SpecReader &R, const llvm::json::Object &A,
                    const std::string &Where, std::string &Name, std::vector<std::string> &Groups,
                    ir2vec::EmbeddingChoice &Vocab, ir2vec::EmbeddingResolver &Resolve,
                    features::Task T = features::Task::Inline, bool AllowCounts = false);
/// A vocabulary as specs spell it ("none", "default", "counts" or a file), resolved now (read
/// once: a file that is missing or not a vocabulary failed every session, and the study then
/// said the compiler sent no features); "none" leaves Vocab null. "counts" only with
/// AllowCounts.
llvm::Error readVocabulary(const support::SpecReader &R, llvm::StringRef Text,
                           const std::string &Where, ir2vec::EmbeddingChoice &Vocab,
                           ir2vec::EmbeddingResolver &Resolve, bool AllowCounts);

} // namespace wb::mlgo
