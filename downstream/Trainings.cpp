// The trainings of a study (Trainings.h).
#include "downstream/Trainings.h"

#include "downstream/Boost.h"
#include "downstream/Folds.h"
#include "support/Error.h"
#include "support/Progress.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace wb::downstream {

namespace {

/// Column-wise min-max scaling over all rows (scikit-learn's MinMaxScaler: a constant column
/// becomes 0), to floats; constant columns are dropped, which changes no tree (they offer no
/// split) and saves XGBoost their scans.
FloatMatrix scaled(const std::vector<double> &X, size_t Rows, size_t Cols, size_t &UsedCols) {
  std::vector<size_t> Keep;
  std::vector<double> Min(Cols, 0), Range(Cols, 0);
  for (size_t C = 0; C < Cols; ++C) {
    double Lo = INFINITY, Hi = -INFINITY;
    for (size_t R = 0; R < Rows; ++R) {
      Lo = std::min(Lo, X[R * Cols + C]);
      Hi = std::max(Hi, X[R * Cols + C]);
    }
    Min[C] = Lo, Range[C] = Hi - Lo;
    if (Hi > Lo)
      Keep.push_back(C);
  }
  FloatMatrix M;
  M.Rows = Rows;
  M.Cols = std::max<size_t>(1, Keep.size()); // XGBoost needs a column; a constant one never splits
  M.Data.assign(M.Rows * M.Cols, 0.0f);
  for (size_t R = 0; R < Rows; ++R)
    for (size_t K = 0; K < Keep.size(); ++K) {
      const size_t C = Keep[K];
      M.Data[R * M.Cols + K] = float((X[R * Cols + C] - Min[C]) / Range[C]);
    }
  UsedCols = Keep.size();
  return M;
}

} // namespace

void makeFolds(const DevmapSpec &Spec, DevmapResult &R) {
  const size_t NP = R.Platforms.size(), NR = Spec.Protocols.size(), NS = Spec.Seeds.size();
  R.Folds.assign(NP, std::vector<std::vector<std::vector<int>>>(NR));
  for (size_t P = 0; P < NP; ++P) {
    std::vector<int> Labels, Kernel, Suite;
    for (size_t I = 0; I < R.Rows[P].size(); ++I) {
      Labels.push_back(R.Rows[P][I].GPU);
      Kernel.push_back(R.Used[P][I].Kernel);
      Suite.push_back(R.SuiteOf[size_t(R.Used[P][I].Kernel)]);
    }
    // Kernels renumbered densely within the platform (groupFolds numbers groups 0..G-1).
    std::map<int, int> Dense;
    for (int &K : Kernel)
      K = Dense.emplace(K, int(Dense.size())).first->second;
    std::map<int, int> DenseSuite;
    for (int &S : Suite)
      S = DenseSuite.emplace(S, int(DenseSuite.size())).first->second;
    for (size_t Pr = 0; Pr < NR; ++Pr)
      for (size_t Si = 0; Si < NS; ++Si) {
        switch (Spec.Protocols[Pr]) {
        case FoldProtocol::Paper:
          R.Folds[P][Pr].push_back(stratifiedFolds(Labels, Spec.Folds, Spec.Seeds[Si]));
          break;
        case FoldProtocol::Kernel:
          R.Folds[P][Pr].push_back(groupFolds(Kernel, Spec.Folds, Spec.Seeds[Si]));
          break;
        case FoldProtocol::Suite:
          R.Folds[P][Pr].push_back(leaveGroupOut(Suite));
          break;
        }
      }
    size_t GPU = size_t(std::count(Labels.begin(), Labels.end(), 1));
    R.StaticGPU.push_back(2 * GPU > Labels.size());
  }
}

namespace {

/// One training: an arm's classifier for one fold of one seed of one protocol on one platform.
struct TrainingTask {
  size_t A, P, Pr, S;
  int Fold;
};

/// The trainings: one per (arm, platform, protocol, seed, fold) with rows on both sides; every
/// prediction starts as the static mapping's.
std::vector<TrainingTask> trainingTasks(const DevmapSpec &Spec, DevmapResult &R) {
  const size_t NP = R.Platforms.size(), NR = Spec.Protocols.size(), NS = Spec.Seeds.size();
  std::vector<TrainingTask> Tasks;
  for (size_t A = 0; A < Spec.Arms.size(); ++A) {
    DevmapArmResult &Out = R.Arms[A];
    Out.Predictions.assign(NP, std::vector<std::vector<std::vector<uint8_t>>>(NR));
    for (size_t P = 0; P < NP; ++P)
      for (size_t Pr = 0; Pr < NR; ++Pr)
        for (size_t Si = 0; Si < NS; ++Si) {
          Out.Predictions[P][Pr].emplace_back(R.Rows[P].size(), uint8_t(R.StaticGPU[P]));
          if (Spec.Arms[A].K == ArmKind::Static)
            continue;
          if (Spec.Protocols[Pr] == FoldProtocol::Suite && Si > 0)
            continue; // the same folds as seed 0: copied after the trainings
          const std::vector<int> &F = R.Folds[P][Pr][Si];
          const int Max = *std::max_element(F.begin(), F.end());
          for (int K = 0; K <= Max; ++K)
            if (llvm::is_contained(F, K))
              Tasks.push_back({A, P, Pr, Si, K});
        }
  }
  return Tasks;
}

} // namespace

