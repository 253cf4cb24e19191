// The statistics of a study (Statistics.h): paired bootstrap intervals over resamples of kernels.
#include "downstream/Statistics.h"

#include "learn/Random.h"

#include <algorithm>
#include <cmath>

namespace wb::downstream {

namespace {

/// Percentile interval of sorted V (nearest rank, the convention of the ablation reports).
Interval intervalOf(double Mean, std::vector<double> V) {
  std::sort(V.begin(), V.end());
  Interval I;
  I.Mean = Mean;
  if (V.empty())
    return I;
  const size_t B = V.size();
  I.Low = V[size_t(std::floor(0.025 * double(B)))];
  I.High = V[std::min(B - 1, size_t(std::ceil(0.975 * double(B))) - 1)];
  return I;
}

/// Per kernel, sums over its rows of the seed-mean correctness and speedup ([platform][kernel]),
/// and each seed's accuracy ([platform][seed]).
struct KernelSums {
  std::vector<std::vector<double>> Correct, Speed, N;
  std::vector<std::vector<double>> SeedAccuracy;
};

/// The statistics of a finished study: resamples of kernels with replacement (the spec's
/// count and seed, so every caller draws the same ones), and means over them.
class Statistics {
public:
  explicit Statistics(const DevmapResult &R)
      : R(R), Kernels(R.Kernels.size()), NP(R.Platforms.size()), NS(R.Spec.Seeds.size()) {
    learn::Rng G(R.Spec.BootstrapSeed);
    Draws.assign(R.Spec.Resamples, std::vector<uint32_t>(Kernels, 0));
    for (auto &W : Draws)
      for (size_t I = 0; I < Kernels; ++I)
        ++W[learn::below(G, uint32_t(Kernels))];
  }
  double staticSeconds(size_t P, const DevmapRow &Row) const {
    return R.StaticGPU[P] ? Row.GpuSeconds : Row.CpuSeconds;
  }
  KernelSums sums(size_t A, size_t Pr) const {
    KernelSums S;
    S.Correct.assign(NP, std::vector<double>(Kernels, 0));
    S.Speed = S.N = S.Correct;
    S.SeedAccuracy.assign(NP, std::vector<double>(NS, 0));
    for (size_t P = 0; P < NP; ++P)
      for (size_t I = 0; I < R.Rows[P].size(); ++I) {
        const DevmapRow &Row = R.Rows[P][I];
        const size_t K = size_t(R.Used[P][I].Kernel);
        double C = 0, Sp = 0;
        for (size_t Si = 0; Si < NS; ++Si) {
          const bool GPU = R.Arms[A].Predictions[P][Pr][Si][I];
          C += GPU == Row.GPU;
          S.SeedAccuracy[P][Si] += (GPU == Row.GPU) / double(R.Rows[P].size());
          Sp += staticSeconds(P, Row) / (GPU ? Row.GpuSeconds : Row.CpuSeconds);
        }
        S.Correct[P][K] += C / double(NS);
        S.Speed[P][K] += Sp / double(NS);
        S.N[P][K] += 1;
      }
    return S;
  }
  /// Sum of Num over sum of Den, kernels weighted by W (null: each once).
  double ratio(const std::vector<double> &Num, const std::vector<double> &Den,
               const std::vector<uint32_t> *W) const {
    double S = 0, N = 0;
    for (size_t K = 0; K < Kernels; ++K) {
      const double Wt = W ? (*W)[K] : 1.0;
      S += Wt * Num[K], N += Wt * Den[K];
    }
    return N > 0 ? S / N : NAN;
  }
  /// Per platform, then the mean over platforms.
  std::vector<double> means(const std::vector<std::vector<double>> &Num,
                            const std::vector<std::vector<double>> &Den, const std::vector<uint32_t> *W) const {
    std::vector<double> Out(NP + 1, 0);
    for (size_t P = 0; P < NP; ++P) {
      Out[P] = ratio(Num[P], Den[P], W);
      Out[NP] += Out[P] / double(NP);
    }
    return Out;
  }
  /// Arm A's accuracy minus arm B's on protocol Pr, per platform and mean: paired (the same
  /// rows, folds, seeds and resamples).
  std::vector<Interval> difference(size_t A, size_t B, size_t Pr) const {
    const KernelSums SA = sums(A, Pr), SB = sums(B, Pr);
    const std::vector<double> PA = means(SA.Correct, SA.N, nullptr), PB = means(SB.Correct, SB.N, nullptr);
    std::vector<std::vector<double>> Boot(NP + 1);
    for (const auto &W : Draws) {
      const std::vector<double> X = means(SA.Correct, SA.N, &W), Y = means(SB.Correct, SB.N, &W);
      for (size_t P = 0; P <= NP; ++P)
        Boot[P].push_back(X[P] - Y[P]);
    }
    std::vector<Interval> Out;
    for (size_t P = 0; P <= NP; ++P)
      Out.push_back(intervalOf(PA[P] - PB[P], Boot[P]));
    return Out;
  }

