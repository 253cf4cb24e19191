#include "mlgo/pipelines/FineTune.h"

#include "mlgo/pipelines/Records.h"

#include "mlgo/pipelines/ExplorationFile.h"
#include "corpus/OrderedPipeline.h"
#include "corpus/Share.h"
#include "features/Augment.h"
#include "learn/Random.h"
#include "mlgo/pipelines/Explore.h"
#include "mlgo/pipelines/Train.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/Process.h"
#include "support/Progress.h"
#include "support/JSON.h"
#include "support/Wire.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

namespace wb::mlgo {

using runners::ModelFile;
using support::Diagnostic;

llvm::Error FineTuneConfig::validate() const {
  if (Steps == 0 || Pairs == 0 || ModulesPerStep == 0)
    return support::usageError("--steps, --pairs and --modules-per-step must be at least 1");
  if (!(Sigma > 0))
    return support::usageError("--sigma must be positive");
  return Optimizer.validate();
}

namespace {

std::vector<double> flatten(const ModelFile &M) {
  std::vector<double> P;
  for (const ModelFile::Layer &L : M.Layers) {
    P.insert(P.end(), L.Weight.begin(), L.Weight.end());
    P.insert(P.end(), L.Bias.begin(), L.Bias.end());
  }
  return P;
}

ModelFile withParameters(const ModelFile &Start, const arma::vec &P) {
  ModelFile M = Start;
  size_t K = 0;
  for (ModelFile::Layer &L : M.Layers) {
    for (double &W : L.Weight)
      W = P(K++);
    for (double &B : L.Bias)
      B = P(K++);
  }
  return M;
}

} // namespace

std::vector<double> inputSpreads(const arma::mat &X) {
  std::vector<double> S(X.n_rows, 1.0);
  for (arma::uword R = 0; R < X.n_rows && X.n_cols > 1; ++R) {
    // Compilers send NaN at times (eviction's use_def_density of an empty range): not a value.
    const arma::rowvec Row = X.row(R);
    arma::rowvec V = arma::sort(Row.elem(arma::find_finite(Row)).t());
    if (V.n_elem < 2)
      continue;
    const double IQR = V(arma::uword(0.75 * (V.n_elem - 1))) - V(arma::uword(0.25 * (V.n_elem - 1)));
    const double Std = arma::stddev(V);
    S[R] = IQR > 1e-12 ? IQR / 1.349 : Std > 1e-12 ? Std : 1.0;
  }
  return S;
}

namespace {

/// Eviction policies act only in llc: the fixed pipeline's opt output is the same for every
/// candidate, so each module is optimised once per tuning (measured side by side: a 2-step
/// train-evict run on the test corpus took 52.5 s instead of 67.5 s, 1.29x). Shared by the workers; a module compiled by its recorded command line (clang
/// whole), or whose optimisation failed, gets none (compileModule then runs it all and reports).
class OptimizedModules {
public:
  OptimizedModules(const Toolchain &T, int CancelFd) : T(T), CancelFd(CancelFd) {}

