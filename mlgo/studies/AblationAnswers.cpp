// What an ablation's arms answer: pooled reductions against the reference arm, package means,
// and the questions pairs of arms that differ only by embeddings can answer, in words.
#include "mlgo/studies/AblationSteps.h"

#include "learn/Random.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

namespace wb::mlgo {

PooledReduction poolReductions(const std::vector<std::vector<EvalModule>> &PerSeed,
                               const std::vector<std::vector<EvalModule>> &Reference,
                               uint64_t Seed, unsigned Resamples) {
  PooledReduction P;
  if (PerSeed.empty() || Reference.empty())
    return P;
  const size_t N = PerSeed.front().size();
  auto Usable = [](const EvalModule &M) { return M.Error.empty() && M.Baseline >= 0 && M.Policy >= 0; };
  std::vector<size_t> Ok;
  for (size_t M = 0; M < N; ++M) {
    bool Good = true;
    for (const auto *Set : {&PerSeed, &Reference})
      for (const std::vector<EvalModule> &E : *Set)
        Good &= M < E.size() && Usable(E[M]);
    if (Good)
      Ok.push_back(M);
  }
  if (Ok.empty())
    return P;
  // The seed-averaged reduction over a multiset of modules (given as counts).
  auto Reduction = [&](const std::vector<std::vector<EvalModule>> &Evals,
                       const std::vector<unsigned> &Count) {
    double Sum = 0;
    for (const std::vector<EvalModule> &E : Evals) {
      double Base = 0, Pol = 0;
      for (size_t K = 0; K < Ok.size(); ++K) {
        Base += Count[K] * double(E[Ok[K]].Baseline);
        Pol += Count[K] * double(E[Ok[K]].Policy);
      }
      Sum += Base > 0 ? 1 - Pol / Base : 0;
    }
    return Sum / double(Evals.size());
  };
  const std::vector<unsigned> All(Ok.size(), 1);
  P.Mean = Reduction(PerSeed, All);
  P.Diff = P.Mean - Reduction(Reference, All);
  learn::Rng G(Seed);
  std::vector<double> R(Resamples), D(Resamples);
  std::vector<unsigned> Count(Ok.size());
  for (unsigned B = 0; B < Resamples; ++B) {
    std::fill(Count.begin(), Count.end(), 0);
    for (size_t K = 0; K < Ok.size(); ++K)
      ++Count[learn::below(G, uint32_t(Ok.size()))];
    R[B] = Reduction(PerSeed, Count);
    D[B] = R[B] - Reduction(Reference, Count);
  }
  std::sort(R.begin(), R.end());
  std::sort(D.begin(), D.end());
  auto At = [&](const std::vector<double> &V, double Q) {
    return V[size_t(Q * (Resamples - 1) + 0.5)];
  };
  P.Low = At(R, 0.025);
  P.High = At(R, 0.975);
  P.DiffLow = At(D, 0.025);
  P.DiffHigh = At(D, 0.975);
  return P;
}

namespace {


/// Arms whose groups equal Want exactly (as a set).
const AblationArm *armWith(const std::vector<AblationArm> &Arms, std::set<std::string> Want,
                           bool Embeddings) {
  for (const AblationArm &A : Arms)
    if (std::set<std::string>(A.Groups.begin(), A.Groups.end()) == Want &&
        bool(A.Vocab) == Embeddings)
      return &A;
  return nullptr;
}

/// The fewest packages any model of the study was trained on: the split's training side, or
/// under the transfer protocol the packages outside the smallest complement of a fold.
size_t trainingPackages(const AblationResult &Res) {
  if (!Res.Folds) {
    std::set<std::string> Keys;
    for (const std::string &K : Res.Split.keysOf(false))
      Keys.insert(K);
    return Keys.size();
  }
  const size_t All = Res.Folds->FoldOfKey.size();
  size_t Fewest = All;
  for (unsigned F = 0; F < Res.Folds->Count; ++F)
    Fewest = std::min(Fewest, All - Res.Folds->keys(F).size());
  return Fewest;
}

/// The questions the arms can answer: do embeddings help, can they stand in for the cost
/// features (pairs of arms that differ only there), with paired resamples.
std::vector<std::string> answers(const AblationSpec &Spec,
                                 const std::vector<AblationArmResult> &Results,
                                 size_t TrainingPackages) {
  std::vector<std::string> Out;
  auto Verdict = [&](const PooledReduction &P) -> std::string {
    // A model trained on one or two packages learns them, not a rule, and an interval ten
    // points wide says nothing: neither is an answer (a one-package study said "-97 %, worse").
    if (TrainingPackages < MinTrainingPackages)
      return "not meaningful: models trained on " + std::to_string(TrainingPackages) +
             " package" + (TrainingPackages == 1 ? "" : "s") + " (at least " +
             std::to_string(MinTrainingPackages) + " are needed for an answer)";
    if (P.DiffHigh - P.DiffLow > MaxMeaningfulInterval)
      return "not meaningful: the 95% interval of the difference spans " +
             percent(P.DiffHigh - P.DiffLow) + " (more than " + percent(MaxMeaningfulInterval) +
             "): more modules, packages or seeds are needed";
    if (P.DiffLow > 0)
      return "better (the 95% interval of the difference is above zero)";
    if (P.DiffHigh < 0)
      return "worse (the 95% interval of the difference is below zero)";
    return "no measurable difference (the 95% interval of the difference contains zero)";
  };
  auto Answer = [&](llvm::StringRef Question, const AblationArm &X, llvm::StringRef XIs,
                    const AblationArm &Y, llvm::StringRef YIs) {
    const AblationArmResult &RX = Results[&X - Spec.Arms.data()],
                            &RY = Results[&Y - Spec.Arms.data()];
    const PooledReduction P = poolReductions(RX.PerSeed, RY.PerSeed, Spec.Seeds.front());
    Out.push_back(llvm::formatv("**{0}** `{1}` ({2}) against `{3}` ({4}): "
                                "reduction {5} against {6}, difference {7} (95% interval "
                                "{8} to {9}): {10}.",
                                Question, X.Name, XIs, Y.Name, YIs, percent(RX.Pooled.Mean),
                                percent(RY.Pooled.Mean), percent(P.Diff), percent(P.DiffLow),
                                percent(P.DiffHigh), Verdict(P))
                      .str());
  };
  // A group is an embedding group when its features are vectors of a vocabulary's dimension.
  auto Embeds = [&](const std::string &G) {
    auto Defs = features::featuresOfGroups(Spec.T, {G});
    if (!Defs) {
      llvm::consumeError(Defs.takeError());
      return false;
    }
    return llvm::any_of(*Defs, [](const features::FeatureDef *F) { return features::isEmbedding(*F); });
  };
  for (const AblationArm &X : Spec.Arms) {
    if (!X.Vocab)
      continue;
    const bool Counts = X.Vocab.counts();
    std::set<std::string> Without, EmbeddingGroups;
    for (const std::string &G : X.Groups)
      (Embeds(G) ? EmbeddingGroups : Without).insert(G);
    const std::string Vocab =
        Counts ? std::string("entity counts") : armEmbeddingName(X) + " embeddings";
    if (const AblationArm *Y = armWith(Spec.Arms, Without, false))
      Answer(Counts ? "Do entity counts help?" : "Do embeddings help?", X, Vocab, *Y,
             "the same features without them");
    // Another kind against the symbolic embeddings of the same vocabulary and groups.
    if (X.Vocab.kind() != ir2vec::Kind::Symbolic)
      for (const AblationArm &Y : Spec.Arms)
        if (Y.Vocab && Y.Vocab.kind() == ir2vec::Kind::Symbolic && Y.Vocab.sameVocabulary(X.Vocab) &&
            Y.Groups == X.Groups)
          Answer(("Does the " + ir2vec::kindName(X.Vocab.kind()).str() + " kind beat symbolic?")
                     .c_str(),
                 X, Vocab, Y, "symbolic embeddings of the vocabulary in their place");
    // The histogram control: the same groups with entity counts in place of the embeddings.
    if (!Counts)
      for (const AblationArm &Y : Spec.Arms)
        if (Y.Vocab.counts() && std::set<std::string>(Y.Groups.begin(), Y.Groups.end()) ==
                            std::set<std::string>(X.Groups.begin(), X.Groups.end()))
          Answer("Do embeddings beat counting?", X, Vocab, Y, "entity counts in their place");
    // With several embedding groups: what each adds to the others.
    for (const std::string &G : EmbeddingGroups) {
      if (EmbeddingGroups.size() < 2)
        break;
      std::set<std::string> Others(X.Groups.begin(), X.Groups.end());
      Others.erase(G);
      if (const AblationArm *Y = armWith(Spec.Arms, Others, true))
        Answer(("Does the `" + G + "` group add to the other embeddings?").c_str(), X, Vocab, *Y,
               "the same features without `" + G + "`");
    }
    if (std::count(X.Groups.begin(), X.Groups.end(), "cost"))
      continue;
    std::set<std::string> WithCost = Without;
    WithCost.insert("cost");
    if (const AblationArm *Y = armWith(Spec.Arms, WithCost, false))
      Answer("Can embeddings stand in for the cost features?", X,
             Vocab + " instead of the cost features", *Y, "the cost features, no embeddings");
  }
  if (Out.empty())
    Out.push_back("The spec has no pair of arms that differ only by embeddings, so no "
                  "question can be answered from it.");
  return Out;
}

/// Per-package seed means, the worst of them, and the seed mean of the captured share.
void packageMeans(AblationArmResult &R) {
  std::map<std::string, double> Sum;
  std::vector<std::string> Order;
  double Captured = 0;
  for (const EvalSummary &S : R.Summaries) {
    for (const PackageSummary &P : S.Packages) {
      if (!Sum.count(P.Key))
        Order.push_back(P.Key);
      Sum[P.Key] += P.Reduction / double(R.Summaries.size());
    }
    Captured += S.Room.Captured / double(R.Summaries.size());
  }
  R.HeadroomCaptured = Captured;
  for (const std::string &K : Order) {
    R.PackageMeans.emplace_back(K, Sum[K]);
    if (R.Worst < 0 || Sum[K] < R.PackageMeans[size_t(R.Worst)].second)
      R.Worst = int(R.PackageMeans.size() - 1);
  }
}

} // namespace

void conclude(AblationResult &Res, std::chrono::steady_clock::time_point Start) {
  using Clock = std::chrono::steady_clock;
  for (AblationArmResult &R : Res.Arms) {
    R.Pooled = poolReductions(R.PerSeed, Res.Arms.front().PerSeed, Res.Spec.Seeds.front());
    packageMeans(R);
  }
  Res.Answers = answers(Res.Spec, Res.Arms, trainingPackages(Res));
  Res.Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
}

} // namespace wb::mlgo
