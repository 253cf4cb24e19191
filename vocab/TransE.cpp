#include "vocab/TransE.h"

#include "learn/Random.h"
#include "support/Error.h"
#include "vocab/LinkEval.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <atomic>
#include <chrono>
#include <cmath>

namespace wb::vocab {
namespace {

using learn::below;
using learn::Rng;
using learn::unit;

// One generator per (seed, epoch, batch): a batch draws the same numbers whichever thread
// runs it, so a single-threaded run is reproducible and Hogwild only races on updates.
Rng generatorFor(uint64_t Seed, uint64_t Epoch, uint64_t Batch) {
  return Rng(Seed ^ (Epoch * 0xD1B54A32D192ED03ull) ^ (Batch * 0x8CB92BA72F3D8DD7ull));
}

void normalizeColumn(arma::mat &M, arma::uword C) {
  const double N = arma::norm(M.col(C), 2);
  if (N > 0)
    M.col(C) /= N;
}

// The gradient of d(x) with respect to x, added into Out times Scale.
void addDistanceGradient(const double *X, unsigned Dim, Distance D, double Scale, double *Out,
                         double Sign) {
  if (D == Distance::L1) {
    for (unsigned K = 0; K < Dim; ++K)
      Out[K] += Sign * Scale * double((X[K] > 0) - (X[K] < 0));
    return;
  }
  double N = 0;
  for (unsigned K = 0; K < Dim; ++K)
    N += X[K] * X[K];
  N = std::sqrt(N);
  if (N == 0)
    return;
  for (unsigned K = 0; K < Dim; ++K)
    Out[K] += Sign * Scale * X[K] / N;
}

// Per-thread scratch: gradient accumulators and, with normalised entities, the unit-length
// view of the entity matrix the batch scores with.
struct Workspace {
  arma::mat GE, GR, Unit;
  std::vector<double> InvNorm;
};

class Trainer {
public:
  Trainer(const KnowledgeGraph &G, const TransEConfig &C, const InitialEntities *Init)
      : G(G), C(C),
        Opt(C.Optimizer, {arma::size(C.Dim, G.numEntities()), arma::size(C.Dim, G.numRelations())}) {
    const uint32_t NE = G.numEntities(), NR = G.numRelations();
    Rng Gen(C.Seed);
    const double Bound = 6.0 / std::sqrt(double(C.Dim));
    M.Entities.set_size(C.Dim, NE);
    M.Relations.set_size(C.Dim, NR);
    for (arma::mat *X : {&M.Relations, &M.Entities})
      for (double &V : *X)
        V = (2 * unit(Gen) - 1) * Bound;
    if (Init)
      for (arma::uword E = 0; E < NE; ++E)
        if (E < Init->Present.size() && Init->Present[E])
          M.Entities.col(E) = Init->Vectors.col(E);
    for (arma::uword R = 0; R < NR; ++R)
      normalizeColumn(M.Relations, R);
    if (C.NormalizeEntities)
      for (arma::uword E = 0; E < NE; ++E)
        normalizeColumn(M.Entities, E);
    // The known training triplets as a dense bit set: the graph is tiny (entities^2 x
    // relations bits, ~150 KB for LLVM 22) and the lookup is on the hot path.
    KnownBits.assign((size_t(NE) * NE * NR + 63) / 64, 0);
    for (const Triplet &T : G.Train) {
      const size_t B = bitOf(T);
      KnownBits[B / 64] |= uint64_t(1) << (B % 64);
    }
    // Loss weight per training triplet (a graph built without counts: each occurs once).
    std::vector<uint64_t> Counts = G.TrainCount;
    Counts.resize(G.Train.size(), 1);
    Weight = tripletLossWeights(Counts, C.Weights);
    // Bernoulli corruption: replace the head with probability tph / (tph + hpt).
    HeadProb.assign(NR, 0.5);
    if (C.Corrupt == Corruption::Bernoulli) {
      std::vector<std::unordered_set<uint64_t>> Heads(NR), Tails(NR);
      std::vector<double> N(NR);
      for (const Triplet &T : G.Train) {
        Heads[T.Relation].insert(T.Head);
        Tails[T.Relation].insert(T.Tail);
        ++N[T.Relation];
      }
      for (uint32_t R = 0; R < NR; ++R)
        if (N[R] > 0) {
          const double TPH = N[R] / Heads[R].size(), HPT = N[R] / Tails[R].size();
          HeadProb[R] = TPH / (TPH + HPT);
        }
    }
  }

