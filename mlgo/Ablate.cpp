#include "mlgo/Ablate.h"

#include "corpus/H5.h"
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
#include <set>

namespace wb::mlgo {

using support::Diagnostic;

// ---- the spec -------------------------------------------------------------------------------

namespace {

class SpecReader {
public:
  explicit SpecReader(std::string Path) : Path(std::move(Path)) {}

  llvm::Error error(const llvm::Twine &Where, const llvm::Twine &What) const {
    return support::fileError(Path, Where + ": " + What);
  }
  /// Unknown keys are errors: a misspelt key must not silently fall back to a default.
  llvm::Error onlyKeys(const llvm::json::Object &O, const llvm::Twine &Where,
                       std::initializer_list<llvm::StringRef> Known) const {
    for (const auto &[K, V] : O)
      if (std::find(Known.begin(), Known.end(), llvm::StringRef(K)) == Known.end())
        return error(Where, "unknown key \"" + llvm::StringRef(K).str() + "\" (expected " +
                                llvm::join(std::vector<std::string>(Known.begin(), Known.end()), ", ") +
                                ")");
    return llvm::Error::success();
  }
  llvm::Error number(const llvm::json::Object &O, llvm::StringRef Key, const llvm::Twine &Where,
                     double &Out) const {
    if (const llvm::json::Value *V = O.get(Key)) {
      std::optional<double> D = V->getAsNumber();
      if (!D)
        return error(Where + "." + Key, "expected a number");
      Out = *D;
    }
    return llvm::Error::success();
  }
  template <typename T>
  llvm::Error integer(const llvm::json::Object &O, llvm::StringRef Key, const llvm::Twine &Where,
                      T &Out, int64_t Min = 0) const {
    if (const llvm::json::Value *V = O.get(Key)) {
      std::optional<int64_t> I = V->getAsInteger();
      if (!I || *I < Min)
        return error(Where + "." + Key, "expected an integer of at least " + llvm::Twine(Min));
      Out = T(*I);
    }
    return llvm::Error::success();
  }
  llvm::Error strings(const llvm::json::Value *V, const llvm::Twine &Where,
                      std::vector<std::string> &Out) const {
    Out.clear();
    if (!V)
      return llvm::Error::success();
    if (std::optional<llvm::StringRef> S = V->getAsString()) {
      Out.push_back(S->str());
      return llvm::Error::success();
    }
    const llvm::json::Array *A = V->getAsArray();
    if (!A)
      return error(Where, "expected a string or an array of strings");
    for (const llvm::json::Value &E : *A) {
      std::optional<llvm::StringRef> S = E.getAsString();
      if (!S)
        return error(Where, "expected an array of strings");
      Out.push_back(S->str());
    }
    return llvm::Error::success();
  }
  /// A path of the spec, relative to the spec's directory.
  std::string resolve(const std::string &P) const {
    if (P.empty() || llvm::sys::path::is_absolute(P))
      return P;
    llvm::SmallString<256> Out(llvm::sys::path::parent_path(Path));
    llvm::sys::path::append(Out, P);
    return std::string(Out);
  }

