// The trainings of a device-mapping study (Trainings.cpp): the protocols' folds per platform
// and seed, then one XGBoost classifier per arm, platform, protocol, seed and fold on -j
// workers, each predicting its fold's rows from the other folds' (a fold vocabulary arm's
// features made from a vocabulary trained on those rows' kernels only).
#pragma once

#include "downstream/ArmFeatures.h"
#include "downstream/DevmapResult.h"
#include "downstream/DevmapSpec.h"
#include "downstream/Kernels.h"

#include "llvm/Support/Error.h"

namespace wb::downstream {

/// Folds: [platform][protocol][seed]; leave-one-suite-out has no randomness (one per seed
/// all the same, trained once). And the static mapping's device per platform.
void makeFolds(const DevmapSpec &Spec, DevmapResult &R);

/// The judging: every training on -j workers, each fold's rows predicted by a classifier
/// trained on the other folds' rows (and a fold vocabulary arm's features made from a
/// vocabulary trained on those rows' kernels only).
llvm::Error runTrainings(const DevmapSpec &Spec, const DevmapConfig &C, const DevmapKernels &K,
                         const FoldVocabularies &FV, DevmapResult &R);

} // namespace wb::downstream
