// `ir2vec evaluate devmap`: does an embedding carry more than a count of what is in the code?
// Each arm (an embedding configuration or feature set) classifies the device-mapping rows with
// XGBoost under three protocols (Folds.h), repeated over seeds; the always-present controls
// are the static mapping, Grewe et al.'s features and the entity histogram, and every arm is
// compared with the histogram as a paired difference (same folds, seeds and bootstrap
// resamples of kernels). docs/downstream.md; report schema docs/formats/downstream-report.md.
//
// The study in stages, a file each: the spec (DevmapSpec.h), the kernels and their embeddings
// (Kernels.h), the features of each arm (ArmFeatures.h), the trainings (Trainings.h) and the
// statistics (Statistics.h); Study.cpp runs them in turn into a DevmapResult (DevmapResult.h).
#pragma once

#include "downstream/Devmap.h"
#include "downstream/DevmapResult.h"
#include "downstream/DevmapSpec.h"
#include "downstream/Statistics.h"

#include "llvm/Support/JSON.h"

#include <string>

namespace wb::downstream {

inline constexpr const char *DevmapReportSchema = "ir2vec.downstream-devmap/1";

/// The study. Fails (nothing to write) on an unusable dataset or arm, an interrupt or an
/// XGBoost error; kernels that cannot be embedded are left out of every arm and reported.
llvm::Expected<DevmapResult> runDevmapStudy(const DevmapData &Data, const DevmapSpec &Spec,
                                            const DevmapConfig &C);

/// The files writeDevmapOutputs puts in its directory.
inline constexpr const char *DevmapOutputFiles[] = {"report.json", "report.md", "results.h5",
                                                    "accuracy.png", "accuracy.svg"};

/// {"mean", "low", "high"}, a number that could not be measured (NaN) as null: how every
/// report of this layer writes an interval.
llvm::json::Value intervalJSON(const Interval &I);

/// Renderers (Report.cpp).
llvm::json::Value devmapReportJSON(const DevmapResult &R);
std::string devmapReportMarkdown(const DevmapResult &R);
/// The whole output: report.json, report.md, results.h5 and the plot (accuracy.png/.svg, by
/// gnuplot) in Dir, together or not at all.
llvm::Error writeDevmapOutputs(const DevmapResult &R, const std::string &Dir,
                               const std::string &Gnuplot, int CancelFd);

} // namespace wb::downstream
