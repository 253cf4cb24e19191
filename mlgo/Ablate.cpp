#include "mlgo/Ablate.h"
#include "mlgo/StudySpec.h"
#include "mlgo/EvictTrain.h"
#include "mlgo/FineTune.h"

#include "learn/Random.h"
#include "runners/Models.h"
#include "support/JSON.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <map>
#include <set>

namespace wb::mlgo {

using support::Diagnostic;

// ---- the spec -------------------------------------------------------------------------------

namespace {

llvm::Error readSplit(const support::SpecReader &R, const llvm::json::Object &O,
                      SplitOptions &Split) {
  const llvm::json::Object *Sp = O.getObject("split");
  if (!Sp)
    return llvm::Error::success();
  if (llvm::Error E = R.onlyKeys(*Sp, "split", {"test_fraction", "seed", "keys_file"}))
    return E;
  if (llvm::Error E = R.number(*Sp, "test_fraction", "split", Split.TestFraction))
    return E;
  if (llvm::Error E = R.integer(*Sp, "seed", "split", Split.Seed))
    return E;
  if (std::optional<llvm::StringRef> K = Sp->getString("keys_file"))
    Split.KeysFile = R.resolve(K->str());
  return llvm::Error::success();
}

llvm::Error readSeeds(const support::SpecReader &R, const llvm::json::Object &O,
                      std::vector<uint64_t> &Seeds) {
  if (const llvm::json::Array *A = O.getArray("seeds")) {
    Seeds.clear();
    for (const llvm::json::Value &V : *A) {
      std::optional<int64_t> N = V.getAsInteger();
      if (!N || *N < 0)
        return R.error("seeds", "expected an array of non-negative integers");
      Seeds.push_back(uint64_t(*N));
    }
  }
  if (Seeds.empty())
    return R.error("seeds", "name at least one seed");
  return llvm::Error::success();
}

/// An arm's "kind": where it can change the features and the counting vocabulary's meaning do
/// not forbid it.
llvm::Error readArmKind(const support::SpecReader &R, const llvm::json::Object &A,
                        const std::string &Where,
                        features::Task T, AblationArm &Arm) {
  const llvm::json::Value *V = A.get("kind");
  if (!V)
    return llvm::Error::success();
  std::optional<llvm::StringRef> Name = V->getAsString();
  if (!Name)
    return R.error(Where + ".kind", "expected a string: symbolic, flow-aware or flow-aware-rd");
  llvm::Expected<ir2vec::Kind> K = ir2vec::parseKind(*Name);
  if (!K)
    return R.error(Where + ".kind", llvm::toString(K.takeError()));
  if (*K == ir2vec::Kind::Symbolic)
    return llvm::Error::success();
  if (Arm.Vocab.counts())
    return R.error(Where + ".kind", "'" + Arm.Name + "': \"counts\" is the entity histogram, "
                                    "a symbolic embedding with the counting vocabulary; it has no "
                                    "other kind");
  auto Defs = features::featuresOfGroups(T, Arm.Groups);
  if (!Defs)
    return Defs.takeError();
  // LLVM 22 computes the inliner's callee_ and caller_embedding symbolic whatever its
  // -ir2vec-kind says: a kind only reaches the workbench's own IR2Vec features (those sized by
  // the IR vocabulary, DimD; MIR2Vec has the symbolic kind only).
  auto TakesKind = [](const features::FeatureDef &F) {
    return F.From == features::Origin::Workbench && llvm::is_contained(F.Shape, features::DimD);
  };
  const bool Reaches = std::any_of(Defs->begin(), Defs->end(),
                                   [&](const features::FeatureDef *F) { return TakesKind(*F); });
  if (!Reaches) {
    std::vector<std::string> Groups; // the task's groups a kind reaches, from its table
    for (const features::FeatureDef &F : features::taskInfo(T).Features)
      if (TakesKind(F) && !llvm::is_contained(Groups, F.Group))
        Groups.push_back(F.Group);
    return R.error(Where + ".kind",
                   "'" + Arm.Name + "' reads no IR2Vec embedding the workbench computes (the "
                                    "kind reaches only the group" + (Groups.size() > 1 ? "s " : " ") +
                                    "\"" + llvm::join(Groups, "\", \"") + "\"; LLVM 22 computes "
                                    "its own embeddings symbolic): the kind would not be used");
  }
  if (Arm.Vocab)
    Arm.Vocab = Arm.Vocab.withKind(*K);
  return llvm::Error::success();
}

llvm::Error readArms(const support::SpecReader &R, const llvm::json::Object &O, AblationSpec &S) {
  std::set<std::string> Names;
  ir2vec::EmbeddingResolver Resolve; // arms that name one vocabulary share one read
  return R.objects(O, "arms", "arms", [&](const llvm::json::Object &A,
                                          const std::string &Where) -> llvm::Error {
    AblationArm Arm;
    if (llvm::Error E = R.onlyKeys(A, Where, {"name", "features", "vocabulary", "kind"}))
      return E;
    if (llvm::Error E =
            readArm(R, A, Where, Arm.Name, Arm.Groups, Arm.Vocab, Resolve, S.T, /*AllowCounts=*/true))
      return E;
    if (llvm::Error E = readArmKind(R, A, Where, S.T, Arm))
      return E;
    if (!Names.insert(Arm.Name).second)
      return R.error(Where + ".name", "arm '" + Arm.Name + "' is named twice");
    S.Arms.push_back(std::move(Arm));
    return llvm::Error::success();
  });
}

/// An eviction study's spec: one split by package, ES settings instead of an exploration.
llvm::Expected<AblationSpec> readEvictSpec(const support::SpecReader &R, const llvm::json::Object &O,
                                           AblationSpec S) {
  if (llvm::Error E = R.onlyKeys(O, "spec",
                                 {"task", "corpus", "protocol", "split", "training", "model",
                                  "seeds", "arms", "timeout"}))
    return E;
  if (llvm::Error E = R.corpus(O, S.Corpus))
    return E;
  S.Proto = Protocol::Split;
  if (std::optional<llvm::StringRef> P = O.getString("protocol"); P && *P != "split")
    return R.error("protocol", "an eviction study judges one held-out side: \"split\"");
  S.Split.TestFraction = 0.3;
  if (llvm::Error E = readSplit(R, O, S.Split))
    return E;
  EvictStudySettings &T = S.Evict;
  if (const llvm::json::Object *Tr = O.getObject("training")) {
    if (llvm::Error E = R.onlyKeys(*Tr, "training",
                                   {"steps", "pairs", "modules_per_step", "sigma", "learning_rate"}))
      return E;
    if (llvm::Error E = R.integer(*Tr, "steps", "training", T.ES.Steps, 1))
      return E;
    if (llvm::Error E = R.integer(*Tr, "pairs", "training", T.ES.Pairs, 1))
      return E;
    if (llvm::Error E = R.integer(*Tr, "modules_per_step", "training", T.ES.ModulesPerStep, 1))
      return E;
    if (llvm::Error E = R.number(*Tr, "sigma", "training", T.ES.Sigma))
      return E;
    if (llvm::Error E = R.number(*Tr, "learning_rate", "training", T.ES.Optimizer.LearningRate))
      return E;
    if (!(T.ES.Sigma > 0) || !(T.ES.Optimizer.LearningRate > 0))
      return R.error("training", "sigma and learning_rate must be positive");
  }
  if (const llvm::json::Object *M = O.getObject("model")) {
    if (llvm::Error E = R.onlyKeys(*M, "model", {"kind", "hidden"}))
      return E;
    TrainConfig H;
    if (llvm::Error E = readModel(R, M, H))
      return E;
    if (H.Kind != runners::ModelKind::MLP)
      return R.error("model.kind", "an eviction study trains MLPs (\"mlp\"): a linear column "
                                   "scorer cannot use an embedding that is the same in every "
                                   "column");
    T.Hidden = H.Hidden;
  }
  if (llvm::Error E = readSeeds(R, O, S.Seeds))
    return E;
  if (llvm::Error E = R.timeout(O, S.Timeout))
    return E;
  if (llvm::Error E = readArms(R, O, S))
    return E;
  S.TrainingSide = false;
  S.SHA256 = R.SHA256;
  return S;
}

} // namespace

llvm::Expected<AblationSpec> readAblationSpec(const std::string &Path) {
  support::SpecReader R(Path);
  llvm::Expected<llvm::json::Value> J = R.load();
  if (!J)
    return J.takeError();
  const llvm::json::Object *O = J->getAsObject();
  AblationSpec S;
  S.Path = Path;
  if (const llvm::json::Value *T = O->get("task")) {
    auto Task = features::parseTask(T->getAsString().value_or(""));
    if (!Task || *Task == features::Task::Priority) {
      llvm::consumeError(Task ? llvm::Error::success() : Task.takeError());
      return R.error("task", "expected \"inline\" or \"evict\"");
    }
    S.T = *Task;
  }
  if (S.T == features::Task::Evict)
    return readEvictSpec(R, *O, std::move(S));
  if (llvm::Error E = R.onlyKeys(*O, "spec",
                                 {"task", "corpus", "protocol", "folds", "split", "exploration",
                                  "model", "seeds", "arms", "training_side", "timeout"}))
    return E;
  if (llvm::Error E = R.corpus(*O, S.Corpus))
    return E;
  if (llvm::Error E = readSplit(R, *O, S.Split))
    return E;
  // The transfer protocol unless the spec asks otherwise; a split of its own asks for a split.
  S.Proto = O->getObject("split") ? Protocol::Split : Protocol::Transfer;
  if (const llvm::json::Value *P = O->get("protocol")) {
    std::optional<llvm::StringRef> Name = P->getAsString();
    auto Proto = support::parseNamed<Protocol>(ProtocolNames, Name.value_or(""), "protocol");
    if (!Proto)
      return R.error("protocol", llvm::toString(Proto.takeError()));
    S.Proto = *Proto;
  }
  if (llvm::Error E = readFolds(R, *O, S.Folds))
    return E;
  if (S.Proto == Protocol::Transfer && O->getObject("split") &&
      O->getObject("split")->get("test_fraction"))
    return R.error("split.test_fraction", "the transfer protocol scores every package by "
                                          "cross-validation; a test fraction goes with "
                                          "\"protocol\": \"split\"");
  if (llvm::Error E = readSearch(R, O->getObject("exploration"), S.Search))
    return E;
  if (llvm::Error E = readModel(R, O->getObject("model"), S.Model))
    return E;
  if (llvm::Error E = readSeeds(R, *O, S.Seeds))
    return E;
  if (const llvm::json::Value *T = O->get("training_side")) {
    std::optional<bool> B = T->getAsBoolean();
    if (!B)
      return R.error("training_side", "expected true or false");
    S.TrainingSide = *B;
  }
  if (llvm::Error E = R.timeout(*O, S.Timeout))
    return E;
  if (llvm::Error E = readArms(R, *O, S))
    return E;
  S.Model.Groups = S.Arms.front().Groups;
  if (llvm::Error E = S.Model.validate())
    return R.error("model", llvm::toString(std::move(E)));
  S.SHA256 = R.SHA256;
  return S;
}

// ---- statistics -----------------------------------------------------------------------------

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

// ---- the study ------------------------------------------------------------------------------

namespace {

/// The exploration's observation set an arm trains on.
std::string observationSet(const AblationArm &A) {
  return A.Vocab ? observationSetName(A.Vocab.explorationKey()) : std::string("none");
}

double agreement(const runners::ModelFile &M, const features::DatasetTable &Labels) {
  if (Labels.rows() == 0)
    return -1;
  const std::vector<int64_t> P = predict(M, Labels);
  size_t Same = 0;
  for (size_t R = 0; R < P.size(); ++R)
    Same += (P[R] != 0) == (Labels.Decisions[R] != 0);
  return double(Same) / double(P.size());
}

/// Permutation importance: the drop in agreement when one input's values are shuffled across
/// the rows (the same seeded permutation for every input).
std::vector<std::pair<std::string, double>>
permutationImportance(const runners::ModelFile &M, const features::DatasetTable &Labels,
                      uint64_t Seed) {
  std::vector<std::pair<std::string, double>> Out;
  const double Base = agreement(M, Labels);
  if (Base < 0)
    return Out;
  std::vector<size_t> Perm(Labels.rows());
  std::iota(Perm.begin(), Perm.end(), 0);
  learn::Rng G(Seed);
  for (size_t I = Perm.size(); I > 1; --I)
    std::swap(Perm[I - 1], Perm[learn::below(G, uint32_t(I))]);
  for (const features::TensorSpec &S : M.Inputs) {
    features::DatasetTable D = Labels;
    const size_t F = *D.find(S.Name), Row = S.byteSize();
    std::string &Col = D.Columns[F];
    const std::string Orig = Col;
    for (size_t R = 0; R < Perm.size(); ++R)
      std::memcpy(Col.data() + R * Row, Orig.data() + Perm[R] * Row, Row);
    Out.emplace_back(S.Name, Base - agreement(M, D));
  }
  return Out;
}

/// Whether an exploration file in Dir was made with these settings, the same embeddings (their
/// digests are in the settings) and the same modules' bytes (then it is reused).
bool sameExploration(const std::string &File, const ExploreConfig &C, const CorpusSplit &S) {
  if (!llvm::sys::fs::exists(File))
    return false;
  llvm::Expected<ExplorationFile> X = readExplorationHeader(File);
  if (!X) {
    llvm::consumeError(X.takeError());
    return false;
  }
  if (X->Header.settings() != explorationHeader(C, S.toJSONText()).settings())
    return false;
  // The same modules where this run reaches them: module paths relative to another working
  // directory (a rerun from elsewhere) would not resolve, so such an exploration is made again.
  llvm::Expected<ExplorationFile> Full = readExploration(File);
  if (!Full) {
    llvm::consumeError(Full.takeError());
    return false;
  }
  std::vector<std::string> Want = C.Side == ExploredSide::All ? S.Modules : S.modules(C.Side == ExploredSide::Test);
  std::vector<std::string> Have;
  for (const ModuleExploration &M : Full->Modules)
    Have.push_back(M.Path);
  llvm::sort(Want);
  llvm::sort(Have);
  if (Want != Have)
    return false;
  // Modules rewritten since (or an exploration too old to say): explored again.
  const ModuleChanges Changes = changedModules(*Full);
  if (!Changes.Changed.empty() || Changes.Unchecked)
    C.Run.Report({Diagnostic::Note,
                  Changes.Changed.empty()
                      ? File + ": made before explorations recorded their modules' SHA-256: "
                               "exploring again"
                      : Changes.describe(File, "exploring again")});
  return Changes.Changed.empty() && !Changes.Unchecked;
}

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

/// The statistics of a finished study: pooled reductions against the reference arm, package
/// means, the answers, and the time since Start.
void conclude(AblationResult &Res, std::chrono::steady_clock::time_point Start) {
  using Clock = std::chrono::steady_clock;
  for (AblationArmResult &R : Res.Arms) {
    R.Pooled = poolReductions(R.PerSeed, Res.Arms.front().PerSeed, Res.Spec.Seeds.front());
    packageMeans(R);
  }
  Res.Answers = answers(Res.Spec, Res.Arms, trainingPackages(Res));
  Res.Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
}

} // namespace

/// An eviction study (Spec.T evict): the default advisor's cost of both sides once; per arm,
/// observations of the density rule with the arm's embeddings (the perturbation scales), then
/// per seed an MLP from the density rule tuned by ES on the training side and judged on the
/// held-out side.
static llvm::Expected<AblationResult> runEvictStudy(const AblationSpec &Spec, const Prepared &P,
                                                    const std::string &Dir) {
  using Clock = std::chrono::steady_clock;
  const auto Start = Clock::now();
  AblationResult Res;
  Res.Spec = Spec;
  Res.Dir = Dir;
  Res.Split = P.Split;
  const Bench &RC = P.B;
  Res.Tools = RC.Tools;
  Res.Compile = RC.Tools.describe();
  auto Interrupted = [&] {
    return support::interruptedError("interrupted; the models written so far are in " + Dir);
  };
  llvm::Expected<std::vector<TuneModule>> Tune = evictTrainingModules(Res.Split.modules(false), RC);
  if (!Tune)
    return Tune.takeError();
  Res.ExploredModules = Tune->size();
  Res.Judged = P.baselines(true, features::Task::Evict);
  Res.Compilations = Res.Split.modules(false).size() + Res.Judged.size();
  if (RC.Run.cancelled())
    return Interrupted();
  const EvictStudySettings &T = Spec.Evict;
  const auto T1 = Clock::now();
  Res.Arms.resize(Spec.Arms.size());
  for (size_t AI = 0; AI < Spec.Arms.size(); ++AI) {
    const AblationArm &A = Spec.Arms[AI];
    AblationArmResult &R = Res.Arms[AI];
    llvm::Expected<features::DatasetTable> Obs =
        evictObservations(evictStartModel(), *Tune, T.ES.ModulesPerStep, A.Vocab, RC);
    if (!Obs)
      return Obs.takeError();
    Res.Compilations += std::min<size_t>(Tune->size(), T.ES.ModulesPerStep);
    // The arm's inputs as the compiler (and the augmenter) send them; the mask only binds
    // legality.
    auto Defs = features::featuresOfGroups(features::Task::Evict, A.Groups);
    if (!Defs)
      return Defs.takeError();
    std::vector<features::TensorSpec> In;
    for (const features::FeatureDef *D : *Defs) {
      if (llvm::StringRef(D->Name) == "mask")
        continue;
      std::optional<size_t> F = Obs->find(D->Name);
      if (!F)
        return support::makeError("arm '" + A.Name + "': the compiler sent no " + D->Name +
                                  " in the sampled training modules");
      In.push_back(Obs->Features[*F]);
    }
    const std::vector<double> Spread =
        Obs->rows() ? inputSpreads(inputMatrix(evictStartMLP(In, T.Hidden, {}, 0), *Obs))
                    : std::vector<double>();
    for (uint64_t Seed : Spec.Seeds) {
      if (RC.Run.cancelled())
        return Interrupted();
      FineTuneConfig FC;
      static_cast<ESSettings &>(FC) = T.ES;
      static_cast<Bench &>(FC) = RC;
      FC.Method = TuneMethod::ES;
      FC.Seed = Seed;
      FC.Embeddings = A.Vocab;
      llvm::Expected<EvictPolicy> Trained = trainEvictPolicy(
          evictStartMLP(In, T.Hidden, Spread, Seed), *Tune, *Obs, Res.Judged, FC, Seed);
      if (!Trained) {
        if (RC.Run.cancelled()) {
          llvm::consumeError(Trained.takeError());
          return Interrupted();
        }
        return support::prefixError("arm '" + A.Name + "'", Trained.takeError());
      }
      const FineTuneResult *Tuned = &Trained->Tuned;
      Verdict &V = Trained->HeldOut;
      Res.Compilations += Tuned->Compilations;
      runners::ModelFile &M = Trained->Tuned.Model;
      stampProvenance(M, "ir2vec mlgo ablate",
                      {{"arm", A.Name},
                       {"embeddings_digest", A.Vocab ? A.Vocab.digest() : std::string()}});
      M.setProvenance("split", Res.Split.toJSONText());
      M.setProvenance("trained_from", "the density rule (an MLP, mlgo/EvictTrain.h)");
      stampTuningOutcome(M, *Tuned);
      const std::string File = support::pathIn(support::pathIn(Dir, "models"),
                                               A.Name + "-seed" + std::to_string(Seed) + ".h5");
      if (!RC.Run.Dist.serving())
        if (llvm::Error E = runners::writeModelFile(File, M))
          return E;
      Res.Compilations += V.Modules.size();
      R.Models.push_back({File});
      R.Summaries.push_back(V.Summary);
      Res.Failed += V.Summary.Failed;
      R.PerSeed.push_back(std::move(V.Modules));
      R.Agreement.push_back(-1);
      R.TrainingReductions.push_back({Tuned->StartReduction, Tuned->TunedReduction});
      RC.Run.Report({Diagnostic::Note,
                    llvm::formatv("arm {0}, seed {1}: training side {2} with the start model, "
                                  "{3} tuned ({4}); held-out cost reduction {5}",
                                  A.Name, Seed, percent(Tuned->StartReduction),
                                  percent(Tuned->TunedReduction),
                                  Tuned->Kept ? "kept" : "not kept: the start model is judged",
                                  percent(R.Summaries.back().Reduction))
                        .str()});
    }
  }
  if (RC.Run.cancelled())
    return Interrupted();
  Res.EvalSeconds = std::chrono::duration<double>(Clock::now() - T1).count();
  conclude(Res, Start);
  return Res;
}

CorpusPlan ArmsStudy::plan() const {
  const bool Transfer = Proto == Protocol::Transfer;
  return {Corpus, Proto, Split, Transfer ? std::optional<unsigned>(Folds) : std::nullopt, Timeout};
}

namespace {

using Clock = std::chrono::steady_clock;

/// The explorations with every arm's vocabulary, made or reused (a rerun in Dir with the same
/// settings): every module once (transfer), or the training side and the held-out side (split:
/// labels for the held-out agreement). Returns the training exploration, read.
llvm::Expected<ExplorationFile> exploreStudy(const ArmsStudy &Spec, const std::string &Dir,
                                             const Prepared &P, ArmsResult &Res) {
  ExploreConfig EC;
  EC.Tools = P.B.Tools;
  EC.Search = Spec.Search;
  for (const AblationArm &A : Spec.Arms)
    if (A.Vocab && llvm::none_of(EC.Vocabularies, [&](const ir2vec::EmbeddingChoice &V) {
          return V.explorationKey() == A.Vocab.explorationKey();
        }))
      EC.Vocabularies.push_back(A.Vocab);
  EC.Run = P.B.Run;
  const std::string Train = support::pathIn(Dir, "exploration.h5"),
                    Held = support::pathIn(Dir, "heldout.h5");
  std::vector<std::pair<ExploredSide, std::string>> Explorations;
  if (P.Folds)
    Explorations = {{ExploredSide::All, Train}};
  else
    Explorations = {{ExploredSide::Train, Train}, {ExploredSide::Test, Held}};
  for (const auto &[Side, File] : Explorations) {
    EC.Side = Side;
    if (sameExploration(File, EC, P.Split)) {
      EC.Run.Report({Diagnostic::Note, File + ": reusing the exploration made with these settings"});
      continue;
    }
    const auto T0 = Clock::now();
    auto R = runExploration(P.Inputs, P.SplitOpts, EC, File, /*Resume=*/true);
    if (!R)
      return R.takeError();
    Res.ExploreSeconds += std::chrono::duration<double>(Clock::now() - T0).count();
  }
  llvm::Expected<ExplorationFile> Explored = readExploration(Train);
  if (!Explored)
    return Explored.takeError();
  for (const ModuleExploration &X : Explored->Modules) {
    Res.Rollouts += X.Rollouts.size();
    Res.Smaller += X.BestSize < X.BaselineSize;
  }
  Res.ExploredModules = Explored->Modules.size();
  Res.Compilations = Res.Rollouts;
  return Explored;
}

/// The judged modules with their -Oz .text, each compiled once by the command alone (the
/// exploration's first rollout is the heuristic under the host, which LLVM's interactive mode
/// does not always make equal: 34 bytes apart in 1 of the 934 modules of the pinned corpus),
/// and, under transfer, the smallest .text the exploration found.
std::vector<EvalModule> judgedModules(const Prepared &P, const ExplorationFile &Explored,
                                      const std::vector<EvalModule> &TrainBase) {
  if (!P.Folds)
    return P.baselines(true);
  std::vector<std::string> Paths;
  for (const ModuleExploration &X : Explored.Modules)
    Paths.push_back(X.Path);
  std::vector<EvalModule> Judged = measureBaselines(Paths, P.B);
  for (size_t I = 0; I < Judged.size(); ++I) {
    Judged[I].Package = TrainBase[I].Package;
    Judged[I].Best = TrainBase[I].Best;
    if (Judged[I].Error.empty() && !TrainBase[I].Error.empty())
      Judged[I].Error = TrainBase[I].Error;
  }
  return Judged;
}

/// What every arm of an inline study shares: the prepared corpus, the explorations' data and
/// where the models go.
struct InlineStudy {
  const ArmsStudy &Spec;
  const Prepared &P;
  std::string Train, Held, Models, Dir;
  std::string TrainSHA;
  std::vector<EvalModule> TrainBase; // the exploration's modules, with its sizes
};

/// The model's own split: under transfer, trained on the other folds, never on fold F.
std::string modelSplit(const InlineStudy &St, unsigned F) {
  return (St.P.Folds ? St.P.Folds->splitOf(St.P.Split, F) : St.P.Split).toJSONText();
}

/// One arm: per seed, a model per fold (one under split) trained on the labels outside it,
/// written, and judged on the fold's modules; agreement with the fold's labels; the first
/// arm's first model gives the permutation importance.
llvm::Error runInlineArm(const InlineStudy &St, size_t AI, ArmsResult &Res) {
  const ArmsStudy &Spec = St.Spec;
  const AblationArm &A = Spec.Arms[AI];
  const bool Transfer = St.P.Folds.has_value();
  const Bench &RC = St.P.B;
  auto Data = readObservations(St.Train, observationSet(A));
  if (!Data)
    return Data.takeError();
  std::optional<features::DatasetTable> HeldLabels;
  if (!Transfer) {
    auto L = readObservations(St.Held, observationSet(A));
    if (!L)
      return L.takeError();
    HeldLabels = std::move(*L);
  }
  AblationArmResult &R = Res.Arms[AI];
  const unsigned Folds = Transfer ? St.P.Folds->Count : 1;
  for (uint64_t Seed : Spec.Seeds) {
    std::vector<EvalModule> Judged = Res.Judged;
    std::vector<std::string> Files;
    size_t Same = 0, Labels = 0;
    for (unsigned F = 0; F < Folds; ++F) {
      if (RC.Run.cancelled())
        return support::interruptedError("interrupted; the explorations are kept in " + St.Dir);
      // Under transfer: train on the other folds' modules, judge this fold's.
      auto InFold = [&](size_t M) { return Transfer && St.P.Folds->inFold(Judged[M].Package, F); };
      const features::DatasetTable TrainRows =
          Transfer ? features::selectRows(*Data, [&](size_t M) { return !InFold(M); }) : *Data;
      TrainConfig TC = Spec.Model;
      TC.Groups = A.Groups;
      TC.Seed = Seed;
      TrainingReport TR;
      auto M = trainPolicy(TrainRows, TC, TR);
      if (!M)
        return support::prefixError("arm '" + A.Name + "'", M.takeError());
      const std::string File = support::pathIn(
          St.Models, A.Name + "-seed" + std::to_string(Seed) +
                         (Transfer ? "-fold" + std::to_string(F) : std::string()) + ".h5");
      M->Provenance = trainingProvenance("ir2vec mlgo ablate", St.Train, St.TrainSHA,
                                         embeddingSpelling(A.Vocab),
                                         A.Vocab ? A.Vocab.digest() : std::string(),
                                         modelSplit(St, F), TC, TR);
      M->Provenance.emplace_back("arm", A.Name);
      if (llvm::Error E = runners::writeModelFile(File, *M))
        return E;
      Files.push_back(File);
      runners::SessionConfig Session;
      Session.T = runners::Task::Inline;
      Session.Policy.Name = runners::kindName(M->Kind).str();
      Session.Policy.ModelPath = File;
      Session.Policy.LoadModel = runners::cachingModelLoader();
      // The one read of the model file, before the workers (runners::cachingModelLoader).
      if (auto Made = runners::makePolicy(Session.T, Session.Policy); !Made)
        return Made.takeError();
      // This fold's modules (all of the held-out side under split).
      std::vector<size_t> Index;
      std::vector<EvalModule> Part;
      for (size_t I = 0; I < Judged.size(); ++I)
        if (!Transfer || InFold(I)) {
          Index.push_back(I);
          Part.push_back(Judged[I]);
        }
      measurePolicy(Part, Session, A.Vocab, RC);
      Res.Compilations += Part.size();
      for (size_t K = 0; K < Index.size(); ++K)
        Judged[Index[K]] = std::move(Part[K]);
      const features::DatasetTable FoldLabels =
          Transfer ? features::selectRows(*Data, InFold) : *HeldLabels;
      const double Agree = agreement(*M, FoldLabels);
      if (Agree >= 0) {
        Same += size_t(Agree * double(FoldLabels.rows()) + 0.5);
        Labels += FoldLabels.rows();
      }
      if (AI == 0 && Seed == Spec.Seeds.front() && F == 0)
        Res.Importance = permutationImportance(*M, FoldLabels, Seed);
      if (!Transfer && Spec.TrainingSide && Seed == Spec.Seeds.front()) {
        Verdict TrainSide = judge(St.TrainBase, {Session, A.Vocab}, RC, Seed);
        Res.Compilations += TrainSide.Modules.size();
        R.TrainingSide = TrainSide.Summary;
      }
    }
    R.Models.push_back(std::move(Files));
    R.Summaries.push_back(summarize(Judged, Seed));
    Res.Failed += R.Summaries.back().Failed;
    R.PerSeed.push_back(std::move(Judged));
    R.Agreement.push_back(Labels ? double(Same) / double(Labels) : -1.0);
    RC.Run.Report({Diagnostic::Note,
                   llvm::formatv("arm {0}, seed {1}: {2} reduction {3}, agreement {4:f4}",
                                 A.Name, Seed, Transfer ? "cross-validated" : "held-out",
                                 percent(R.Summaries.back().Reduction), R.Agreement.back())
                       .str()});
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<ArmsResult> runArms(const ArmsStudy &S, const Prepared &P, const std::string &Dir) {
  ArmsResult Res;
  Res.Dir = Dir;
  Res.Split = P.Split;
  Res.Folds = P.Folds;
  Res.Tools = P.B.Tools;
  Res.Compile = P.B.Tools.describe();
  llvm::Expected<ExplorationFile> Explored = exploreStudy(S, Dir, P, Res);
  if (!Explored)
    return Explored.takeError();
  InlineStudy St{S, P, support::pathIn(Dir, "exploration.h5"), support::pathIn(Dir, "heldout.h5"),
                 support::pathIn(Dir, "models"), Dir, "", {}};
  const auto T1 = Clock::now();
  for (const ModuleExploration &X : Explored->Modules)
    St.TrainBase.push_back({X.Path, X.Error, double(X.BaselineSize), -1, 0, X.Key,
                            double(X.BestSize)});
  Res.Judged = judgedModules(P, *Explored, St.TrainBase);
  Res.Compilations += Res.Judged.size();
  auto TrainSHA = support::sha256OfFile(St.Train);
  if (!TrainSHA)
    return TrainSHA.takeError();
  St.TrainSHA = *TrainSHA;
  Res.Arms.resize(S.Arms.size());
  for (size_t AI = 0; AI < S.Arms.size(); ++AI)
    if (llvm::Error E = runInlineArm(St, AI, Res))
      return E;
  if (P.B.Run.cancelled())
    return support::interruptedError("interrupted; the explorations are kept in " + Dir);
  Res.EvalSeconds = std::chrono::duration<double>(Clock::now() - T1).count();
  return Res;
}

llvm::Expected<AblationResult> runAblationStudy(const AblationSpec &Spec, const Prepared &P,
                                                const std::string &Dir) {
  if (Spec.T == features::Task::Evict)
    return runEvictStudy(Spec, P, Dir);
  const auto Start = Clock::now();
  llvm::Expected<ArmsResult> Arms = runArms(Spec, P, Dir);
  if (!Arms)
    return Arms.takeError();
  AblationResult Res;
  static_cast<ArmsResult &>(Res) = std::move(*Arms);
  Res.Spec = Spec;
  conclude(Res, Start);
  return Res;
}

llvm::Error checkStudyOutputs(const std::string &Dir, const std::vector<std::string> &Names,
                              const CorpusPlan &Plan, const Prepared &P,
                              const std::vector<std::string> &Extra) {
  std::vector<std::string> Outputs;
  for (const std::string &N : Names) {
    // The explorations are written by the exploration's own output rules, which follow a
    // link: a link there would send a run's exploration onto the file it names.
    if ((N == "exploration.h5" || N == "heldout.h5") &&
        llvm::sys::fs::is_symlink_file(support::pathIn(Dir, N)))
      return support::fileError(support::pathIn(Dir, N),
                                "a link inside the output directory, where the run writes its "
                                "exploration: remove the link or choose another -o");
    Outputs.push_back(support::pathIn(Dir, N));
    if (auto T = support::resolveOutput(Outputs.back(), support::Within::Directory); !T)
      return T.takeError();
  }
  const std::vector<std::string> Inputs = inputsOf(Plan, P, Extra);
  if (llvm::Error E = support::checkOutputsAgainstInputs(Outputs, Inputs, support::Within::Directory))
    return E;
  // The models the study writes are replaced whatever their names: no input may live there.
  llvm::SmallString<256> Models;
  if (!llvm::sys::fs::real_path(support::pathIn(Dir, "models"), Models))
    for (const std::string &In : Inputs) {
      llvm::SmallString<256> Real;
      if (!llvm::sys::fs::real_path(In, Real) && llvm::StringRef(Real).starts_with(Models.str().str() + "/"))
        return support::fileError(In, "an input of the run inside its models directory " +
                                          Models.str() + ", which the run rewrites: move it out "
                                          "or choose another -o");
    }
  return llvm::Error::success();
}

llvm::Expected<StudyDirs> prepareStudyDirs(const std::string &Dir) {
  llvm::Expected<support::OutputDirectory> Out = support::OutputDirectory::prepare(Dir);
  if (!Out)
    return Out.takeError();
  llvm::Expected<support::OutputDirectory> Models =
      support::OutputDirectory::prepare(Out->file("models"));
  if (!Models)
    return Models.takeError();
  return StudyDirs{std::move(*Out), std::move(*Models)};
}

llvm::Expected<support::Outcome> runAblation(const AblationSpec &Spec, const std::string &Dir,
                                             const AblationConfig &C) {
  if (Dir.empty() || Dir == "-")
    return support::usageError("ablate needs an output directory: -o DIR");
  llvm::Expected<StudyDirs> Dirs = prepareStudyDirs(Dir);
  if (!Dirs)
    return Dirs.takeError();
  support::OutputDirectory *Out = &Dirs->Out, *ModelsDir = &Dirs->Models;
  // The corpus, its split and folds, checked before anything is written: a spec that cannot
  // run leaves no output directory behind.
  llvm::Expected<Prepared> P = prepare(Spec.plan(), C);
  if (!P)
    return P.takeError();
  if (llvm::Error E = checkStudyOutputs(Dir, {"report.json", "results.h5", "report.md",
                                              "exploration.h5", "heldout.h5", "reduction.dat",
                                              "importance.dat", "plots.gp", "reduction.png",
                                              "reduction.svg", "importance.png", "importance.svg"},
                                        Spec.plan(), *P, {Spec.Path}))
    return E;
  // From here on the study writes what a rerun reuses (its explorations): the directory stays.
  // Its models stay when it is interrupted (the message says where they are) or done; a study
  // that failed leaves none.
  Out->keep();
  llvm::Expected<AblationResult> R = runAblationStudy(Spec, *P, Dir);
  if (!R) {
    llvm::Error E = R.takeError();
    if (support::isInterruption(E))
      ModelsDir->keep();
    return E;
  }
  ModelsDir->keep();
  std::string ReportText;
  llvm::raw_string_ostream(ReportText) << llvm::formatv("{0:2}", llvm::json::Value(ablationJSON(*R)));
  if (llvm::Error E = support::writeFileAtomically(support::pathIn(Dir, "report.json"),
                                                   [&](llvm::raw_ostream &OS) { OS << ReportText << "\n"; }))
    return E;
  if (llvm::Error E = writeAblationHDF5(*R, ReportText, support::pathIn(Dir, "results.h5")))
    return E;
  if (llvm::Error E = drawAblationPlots(*R, C.Gnuplot, C.Run.CancelFd))
    return E;
  if (llvm::Error E = writeAblationMarkdown(*R, support::pathIn(Dir, "report.md")))
    return E;
  C.Run.Report({Diagnostic::Note, "wrote " + support::pathIn(Dir, "report.md") + " (" +
                                      llvm::formatv("{0:f0}", R->Seconds).str() + " s, " +
                                      std::to_string(R->Compilations) + " compilations)"});
  if (R->Failed)
    return support::Outcome::partial(std::to_string(R->Failed) +
                                     " evaluations of judged modules failed (each reported)");
  return support::Outcome::complete();
}

std::string armEmbeddingName(const AblationArm &A) {
  std::string Name = llvm::sys::path::filename(embeddingSpelling(A.Vocab)).str();
  if (A.Vocab && A.Vocab.kind() != ir2vec::Kind::Symbolic)
    Name += " (" + ir2vec::kindName(A.Vocab.kind()).str() + ")";
  return Name;
}

} // namespace wb::mlgo