  /// The optimised module, or null.
  const std::string *get(const std::string &Module) {
    llvm::Expected<const std::vector<std::string> *> Rec = T.recordedCommand(Module);
    if (!Rec || *Rec) {
      llvm::consumeError(Rec.takeError());
      return nullptr;
    }
    std::shared_ptr<Entry> E;
    {
      std::lock_guard<std::mutex> L(Mu);
      if (!Dir) {
        llvm::Expected<support::TempDir> D = support::TempDir::create("ir2vec-finetune");
        if (!D) {
          llvm::consumeError(D.takeError());
          return nullptr;
        }
        Dir.emplace(std::move(*D));
      }
      std::shared_ptr<Entry> &Slot = Entries[Module];
      if (!Slot)
        Slot = std::make_shared<Entry>(Entries.size());
      E = Slot;
    }
    std::call_once(E->Once, [&] {
      llvm::Expected<std::string> P =
          optimizeModule(Module, T, *Dir, "m" + std::to_string(E->Index), CancelFd);
      if (P)
        E->Path = std::move(*P);
      else
        llvm::consumeError(P.takeError());
    });
    return E->Path.empty() ? nullptr : &E->Path;
  }

private:
  struct Entry {
    explicit Entry(size_t I) : Index(I) {}
    size_t Index;
    std::once_flag Once;
    std::string Path;
  };
  const Toolchain &T;
  const int CancelFd;
  std::mutex Mu;
  std::optional<support::TempDir> Dir;
  std::map<std::string, std::shared_ptr<Entry>> Entries;
};

struct Compiled1 {
  double Size = -1; // the measure: .text bytes, or the register allocation cost
  std::string Error;
};

/// The line search over the output bias (TuneMethod::Bias).
template <typename EvaluateFn, typename ReductionFn>
llvm::Expected<FineTuneResult> searchBias(const ModelFile &Start,
                                          const features::DatasetTable &Observations,
                                          const std::vector<size_t> &Active, double Constant,
                                          EvaluateFn &Evaluate, ReductionFn &Reduction,
                                          const FineTuneConfig &C, FineTuneResult &R) {
  const arma::mat Z = runners::Network::of(Start).forward(inputMatrix(Start, Observations));
  std::vector<double> Pos, Neg; // outputs of inlining decisions, ascending; of refusals, by
                                // decreasing output
  for (arma::uword I = 0; I < Z.n_cols; ++I)
    (Z(0, I) > 0 ? Pos : Neg).push_back(Z(0, I));
  std::sort(Pos.begin(), Pos.end());
  std::sort(Neg.begin(), Neg.end(), std::greater<double>());
  // The shift that flips the first K of V (V sorted by closeness to zero): halfway to the
  // next, so that no decision sits on the boundary.
  auto ShiftFor = [](const std::vector<double> &V, size_t K) {
    const double A = std::abs(V[K - 1]), B = K < V.size() ? std::abs(V[K]) : A + 1;
    return (A + B) / 2;
  };
  auto Shifted = [&](double Shift) {
    ModelFile M = Start;
    M.Layers.back().Bias[0] += Shift;
    return std::make_shared<const ModelFile>(std::move(M));
  };
  // Shares of decisions flipped: positive = inlines refused, negative = refusals inlined.
  auto Run = [&](std::vector<double> Shares) -> llvm::Error {
    std::vector<std::shared_ptr<const ModelFile>> Cands;
    std::vector<FineTuneResult::Candidate> Rows;
    for (double F : Shares) {
      const std::vector<double> &V = F > 0 ? Pos : Neg;
      const size_t K = size_t(std::ceil(std::abs(F) * double(V.size())));
      if (K == 0 || K > V.size())
        continue;
      const double Shift = F > 0 ? -ShiftFor(V, K) : ShiftFor(V, K);
      if (std::any_of(R.Searched.begin(), R.Searched.end(),
                      [&](const FineTuneResult::Candidate &X) { return X.Shift == Shift; }))
        continue;
      Cands.push_back(Shifted(Shift));
      Rows.push_back({F, Shift, 0});
    }
    if (Cands.empty())
      return llvm::Error::success();
    auto Sizes = Evaluate(Cands, Active);
    if (!Sizes)
      return Sizes.takeError();
    for (size_t I = 0; I < Rows.size(); ++I) {
      Rows[I].Reduction = Reduction((*Sizes)[I], Active, Constant);
      C.Run.Report({Diagnostic::Note,
                llvm::formatv("{0} {1:P2} of the {2} decisions: training-side reduction {3:P3}",
                              Rows[I].Flipped > 0 ? "refusing" : "inlining",
                              std::abs(Rows[I].Flipped), Rows[I].Flipped > 0 ? "inlining" : "refused",
                              Rows[I].Reduction)
                    .str()});
      R.Searched.push_back(Rows[I]);
    }
    return llvm::Error::success();
  };
  // The start itself, then a coarse grid, then around the best.
  {
    auto Sizes = Evaluate({std::make_shared<const ModelFile>(Start)}, Active);
    if (!Sizes)
      return Sizes.takeError();
    R.StartReduction = Reduction((*Sizes)[0], Active, Constant);
    R.Searched.push_back({0, 0, R.StartReduction});
  }
  if (llvm::Error E = Run({0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, -0.005, -0.01,
                           -0.02, -0.04}))
    return E;
  auto Best = [&] {
    return *std::max_element(R.Searched.begin(), R.Searched.end(),
                             [](const auto &A, const auto &B) { return A.Reduction < B.Reduction; });
  };
  if (const double F = Best().Flipped; F != 0)
    if (llvm::Error E = Run({F * std::sqrt(2.0), F / std::sqrt(2.0)}))
      return E;
  const FineTuneResult::Candidate B = Best();
  R.TunedReduction = B.Reduction;
  R.Kept = B.Shift != 0 && B.Reduction > R.StartReduction;
  R.Model = R.Kept ? *Shifted(B.Shift) : Start;
  return std::move(R);
}

/// A finished step of evolution strategies, as the steps file keeps it.
struct EsStep {
  std::vector<double> Fitness; // of each candidate, in order (+eps, -eps per pair)
  size_t Compilations = 0, Failed = 0;
};

/// Everything a step's fitness depends on but its index: the start parameters, the scales,
/// the modules and their baselines, the settings and the compilers (not --steps: a resumed run
/// may go further).
std::string esContext(const std::vector<double> &Theta0, const arma::vec &Scale,
                      const std::vector<TuneModule> &Modules, const FineTuneConfig &C) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << WB_VERSION << "\n" << C.Tools.fingerprint() << "\n"
     << llvm::formatv("pairs {0} modules {1} sigma {2:e} seed {3} optimizer {4} {5:e} {6:e} "
                      "{7:e} {8:e}\n",
                      C.Pairs, C.ModulesPerStep, C.Sigma, C.Seed,
                      learn::optimizerName(C.Optimizer.Kind), C.Optimizer.LearningRate,
                      C.Optimizer.Beta1, C.Optimizer.Beta2, C.Optimizer.Epsilon)
     << "embeddings "
     << (C.Embeddings ? C.Embeddings.digest() : std::string("none")) << "\n";
  support::WireWriter W; // the exact bits of every number
  W.array(Theta0);
  W.array(std::vector<double>(Scale.begin(), Scale.end()));
  for (const TuneModule &M : Modules) {
    W.bytes(M.Path);
    W.num<double>(M.Baseline);
    W.num<uint64_t>(M.Decisions);
  }
  OS << support::sha256Hex(W.take());
  return support::sha256Hex(S);
}

inline constexpr llvm::StringLiteral EsStepsSchema = "ir2vec.es-steps/1";

/// The steps kept in Path for Context; none when there is no file, and a warning when it was
/// made for another run or cannot be read (the steps are then done again).
std::vector<EsStep> readSteps(const std::string &Path, const std::string &Context,
                              size_t Candidates, const support::DiagnosticHandler &Report) {
  std::vector<EsStep> Out;
  if (Path.empty() || !llvm::sys::fs::exists(Path))
    return Out;
  auto Fail = [&](const std::string &Why) {
    Report({Diagnostic::Warning, Path + ": " + Why + "; its steps are done again"});
    return std::vector<EsStep>();
  };
  auto Buf = support::readInput(Path, /*IsText=*/true);
  if (!Buf)
    return Fail(support::readErrorMessage(Buf.getError()));
  auto J = support::parseJSON((*Buf)->getBuffer());
  if (!J)
    return Fail(llvm::toString(J.takeError()));
  const llvm::json::Object *O = J->getAsObject();
  if (!O || O->getString("schema") != EsStepsSchema)
    return Fail(("not a steps file of schema " + EsStepsSchema).str());
  if (O->getString("context") != Context)
    return Fail("made with another start, other modules or other settings");
  const llvm::json::Array *Steps = O->getArray("steps");
  if (!Steps)
    return Fail("no steps");
  for (const llvm::json::Value &V : *Steps) {
    const llvm::json::Object *S = V.getAsObject();
    const llvm::json::Array *F = S ? S->getArray("fitness") : nullptr;
    auto Comp = S ? S->getInteger("compilations") : std::nullopt;
    auto Failed = S ? S->getInteger("failed") : std::nullopt;
    if (!F || F->size() != Candidates || !Comp || !Failed || *Comp < 0 || *Failed < 0)
      return Fail("a malformed step");
    EsStep St;
    for (const llvm::json::Value &X : *F) {
      std::optional<double> D = X.getAsNumber();
      if (!D || !std::isfinite(*D))
        return Fail("a fitness that is not a finite number");
      St.Fitness.push_back(*D);
    }
    St.Compilations = size_t(*Comp);
    St.Failed = size_t(*Failed);
    Out.push_back(std::move(St));
  }
  return Out;
}

llvm::Error writeSteps(const std::string &Path, const std::string &Context,
                       const std::vector<EsStep> &Steps) {
  llvm::json::Array A;
  for (const EsStep &S : Steps)
    A.push_back(llvm::json::Object{{"fitness", llvm::json::Array(S.Fitness)},
                                   {"compilations", int64_t(S.Compilations)},
                                   {"failed", int64_t(S.Failed)}});
  return support::writeFileAtomically(Path, [&](llvm::raw_ostream &OS) {
    OS << llvm::formatv("{0:1}", llvm::json::Value(llvm::json::Object{
                                     {"schema", EsStepsSchema},
                                     {"context", Context},
                                     {"steps", std::move(A)}}))
       << "\n";
  });
}

/// Rank 0's numbers on every rank (this process alone: V itself).
llvm::Expected<std::vector<double>> shareNumbers(const support::RunSettings &Run,
                                                 const std::vector<double> &V) {
  support::WireWriter W;
  W.array(V);
  llvm::Expected<std::string> B = corpus::share(Run.Dist, W.take(), Run.CancelFd);
  if (!B)
    return B.takeError();
  support::WireReader In(*B);
  std::vector<double> Out = In.array<double>();
  if (!In.ok())
    return support::makeError("a malformed message from rank 0");
  return Out;
}

/// The step's modules: a seeded sample of K of Active without replacement (all when fewer),
/// in order.
std::vector<size_t> sampleModules(std::vector<size_t> Active, size_t K, learn::Rng &G) {
  K = std::min(K, Active.size());
  for (size_t I = 0; I < K; ++I)
    std::swap(Active[I], Active[I + learn::below(G, uint32_t(Active.size() - I))]);
  Active.resize(K);
  std::sort(Active.begin(), Active.end());
  return Active;
}

/// Every rank perturbs by rank 0's scales and replays as many kept steps as rank 0 does.
llvm::Error shareScales(const support::RunSettings &Run, arma::vec &Scale, size_t &Replay) {
  std::vector<double> Mine(Scale.begin(), Scale.end());
  Mine.push_back(double(Replay));
  llvm::Expected<std::vector<double>> Sh = shareNumbers(Run, Mine);
  if (!Sh)
    return Sh.takeError();
  if (Sh->size() != Scale.n_elem + 1)
    return support::makeError("rank 0 perturbs another number of parameters");
  Replay = size_t(Sh->back());
  Sh->pop_back();
  Scale = arma::vec(*Sh);
  return llvm::Error::success();
}

/// The measure of candidate models on training modules (their .text, or the register
/// allocation cost), compiled over the workers and the ranks; a failed compilation counts with
/// the heuristic's measure and is reported.
class CandidateRuns {
public:
  CandidateRuns(const std::vector<TuneModule> &Modules, runners::Task T, const FineTuneConfig &C,
                FineTuneResult &R)
      : Modules(Modules), T(T), C(C), R(R), Optimized(C.Tools, C.Run.CancelFd) {}