  std::string Path;
};

} // namespace

llvm::Expected<AblationSpec> readAblationSpec(const std::string &Path) {
  SpecReader R(Path);
  auto Buf = support::readInput(Path, /*IsText=*/true);
  if (!Buf)
    return support::fileError(Path, "cannot read the spec: " + support::readErrorMessage(Buf.getError()));
  auto J = support::parseJSON((*Buf)->getBuffer());
  if (!J)
    return support::fileError(Path, "invalid JSON: " + llvm::toString(J.takeError()));
  const llvm::json::Object *O = J->getAsObject();
  if (!O)
    return support::fileError(Path, "expected a JSON object");
  if (llvm::Error E = R.onlyKeys(*O, "spec",
                                 {"corpus", "split", "exploration", "model", "seeds", "arms",
                                  "training_side", "timeout"}))
    return E;
  AblationSpec S;
  S.Path = Path;
  if (llvm::Error E = R.strings(O->get("corpus"), "corpus", S.Corpus))
    return E;
  if (S.Corpus.empty())
    return R.error("corpus", "name the corpus (files, directories, @lists, corpus descriptions)");
  for (std::string &C : S.Corpus)
    C = llvm::StringRef(C).starts_with("@") ? "@" + R.resolve(C.substr(1)) : R.resolve(C);
  if (const llvm::json::Object *Sp = O->getObject("split")) {
    if (llvm::Error E = R.onlyKeys(*Sp, "split", {"test_fraction", "seed", "keys_file"}))
      return E;
    if (llvm::Error E = R.number(*Sp, "test_fraction", "split", S.Split.TestFraction))
      return E;
    if (llvm::Error E = R.integer(*Sp, "seed", "split", S.Split.Seed))
      return E;
    if (std::optional<llvm::StringRef> K = Sp->getString("keys_file"))
      S.Split.KeysFile = R.resolve(K->str());
  }
  if (const llvm::json::Object *X = O->getObject("exploration")) {
    if (llvm::Error E = R.onlyKeys(*X, "exploration", {"budget", "seed", "flip_order"}))
      return E;
    if (llvm::Error E = R.integer(*X, "budget", "exploration", S.Budget, 1))
      return E;
    if (llvm::Error E = R.integer(*X, "seed", "exploration", S.ExploreSeed))
      return E;
    if (std::optional<llvm::StringRef> F = X->getString("flip_order")) {
      auto Order = support::parseNamed<FlipOrder>(FlipOrderNames, *F, "flip order");
      if (!Order)
        return R.error("exploration.flip_order", llvm::toString(Order.takeError()));
      S.Order = *Order;
    }
  }
  if (const llvm::json::Object *M = O->getObject("model")) {
    if (llvm::Error E = R.onlyKeys(*M, "model",
                                   {"kind", "hidden", "epochs", "batch_size", "learning_rate"}))
      return E;
    if (std::optional<llvm::StringRef> K = M->getString("kind"))
      S.Model.Kind = K->str();
    if (const llvm::json::Array *H = M->getArray("hidden")) {
      S.Model.Hidden.clear();
      for (const llvm::json::Value &V : *H) {
        std::optional<int64_t> N = V.getAsInteger();
        if (!N || *N < 1)
          return R.error("model.hidden", "expected an array of positive integers");
        S.Model.Hidden.push_back(unsigned(*N));
      }
    }
    if (llvm::Error E = R.integer(*M, "epochs", "model", S.Model.Epochs, 1))
      return E;
    if (llvm::Error E = R.integer(*M, "batch_size", "model", S.Model.BatchSize, 1))
      return E;
    if (llvm::Error E = R.number(*M, "learning_rate", "model", S.Model.Optimizer.LearningRate))
      return E;
  }
  if (const llvm::json::Array *Seeds = O->getArray("seeds")) {
    S.Seeds.clear();
    for (const llvm::json::Value &V : *Seeds) {
      std::optional<int64_t> N = V.getAsInteger();
      if (!N || *N < 0)
        return R.error("seeds", "expected an array of non-negative integers");
      S.Seeds.push_back(uint64_t(*N));
    }
  }
  if (S.Seeds.empty())
    return R.error("seeds", "name at least one seed");
  if (const llvm::json::Value *T = O->get("training_side")) {
    std::optional<bool> B = T->getAsBoolean();
    if (!B)
      return R.error("training_side", "expected true or false");
    S.TrainingSide = *B;
  }
  if (llvm::Error E = R.number(*O, "timeout", "spec", S.Timeout))
    return E;
  const llvm::json::Array *Arms = O->getArray("arms");
  if (!Arms || Arms->empty())
    return R.error("arms", "expected a non-empty array of arms");
  std::set<std::string> Names;
  for (size_t I = 0; I < Arms->size(); ++I) {
    const std::string Where = "arms[" + std::to_string(I) + "]";
    const llvm::json::Object *A = (*Arms)[I].getAsObject();
    if (!A)
      return R.error(Where, "expected an object");
    if (llvm::Error E = R.onlyKeys(*A, Where, {"name", "features", "vocabulary"}))
      return E;
    AblationArm Arm;
    Arm.Name = A->getString("name").value_or("").str();
    if (Arm.Name.empty() || Arm.Name.find_first_of("/ \t\n") != std::string::npos)
      return R.error(Where + ".name", "expected a name without spaces or slashes");
    if (!Names.insert(Arm.Name).second)
      return R.error(Where + ".name", "arm '" + Arm.Name + "' is named twice");
    if (llvm::Error E = R.strings(A->get("features"), Where + ".features", Arm.Groups))
      return E;
    if (Arm.Groups.empty())
      return R.error(Where + ".features", "name at least one feature group");
    auto Defs = features::featuresOfGroups(features::Task::Inline, Arm.Groups);
    if (!Defs)
      return R.error(Where + ".features", llvm::toString(Defs.takeError()));
    Arm.Vocabulary = A->getString("vocabulary").value_or("none").str();
    if (Arm.Vocabulary != "none" && Arm.Vocabulary != "default")
      Arm.Vocabulary = R.resolve(Arm.Vocabulary);
    const bool Embeds = std::any_of(Defs->begin(), Defs->end(), [](const features::FeatureDef *F) {
      return F->Shape.size() == 1 && F->Shape[0] == features::DimD;
    });
    if (Embeds && Arm.Vocabulary == "none")
      return R.error(Where + ".vocabulary",
                     "arm '" + Arm.Name + "' reads embedding features: name a vocabulary "
                     "(\"default\" or a file)");
    if (!Embeds && Arm.Vocabulary != "none")
      return R.error(Where + ".vocabulary", "arm '" + Arm.Name + "' reads no embedding feature: "
                                            "its vocabulary would not be used (\"none\")");
    S.Arms.push_back(std::move(Arm));
  }
  S.Model.Groups = S.Arms.front().Groups;
  if (llvm::Error E = S.Model.validate())
    return R.error("model", llvm::toString(std::move(E)));
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

// ---- the run --------------------------------------------------------------------------------

namespace {

struct ArmResult {
  std::vector<std::string> Files;                  // model per seed
  std::vector<std::vector<EvalModule>> HeldOut;    // per seed
  std::vector<EvalSummary> Summaries;              // per seed
  std::vector<double> Agreement;                   // per seed, on held-out labels
  std::optional<EvalSummary> TrainingSide;         // first seed
  PooledReduction Pooled;
};

bool readsEmbeddings(const AblationArm &A) { return A.Vocabulary != "none"; }

/// The augmenter's name of an arm's vocabulary ("" = the default vocabulary).
std::string augmenterVocabulary(const AblationArm &A) {
  return A.Vocabulary == "default" ? "" : A.Vocabulary;
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

/// Whether an exploration file in Dir was made with these settings (then it is reused).
bool sameExploration(const std::string &File, const ExploreConfig &C, const CorpusSplit &S) {
  if (!llvm::sys::fs::exists(File))
    return false;
  llvm::Expected<ExplorationFile> X = readExplorationHeader(File);
  if (!X) {
    llvm::consumeError(X.takeError());
    return false;
  }
  return X->Header.settings() == explorationHeader(C, S.toJSONText()).settings();
}

std::string percent(double X) { return llvm::formatv("{0:f2}%", 100 * X).str(); }

/// Arms whose groups equal Want exactly (as a set).
const AblationArm *armWith(const std::vector<AblationArm> &Arms, std::set<std::string> Want,
                           bool Embeddings) {
  for (const AblationArm &A : Arms)
    if (std::set<std::string>(A.Groups.begin(), A.Groups.end()) == Want &&
        readsEmbeddings(A) == Embeddings)
      return &A;
  return nullptr;
}

} // namespace

llvm::Expected<support::Outcome> runAblation(const AblationSpec &Spec, const std::string &Dir,
                                             const AblationConfig &C) {
  using Clock = std::chrono::steady_clock;
  const auto Start = Clock::now();
  if (Dir.empty() || Dir == "-")
    return support::usageError("ablate needs an output directory: -o DIR");
  llvm::Expected<support::OutputDirectory> Out = support::OutputDirectory::prepare(Dir);
  if (!Out)
    return Out.takeError();
  const std::string Models = Out->file("models");
  llvm::Expected<support::OutputDirectory> ModelsDir = support::OutputDirectory::prepare(Models);
  if (!ModelsDir)
    return ModelsDir.takeError();
  mlgo::SplitOptions SplitOpts = Spec.Split;
  auto Inputs = support::expandInputs(Spec.Corpus, C.Run.Report, &SplitOpts.Names);
  if (!Inputs)
    return Inputs.takeError();
  auto S = splitCorpus(*Inputs, SplitOpts);
  if (!S)
    return S.takeError();
  // From here on the study writes what a rerun reuses (its explorations): the directory stays.
  Out->keep();
  ModelsDir->keep();

  // One exploration (and one of the held-out side, for agreement) with every vocabulary.
  ExploreConfig EC;
  EC.Tools = C.Tools;
  if (llvm::Error E = loadRecordedCommands(EC.Tools, Spec.Corpus))
    return E;
  EC.Tools.TimeoutSeconds = Spec.Timeout;
  EC.Budget = Spec.Budget;
  EC.Seed = Spec.ExploreSeed;
  EC.Order = Spec.Order;
  for (const AblationArm &A : Spec.Arms)
    if (readsEmbeddings(A) &&
        std::find(EC.Vocabularies.begin(), EC.Vocabularies.end(), augmenterVocabulary(A)) ==
            EC.Vocabularies.end())
      EC.Vocabularies.push_back(augmenterVocabulary(A));
  EC.Run = C.Run;
  const std::string Train = support::pathIn(Dir, "exploration.h5"),
                    Held = support::pathIn(Dir, "heldout.h5");
  double ExploreSeconds = 0;
  for (bool HeldOut : {false, true}) {
    EC.Side = HeldOut ? ExploredSide::Test : ExploredSide::Train;
    const std::string &File = HeldOut ? Held : Train;
    if (sameExploration(File, EC, *S)) {
      C.Run.Report({Diagnostic::Note, File + ": reusing the exploration made with these settings"});
      continue;
    }
    const auto T0 = Clock::now();
    auto R = runExploration(*Inputs, SplitOpts, EC, File, /*Resume=*/true);
    if (!R)
      return R.takeError();
    ExploreSeconds += std::chrono::duration<double>(Clock::now() - T0).count();
  }
  EvalRunConfig RC;
  RC.Tools = EC.Tools;
  RC.Run = C.Run;
  const auto T1 = Clock::now();
  const std::vector<EvalModule> Baselines = measureBaselines(S->modules(true), RC);
  // The training side's heuristic sizes are the exploration's first rollouts.
  llvm::Expected<ExplorationFile> Explored = readExploration(Train);
  if (!Explored)
    return Explored.takeError();
  std::vector<EvalModule> TrainBase;
  for (const ModuleExploration &X : Explored->Modules)
    TrainBase.push_back({X.Path, X.Error, X.BaselineSize, -1, 0, ""});

  auto TrainSHA = support::sha256OfFile(Train);
  if (!TrainSHA)
    return TrainSHA.takeError();
  std::vector<ArmResult> Results(Spec.Arms.size());
  size_t Compilations = Baselines.size(), Failed = 0;
  for (size_t AI = 0; AI < Spec.Arms.size(); ++AI) {
    const AblationArm &A = Spec.Arms[AI];
    auto Data = readObservations(Train, A.Vocabulary);
    if (!Data)
      return Data.takeError();
    auto Labels = readObservations(Held, A.Vocabulary);
    if (!Labels)
      return Labels.takeError();
    ArmResult &R = Results[AI];
    for (uint64_t Seed : Spec.Seeds) {
      if (support::cancelled(C.Run.CancelFd))
        return support::interruptedError("interrupted; the explorations are kept in " + Dir);
      TrainConfig TC = Spec.Model;
      TC.Groups = A.Groups;
      TC.Seed = Seed;
      TrainingReport TR;
      auto M = trainPolicy(*Data, TC, TR);
      if (!M)
        return support::prefixError("arm '" + A.Name + "'", M.takeError());
      const std::string File = support::pathIn(Models, A.Name + "-seed" + std::to_string(Seed) + ".h5");
      M->Provenance = trainingProvenance("ir2vec mlgo ablate", Train, *TrainSHA, A.Vocabulary,
                                         S->toJSONText(), TC, TR);
      M->Provenance.emplace_back("arm", A.Name);
      if (llvm::Error E = runners::writeModelFile(File, *M))
        return E;
      runners::SessionConfig Session;
      Session.T = runners::Task::Inline;
      Session.Policy.Name = M->Kind;
      Session.Policy.ModelPath = File;
      Session.Policy.LoadModel = runners::cachingModelLoader();
      // The one read of the model file, before the workers (runners::cachingModelLoader).
      if (auto P = runners::makePolicy(Session.T, Session.Policy); !P)
        return P.takeError();
      const std::optional<std::string> Emb =
          readsEmbeddings(A) ? std::optional<std::string>(augmenterVocabulary(A)) : std::nullopt;
      std::vector<EvalModule> Held = Baselines;
      measurePolicy(Held, Session, Emb, RC);
      Compilations += Held.size();
      R.Files.push_back(File);
      R.Summaries.push_back(summarize(Held, Seed));
      Failed += R.Summaries.back().Failed;
      R.HeldOut.push_back(std::move(Held));
      R.Agreement.push_back(agreement(*M, *Labels));
      if (Spec.TrainingSide && Seed == Spec.Seeds.front()) {
        std::vector<EvalModule> TrainSide = TrainBase;
        measurePolicy(TrainSide, Session, Emb, RC);
        Compilations += TrainSide.size();
        R.TrainingSide = summarize(TrainSide, Seed);
      }
      C.Run.Report({Diagnostic::Note,
                llvm::formatv("arm {0}, seed {1}: held-out reduction {2}, agreement {3:f4}",
                              A.Name, Seed, percent(R.Summaries.back().Reduction),
                              R.Agreement.back())
                    .str()});
    }
  }
  for (ArmResult &R : Results)
    R.Pooled = poolReductions(R.HeldOut, Results.front().HeldOut, Spec.Seeds.front());
  const double EvalSeconds = std::chrono::duration<double>(Clock::now() - T1).count();

  // Permutation importance of the reference arm's first model on held-out decisions.
  std::vector<std::pair<std::string, double>> Importance;
  {
    auto M = runners::readModelFile(Results.front().Files.front());
    auto Labels = readObservations(Held, Spec.Arms.front().Vocabulary);
    if (M && Labels)
      Importance = permutationImportance(*M, *Labels, Spec.Seeds.front());
    else {
      llvm::consumeError(M.takeError());
      llvm::consumeError(Labels.takeError());
    }
  }

  // Exploration statistics.
  size_t Rollouts = 0, Smaller = 0;
  const size_t TrainModules = Explored->Modules.size();
  for (const ModuleExploration &X : Explored->Modules) {
    Rollouts += X.Rollouts.size();
    Smaller += X.BestSize < X.BaselineSize;
  }
  Compilations += Rollouts;
  const double Seconds = std::chrono::duration<double>(Clock::now() - Start).count();

  // ---- the answers ----
  std::vector<std::string> Answers;
  auto Verdict = [](const PooledReduction &P) {
    if (P.DiffLow > 0)
      return "better (the 95% interval of the difference is above zero)";
    if (P.DiffHigh < 0)
      return "worse (the 95% interval of the difference is below zero)";
    return "no measurable difference (the 95% interval of the difference contains zero)";
  };
  // One answer: arm X against arm Y on the same modules, with paired resamples.
  auto Answer = [&](llvm::StringRef Question, const AblationArm &X, llvm::StringRef XIs,
                    const AblationArm &Y, llvm::StringRef YIs) {
    const ArmResult &RX = Results[&X - Spec.Arms.data()], &RY = Results[&Y - Spec.Arms.data()];
    const PooledReduction P = poolReductions(RX.HeldOut, RY.HeldOut, Spec.Seeds.front());
    Answers.push_back(llvm::formatv("**{0}** `{1}` ({2}) against `{3}` ({4}): held-out "
                                    "reduction {5} against {6}, difference {7} (95% interval "
                                    "{8} to {9}): {10}.",
                                    Question, X.Name, XIs, Y.Name, YIs, percent(RX.Pooled.Mean),
                                    percent(RY.Pooled.Mean), percent(P.Diff), percent(P.DiffLow),
                                    percent(P.DiffHigh), Verdict(P))
                          .str());
  };
  for (const AblationArm &X : Spec.Arms) {
    if (!readsEmbeddings(X))
      continue;
    std::set<std::string> Without;
    for (const std::string &G : X.Groups)
      if (G != "embedding" && G != "module")
        Without.insert(G);
    const std::string Vocab = llvm::sys::path::filename(X.Vocabulary).str() + " embeddings";
    if (const AblationArm *Y = armWith(Spec.Arms, Without, false))
      Answer("Do embeddings help?", X, Vocab, *Y, "the same features without them");
    if (std::count(X.Groups.begin(), X.Groups.end(), "cost"))
      continue;
    std::set<std::string> WithCost = Without;
    WithCost.insert("cost");
    if (const AblationArm *Y = armWith(Spec.Arms, WithCost, false))
      Answer("Can embeddings stand in for the cost features?", X,
             Vocab + " instead of the cost features", *Y, "the cost features, no embeddings");
  }
  if (Answers.empty())
    Answers.push_back("The spec has no pair of arms that differ only by embeddings, so neither "
                      "question can be answered from it.");

  // ---- report.json and results.h5 ----
  llvm::json::Array ArmsJ;
  for (size_t AI = 0; AI < Spec.Arms.size(); ++AI) {
    const AblationArm &A = Spec.Arms[AI];
    const ArmResult &R = Results[AI];
    llvm::json::Array Seeds, Groups;
    for (const std::string &G : A.Groups)
      Groups.push_back(G);
    for (size_t K = 0; K < Spec.Seeds.size(); ++K)
      Seeds.push_back(llvm::json::Object{{"seed", int64_t(Spec.Seeds[K])},
                                         {"model", R.Files[K]},
                                         {"reduction", R.Summaries[K].Reduction},
                                         {"ci95", llvm::json::Array{R.Summaries[K].Low, R.Summaries[K].High}},
                                         {"grown", int64_t(R.Summaries[K].Grown)},
                                         {"shrunk", int64_t(R.Summaries[K].Shrunk)},
                                         {"failed", int64_t(R.Summaries[K].Failed)},
                                         {"agreement", R.Agreement[K]}});
    double Grown = 0, Agree = 0;
    for (size_t K = 0; K < Spec.Seeds.size(); ++K) {
      Grown += double(R.Summaries[K].Grown) / double(Spec.Seeds.size());
      Agree += R.Agreement[K] / double(Spec.Seeds.size());
    }
    llvm::json::Object O{{"name", A.Name},
                         {"features", std::move(Groups)},
                         {"vocabulary", A.Vocabulary},
                         {"reduction", R.Pooled.Mean},
                         {"ci95", llvm::json::Array{R.Pooled.Low, R.Pooled.High}},
                         {"difference_to_reference", R.Pooled.Diff},
                         {"difference_ci95", llvm::json::Array{R.Pooled.DiffLow, R.Pooled.DiffHigh}},
                         {"grown_mean", Grown},
                         {"agreement_mean", Agree},
                         {"seeds", std::move(Seeds)}};
    if (R.TrainingSide)
      O["training_side_reduction"] = R.TrainingSide->Reduction;
    ArmsJ.push_back(std::move(O));
  }
  llvm::json::Array ImpJ, AnsJ;
  for (const auto &[N, V] : Importance)
    ImpJ.push_back(llvm::json::Object{{"feature", N}, {"importance", V}});
  for (const std::string &A : Answers)
    AnsJ.push_back(A);
  llvm::json::Array SeedsJ;
  for (uint64_t Sd : Spec.Seeds)
    SeedsJ.push_back(int64_t(Sd));
  llvm::json::Object Report{
      {"schema", AblationSchema},
      {"spec", Spec.Path},
      {"spec_sha256", *support::sha256OfFile(Spec.Path)},
      {"llvm_version", WB_LLVM_VERSION},
      {"tool_version", WB_VERSION},
      {"opt", C.Tools.Opt + " " + llvm::join(C.Tools.OptArgs, " ")},
      {"llc", C.Tools.Llc + " " + llvm::join(C.Tools.LlcArgs, " ") + " -filetype=obj"},
      {"compile", support::nameOf<CompileMode>(CompileModeNames, C.Tools.Mode)},
      {"split", S->toJSON()},
      {"exploration", llvm::json::Object{{"budget", int64_t(Spec.Budget)},
                                         {"seed", int64_t(Spec.ExploreSeed)},
                                         {"flip_order", support::nameOf<FlipOrder>(FlipOrderNames, Spec.Order)},
                                         {"training_modules", int64_t(TrainModules)},
                                         {"compilations", int64_t(Rollouts)},
                                         {"modules_smaller", int64_t(Smaller)}}},
      {"reference_arm", Spec.Arms.front().Name},
      {"seeds", std::move(SeedsJ)},
      {"held_out_modules", int64_t(Baselines.size())},
      {"arms", std::move(ArmsJ)},
      {"permutation_importance", std::move(ImpJ)},
      {"answers", std::move(AnsJ)},
      {"wall_seconds", Seconds},
      {"exploration_seconds", ExploreSeconds},
      {"evaluation_seconds", EvalSeconds},
      {"compilations", int64_t(Compilations)},
      {"compilations_per_second", Seconds > 0 ? double(Compilations) / Seconds : 0.0}};
  std::string ReportText;
  llvm::raw_string_ostream(ReportText) << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object(Report)));
  if (llvm::Error E = support::writeFileAtomically(support::pathIn(Dir, "report.json"),
                                                   [&](llvm::raw_ostream &OS) { OS << ReportText << "\n"; }))
    return E;
  if (llvm::Error E = corpus::h5::writeFileAtomically(
          support::pathIn(Dir, "results.h5"), [&](H5::H5File &F) {
            namespace h5 = corpus::h5;
            h5::writeAttr(F, "schema", std::string(AblationSchema));
            h5::writeAttr(F, "report", ReportText);
            std::vector<std::string> Paths;
            for (const EvalModule &M : Baselines)
              Paths.push_back(M.Path);
            H5::Group G = h5::createGroup(F, "heldout");
            h5::writeStrings(G, "path", Paths);
            std::vector<double> Base;
            for (const EvalModule &M : Baselines)
              Base.push_back(double(M.Baseline));
            h5::writeMatrix(G, "baseline_text_size", Base.data(), Base.size(), 1);
            for (size_t AI = 0; AI < Spec.Arms.size(); ++AI) {
              // [modules, seeds]: each arm's .text per held-out module and seed.
              std::vector<double> Sizes;
              for (size_t M = 0; M < Baselines.size(); ++M)
                for (const std::vector<EvalModule> &E : Results[AI].HeldOut)
                  Sizes.push_back(double(E[M].Policy));
              h5::writeMatrix(G, Spec.Arms[AI].Name.c_str(), Sizes.data(), Baselines.size(),
                              Spec.Seeds.size());
            }
          }))
    return E;

  // ---- plots (gnuplot) ----
  const std::string RedData = support::pathIn(Dir, "reduction.dat"),
                    ImpData = support::pathIn(Dir, "importance.dat"),
                    Script = support::pathIn(Dir, "plots.gp");
  if (llvm::Error E = support::writeFileAtomically(RedData, [&](llvm::raw_ostream &OS) {
        for (size_t AI = 0; AI < Spec.Arms.size(); ++AI)
          OS << Spec.Arms[AI].Name << " " << 100 * Results[AI].Pooled.Mean << " "
             << 100 * Results[AI].Pooled.Low << " " << 100 * Results[AI].Pooled.High << "\n";
      }))
    return E;
  std::vector<std::pair<std::string, double>> Sorted = Importance;
  std::stable_sort(Sorted.begin(), Sorted.end(),
                   [](const auto &A, const auto &B) { return A.second > B.second; });
  if (llvm::Error E = support::writeFileAtomically(ImpData, [&](llvm::raw_ostream &OS) {
        for (const auto &[N, V] : Sorted)
          OS << N << " " << 100 * V << "\n";
        if (Sorted.empty())
          OS << "none 0\n";
      }))
    return E;
  if (llvm::Error E = support::writeFileAtomically(Script, [&](llvm::raw_ostream &OS) {
        for (const char *Term : {"pngcairo size 1000,560 font ',10'", "svg size 1000,560 dynamic"}) {
          const std::string Ext = llvm::StringRef(Term).starts_with("png") ? "png" : "svg";
          OS << "set terminal " << Term << "\n"
             << "set output '" << support::pathIn(Dir, "reduction." + Ext) << "'\n"
             << "set title 'Held-out .text reduction against -Oz (mean over " << Spec.Seeds.size()
             << " seeds, 95% bootstrap interval over modules)'\n"
             << "set ylabel 'reduction (%)'\nset grid ytics\nset key off\nset xtics rotate by -25\n"
             << "set style data histogram\nset style histogram errorbars gap 1 lw 1\n"
             << "set style fill solid 0.6 border -1\nset xzeroaxis lt -1\n"
             << "plot '" << RedData << "' using 2:3:4:xtic(1)\n"
             << "set output '" << support::pathIn(Dir, "importance." + Ext) << "'\n"
             << "set title 'Permutation importance on held-out decisions (arm "
             << Spec.Arms.front().Name << ", seed " << Spec.Seeds.front()
             << "): drop in agreement with the best labels'\n"
             << "set ylabel 'agreement drop (percentage points)'\nset xtics rotate by -60 font ',8'\n"
             << "set style histogram clustered gap 1\n"
             << "plot '" << ImpData << "' using 2:xtic(1)\n"
             << "unset xtics\nset xtics\n";
        }
      }))
    return E;
  {
    llvm::Expected<support::Child> G = support::Child::spawn({C.Gnuplot, Script});
    if (!G)
      return support::makeError("cannot draw the plots: " + llvm::toString(G.takeError()) +
                                " (install Debian's gnuplot-nox)");
    auto [St, TimedOut] = G->wait(120, C.Run.CancelFd);
    if (TimedOut || St.Signaled || St.Code)
      return support::makeError("gnuplot failed (" + St.describe() + ") on " + Script);
  }

  // ---- report.md ----
  if (llvm::Error E = support::writeFileAtomically(support::pathIn(Dir, "report.md"), [&](llvm::raw_ostream &OS) {
        OS << "# Feature ablation: inlining for size\n\n";
        OS << "Spec `" << llvm::sys::path::filename(Spec.Path) << "` (SHA-256 "
           << support::sha256OfFile(Spec.Path).get().substr(0, 12) << "); LLVM " << WB_LLVM_VERSION
           << ", ir2vec " << WB_VERSION << ". Corpus split by package (seed " << Spec.Split.Seed
           << "): " << TrainModules << " training modules (" << S->TrainKeys.size()
           << " packages), " << Baselines.size() << " held-out modules ("
           << llvm::join(S->TestKeys, ", ") << "). Exploration: budget " << Spec.Budget
           << " compilations per module, flip order "
           << support::nameOf<FlipOrder>(FlipOrderNames, Spec.Order) << ", " << Rollouts
           << " compilations, " << Smaller << " training modules smaller than with -Oz. Models: "
           << Spec.Model.Kind;
        if (Spec.Model.Kind == "mlp")
          OS << " (" << llvm::join(llvm::map_range(Spec.Model.Hidden, [](unsigned H) { return std::to_string(H); }), ", ") << ")";
        OS << ", " << Spec.Model.Epochs << " epochs, seeds "
           << llvm::join(llvm::map_range(Spec.Seeds, [](uint64_t X) { return std::to_string(X); }), ", ")
           << ".\n\n";
        OS << "## Held-out .text reduction against -Oz\n\n"
           << "Reduction = 1 − Σ policy / Σ -Oz over the held-out modules (native objects, "
              "`.text` and `.text.*`), averaged over the seeds; intervals are 95% bootstrap "
              "intervals over modules (1000 resamples), the difference to `"
           << Spec.Arms.front().Name << "` with paired resamples.\n\n"
           << "| arm | features | vocabulary | held-out reduction | 95% interval | vs `"
           << Spec.Arms.front().Name
           << "` | 95% interval | training side | agreement | modules that grow |\n"
           << "|---|---|---|---|---|---|---|---|---|---|\n";
        for (size_t AI = 0; AI < Spec.Arms.size(); ++AI) {
          const AblationArm &A = Spec.Arms[AI];
          const ArmResult &R = Results[AI];
          double Grown = 0, Agree = 0;
          for (size_t K = 0; K < Spec.Seeds.size(); ++K) {
            Grown += double(R.Summaries[K].Grown) / double(Spec.Seeds.size());
            Agree += R.Agreement[K] / double(Spec.Seeds.size());
          }
          OS << "| `" << A.Name << "` | " << llvm::join(A.Groups, ", ") << " | "
             << llvm::sys::path::filename(A.Vocabulary) << " | " << percent(R.Pooled.Mean) << " | "
             << percent(R.Pooled.Low) << " to " << percent(R.Pooled.High) << " | "
             << (AI ? percent(R.Pooled.Diff) : std::string("–")) << " | "
             << (AI ? percent(R.Pooled.DiffLow) + " to " + percent(R.Pooled.DiffHigh) : std::string("–"))
             << " | " << (R.TrainingSide ? percent(R.TrainingSide->Reduction) : std::string("–"))
             << " | " << llvm::formatv("{0:f3}", Agree).str() << " | "
             << llvm::formatv("{0:f1}", Grown).str() << " of " << Baselines.size() << " |\n";
        }
        OS << "\n![Held-out reduction per arm](reduction.svg)\n\n## Answers\n\n";
        for (const std::string &A : Answers)
          OS << "- " << A << "\n";
        OS << "\n## Permutation importance\n\nArm `" << Spec.Arms.front().Name << "`, seed "
           << Spec.Seeds.front() << ": the drop in agreement with the best decisions of the "
           << "held-out modules when one feature's values are shuffled across decisions.\n\n"
           << "![Permutation importance](importance.svg)\n\n| feature | agreement drop |\n|---|---|\n";
        for (size_t I = 0; I < std::min<size_t>(Sorted.size(), 10); ++I)
          OS << "| `" << Sorted[I].first << "` | " << llvm::formatv("{0:f4}", Sorted[I].second).str() << " |\n";
        OS << "\n## Run\n\n" << llvm::formatv("{0:f0}", Seconds).str() << " s wall time ("
           << llvm::formatv("{0:f0}", ExploreSeconds).str() << " s exploring, "
           << llvm::formatv("{0:f0}", EvalSeconds).str() << " s training and evaluating), "
           << Compilations << " compilations ("
           << llvm::formatv("{0:f1}", Seconds > 0 ? double(Compilations) / Seconds : 0.0).str()
           << " per second); each is `" << C.Tools.describe()
           << "` (under the host where a policy answers; modules with a recorded command line "
              "are compiled with it). "
           << "Everything the numbers come "
           << "from is in this directory: report.json, results.h5 (every .text), the "
           << "explorations and the models.\n";
      }))
    return E;
  C.Run.Report({Diagnostic::Note, "wrote " + support::pathIn(Dir, "report.md") + " (" +
                                  llvm::formatv("{0:f0}", Seconds).str() + " s, " +
                                  std::to_string(Compilations) + " compilations)"});
  if (Failed)
    return support::Outcome::partial(std::to_string(Failed) +
                                     " evaluations of held-out modules failed (each reported)");
  return support::Outcome::complete();
}

} // namespace wb::mlgo
