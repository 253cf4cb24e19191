// The training graph: OpenKE files (as `ir2vec triplets --format openke` and LLVM's
// generateTriplets.py write them) read and validated, and split into train / valid / test.
#pragma once

#include "vocab/Triplets.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace wb::vocab {

/// How held-out triplets are chosen when the directory has no valid2id.txt / test2id.txt:
/// the unique triplets in (head, tail, relation) order are shuffled with Seed, the first
/// Test fraction is the test set, the next Valid fraction the validation set. A held-out
/// triplet whose head, tail or relation never occurs in the rest goes back to training
/// (nothing can be learned about it otherwise).
struct SplitOptions {
  double Valid = 0.1;
  double Test = 0.1;
  uint64_t Seed = 1;
};

struct KnowledgeGraph {
  std::vector<std::string> EntityNames;   // by id (entity2id.txt)
  std::vector<std::string> RelationNames; // by id (relation2id.txt)
  std::vector<Triplet> Train, Valid, Test; // unique triplets each
  std::vector<uint64_t> TrainCount;        // occurrences of each Train triplet (>= 1)
  bool HasCounts = false; // counts came from triplet_counts.txt or repeated lines

  uint32_t numEntities() const { return uint32_t(EntityNames.size()); }
  uint32_t numRelations() const { return uint32_t(RelationNames.size()); }
};

using TripletSet = std::unordered_set<uint64_t>;
TripletSet tripletSet(const std::vector<Triplet> &A, const std::vector<Triplet> &B = {},
                      const std::vector<Triplet> &C = {});

/// Reads Dir/train2id.txt, entity2id.txt, relation2id.txt (required), triplet_counts.txt,
/// valid2id.txt and test2id.txt (optional). Every error names the file, the line and what
/// was expected.
llvm::Expected<KnowledgeGraph> readOpenKE(const std::string &Dir, const SplitOptions &Split);

/// Writes G as an OpenKE directory with the split made explicit: train2id.txt (training
/// triplets only), valid2id.txt, test2id.txt, entity2id.txt, relation2id.txt and, when G has
/// counts, triplet_counts.txt for the training triplets. readOpenKE gives G back, and OpenKE
/// itself (or any other trainer) sees exactly the same split.
llvm::Error writeOpenKESplit(const std::string &Dir, const KnowledgeGraph &G);

} // namespace wb::vocab
