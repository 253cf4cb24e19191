#include "mlgo/pipelines/EvictTrain.h"

#include "corpus/Share.h"
#include "learn/Random.h"
#include "mlgo/pipelines/Collect.h"
#include "mlgo/pipelines/Measure.h"
#include "runners/Models.h"
#include "support/Files.h"
#include "support/Process.h"
#include "support/Wire.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace wb::mlgo {

runners::ModelFile evictStartModel() {
  runners::ModelFile M;
  M.ForTask = runners::Task::Evict;
  M.Kind = runners::ModelKind::Linear;
  const features::TaskInfo &TI = features::taskInfo(runners::Task::Evict);
  std::vector<double> W;
  for (const features::FeatureDef &D : TI.Features) {
    // Per-column features of the compiler; the mask is bound for legality by the policy.
    if (D.Shape != std::vector<int64_t>{1, 33} || llvm::StringRef(D.Name) == "mask" ||
        D.From != features::Origin::Compiler)
      continue;
    M.Inputs.push_back(features::specOf(D, 0));
    W.push_back(llvm::StringRef(D.Name) == "use_def_density" ? -1.0 : 0.0);
  }
  for (const features::FeatureDef &D : TI.Features)
    if (D.From == features::Origin::Compiler)
      M.FeatureSet.push_back(features::specOf(D, 0));
  M.FeatureSetVersion = features::featureSetVersion(runners::Task::Evict, M.FeatureSet);
  M.Norms.assign(M.Inputs.size(), runners::Normalization{});
  M.Layers.push_back({unsigned(W.size()), 1, W, {0.0}});
  return M;
}

runners::ModelFile evictStartMLP(const std::vector<features::TensorSpec> &Inputs,
                                 const std::vector<unsigned> &Hidden,
                                 const std::vector<double> &Spread, uint64_t Seed) {
  runners::ModelFile M = evictStartModel();
  M.Kind = runners::ModelKind::MLP;
  M.Inputs = Inputs;
  // The workbench's features it reads (the embeddings) join the compiler's in its feature set.
  for (const features::TensorSpec &S : Inputs)
    for (const features::FeatureDef &D : features::taskInfo(runners::Task::Evict).Features)
      if (D.From == features::Origin::Workbench && S.Name == D.Name)
        M.FeatureSet.push_back(S);
  M.FeatureSetVersion = features::featureSetVersion(runners::Task::Evict, M.FeatureSet);
  M.Norms.assign(M.Inputs.size(), runners::Normalization{});
  // Where use_def_density sits in the input vector (per-column inputs take one place).
  size_t Density = 0, Width = 0;
  for (const features::TensorSpec &S : Inputs) {
    if (S.Name == "use_def_density")
      Density = Width;
    Width += S.Shape == std::vector<int64_t>{1, 33} ? 1 : S.elementCount();
  }
  learn::Rng G(Seed * 0x9E3779B97F4A7C15ull + 17);
  M.Layers.clear();
  size_t In = Width;
  for (size_t L = 0; L <= Hidden.size(); ++L) {
    const bool Last = L == Hidden.size();
    const size_t Out = Last ? 1 : Hidden[L];
    runners::ModelFile::Layer Ly{unsigned(In), unsigned(Out), std::vector<double>(In * Out, 0.0),
                                 std::vector<double>(Out, 0.0)};
    for (size_t O = 0; O < Out; ++O)
      for (size_t J = 0; J < In; ++J) {
        double &W = Ly.Weight[O * In + J];
        if (Last)
          W = J == 0 ? -1.0 : 0.0; // the density's unit alone decides at the start
        else if (O == 0)
          W = J == (L == 0 ? Density : 0) ? 1.0 : 0.0; // relu(use_def_density), carried on
        else if (L > 0 && J == 0)
          W = 0; // no unit but the density's reads the density's unit
        else
          W = learn::normal(G) / std::sqrt(double(In)) /
              (L == 0 && J < Spread.size() && Spread[J] > 0 ? Spread[J] : 1.0);
      }
    M.Layers.push_back(std::move(Ly));
    In = Out;
  }
  return M;
}

