#include "mlgo/studies/TrainEvict.h"

#include "learn/Random.h"
#include "mlgo/pipelines/Parts.h"
#include "runners/Models.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

namespace wb::mlgo {

using support::Diagnostic;

llvm::Expected<EvictPolicy> trainEvictPolicy(const runners::ModelFile &Start,
                                             const std::vector<TuneModule> &Tune,
                                             const features::DatasetTable &Observations,
                                             std::vector<EvalModule> Judged,
                                             const FineTuneConfig &C, uint64_t BootstrapSeed) {
  EvictPolicy P;
  llvm::Expected<FineTuneResult> R = tuneEvictPolicy(Start, Tune, Observations, C);
  if (!R)
    return R.takeError();
  P.Tuned = std::move(*R);
  const runners::ModelFile &M = P.Tuned.Model;
  runners::SessionConfig Session;
  Session.T = runners::Task::Evict;
  Session.MakePolicy = [&M]() -> llvm::Expected<std::unique_ptr<runners::Policy>> {
    return runners::makeModelPolicy(M);
  };
  P.HeldOut = judge(std::move(Judged), {Session, C.Embeddings}, C, BootstrapSeed);
  return P;
}

namespace {

/// The report's figures, in the cost's words.
llvm::json::Object costSummaryJSON(const EvalSummary &S) {
  llvm::json::Array Packages;
  for (const PackageSummary &P : S.Packages)
    Packages.push_back(llvm::json::Object{{"package", P.Key},
                                          {"modules", int64_t(P.Modules)},
                                          {"baseline_cost", P.BaselineTotal},
                                          {"policy_cost", P.PolicyTotal},
                                          {"reduction", P.Reduction},
                                          {"cheaper", int64_t(P.Shrunk)},
                                          {"costlier", int64_t(P.Grown)}});
  llvm::json::Object O{{"modules", int64_t(S.Modules)},
                       {"failed", int64_t(S.Failed)},
                       {"baseline_cost", S.BaselineTotal},
                       {"policy_cost", S.PolicyTotal},
                       {"reduction", S.Reduction},
                       {"interval_modules", llvm::json::Array{S.Low, S.High}},
                       {"interval_packages", llvm::json::Array{S.PackageLow, S.PackageHigh}},
                       {"cheaper", int64_t(S.Shrunk)},
                       {"costlier", int64_t(S.Grown)},
                       {"packages", std::move(Packages)}};
  if (S.Worst >= 0)
    O["worst_package"] = llvm::json::Object{{"package", S.Packages[S.Worst].Key},
                                            {"reduction", S.Packages[S.Worst].Reduction}};
  return O;
}

/// Everything that decides the result: what the ES steps kept for --resume were made with.
/// OUT.parts is opened (and refused when it belongs to another job) with this before anything is
/// compiled; fineTune's steps file carries its own context besides (esContext), because that one
/// also covers what the job settings do not name: the start parameters, the perturbation scales
/// and the baselines measured on this machine's compilers.
std::string jobFingerprint(const EvictTrainJob &J, const CorpusSplit &S) {
  const FineTuneConfig &T = J.Tune;
  // The modules by their bytes: steps made before one was rewritten are not resumed.
  std::string Modules;
  for (const std::string &M : S.Modules) {
    llvm::Expected<std::string> SHA = support::sha256OfFile(M);
    Modules += M + " " + (SHA ? *SHA : llvm::toString(SHA.takeError())) + "\n";
  }
  std::string Start = J.StartModel;
  if (!Start.empty()) {
    llvm::Expected<std::string> SHA = support::sha256OfFile(Start);
    Start += " " + (SHA ? *SHA : llvm::toString(SHA.takeError()));
  }
  return support::sha256Hex(
      llvm::formatv("train-evict {0}\n{1}\n{2}\nstart {3}\npairs {4} modules {5} sigma {6:e} "
                    "lr {7:e} optimizer {8} seed {9}\n{10}",
                    WB_VERSION, T.Tools.fingerprint(), S.toJSONText(), Start, T.Pairs,
                    T.ModulesPerStep, T.Sigma, T.Optimizer.LearningRate,
                    learn::optimizerName(T.Optimizer.Kind), T.Seed, Modules)
          .str());
}

/// Where ES starts: the model file Path, or the density rule ("").
llvm::Expected<runners::ModelFile> startModel(const std::string &Path) {
  if (Path.empty())
    return evictStartModel();
  llvm::Expected<runners::ModelFile> M = runners::readModelFile(Path);
  if (!M)
    return M.takeError();
  if (M->ForTask != runners::Task::Evict || M->Kind == runners::ModelKind::Rule)
    return support::fileError(Path, "not an eviction model (linear or mlp)");
  return M;
}

/// What a trained eviction model records of its training.
void stampEvictModel(runners::ModelFile &M, const EvictTrainJob &J, const CorpusSplit &S,
                     const FineTuneResult &R) {
  auto Set = [&M](const std::string &K, const std::string &V) { M.setProvenance(K, V); };

  llvm::json::Array Fit;
  for (double F : R.StepFitness)
    Fit.push_back(F);
  stampProvenance(M, "ir2vec mlgo train-evict");
  Set("split", S.toJSONText());
  Set("trained_from", J.StartModel.empty() ? "the density rule" : J.StartModel);
  Set("reward", "1 - sum(cost) / sum(default advisor's cost); cost = " +
                    features::RegallocWeights{}.describe());
  Set("finetune_hyperparameters",
      llvm::formatv("{0}", llvm::json::Value(llvm::json::Object{
                               {"method", "es"},
                               {"steps", int64_t(J.Tune.Steps)},
                               {"pairs", int64_t(J.Tune.Pairs)},
                               {"modules_per_step", int64_t(J.Tune.ModulesPerStep)},
                               {"sigma", J.Tune.Sigma},
                               {"learning_rate", J.Tune.Optimizer.LearningRate},
                               {"seed", int64_t(J.Tune.Seed)}}))
          .str());
  Set("finetune_step_fitness", llvm::formatv("{0}", llvm::json::Value(std::move(Fit))).str());
  stampTuningOutcome(M, R);
  Set("finetune_compilations", std::to_string(R.Compilations));
}

/// Says what the held-out packages gave and writes the report (J.Report, when asked for).
llvm::Error reportHeldOut(const EvictTrainJob &J, const CorpusSplit &S, const FineTuneResult &R,
                          const EvalSummary &Sum) {
  J.Tune.Run.Report({Diagnostic::Note,
              llvm::formatv("held-out ({0} modules of {1} packages): cost reduction {2:P3} "
                            "(95% interval over modules {3:P3} to {4:P3}, over packages {5:P3} "
                            "to {6:P3}); worst package {7} {8:P3}",
                            Sum.Modules - Sum.Failed, Sum.Packages.size(), Sum.Reduction, Sum.Low,
                            Sum.High, Sum.PackageLow, Sum.PackageHigh,
                            Sum.Worst >= 0 ? Sum.Packages[Sum.Worst].Key : "-",
                            Sum.Worst >= 0 ? Sum.Packages[Sum.Worst].Reduction : 0.0)
                  .str()});
  if (!J.Report.empty()) {
    llvm::json::Object Doc{{"schema", "ir2vec.mlgo-evict-eval/1"},
                           {"model", J.Output},
                           {"split", S.toJSON()},
                           {"training_reduction_start", R.StartReduction},
                           {"training_reduction_tuned", R.TunedReduction},
                           {"kept", R.Kept},
                           {"compilations", int64_t(R.Compilations)},
                           {"held_out", costSummaryJSON(Sum)},
                           {"bootstrap", bootstrapJSON(J.BootstrapSeed)}};
    if (llvm::Error E = support::writeFileAtomicallyChecked(J.Report, [&](llvm::raw_ostream &OS) {
          OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Doc))) << "\n";
          return llvm::Error::success();
        }))
      return E;
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<support::Outcome> runEvictTraining(EvictTrainJob J) {
  if (J.Output.empty() || J.Output == "-")
    return support::usageError("train-evict needs an output file: -o MODEL.h5");
  J.Tune.Method = TuneMethod::ES;
  if (llvm::Error E = J.Tune.validate())
    return E;
  llvm::Expected<Prepared> P = prepare(J.Plan, J.Tune);
  if (!P)
    return P.takeError();
  // Before any work (and on every rank): the outputs can be written, none is an input.
  if (llvm::Error E = checkOutputs({J.Output, J.Report}, J.Plan, *P, {J.StartModel}))
    return E;
  J.Tune.Tools = P->Setup.Tools;
  const CorpusSplit *S = &P->Split;
  llvm::Expected<runners::ModelFile> StartOr = startModel(J.StartModel);
  if (!StartOr)
    return StartOr.takeError();
  const runners::ModelFile &Start = *StartOr;
  const support::RunSettings &Run = J.Tune.Run;
  const bool Root = !Run.Dist.serving(); // another rank of an MPI run compiles, writes nothing
  // Each finished ES step waits in OUT.parts/ (rank 0's) for --resume until the model is
  // written; the model file also holds the output's lock against a second run.
  std::optional<PartsDir> Parts;
  if (Root) {
    llvm::Expected<PartsDir> P = PartsDir::open(J.Output, jobFingerprint(J, *S), J.Resume, Run.Report);
    if (!P)
      return P.takeError();
    Parts.emplace(std::move(*P));
    J.Tune.StepsFile = support::pathIn(Parts->path(), "es-steps.json");
  }
  auto Interrupted = [&](llvm::StringRef What) {
    return support::interruptedError(("interrupted; " + What +
                                      (Parts ? "; finished steps are kept in " + Parts->path() +
                                                   " for --resume"
                                             : std::string()))
                                         .str());
  };
  // A run that fails before any ES step finished leaves nothing to resume: no OUT.parts/. One
  // that fails later keeps its finished steps, and says so.
  auto Failed = [&](llvm::Error E) -> llvm::Error {
    if (!Parts)
      return E;
    if (!llvm::sys::fs::exists(J.Tune.StepsFile)) {
      Parts->remove();
      return E;
    }
    return support::makeError(llvm::toString(std::move(E)) + "; no model written, finished steps "
                              "are kept in " + Parts->path() + " for --resume");
  };
  const CompileSetup &EC = J.Tune;
  llvm::Expected<std::vector<TuneModule>> Tune = evictTrainingModules(S->modules(false), EC);
  if (!Tune)
    return Failed(Tune.takeError());
  if (support::cancelled(Run.CancelFd))
    return Interrupted("no model written");
  // The held-out baselines (the default advisor's) before any tuning: a side on which nothing
  // compiles ends the run before it writes anything.
  std::vector<EvalModule> Test = P->baselines(true, runners::Task::Evict);
  if (support::cancelled(Run.CancelFd))
    return Interrupted("no model written");
  if (!Test.empty() && llvm::all_of(Test, [](const EvalModule &M) { return !M.Error.empty(); }))
    return Failed(everyModuleFailed("held-out", Test));
  // --test-fraction 1: no training side (nor Tune). The start model (--model, or the density
  // rule) is judged as it is on every module, which is how a model is evaluated on a corpus it
  // never saw.
  llvm::Expected<features::DatasetTable> Observations =
      Tune->empty() ? features::DatasetTable()
                    : evictObservations(Start, *Tune, J.Tune.ModulesPerStep, ir2vec::EmbeddingChoice(), EC);
  llvm::Expected<EvictPolicy> Trained =
      Observations ? trainEvictPolicy(Start, *Tune, *Observations, std::move(Test), J.Tune,
                                      J.BootstrapSeed)
                   : Observations.takeError();
  if (!Trained) {
    if (support::cancelled(Run.CancelFd)) {
      llvm::consumeError(Trained.takeError());
      return Interrupted("no model written");
    }
    return Failed(Trained.takeError());
  }
  const FineTuneResult *R = &Trained->Tuned;
  runners::ModelFile &M = Trained->Tuned.Model;
  stampEvictModel(M, J, *S, *R);
  if (!Root)
    return support::Outcome::complete();
  if (support::cancelled(Run.CancelFd))
    return Interrupted("no model written");
  const std::vector<EvalModule> &Judged = Trained->HeldOut.Modules;
  if (!Judged.empty() &&
      llvm::all_of(Judged, [](const EvalModule &M) { return !M.Error.empty(); }))
    return Failed(everyModuleFailed("held-out", Judged));
  if (llvm::Error E = runners::writeModelFile(J.Output, M))
    return E;
  Parts->remove(); // the model is written: nothing is left to resume
  if (S->modules(false).empty())
    Run.Report({Diagnostic::Note, "no training side (--test-fraction 1): the start model is "
                                  "written and judged as it is"});
  else
    Run.Report({Diagnostic::Note,
                llvm::formatv("training side ({0} modules): cost reduction {1:P3} with the start "
                              "model, {2:P3} tuned; {3} written ({4} compilations)",
                              Tune->size(), R->StartReduction, R->TunedReduction,
                              R->Kept ? "the tuned model" : "no gain: the start model",
                              R->Compilations)
                    .str()});
  const EvalSummary &Sum = Trained->HeldOut.Summary;
  if (llvm::Error E = reportHeldOut(J, *S, *R, Sum))
    return E;
  if (Sum.Failed)
    return support::Outcome::partial(std::to_string(Sum.Failed) + " held-out modules failed");
  return support::Outcome::complete();
}

} // namespace wb::mlgo
