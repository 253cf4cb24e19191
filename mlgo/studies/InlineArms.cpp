// Trained inliner policies as arms (an ablation's, the open benchmark's trained policies): one
// exploration (made, or reused when its settings, its embeddings' digests and its modules' bytes
// are this study's), then per arm and seed a model per fold trained on its labels, written,
// and judged on the modules it never saw.
#include "mlgo/studies/Ablation.h"

#include "learn/Random.h"
#include "runners/Models.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cstring>
#include <numeric>
#include <set>

namespace wb::mlgo {

using support::Diagnostic;

namespace {

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
  // Modules that failed in it (perhaps for the machine's reasons: descriptors, memory, disk
  // space): explored again, as a resumed exploration tries them again.
  const size_t Failed = llvm::count_if(Full->Modules, [](const ModuleExploration &M) {
    return !M.Error.empty();
  });
  if (Failed) {
    C.Run.Report({Diagnostic::Note, File + ": " + std::to_string(Failed) + " of its modules "
                                    "failed: exploring again"});
    return false;
  }
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

} // namespace

CorpusPlan ArmsStudy::plan() const {
  const bool Transfer = Proto == JudgingProtocol::Transfer;
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
  EC.Tools = P.Setup.Tools;
  EC.Search = Spec.Search;
  for (const AblationArm &A : Spec.Arms)
    if (A.Vocab && llvm::none_of(EC.Vocabularies, [&](const ir2vec::EmbeddingChoice &V) {
          return V.explorationKey() == A.Vocab.explorationKey();
        }))
      EC.Vocabularies.push_back(A.Vocab);
  EC.Run = P.Setup.Run;
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
    if (!R) {
      llvm::Error E = R.takeError();
      if (!support::isInterruption(E))
        return E;
      // The exploration's own message names --resume, which a study has not: it resumes when
      // it is run again.
      llvm::consumeError(std::move(E));
      return support::interruptedError("interrupted; the exploration's finished modules are "
                                       "kept in " + File + ".parts: run the study again to "
                                       "continue");
    }
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
  std::vector<EvalModule> Judged = measureBaselines(Paths, P.Setup);
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
  const CompileSetup &RC = St.P.Setup;
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
  Res.Tools = P.Setup.Tools;
  Res.Compile = P.Setup.Tools.describe();
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
  if (P.Setup.Run.cancelled())
    return support::interruptedError("interrupted; the explorations are kept in " + Dir);
  Res.EvalSeconds = std::chrono::duration<double>(Clock::now() - T1).count();
  return Res;
}

} // namespace wb::mlgo
