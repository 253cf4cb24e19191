// The steps of an ablation study that more than one of its files takes (mlgo/studies/Ablation.h
// is its face): the eviction arms (EvictArms.cpp), and the statistics and answers of a finished
// study (AblationAnswers.cpp).
#pragma once

#include "mlgo/studies/Ablation.h"

#include <chrono>

namespace wb::mlgo {

/// An eviction study (Spec.T evict): the default advisor's cost of both sides once; per arm,
/// observations of the density rule with the arm's embeddings (the perturbation scales), then
/// per seed an MLP from the density rule tuned by ES on the training side and judged on the
/// held-out side.
llvm::Expected<AblationResult> runEvictStudy(const AblationSpec &Spec, const Prepared &P,
                                             const std::string &Dir);

/// The statistics of a finished study: pooled reductions against the reference arm, package
/// means, the answers, and the time since Start.
void conclude(AblationResult &Res, std::chrono::steady_clock::time_point Start);

} // namespace wb::mlgo