  /// Sizes[c][k]: candidate c on module Mods[k].
  llvm::Expected<std::vector<std::vector<double>>>
  operator()(const std::vector<std::shared_ptr<const ModelFile>> &Cands,
             const std::vector<size_t> &Mods) {
  std::vector<std::vector<double>> Sizes(Cands.size(), std::vector<double>(Mods.size()));
  corpus::OrderedPipeline<Compiled1> Pipe(C.Run.Jobs, 2 * C.Run.Jobs);
  corpus::Spread<Compiled1> Sp;
  Sp.Dist = C.Run.Dist;
  Sp.Encode = [](const Compiled1 &X, support::WireWriter &W) {
    W.num<double>(X.Size);
    W.bytes(X.Error);
  };
  Sp.Decode = [](support::WireReader &In) -> llvm::Expected<Compiled1> {
    Compiled1 X;
    X.Size = In.num<double>();
    X.Error = In.bytes();
    if (!In.ok())
      return support::makeError("a malformed compilation result");
    return X;
  };
  llvm::Error E = Pipe.run(
      0, Cands.size() * Mods.size(), [] { return corpus::NoState(); },
      [&](size_t J, corpus::NoState &) {
        Compiled1 Out;
        const TuneModule &M = Modules[Mods[J % Mods.size()]];
        std::shared_ptr<const ModelFile> Model = Cands[J / Mods.size()];
        auto Dir = support::TempDir::create("ir2vec-finetune");
        if (!Dir) {
          Out.Error = llvm::toString(Dir.takeError());
          return Out;
        }
        runners::SessionConfig S;
        S.T = T;
        if (C.Embeddings)
          S.Augment = sessionAugmenter(T, C.Embeddings, M.Path);
        S.MakePolicy = [Model]() -> llvm::Expected<std::unique_ptr<runners::Policy>> {
          return runners::makeModelPolicy(*Model);
        };
        const bool Costs = T == runners::Task::Evict;
        if (Costs) {
          S.Costs = features::RegallocWeights{};
          S.ReadRemarks = features::readRegallocRemarks;
        }
        auto Res = compileModule(M.Path, C.Tools, &S, *Dir, "policy", C.Run.CancelFd, Costs,
                                 Costs ? Optimized.get(M.Path) : nullptr);
        if (Res)
          Out.Size = Costs ? features::totalCost({}, Res->Regalloc) : double(Res->TextSize);
        else
          Out.Error = llvm::toString(Res.takeError());
        return Out;
      },
      [&](size_t J, Compiled1 &&X) -> llvm::Error {
        if (support::cancelled(C.Run.CancelFd))
          return support::interruptedError("interrupted; no model written");
        ++R.Compilations;
        const TuneModule &M = Modules[Mods[J % Mods.size()]];
        if (!X.Error.empty()) {
          ++R.Failed;
          C.Run.Report({Diagnostic::Warning, M.Path + ": " + X.Error + " (counted with the "
                                                                   "heuristic's size)"});
          X.Size = M.Baseline;
        }
        Sizes[J / Mods.size()][J % Mods.size()] = X.Size;
        return llvm::Error::success();
      },
      Sp);
  if (E)
    return E;
  return Sizes;
  }

private:
  const std::vector<TuneModule> &Modules;
  const runners::Task T;
  const FineTuneConfig &C;
  FineTuneResult &R;
  OptimizedModules Optimized;
};

/// Each parameter's perturbation scale: 1, but for the first layer's weights 1 / the robust
/// spread of their input over Observations (none: 1).
arma::vec perturbationScales(const ModelFile &Start, const features::DatasetTable &Observations,
                             size_t Parameters) {
  arma::vec Scale(Parameters, arma::fill::ones);
  if (!Observations.rows())
    return Scale;
  const std::vector<double> Spread = inputSpreads(inputMatrix(Start, Observations));
  const ModelFile::Layer &L0 = Start.Layers.front();
  for (unsigned O = 0; O < L0.Out; ++O)
    for (unsigned J = 0; J < L0.In && J < Spread.size(); ++J)
      Scale(O * L0.In + J) = 1 / Spread[J];
  return Scale;
}

/// 1 - (ExtraBase + sum of Sizes) / (ExtraBase + sum of the baselines of Modules[Mods]).
double reductionOver(const std::vector<TuneModule> &Modules, const std::vector<double> &Sizes,
                     const std::vector<size_t> &Mods, double ExtraBase) {
  double Pol = ExtraBase, B = ExtraBase;
  for (size_t K = 0; K < Mods.size(); ++K) {
    Pol += Sizes[K];
    B += Modules[Mods[K]].Baseline;
  }
  return B > 0 ? 1 - Pol / B : 0.0;
}

/// The steps rank 0 keeps for --resume (FineTuneConfig::StepsFile) and how many of them an
/// interrupted run left to replay.
struct StepsKept {
  bool Root = true;
  std::string Context;
  std::vector<EsStep> Kept;
  size_t Replay = 0;
};

/// Every rank perturbs by rank 0's scales (another rank of an MPI run has no observations of
/// its own) and replays the steps rank 0 kept from an interrupted run.
llvm::Expected<StepsKept> openSteps(const FineTuneConfig &C, const std::vector<double> &Theta0,
                                    arma::vec &Scale, const std::vector<TuneModule> &Modules) {
  StepsKept S;
  S.Root = !C.Run.Dist.serving();
  S.Context = esContext(Theta0, Scale, Modules, C);
  if (S.Root)
    S.Kept = readSteps(C.StepsFile, S.Context, 2 * size_t(C.Pairs), C.Run.Report);
  S.Replay = std::min<size_t>(S.Kept.size(), C.Steps);
  if (llvm::Error E = shareScales(C.Run, Scale, S.Replay))
    return E;
  if (S.Root && S.Replay)
    C.Run.Report({Diagnostic::Note, llvm::formatv("{0}: {1} of {2} steps taken from the "
                                                  "interrupted run",
                                                  C.StepsFile, S.Replay, C.Steps)
                                        .str()});
  return S;
}

} // namespace