namespace {

/// Rank 0's training modules on every rank: only rank 0 knows which baselines failed, and
/// every rank must sample the same modules.
llvm::Error shareModules(const support::RunSettings &Run, std::vector<TuneModule> &Tune) {
  support::WireWriter W;
  W.num<uint64_t>(Tune.size());
  for (const TuneModule &M : Tune) {
    W.bytes(M.Path);
    W.num<double>(M.Baseline);
    W.num<uint64_t>(M.Decisions);
  }
  llvm::Expected<std::string> B = corpus::share(Run.Dist, W.take(), Run.CancelFd);
  if (!B)
    return B.takeError();
  support::WireReader In(*B);
  std::vector<TuneModule> Out(size_t(std::min<uint64_t>(In.num<uint64_t>(), B->size())));
  for (TuneModule &M : Out) {
    M.Path = In.bytes();
    M.Baseline = In.num<double>();
    M.Decisions = size_t(In.num<uint64_t>());
  }
  if (!In.ok())
    return support::makeError("a malformed message from rank 0");
  Tune = std::move(Out);
  return llvm::Error::success();
}

} // namespace

/// The error of a side of the split on which no module compiled, naming the first cause.
llvm::Error everyModuleFailed(llvm::StringRef Side, const std::vector<EvalModule> &Modules) {
  auto First = llvm::find_if(Modules, [](const EvalModule &M) { return !M.Error.empty(); });
  return support::makeError(llvm::formatv("every one of the {0} {1} modules failed{2}{3}",
                                          Modules.size(), Side,
                                          First != Modules.end() ? "; the first: " : "",
                                          First != Modules.end() ? First->Error : "")
                                .str());
}

llvm::Expected<std::vector<TuneModule>> evictTrainingModules(const std::vector<std::string> &Paths,
                                                             const CompileSetup &EC) {
  std::vector<EvalModule> Train = measureBaselines(Paths, EC, runners::Task::Evict);
  std::vector<TuneModule> Tune;
  for (const EvalModule &M : Train)
    if (M.Error.empty())
      Tune.push_back({M.Path, M.Baseline, 1});
  if (llvm::Error E = shareModules(EC.Run, Tune))
    return E;
  // Nothing to tune on is a failure, not a model tuned on nothing (with descriptors exhausted
  // every compile failed, and a model and a "0 modules" report were written).
  if (Tune.empty() && !Paths.empty() && !support::cancelled(EC.Run.CancelFd))
    return everyModuleFailed("training", Train);
  return Tune;
}

llvm::Expected<features::DatasetTable>
evictObservations(const runners::ModelFile &Start, const std::vector<TuneModule> &Tune,
                  size_t Modules, const ir2vec::EmbeddingChoice &Embeddings,
                  const CompileSetup &EC) {
  llvm::Expected<support::TempDir> D = support::TempDir::create("ir2vec-finetune");
  if (!D)
    return D.takeError();
  const std::string StartFile = D->file("start.h5"), Data = D->file("observations.h5");
  if (llvm::Error E = runners::writeModelFile(StartFile, Start))
    return E;
  CollectConfig CC;
  CC.T = runners::Task::Evict;
  CC.Policy.Name = runners::kindName(Start.Kind).str();
  CC.Policy.ModelPath = StartFile;
  CC.Policy.LoadModel = runners::cachingModelLoader();
  CC.Embeddings = Embeddings;
  CC.Tools = EC.Tools;
  CC.Run = EC.Run;
  CC.Run.ShowProgress = false;
  CC.Run.Report = [](const support::Diagnostic &) {}; // a sample's failures are ES's to report
  std::vector<std::string> Sample; // spread evenly over the modules
  const size_t K = std::min(Tune.size(), Modules);
  for (size_t I = 0; I < K; ++I)
    Sample.push_back(Tune[I * Tune.size() / K].Path);
  llvm::Expected<CollectSummary> CS = collect(Sample, Data, CC);
  if (!CS)
    return CS.takeError();
  if (!CS->Rows)
    return features::DatasetTable();
  return features::readDataset(Data);
}

llvm::Expected<FineTuneResult> tuneEvictPolicy(const runners::ModelFile &Start,
                                               const std::vector<TuneModule> &Tune,
                                               const features::DatasetTable &Observations,
                                               const FineTuneConfig &C) {
  if (Tune.empty()) {
    FineTuneResult R;
    R.Model = Start;
    return R;
  }
  return fineTune(Start, Tune, Observations, C);
}

} // namespace wb::mlgo
