// libLLVM-22's own IR2Vec, used as the oracle. Loading a vocabulary goes through
// IR2VecVocabAnalysis, i.e. through the same code as opt-22 and llvm-ir2vec; that code reads
// LLVM's global options, so this helper sets them (tests only; one load at a time).
#pragma once

#include "vocab/Vocabulary.h"

#include "llvm/Analysis/IR2Vec.h"
#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace wb::test {

/// LLVM's vocabulary for Path with weights W (LLVM's cl::opt<float> values).
llvm::ir2vec::Vocabulary llvmVocabulary(llvm::Module &M, const std::string &Path,
                                        vocab::Weights W);

/// Empty when Ours and Theirs are equal bit for bit (so -0.0 != 0.0), otherwise a description
/// of the first difference.
std::string bitDifference(llvm::ArrayRef<double> Ours, llvm::ArrayRef<double> Theirs);

/// Writes a vocabulary JSON with all 110 LLVM-22 keys and pseudo-random values (fixed seed),
/// so that every entity, predicates included, contributes to the embeddings.
std::string writeFullRandomVocabulary(const std::string &Path, unsigned Dim, unsigned Seed);

/// The shared seed vocabulary (LLVM's, test data only) and the test data directory.
std::string seedVocabularyPath();
std::string testDataPath(const std::string &Name);

} // namespace wb::test