  llvm::Expected<TrainingResult> run(const EpochCallback &OnEpoch) {
    TrainingResult Res;
    const TripletSet AllKnown = tripletSet(G.Train, G.Valid, G.Test);
    unsigned SinceBest = 0;
    double Seconds = 0;
    const unsigned Threads = std::max(1u, C.Threads);
    std::optional<llvm::StdThreadPool> Pool;
    if (Threads > 1)
      Pool.emplace(llvm::hardware_concurrency(Threads));
    std::vector<Workspace> WS(Threads);
    for (Workspace &W : WS) {
      W.GE.zeros(C.Dim, G.numEntities());
      W.GR.zeros(C.Dim, G.numRelations());
    }
    for (unsigned Epoch = 1; Epoch <= C.Epochs; ++Epoch) {
      const auto Start = std::chrono::steady_clock::now();
      const double Loss = epoch(Epoch, Pool ? &*Pool : nullptr, WS);
      Seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
      if (!std::isfinite(Loss))
        return support::makeError("training diverged at epoch " + llvm::Twine(Epoch) +
                                  " (loss is not finite); lower --lr");
      EpochReport Rep{Epoch, Loss};
      Res.Epochs = Epoch;
      Res.FinalLoss = Loss;
      const bool Check = C.EvalEvery && !G.Valid.empty() &&
                         (Epoch % C.EvalEvery == 0 || Epoch == C.Epochs);
      if (Check) {
        Rep.ValidMRR = evaluateLinks(current(), C.Dist, G.Valid, AllKnown).Filtered.MRR;
        if (Rep.ValidMRR > Res.BestValidMRR) {
          Res.BestValidMRR = Rep.ValidMRR;
          Res.BestEpoch = Epoch;
          Res.Model = current();
          Rep.Best = true;
          SinceBest = 0;
        } else {
          ++SinceBest;
        }
      }
      if (OnEpoch)
        if (llvm::Error E = OnEpoch(Rep))
          return E;
      if (Check && SinceBest >= C.Patience)
        break;
    }
    if (Res.BestValidMRR < 0) { // never validated: the last model is the result
      Res.Model = current();
      Res.BestEpoch = Res.Epochs;
    }
    Res.SecondsPerEpoch = Res.Epochs ? Seconds / Res.Epochs : 0;
    return Res;
  }

private:
  double epoch(unsigned Epoch, llvm::StdThreadPool *Pool, std::vector<Workspace> &WS) {
    const size_t N = G.Train.size();
    std::vector<uint32_t> Order(N);
    for (size_t I = 0; I < N; ++I)
      Order[I] = uint32_t(I);
    Rng Shuffle = generatorFor(C.Seed, Epoch, ~0ull);
    for (size_t I = N; I > 1; --I)
      std::swap(Order[I - 1], Order[below(Shuffle, uint32_t(I))]);
    const size_t B = std::min<size_t>(C.BatchSize, N);
    const size_t NB = (N + B - 1) / B;
    std::atomic<size_t> Next{0};
    std::vector<double> Loss(WS.size(), 0.0);
    auto Work = [&](unsigned T) {
      for (size_t Batch; (Batch = Next++) < NB;) {
        const size_t Lo = Batch * B, Hi = std::min(N, Lo + B);
        Loss[T] += batch(Epoch, Batch, &Order[Lo], Hi - Lo, WS[T]);
      }
    };
    if (!Pool) {
      Work(0);
    } else {
      for (unsigned T = 0; T < WS.size(); ++T)
        Pool->async([&Work, T] { Work(T); });
      Pool->wait();
    }
    double Sum = 0;
    for (double L : Loss)
      Sum += L;
    return Sum / double(N * C.Negatives);
  }

