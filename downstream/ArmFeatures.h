// The features of each arm of a device-mapping study (ArmFeatures.cpp): the candidate columns
// of a judged row are the arm's vector of its kernel (an embedding's, machine IR's, a fold
// vocabulary's, or the histogram), then the histogram, Grewe's features, the run's transfer
// and work-group size. Fold vocabularies live here: the trainings make their own features
// from them too.
#pragma once

#include "downstream/Devmap.h"
#include "downstream/DevmapResult.h"
#include "downstream/DevmapSpec.h"
#include "downstream/FoldVocab.h"
#include "downstream/Kernels.h"
#include "vocab/TransE.h"
#include "vocab/Vocabulary.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace wb::downstream {

/// The vocabularies of "vocabulary": "folds" arms: every kernel's triplets once, a warm start
/// per arm, and a vocabulary per training (thread-safe: trainings run on several workers).
class FoldVocabularies {
public:
  static llvm::Expected<FoldVocabularies> make(const DevmapSpec &Spec, const DevmapKernels &K);
  /// Arm A's vocabulary trained on the triplets of Kernels (distinct contents) only.
  llvm::Expected<vocab::Vocabulary> train(size_t A, const std::vector<size_t> &Kernels) const;
  /// A fold vocabulary's vectors per distinct content: the counts times it (summed as the
  /// symbolic module vector is, by linearity), over the instruction count with Mean.
  std::vector<std::vector<double>> vectors(const DevmapArm &Arm, const vocab::Vocabulary &V) const;

private:
  const DevmapSpec *Spec = nullptr;
  const DevmapKernels *K = nullptr;
  std::optional<KernelTriplets> Triplets;
  std::vector<std::optional<vocab::InitialEntities>> Inits;
};

/// An arm's feature rows (row-major) for a platform's Rows: the kernel's vector (Vectors, by
/// distinct content KernelOf[row]; none for the controls), its counts with the histogram,
/// Grewe's columns, then the run's transfer and work-group size.
std::vector<double> rowFeatures(const DevmapArm &Arm, const std::vector<std::vector<double>> &Vectors,
                                const std::vector<std::vector<double>> &Counts,
                                const std::vector<DevmapRow> &Rows, const std::vector<size_t> &KernelOf);

/// The candidates: every arm's features, per platform a row per judged row (the arm's vector
/// of its kernel, then the histogram, Grewe's columns, transfer and work-group size).
llvm::Error armFeatures(const DevmapSpec &Spec, const DevmapConfig &C, const DevmapKernels &K,
                        const FoldVocabularies &FV, DevmapResult &R);

} // namespace wb::downstream
