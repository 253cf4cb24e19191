// Evaluation of entity vectors: link prediction on held-out triplets (MR, MRR, Hits@1/3/10,
// raw and filtered, as in the TransE paper) and an analogy test.
//
// Ranks: for each test triplet both the head and the tail are replaced by every entity in
// turn and the true one is ranked by distance d(h + r, t). Ties are common (a vocabulary with
// zero vectors has many equal candidates), so the rank is the expected rank under a random
// tie break, and MRR and Hits@k are expectations under that tie break too: the true entity
// is equally likely at each position from #closer + 1 to #closer + #ties + 1. "Filtered"
// leaves out candidates that form another known triplet (training, validation or test).
#pragma once

#include "vocab/KnowledgeGraph.h"
#include "vocab/TransE.h"

#include "llvm/ADT/ArrayRef.h"

#include <armadillo>

#include <string>
#include <string_view>
#include <vector>

namespace wb::vocab {

struct LinkMetrics {
  double MR = 0, MRR = 0, Hits1 = 0, Hits3 = 0, Hits10 = 0;
  size_t Queries = 0; // two per test triplet (head and tail)
};

struct LinkReport {
  LinkMetrics Raw, Filtered;
};

LinkReport evaluateLinks(const TransEModel &M, Distance D, const std::vector<Triplet> &Test,
                         const TripletSet &Known);

/// Relation vectors for entity vectors that come without them (LLVM's vocabulary files):
/// the minimiser of the summed distances over the training triplets of each relation, i.e.
/// the coordinate-wise median of t - h for L1 and the mean for L2.
arma::mat fitRelations(const arma::mat &Entities, const std::vector<Triplet> &Train,
                       uint32_t NumRelations, Distance D);

/// a : b :: c : d, by entity name.
struct Analogy {
  std::string_view A, B, C, D;
};
/// The project's analogy questions over LLVM 22 entity names (see docs/vocabulary-training.md).
llvm::ArrayRef<Analogy> defaultAnalogies();

struct AnalogyReport {
  size_t Questions = 0;
  double Top1 = 0, Top5 = 0; // expected accuracy (ties broken at random)
};

/// Answers each question with the entity (other than a, b, c) whose vector has the largest
/// cosine similarity to b - a + c. Names are looked up in Names.
llvm::Expected<AnalogyReport> evaluateAnalogies(const arma::mat &Entities,
                                                const std::vector<std::string> &Names,
                                                llvm::ArrayRef<Analogy> Questions);

} // namespace wb::vocab