std::vector<arma::vec> esPerturbations(learn::Rng &G, unsigned Pairs, arma::uword N) {
  std::vector<arma::vec> Eps(Pairs, arma::vec(N));
  for (arma::vec &E : Eps)
    for (double &V : E)
      V = learn::normal(G);
  return Eps;
}

void esUpdate(arma::mat &U, learn::Optimizer &Opt, const std::vector<arma::vec> &Eps,
              const std::vector<double> &F, const ESSettings &S) {
  // Antithetic estimate of the smoothed fitness's gradient, in units of the fitness spread
  // (the step size then does not depend on how much .text the sample holds).
  const arma::vec FV(F);
  const double Spread = F.size() > 1 ? arma::stddev(FV) : 0;
  if (Spread <= 1e-12)
    return;
  arma::mat Grad(U.n_rows, 1, arma::fill::zeros);
  for (size_t P = 0; P < Eps.size(); ++P)
    Grad.col(0) += (F[2 * P] - F[2 * P + 1]) * Eps[P];
  Grad /= -(2.0 * double(Eps.size()) * S.Sigma * Spread); // the optimizer descends: ascend
  Opt.step(0, U, Grad);
}

llvm::Expected<FineTuneResult> fineTune(const ModelFile &Start, const std::vector<TuneModule> &Modules,
                                        const features::DatasetTable &Observations,
                                        const FineTuneConfig &C) {
  if (llvm::Error E = C.validate())
    return E;
  const runners::Task T = Start.ForTask;
  if (T == runners::Task::Priority || (T == runners::Task::Evict && C.Method != TuneMethod::ES))
    return support::makeError("fine-tuning is for inliner models, and for eviction models by "
                              "--method es");
  // Modules without decisions keep the heuristic's size whatever the policy: not compiled.
  std::vector<size_t> Active;
  double Constant = 0, Total = 0;
  for (size_t I = 0; I < Modules.size(); ++I) {
    Total += Modules[I].Baseline;
    if (Modules[I].Decisions)
      Active.push_back(I);
    else
      Constant += Modules[I].Baseline;
  }
  if (Active.empty() || Total <= 0)
    return support::makeError(T == runners::Task::Inline
                                  ? "no training module asks an inlining question: nothing to tune"
                                  : "no training module has a register allocation cost: "
                                    "nothing to tune");

  // Parameters u, the model being Start + Scale * u.
  const std::vector<double> Theta0 = flatten(Start);
  arma::vec Scale = perturbationScales(Start, Observations, Theta0.size());
  const arma::vec Base(Theta0);
  arma::mat U(Theta0.size(), 1, arma::fill::zeros);
  learn::Optimizer Opt(C.Optimizer, {arma::size(U)});

  FineTuneResult R;
  CandidateRuns Evaluate(Modules, T, C, R);
  auto Reduction = [&](const std::vector<double> &Sizes, const std::vector<size_t> &Mods,
                       double ExtraBase) { return reductionOver(Modules, Sizes, Mods, ExtraBase); };
  auto Candidate = [&](const arma::vec &UVec) {
    return std::make_shared<const ModelFile>(withParameters(Start, Base + Scale % UVec));
  };

  if (C.Method == TuneMethod::Bias)
    return searchBias(Start, Observations, Active, Constant, Evaluate, Reduction, C, R);

  llvm::Expected<StepsKept> Steps = openSteps(C, Theta0, Scale, Modules);
  if (!Steps)
    return Steps.takeError();
  const bool Root = Steps->Root;
  const size_t Replay = Steps->Replay;
  std::vector<EsStep> &Kept = Steps->Kept;
  const std::string &Context = Steps->Context;

  support::Progress Bar("steps", C.Steps, C.Run.ShowProgress);
  for (unsigned Step = 0; Step < C.Steps; ++Step) {
    learn::Rng G(C.Seed * 0x9E3779B97F4A7C15ull + Step + 1);
    const std::vector<size_t> Mods = sampleModules(Active, C.ModulesPerStep, G);
    const size_t K = Mods.size();
    const std::vector<arma::vec> Eps = esPerturbations(G, C.Pairs, U.n_rows);
    std::vector<std::shared_ptr<const ModelFile>> Cands;
    for (const arma::vec &E : Eps) {
      Cands.push_back(Candidate(U.col(0) + C.Sigma * E));
      Cands.push_back(Candidate(U.col(0) - C.Sigma * E));
    }
    std::vector<double> F;
    if (Step < Replay) { // kept by rank 0 (another rank learns the fitness from it below)
      if (Root) {
        F = Kept[Step].Fitness;
        R.Compilations += Kept[Step].Compilations;
        R.Failed += Kept[Step].Failed;
      }
    } else {
      const size_t Compiled0 = R.Compilations, Failed0 = R.Failed;
      auto Sizes = Evaluate(Cands, Mods);
      if (!Sizes)
        return Sizes.takeError();
      for (const std::vector<double> &S : *Sizes)
        F.push_back(Reduction(S, Mods, 0));
      if (Root && !C.StepsFile.empty()) {
        Kept.resize(Step);
        Kept.push_back({F, R.Compilations - Compiled0, R.Failed - Failed0});
        if (llvm::Error E = writeSteps(C.StepsFile, Context, Kept))
          return E;
      }
    }
    // Only rank 0 consumed the compilations: its fitness moves every rank's policy.
    llvm::Expected<std::vector<double>> Shared = shareNumbers(C.Run, F);
    if (!Shared)
      return Shared.takeError();
    F = std::move(*Shared);
    if (F.size() != Cands.size())
      return support::makeError("rank 0 scored another number of candidates");
    const arma::vec FV(F);
    R.StepFitness.push_back(arma::mean(FV));
    esUpdate(U, Opt, Eps, F, C);
    Bar.clear();
    C.Run.Report({Diagnostic::Note,
              llvm::formatv("step {0}/{1}: {2} modules, fitness mean {3:P3}, best {4:P3}",
                            Step + 1, C.Steps, K, R.StepFitness.back(), arma::max(FV))
                  .str()});
    Bar.update(Step + 1, llvm::formatv("fitness {0:P3}", R.StepFitness.back()).str());
  }
  Bar.clear();

  // The start and the tuned model on the whole training side.
  const std::shared_ptr<const ModelFile> Tuned = Candidate(U.col(0));
  auto Final = Evaluate({std::make_shared<const ModelFile>(Start), Tuned}, Active);
  if (!Final)
    return Final.takeError();
  llvm::Expected<std::vector<double>> Both = shareNumbers(
      C.Run, {Reduction((*Final)[0], Active, Constant), Reduction((*Final)[1], Active, Constant)});
  if (!Both)
    return Both.takeError();
  if (Both->size() != 2)
    return support::makeError("rank 0 sent another result");
  R.StartReduction = (*Both)[0];
  R.TunedReduction = (*Both)[1];
  R.Kept = R.TunedReduction > R.StartReduction;
  R.Model = R.Kept ? *Tuned : Start;
  return R;
}

