// The study in its stages (Study.h): the kernels and their embeddings, every arm's features,
// the trainings and the statistics.
#include "downstream/Study.h"

#include "downstream/ArmFeatures.h"
#include "downstream/Boost.h"
#include "downstream/Kernels.h"
#include "downstream/Statistics.h"
#include "downstream/Trainings.h"

#include <chrono>

namespace wb::downstream {

llvm::Expected<DevmapResult> runDevmapStudy(const DevmapData &Data, const DevmapSpec &Spec,
                                            const DevmapConfig &C) {
  const auto Start = std::chrono::steady_clock::now();
  DevmapResult R;
  R.Spec = Spec;
  R.DataDir = Data.Dir;
  R.BoostVersion = boostVersion();
  // Prepare: the kernels, what LLVM 22 reads of them, the rows every arm judges.
  DevmapKernels K;
  if (llvm::Error E = readKernels(Data, K))
    return E;
  R.DistinctKernelFiles = K.Distinct.size();
  const auto EmbedStart = std::chrono::steady_clock::now();
  if (llvm::Error E = embedHistograms(Spec, C, K, R))
    return E;
  if (llvm::Error E = judgedRows(Data, Spec, K, R))
    return E;
  // The candidates: every arm's features.
  llvm::Expected<FoldVocabularies> FV = FoldVocabularies::make(Spec, K);
  if (!FV)
    return FV.takeError();
  if (llvm::Error E = armFeatures(Spec, C, K, *FV, R))
    return E;
  R.EmbedSeconds = seconds(EmbedStart);
  K.Tmp.reset();
  // Judge them by the protocols' folds, then summarise.
  makeFolds(Spec, R);
  if (llvm::Error E = runTrainings(Spec, C, K, *FV, R))
    return E;
  summarize(R);
  R.Seconds = seconds(Start);
  return R;
}

} // namespace wb::downstream
