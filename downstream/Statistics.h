// The statistics of a device-mapping study (its last stage): per arm and protocol, accuracy
// and speedup with percentile intervals over bootstrap resamples of kernels, drawn once from
// the spec's count and seed and shared by every arm, so that differences between arms are
// paired (same rows, folds, seeds and resamples).
#pragma once

#include "downstream/DevmapResult.h"

#include <cstddef>
#include <vector>

namespace wb::downstream {

/// Statistics: per arm and protocol, intervals over resamples of kernels shared by every arm
/// (pairedDifference and the figures use the same draws); the oracle's speedup.
void summarize(DevmapResult &R);

/// Arm A's accuracy minus arm B's on the study's protocol number Protocol, per platform and
/// the mean last: paired (same rows, folds, seeds and bootstrap resamples of kernels).
std::vector<Interval> pairedDifference(const DevmapResult &R, size_t A, size_t B, size_t Protocol);

} // namespace wb::downstream