/// What a fine-tuned model records: where it started, the data, the settings, the search and
/// both training-side reductions.
void stampTuningOutcome(runners::ModelFile &M, const FineTuneResult &R) {
  M.setProvenance("finetune_training_reduction_start", llvm::formatv("{0:f6}", R.StartReduction).str());
  M.setProvenance("finetune_training_reduction_tuned", llvm::formatv("{0:f6}", R.TunedReduction).str());
  M.setProvenance("finetune_kept", R.Kept ? "true" : "false");
}

static llvm::Error stampFineTuned(ModelFile &M, const FineTuneResult &R, const FineTuneConfig &C,
                                  const FineTuneStart &From, const std::string &Exploration,
                                  const std::string &Split) {
  const std::string ModelPath = From.Heuristic ? "the heuristic" : From.ModelPath;
  auto ModelSHA = From.Heuristic ? llvm::Expected<std::string>(std::string("-"))
                                 : support::sha256OfFile(ModelPath);
  auto ExplorationSHA = support::sha256OfFile(Exploration);
  if (!ModelSHA)
    return ModelSHA.takeError();
  if (!ExplorationSHA)
    return ExplorationSHA.takeError();
  std::string Hyper;
  llvm::raw_string_ostream(Hyper) << llvm::json::Value(llvm::json::Object{
      {"method", C.Method == TuneMethod::ES
                     ? "es: evolution strategies (antithetic pairs, fitness-normalised gradient)"
                     : "bias: line search over the output bias on the training side"},
      {"steps", int64_t(C.Steps)},
      {"pairs", int64_t(C.Pairs)},
      {"modules_per_step", int64_t(C.ModulesPerStep)},
      {"sigma", C.Sigma},
      {"optimizer", learn::optimizerName(C.Optimizer.Kind)},
      {"learning_rate", C.Optimizer.LearningRate},
      {"seed", int64_t(C.Seed)}});
  llvm::json::Array Fit;
  for (double F : R.StepFitness)
    Fit.push_back(F);
  for (const FineTuneResult::Candidate &X : R.Searched)
    Fit.push_back(llvm::json::Object{
        {"flipped", X.Flipped}, {"bias_shift", X.Shift}, {"training_reduction", X.Reduction}});
  std::string FitText;
  llvm::raw_string_ostream(FitText) << llvm::json::Value(std::move(Fit));
  auto Set = [&M](const std::string &K, const std::string &V) { M.setProvenance(K, V); };

  Set("finetuned_by", "ir2vec mlgo finetune");
  Set("finetuned_from", llvm::sys::path::filename(ModelPath).str());
  if (From.Heuristic) {
    stampProvenance(M, "ir2vec mlgo finetune --from-heuristic");
    Set("split", Split);
  }
  Set("finetuned_from_sha256", *ModelSHA);
  Set("finetune_data", llvm::sys::path::filename(Exploration).str());
  Set("finetune_data_sha256", *ExplorationSHA);
  Set("finetune_embeddings_digest", C.Embeddings ? C.Embeddings.digest() : std::string());
  Set("finetune_hyperparameters", Hyper);
  Set(C.Method == TuneMethod::ES ? "finetune_step_fitness" : "finetune_search", FitText);
  stampTuningOutcome(M, R);
  Set("finetune_compilations", std::to_string(R.Compilations));
  return llvm::Error::success();
}

