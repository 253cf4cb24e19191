// Vocabularies trained on the device-mapping kernels themselves, one per training set, so that
// no vocabulary has seen the kernels its classifier is judged on (issue 39). Each kernel's
// triplets (LLVM 22's, plus the extended relations the default vocabulary was trained with)
// are collected once; a training set's vocabulary is TransE on the union of its kernels'
// unique triplets. A symbolic kernel vector is then its entity counts times the vocabulary.
#pragma once

#include "vocab/TransE.h"
#include "vocab/Vocabulary.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb::downstream {

/// How an arm's fold vocabularies are trained (spec key "fold_vocabulary"): the documented
/// TransE recipe (docs/vocabulary-training.md) at Dim dimensions for a fixed number of
/// epochs (a training set this small has no validation split to stop on), started from Init
/// ("default": the default vocabulary at 75 dimensions; "none": random; else a file).
struct FoldVocabSettings {
  unsigned Dim = 75;
  unsigned Epochs = 300;
  uint64_t Seed = 1;
  std::string Init = "none";
  llvm::json::Object toJSON() const;
};

class KernelTriplets {
public:
  /// The triplets of each file (Usable[i] false: none, the kernel is left out).
  static llvm::Expected<KernelTriplets> collect(const std::vector<std::string> &Files,
                                                const std::vector<bool> &Usable);
  /// A vocabulary (weights W) trained on the union of Kernels' triplets.
  llvm::Expected<vocab::Vocabulary> train(const std::vector<size_t> &Kernels,
                                          const FoldVocabSettings &S, vocab::Weights W,
                                          const vocab::InitialEntities *Init) const;
  size_t uniqueTriplets(const std::vector<size_t> &Kernels) const;

private:
  std::vector<std::vector<uint64_t>> Keys; // per file, sorted unique tripletKey()s
  uint32_t MaxRelation = 0;                // over every file: relation ids are shared
};

/// The warm start S.Init names at S.Dim dimensions, or none.
llvm::Expected<std::optional<vocab::InitialEntities>> foldInit(const FoldVocabSettings &S);

} // namespace wb::downstream