  // Returns the summed weighted loss of the batch and applies its gradient.
  double batch(unsigned Epoch, size_t BatchIndex, const uint32_t *Idx, size_t Count,
               Workspace &WS) {
    Rng Gen = generatorFor(C.Seed, Epoch, BatchIndex);
    arma::mat &GE = WS.GE, &GR = WS.GR;
    // With normalised entities the model scores h/|h| + r - t/|t| (OpenKE's norm_flag):
    // the gradient flows through the normalisation (see projectEntityGradient) instead of
    // the vectors being rescaled after each step, which measured better held-out ranks.
    const arma::mat &E = C.NormalizeEntities ? unitEntities(WS) : M.Entities;
    const unsigned D = C.Dim;
    const uint32_t NE = G.numEntities();
    std::vector<double> X(D), XN(D);
    // Each column once: listing every touch grew with --negatives x --batch-size without bound
    // (issue 37's hostile try: --negatives 100000000 took all memory, then aborted). The steps
    // sort and deduplicate the lists anyway, so the result is the same.
    std::vector<arma::uword> TouchedE, TouchedR;
    std::vector<char> SeenE(NE, 0), SeenR(M.Relations.n_cols, 0);
    double Loss = 0;
    const double Scale = 1.0 / double(Count * C.Negatives);
    for (size_t I = 0; I < Count; ++I) {
      const Triplet &T = G.Train[Idx[I]];
      const double W = Weight[Idx[I]];
      const double *H = E.colptr(T.Head), *R = M.Relations.colptr(T.Relation),
                   *Tl = E.colptr(T.Tail);
      for (unsigned K = 0; K < D; ++K)
        X[K] = H[K] + R[K] - Tl[K];
      const double DPos = norm(X.data());
      for (unsigned Neg = 0; Neg < C.Negatives; ++Neg) {
        Triplet F = corrupt(T, Gen, NE);
        const double *FH = E.colptr(F.Head), *FT = E.colptr(F.Tail);
        for (unsigned K = 0; K < D; ++K)
          XN[K] = FH[K] + R[K] - FT[K];
        const double L = C.Margin + DPos - norm(XN.data());
        if (L <= 0)
          continue;
        Loss += W * L;
        const double S = W * Scale;
        addDistanceGradient(X.data(), D, C.Dist, S, GE.colptr(T.Head), +1);
        addDistanceGradient(X.data(), D, C.Dist, S, GR.colptr(T.Relation), +1);
        addDistanceGradient(X.data(), D, C.Dist, S, GE.colptr(T.Tail), -1);
        addDistanceGradient(XN.data(), D, C.Dist, S, GE.colptr(F.Head), -1);
        addDistanceGradient(XN.data(), D, C.Dist, S, GR.colptr(T.Relation), -1);
        addDistanceGradient(XN.data(), D, C.Dist, S, GE.colptr(F.Tail), +1);
        for (EntityId E : {T.Head, T.Tail, F.Head, F.Tail})
          if (!SeenE[E]) {
            SeenE[E] = 1;
            TouchedE.push_back(E);
          }
        if (!SeenR[T.Relation]) {
          SeenR[T.Relation] = 1;
          TouchedR.push_back(T.Relation);
        }
      }
    }
    if (C.NormalizeEntities)
      projectEntityGradient(TouchedE, WS);
    // Sparse steps: only the columns this batch touched (dense Adam, as PyTorch's, measured
    // no better on IR2Vec graphs and costs ~1.5x).
    Opt.stepColumns(EntityBlock, M.Entities, GE, TouchedE);
    Opt.stepColumns(RelationBlock, M.Relations, GR, TouchedR);
    return Loss;
  }

  const arma::mat &unitEntities(Workspace &WS) const {
    WS.Unit = M.Entities;
    WS.InvNorm.resize(M.Entities.n_cols);
    for (arma::uword Col = 0; Col < WS.Unit.n_cols; ++Col) {
      double *X = WS.Unit.colptr(Col), S = 0;
      for (unsigned K = 0; K < C.Dim; ++K)
        S += X[K] * X[K];
      const double Inv = S > 0 ? 1 / std::sqrt(S) : 0;
      for (unsigned K = 0; K < C.Dim; ++K)
        X[K] *= Inv;
      WS.InvNorm[Col] = Inv;
    }
    return WS.Unit;
  }

  // The gradient with respect to e/|e| turned into one with respect to e:
  // (g - u (u . g)) / |e| with u = e/|e|. Linear in g, so projecting the batch's summed
  // gradient is exact.
  void projectEntityGradient(std::vector<arma::uword> &Touched, Workspace &WS) const {
    std::sort(Touched.begin(), Touched.end());
    Touched.erase(std::unique(Touched.begin(), Touched.end()), Touched.end());
    for (arma::uword Col : Touched) {
      double *Gp = WS.GE.colptr(Col);
      const double *U = WS.Unit.colptr(Col);
      double Dot = 0;
      for (unsigned K = 0; K < C.Dim; ++K)
        Dot += U[K] * Gp[K];
      for (unsigned K = 0; K < C.Dim; ++K)
        Gp[K] = (Gp[K] - U[K] * Dot) * WS.InvNorm[Col];
    }
  }

  /// The model as it scores: unit-length entities when they are normalised.
  TransEModel current() const {
    TransEModel Out = M;
    if (C.NormalizeEntities)
      for (arma::uword E = 0; E < Out.Entities.n_cols; ++E)
        normalizeColumn(Out.Entities, E);
    return Out;
  }

