// Embeddings from an entity-counts file (schema ir2vec.counts/2, or /1) and any vocabulary, without
// reading IR again: every table's rows are multiplied by the vocabulary matrix
// (E = C x V, counts [rows x 110] times weighted vocabulary [110 x D]).
//
// An exact-mode vector is a sum in LLVM's order ((opcode + type) + operands, per block, per
// function); C x V sums the same terms in another order with multiplications, so results
// differ in the last bits: the relative difference max|E_counts - E_exact| / max|E_exact| of
// a row is documented (and tested) to stay within 1e-12 for realistic inputs.
#pragma once

#include "corpus/Batch.h"
#include "ir2vec/EmbeddingFile.h"
#include "support/Error.h"

namespace wb::ir2vec {

/// Writes Out (schema ir2vec.embeddings/2, method "counts") from CountsPath.
llvm::Expected<corpus::BatchSummary> embeddingsFromCounts(const std::string &CountsPath,
                                                         const vocab::Vocabulary &V,
                                                         const std::string &VocabSHA256,
                                                         const std::string &Out,
                                                         unsigned Compress);

/// `ir2vec from-counts`: Out from CountsPath and V, atomically.
llvm::Expected<support::Outcome> runFromCounts(const std::string &CountsPath,
                                               const vocab::Vocabulary &V,
                                               const std::string &VocabSHA256,
                                               const std::string &Out, unsigned Compress);

/// Rows [N x 110] of counts times the vocabulary: [N x D], one matrix product.
std::vector<double> countsTimesVocabulary(const std::vector<double> &Counts,
                                          const vocab::Vocabulary &V);

} // namespace wb::ir2vec