llvm::Expected<support::Outcome> runFineTune(const std::string &Exploration,
                                             const FineTuneStart &From,
                                             const std::vector<std::string> &CorpusArgs,
                                             FineTuneConfig C, const std::string &Output) {
  const std::string ModelPath = From.Heuristic ? "the heuristic" : From.ModelPath;
  if (Output.empty() || Output == "-")
    return support::usageError("finetune needs an output file: -o MODEL.h5");
  if (llvm::Error E = support::checkOutputPath(Output))
    return E;
  // The corpus the exploration was made from, when no other is named: its modules' recorded
  // command lines are how they are compiled again.
  std::vector<std::string> Corpus = CorpusArgs;
  if (Corpus.empty()) {
    llvm::Expected<ExplorationFile> H = readExplorationHeader(Exploration);
    if (!H)
      return H.takeError();
    for (const std::string &D : H->Header.Corpus) {
      if (!llvm::sys::fs::exists(D))
        return support::fileError(Exploration, "it was made from the corpus " + D +
                                                   ", which is not there: name the corpus (its "
                                                   "corpus_description.json) after the file");
      Corpus.push_back(D);
    }
  }
  if (llvm::Error E = loadRecordedCommands(C.Tools, Corpus))
    return E;
  std::vector<TuneModule> Modules;
  std::string Split;
  std::optional<features::DatasetTable> Obs;
  std::optional<ModelFile> Start;
  if (!From.Heuristic) {
    auto M = runners::readModelFile(From.ModelPath);
    if (!M)
      return M.takeError();
    Start = std::move(*M);
  }
  llvm::Expected<ExplorationFile> X = readExploration(Exploration);
  if (!X)
    return X.takeError();
  if (llvm::Error E = refuseHeldOut(Exploration, X->Header, "fine-tune"))
    return E;
  // The baselines below are the exploration's: of the bytes explored.
  if (const ModuleChanges Changes = changedModules(*X); !Changes.Changed.empty())
    return support::makeError(Changes.describe(Exploration, "its baselines are not theirs; "
                                                            "explore them again"));
  if (!X->Header.Toolchain.empty() && X->Header.Toolchain != C.Tools.fingerprint())
    return support::fileError(
        Exploration, "its modules were compiled with another toolchain or other command lines (" +
                         X->Header.Toolchain + "); give this run the exploration's toolchain "
                         "options, and the corpus it was made from (its corpus_description.json) "
                         "after the file");
  Split = X->Header.trainedSplit();
  for (const ModuleExploration &E : X->Modules) {
    if (!E.Error.empty())
      continue;
    if (E.Rollouts.empty() || E.BaselineSize < 0)
      return support::fileError(Exploration, "module " + E.Path + ": no rollout or baseline");
    Modules.push_back({E.Path, double(E.BaselineSize), E.Rollouts.front().Decisions.size()});
  }
  // The observation set that has every input of the model (for a heuristic start: the first
  // set that has every input it selects); with embeddings, one made with them (its digest),
  // for the sessions below embed with them.
  std::string Why;
  size_t Chosen = 0;
  for (size_t V = 0; V < X->ObservationSets.size(); ++V) {
    const std::string &Set = X->ObservationSets[V];
    if (Obs)
      break;
    if (C.Embeddings && (V == 0 || V - 1 >= X->Header.VocabularyDigests.size() ||
                         X->Header.VocabularyDigests[V - 1] != C.Embeddings.digest()))
      continue;
    auto D = readObservations(Exploration, Set);
    if (!D)
      return D.takeError();
    if (From.Heuristic) {
      auto M = heuristicModel(*D);
      if (!M) {
        Why = llvm::toString(M.takeError());
        continue;
      }
      Start = std::move(*M);
    }
    if (std::all_of(Start->Inputs.begin(), Start->Inputs.end(),
                    [&](const features::TensorSpec &S) { return D->find(S.Name).has_value(); })) {
      Obs = std::move(*D);
      Chosen = V;
    }
  }
  if (!Obs && C.Embeddings)
    return support::fileError(Exploration,
                              "no observation set was made with the embeddings of --embeddings " +
                                  C.Embeddings.spelling() + " (digest " + C.Embeddings.digest() +
                                  ", its bytes or kind are not those explored), or has every "
                                  "input of " + ModelPath);
  if (!Obs && !Why.empty())
    return support::makeError(Why);
  // The embeddings must be the model's own (its recorded digest), and it must read them.
  if (Obs)
    if (llvm::Error E = checkModelEmbeddings(*Start, ModelPath, C.Embeddings))
      return E;
  // A set with embeddings: the sessions must compute them, with the same embeddings.
  if (Obs && Chosen > 0 && !C.Embeddings)
    return support::usageError("the observations " + ModelPath + " needs are the exploration's "
                               "set '" + X->ObservationSets[Chosen] + "', made with embeddings: "
                               "give them with --embeddings (the same vocabulary)");
  if (!Obs)
    return support::fileError(Exploration, "no observation set has every input of " + ModelPath +
                                               " (embedding inputs need an exploration with "
                                               "--embeddings)");
  auto R = fineTune(*Start, Modules, *Obs, C);
  if (!R)
    return R.takeError();
  ModelFile &M = R->Model;
  if (llvm::Error E = stampFineTuned(M, *R, C, From, Exploration, Split))
    return E;
  if (llvm::Error E = runners::writeModelFile(Output, M))
    return E;
  C.Run.Report({Diagnostic::Note,
            llvm::formatv("training-side .text reduction {0:P3} with the start model, {1:P3} "
                          "fine-tuned: {2} ({3} compilations, {4} failed)",
                          R->StartReduction, R->TunedReduction,
                          R->Kept ? "the fine-tuned model is written"
                                  : "no gain, the start model is written",
                          R->Compilations, R->Failed)
                .str()});
  return support::Outcome::complete();
}

} // namespace wb::mlgo