llvm::Error runTrainings(const DevmapSpec &Spec, const DevmapConfig &C, const DevmapKernels &K,
                         const FoldVocabularies &FV, DevmapResult &R) {
  const size_t NA = Spec.Arms.size(), NP = R.Platforms.size(), NR = Spec.Protocols.size(),
               NS = Spec.Seeds.size();
  const std::vector<TrainingTask> Tasks = trainingTasks(Spec, R);
  std::vector<std::vector<FloatMatrix>> X(NA, std::vector<FloatMatrix>(NP));
  for (size_t A = 0; A < NA; ++A)
    if (Spec.Arms[A].K != ArmKind::Static)
      for (size_t P = 0; P < NP; ++P)
        X[A][P] = scaled(R.Arms[A].Features[P], R.Rows[P].size(), R.Arms[A].Columns, R.Arms[A].UsedColumns);
  std::vector<std::vector<int>> Y(NP);
  for (size_t P = 0; P < NP; ++P)
    for (const DevmapRow &Row : R.Rows[P])
      Y[P].push_back(Row.GPU);
  const auto TrainStart = std::chrono::steady_clock::now();
  support::Progress Prog("trainings", Tasks.size(), C.Run.ShowProgress);
  std::atomic<size_t> Next{0}, Done{0}, FoldVocabs{0};
  std::mutex M;
  std::optional<std::string> Failure;
  {
    llvm::StdThreadPool Pool(llvm::hardware_concurrency(std::max(1u, C.Run.Jobs)));
    const unsigned Workers = std::max(1u, C.Run.Jobs);
    for (unsigned W = 0; W < Workers; ++W)
      Pool.async([&] {
        for (size_t T; (T = Next++) < Tasks.size();) {
          if (C.Run.cancelled())
            return;
          {
            std::lock_guard<std::mutex> G(M);
            if (Failure)
              return;
          }
          const TrainingTask &Tk = Tasks[T];
          const std::vector<int> &F = R.Folds[Tk.P][Tk.Pr][Tk.S];
          std::vector<size_t> Train, Test;
          for (size_t I = 0; I < F.size(); ++I)
            (F[I] == Tk.Fold ? Test : Train).push_back(I);
          const FloatMatrix *Xm = &X[Tk.A][Tk.P];
          FloatMatrix Own; // an arm with fold vocabularies: this training's own features
          const DevmapArm &Arm = Spec.Arms[Tk.A];
          if (Arm.FoldVocab) {
            std::vector<size_t> Kernels;
            for (size_t I : Train)
              Kernels.push_back(K.KernelOfRow[Tk.P][I]);
            std::sort(Kernels.begin(), Kernels.end());
            Kernels.erase(std::unique(Kernels.begin(), Kernels.end()), Kernels.end());
            auto V = FV.train(Tk.A, Kernels);
            if (!V) {
              std::lock_guard<std::mutex> G(M);
              Failure = "arm " + Arm.Name + ": " + llvm::toString(V.takeError());
              return;
            }
            size_t Used = 0;
            Own = scaled(rowFeatures(Arm, FV.vectors(Arm, *V), K.Counts.Rows, R.Rows[Tk.P], K.KernelOfRow[Tk.P]),
                         R.Rows[Tk.P].size(), R.Arms[Tk.A].Columns, Used);
            Xm = &Own;
            ++FoldVocabs;
          }
          auto Probs = trainAndPredict(*Xm, Y[Tk.P], Train, Test, Spec.Boost);
          std::lock_guard<std::mutex> G(M);
          if (!Probs) {
            Failure = "arm " + Arm.Name + ": " + llvm::toString(Probs.takeError());
            return;
          }
          std::vector<uint8_t> &Pred = R.Arms[Tk.A].Predictions[Tk.P][Tk.Pr][Tk.S];
          for (size_t I = 0; I < Test.size(); ++I)
            Pred[Test[I]] = (*Probs)[I] > 0.5f; // XGBClassifier.predict's threshold
          Prog.update(++Done);
        }
      });
    Pool.wait();
  }
  Prog.clear();
  if (C.Run.cancelled())
    return support::interruptedError("interrupted after " + std::to_string(Done.load()) + " of " +
                                     std::to_string(Tasks.size()) + " trainings");
  if (Failure)
    return support::makeError(*Failure);
  R.Trainings = Tasks.size();
  R.FoldVocabularies = FoldVocabs.load();
  R.TrainSeconds = seconds(TrainStart);
  for (size_t A = 0; A < NA; ++A)
    for (size_t P = 0; P < NP; ++P)
      for (size_t Pr = 0; Pr < NR; ++Pr)
        if (Spec.Protocols[Pr] == FoldProtocol::Suite)
          for (size_t Si = 1; Si < NS; ++Si)
            R.Arms[A].Predictions[P][Pr][Si] = R.Arms[A].Predictions[P][Pr][0];
  return llvm::Error::success();
}

} // namespace wb::downstream