  // Four partial sums: a single accumulator is one long chain of dependent additions
  // (the compiler may not reassociate them).
  double norm(const double *X) const {
    double S[4] = {0, 0, 0, 0};
    unsigned K = 0;
    const bool L1 = C.Dist == Distance::L1;
    for (; K + 4 <= C.Dim; K += 4)
      for (unsigned J = 0; J < 4; ++J)
        S[J] += L1 ? std::fabs(X[K + J]) : X[K + J] * X[K + J];
    for (; K < C.Dim; ++K)
      S[0] += L1 ? std::fabs(X[K]) : X[K] * X[K];
    const double Sum = (S[0] + S[1]) + (S[2] + S[3]);
    return L1 ? Sum : std::sqrt(Sum);
  }

  Triplet corrupt(const Triplet &T, Rng &Gen, uint32_t NE) const {
    const bool Head = unit(Gen) < HeadProb[T.Relation];
    Triplet F = T;
    // Filtered sampling: redraw while the corruption is a known true triplet; a few
    // attempts suffice unless an entity is related to nearly everything.
    for (int Try = 0; Try < 32; ++Try) {
      (Head ? F.Head : F.Tail) = below(Gen, NE);
      if (!(F == T) && (!C.FilterNegatives || !isKnown(F)))
        break;
    }
    return F;
  }

  size_t bitOf(const Triplet &T) const {
    return (size_t(T.Head) * G.numEntities() + T.Tail) * G.numRelations() + T.Relation;
  }
  bool isKnown(const Triplet &T) const {
    const size_t B = bitOf(T);
    return (KnownBits[B / 64] >> (B % 64)) & 1;
  }

  static constexpr size_t EntityBlock = 0, RelationBlock = 1;
  const KnowledgeGraph &G;
  const TransEConfig &C;
  TransEModel M;
  learn::Optimizer Opt;
  std::vector<uint64_t> KnownBits;
  std::vector<double> Weight, HeadProb;
};

} // namespace

llvm::Error TransEConfig::validate() const {
  using support::makeError;
  if (Dim == 0)
    return makeError("--dim must be at least 1");
  if (Epochs == 0)
    return makeError("--epochs must be at least 1");
  if (BatchSize == 0)
    return makeError("--batch-size must be at least 1");
  // Each true triplet costs --negatives distance computations: 100 million was a typo that ran
  // for ever (OpenKE's recipes use 1 to 25).
  if (Negatives == 0 || Negatives > MaxNegatives)
    return makeError("--negatives must be 1 to " + llvm::Twine(MaxNegatives));
  if (!(Margin > 0) || !std::isfinite(Margin))
    return makeError("--margin must be a positive number");
  return Optimizer.validate();
}

std::vector<double> tripletLossWeights(const std::vector<uint64_t> &Counts, TripletWeights W) {
  std::vector<double> Weight(Counts.size(), 1.0);
  if (W == TripletWeights::Unique)
    return Weight;
  double Sum = 0;
  for (size_t I = 0; I < Weight.size(); ++I) {
    const double N = double(Counts[I]);
    Weight[I] = W == TripletWeights::Frequency ? N : std::log1p(N);
    Sum += Weight[I];
  }
  for (double &X : Weight)
    X *= double(Weight.size()) / Sum;
  return Weight;
}

double transEDistance(const double *H, const double *R, const double *T, unsigned Dim,
                      Distance D) {
  double S = 0;
  for (unsigned K = 0; K < Dim; ++K) {
    const double X = H[K] + R[K] - T[K];
    S += D == Distance::L1 ? std::fabs(X) : X * X;
  }
  return D == Distance::L1 ? S : std::sqrt(S);
}

llvm::Expected<TrainingResult>
trainTransE(const KnowledgeGraph &G, const TransEConfig &C,
            const EpochCallback &OnEpoch, const InitialEntities *Init) {
  if (llvm::Error E = C.validate())
    return E;
  if (G.Train.empty())
    return support::makeError("no training triplets");
  if (Init && (Init->Vectors.n_rows != C.Dim || Init->Vectors.n_cols != G.numEntities()))
    return support::makeError(llvm::formatv("the initial vectors are {0} x {1}; training needs "
                                            "{2} x {3} (dimension x entities)",
                                            Init->Vectors.n_rows, Init->Vectors.n_cols, C.Dim,
                                            G.numEntities()));
  Trainer T(G, C, Init);
  return T.run(OnEpoch);
}

std::vector<bool> entitiesMentioned(const KnowledgeGraph &G) {
  std::vector<bool> Seen(G.numEntities(), false);
  for (const auto *Set : {&G.Train, &G.Valid, &G.Test})
    for (const Triplet &T : *Set)
      Seen[T.Head] = Seen[T.Tail] = true;
  return Seen;
}

} // namespace wb::vocab