  const DevmapResult &R;
  const size_t Kernels, NP, NS;
  std::vector<std::vector<uint32_t>> Draws;
};


} // namespace

std::vector<Interval> pairedDifference(const DevmapResult &R, size_t A, size_t B, size_t Protocol) {
  return Statistics(R).difference(A, B, Protocol);
}

namespace {

/// One arm's figures under one protocol: accuracy and speedup per platform and pooled with
/// intervals over resamples of kernels, the worst seed, the worst suite, the difference to
/// the histogram control and the answer it gives.
CellResult armCell(const DevmapResult &R, const Statistics &St, size_t A, size_t Pr) {
  const size_t NP = R.Platforms.size(), NS = R.Spec.Seeds.size();
  const KernelSums S = St.sums(A, Pr);
  CellResult Cell;
  const std::vector<double> Acc = St.means(S.Correct, S.N, nullptr), Sp = St.means(S.Speed, S.N, nullptr);
  std::vector<std::vector<double>> BA(NP + 1), BS(NP + 1);
  for (const auto &W : St.Draws) {
    const std::vector<double> A1 = St.means(S.Correct, S.N, &W), S1 = St.means(S.Speed, S.N, &W);
    for (size_t P = 0; P <= NP; ++P) {
      BA[P].push_back(A1[P]);
      BS[P].push_back(S1[P]);
    }
  }
  Cell.VsHistogram = St.difference(A, HistogramArm, Pr);
  for (size_t P = 0; P <= NP; ++P) {
    Cell.Accuracy.push_back(intervalOf(Acc[P], BA[P]));
    Cell.Speedup.push_back(intervalOf(Sp[P], BS[P]));
    double Worst = INFINITY;
    for (size_t Si = 0; Si < NS; ++Si) {
      double V = 0;
      if (P < NP)
        V = S.SeedAccuracy[P][Si];
      else
        for (size_t Q = 0; Q < NP; ++Q)
          V += S.SeedAccuracy[Q][Si] / double(NP);
      Worst = std::min(Worst, V);
    }
    Cell.WorstSeedAccuracy.push_back(Worst);
  }
  // The worst suite: the lowest accuracy over its rows (seed means, platforms pooled).
  std::vector<double> SC(R.SuiteNames.size(), 0), SN(R.SuiteNames.size(), 0);
  for (size_t P = 0; P < NP; ++P)
    for (size_t K = 0; K < St.Kernels; ++K)
      SC[size_t(R.SuiteOf[K])] += S.Correct[P][K], SN[size_t(R.SuiteOf[K])] += S.N[P][K];
  Cell.WorstSuiteAccuracy = INFINITY;
  for (size_t Su = 0; Su < SC.size(); ++Su)
    if (SN[Su] > 0 && SC[Su] / SN[Su] < Cell.WorstSuiteAccuracy) {
      Cell.WorstSuiteAccuracy = SC[Su] / SN[Su];
      Cell.WorstSuite = R.SuiteNames[Su];
    }
  const Interval &D = Cell.VsHistogram.back();
  Cell.Answer = A == HistogramArm ? "-" : D.Low > 0 ? "yes" : D.High < 0 ? "no" : "not shown";
  return Cell;
}

} // namespace

void summarize(DevmapResult &R) {
  const Statistics St(R);
  for (size_t P = 0; P < R.Platforms.size(); ++P) {
    std::vector<double> Num(St.Kernels, 0), Den(St.Kernels, 0);
    double Sum = 0;
    for (size_t I = 0; I < R.Rows[P].size(); ++I) {
      const DevmapRow &Row = R.Rows[P][I];
      const double V = St.staticSeconds(P, Row) / std::min(Row.CpuSeconds, Row.GpuSeconds);
      Sum += V;
      Num[size_t(R.Used[P][I].Kernel)] += V;
      Den[size_t(R.Used[P][I].Kernel)] += 1;
    }
    std::vector<double> Boot;
    for (const auto &W : St.Draws)
      Boot.push_back(St.ratio(Num, Den, &W));
    R.OracleSpeedup.push_back(intervalOf(Sum / double(R.Rows[P].size()), Boot));
  }
  for (size_t Pr = 0; Pr < R.Spec.Protocols.size(); ++Pr)
    for (size_t A = 0; A < R.Spec.Arms.size(); ++A)
      R.Arms[A].Cells.push_back(armCell(R, St, A, Pr));
}


} // namespace wb::downstream
