// An eviction ablation's arms: per arm and seed, an MLP from the density rule tuned by ES on the
// training side's register allocation cost and judged on the held-out side.
#include "mlgo/studies/AblationSteps.h"
#include "mlgo/studies/TrainEvict.h"

#include "learn/Random.h"
#include "runners/Models.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <chrono>

namespace wb::mlgo {

using support::Diagnostic;

llvm::Expected<AblationResult> runEvictStudy(const AblationSpec &Spec, const Prepared &P,
                                             const std::string &Dir) {
  using Clock = std::chrono::steady_clock;
  const auto Start = Clock::now();
  AblationResult Res;
  Res.Spec = Spec;
  Res.Dir = Dir;
  Res.Split = P.Split;
  const CompileSetup &RC = P.Setup;
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
      static_cast<CompileSetup &>(FC) = RC;
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

} // namespace wb::mlgo
