#include "mlgo/studies/Judge.h"

#include "corpus/OrderedPipeline.h"
#include "features/Augment.h"
#include "features/RegallocScore.h"
#include "learn/Random.h"
#include "mlgo/pipelines/ExplorationFile.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/JSON.h"
#include "support/Process.h"
#include "support/Progress.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace wb::mlgo {

using support::numberOrNull;
using support::withKeys;

using support::Diagnostic;

namespace {

double reductionOf(double Base, double Policy) { return Base > 0 ? 1 - Policy / Base : 0.0; }

/// The 95% percentile interval of Draw() over Resamples draws.
template <typename DrawFn>
std::pair<double, double> percentileInterval(unsigned Resamples, DrawFn Draw) {
  std::vector<double> R(Resamples);
  for (double &X : R)
    X = Draw();
  std::sort(R.begin(), R.end());
  return {R[size_t(0.025 * (Resamples - 1) + 0.5)], R[size_t(0.975 * (Resamples - 1) + 0.5)]};
}

} // namespace

void Headroom::add(const EvalModule &M) {
  if (M.Best < 0 || M.Baseline < 0 || M.Policy < 0 || !M.Error.empty())
    return;
  ++Modules;
  BaselineTotal += M.Baseline;
  PolicyTotal += M.Policy;
  BestTotal += M.Best;
}

void Headroom::finish() {
  Headroom = reductionOf(double(BaselineTotal), double(BestTotal));
  Captured = BaselineTotal > BestTotal
                 ? double(BaselineTotal - PolicyTotal) / double(BaselineTotal - BestTotal)
                 : std::numeric_limits<double>::quiet_NaN();
}

EvalSummary summarize(const std::vector<EvalModule> &Modules, uint64_t Seed,
                      unsigned Resamples) {
  EvalSummary S;
  std::vector<const EvalModule *> Ok;
  std::map<std::string, size_t> PackageIndex;
  for (const EvalModule &M : Modules) {
    ++S.Modules;
    if (!M.Error.empty() || M.Baseline < 0 || M.Policy < 0) {
      ++S.Failed;
      continue;
    }
    Ok.push_back(&M);
    S.BaselineTotal += M.Baseline;
    S.PolicyTotal += M.Policy;
    S.Grown += M.Policy > M.Baseline;
    S.Shrunk += M.Policy < M.Baseline;
    auto [It, New] = PackageIndex.try_emplace(M.Package, S.Packages.size());
    if (New) {
      S.Packages.emplace_back();
      S.Packages.back().Key = M.Package;
    }
    PackageSummary &P = S.Packages[It->second];
    ++P.Modules;
    P.BaselineTotal += M.Baseline;
    P.PolicyTotal += M.Policy;
    P.Grown += M.Policy > M.Baseline;
    P.Shrunk += M.Policy < M.Baseline;
    P.Room.add(M);
    S.Room.add(M);
  }
  for (size_t I = 0; I < S.Packages.size(); ++I) {
    PackageSummary &P = S.Packages[I];
    P.Reduction = reductionOf(double(P.BaselineTotal), double(P.PolicyTotal));
    P.Room.finish();
    if (S.Worst < 0 || P.Reduction < S.Packages[size_t(S.Worst)].Reduction)
      S.Worst = int(I);
  }
  S.Reduction = reductionOf(double(S.BaselineTotal), double(S.PolicyTotal));
  S.Room.finish();
  if (Ok.empty())
    return S;
  // Percentile bootstrap over modules: the unit the corpus is sampled in.
  learn::Rng G(Seed);
  std::tie(S.Low, S.High) = percentileInterval(Resamples, [&] {
    double Base = 0, Pol = 0;
    for (size_t K = 0; K < Ok.size(); ++K) {
      const EvalModule &M = *Ok[learn::below(G, uint32_t(Ok.size()))];
      Base += double(M.Baseline);
      Pol += double(M.Policy);
    }
    return reductionOf(Base, Pol);
  });
  // And over packages (a cluster bootstrap), with its own generator so that the module
  // interval stays what it was.
  learn::Rng GP(Seed ^ 0x9e3779b97f4a7c15ULL);
  std::tie(S.PackageLow, S.PackageHigh) = percentileInterval(Resamples, [&] {
    double Base = 0, Pol = 0;
    for (size_t K = 0; K < S.Packages.size(); ++K) {
      const PackageSummary &P = S.Packages[learn::below(GP, uint32_t(S.Packages.size()))];
      Base += double(P.BaselineTotal);
      Pol += double(P.PolicyTotal);
    }
    return reductionOf(Base, Pol);
  });
  return S;
}

llvm::Expected<std::vector<std::string>> trainingPackagesOf(const std::string &ModelFile) {
  llvm::Expected<runners::ModelFile> M = runners::readModelFile(ModelFile);
  if (!M)
    return M.takeError();
  std::vector<std::string> Keys;
  for (const auto &[K, V] : M->Provenance) {
    if (K != "split")
      continue;
    llvm::Expected<llvm::json::Value> J = llvm::json::parse(V);
    const llvm::json::Object *O = J ? J->getAsObject() : nullptr;
    const llvm::json::Array *A = O ? O->getArray("train_keys") : nullptr;
    if (!A) {
      if (!J)
        llvm::consumeError(J.takeError());
      return support::fileError(ModelFile, "provenance 'split' is not a split's JSON with "
                                           "train_keys");
    }
    for (const llvm::json::Value &E : *A)
      if (auto S = E.getAsString())
        Keys.push_back(S->str());
  }
  return Keys;
}

llvm::Error attachBest(std::vector<EvalModule> &Modules, const std::string &Exploration,
                       const support::DiagnosticHandler &Report) {
  llvm::Expected<ExplorationFile> X = readExploration(Exploration);
  if (!X)
    return X.takeError();
  // The best sizes are of the bytes explored: a module rewritten since has other headroom.
  const ModuleChanges Changes = changedModules(*X);
  if (!Changes.Changed.empty())
    return support::makeError(Changes.describe(Exploration, "explore them again (mlgo explore "
                                                            "--all) before measuring headroom"));
  if (Changes.Unchecked && Report)
    Report({Diagnostic::Warning,
            Exploration + ": made before explorations recorded their modules' SHA-256: its best "
                          "sizes are trusted to be of the modules as they are now"});
  // Matched by the file, not by how a path was typed: an exploration run from another
  // directory names the same modules differently.
  auto Real = [](const std::string &P) {
    llvm::SmallString<256> Out;
    return llvm::sys::fs::real_path(P, Out) ? P : std::string(Out);
  };
  std::map<std::string, int64_t> Best;
  for (const ModuleExploration &E : X->Modules)
    if (E.Error.empty() && E.BestSize >= 0)
      Best[Real(E.Path)] = E.BestSize;
  size_t Found = 0;
  for (EvalModule &M : Modules)
    if (auto It = Best.find(Real(M.Path)); It != Best.end()) {
      M.Best = It->second;
      ++Found;
    }
  if (Found == 0 && !Modules.empty())
    return support::fileError(Exploration, "explored none of the evaluated modules (an "
                                           "exploration of this corpus with --all gives the "
                                           "headroom of every module)");
  return llvm::Error::success();
}

namespace {

llvm::json::Object roomJSON(const Headroom &R) {
  return llvm::json::Object{{"modules", int64_t(R.Modules)},
                            {"baseline_text_size", R.BaselineTotal},
                            {"best_text_size", R.BestTotal},
                            {"headroom", R.Modules ? llvm::json::Value(R.Headroom) : nullptr},
                            {"captured", R.Modules ? numberOrNull(R.Captured) : nullptr}};
}

} // namespace

llvm::json::Array packagesJSON(const EvalSummary &Sum) {
  llvm::json::Array Packages;
  for (const PackageSummary &P : Sum.Packages)
    Packages.push_back(llvm::json::Object{{"package", P.Key},
                                          {"modules", int64_t(P.Modules)},
                                          {"grown", int64_t(P.Grown)},
                                          {"shrunk", int64_t(P.Shrunk)},
                                          {"baseline_text_size", P.BaselineTotal},
                                          {"policy_text_size", P.PolicyTotal},
                                          {"reduction", P.Reduction},
                                          {"headroom", roomJSON(P.Room)}});
  return Packages;
}

llvm::json::Object summaryJSON(const EvalSummary &Sum) {
  llvm::json::Object Worst;
  if (Sum.Worst >= 0) {
    const PackageSummary &W = Sum.Packages[size_t(Sum.Worst)];
    Worst = llvm::json::Object{{"package", W.Key}, {"reduction", W.Reduction},
                               {"modules", int64_t(W.Modules)}};
  }
  return llvm::json::Object{{"modules", int64_t(Sum.Modules)},
                            {"failed", int64_t(Sum.Failed)},
                            {"grown", int64_t(Sum.Grown)},
                            {"shrunk", int64_t(Sum.Shrunk)},
                            {"packages", int64_t(Sum.Packages.size())},
                            {"baseline_text_size", Sum.BaselineTotal},
                            {"policy_text_size", Sum.PolicyTotal},
                            {"reduction", Sum.Reduction},
                            {"ci95", llvm::json::Array{Sum.Low, Sum.High}},
                            {"ci95_packages", llvm::json::Array{Sum.PackageLow, Sum.PackageHigh}},
                            {"worst_package", Sum.Worst >= 0 ? llvm::json::Value(std::move(Worst))
                                                             : llvm::json::Value(nullptr)},
                            {"headroom", roomJSON(Sum.Room)}};
}

llvm::json::Object bootstrapJSON(uint64_t Seed) {
  return llvm::json::Object{{"resamples", int64_t(BootstrapResamples)}, {"seed", int64_t(Seed)}};
}

std::vector<EvalModule> Prepared::baselines(bool TestSide, runners::Task T) const {
  std::vector<EvalModule> Modules = measureBaselines(Split.modules(TestSide), Setup, T);
  const std::vector<std::string> Keys = Split.keysOf(TestSide);
  for (size_t I = 0; I < Modules.size(); ++I)
    Modules[I].Package = Keys[I];
  return Modules;
}

llvm::Expected<Prepared> prepare(const CorpusPlan &Plan, const CompileSetup &B) {
  Prepared P;
  P.SplitOpts = Plan.Split;
  auto Inputs = support::expandInputs(Plan.Corpus, B.Run.Report, &P.SplitOpts.Names);
  if (!Inputs)
    return Inputs.takeError();
  P.Inputs = std::move(*Inputs);
  // Under transfer every module is judged, keyed by its package; folds (or a model's own
  // training packages) say which are left out of what.
  if (Plan.Proto == JudgingProtocol::Transfer)
    P.SplitOpts.TestFraction = 1;
  auto S = splitCorpus(P.Inputs, P.SplitOpts);
  if (!S)
    return S.takeError();
  P.Split = std::move(*S);
  if (Plan.Proto == JudgingProtocol::Transfer && Plan.Folds) {
    auto F = foldsByPackage(P.Split.Keys, *Plan.Folds, Plan.Split.Seed);
    if (!F)
      return F.takeError();
    P.Folds = std::move(*F);
  }
  P.Setup = B;
  if (llvm::Error E = loadRecordedCommands(P.Setup.Tools, Plan.Corpus))
    return E;
  P.Setup.Tools.TimeoutSeconds = Plan.Timeout;
  return P;
}

std::vector<std::string> inputsOf(const CorpusPlan &Plan, const Prepared &P,
                                  const std::vector<std::string> &Extra) {
  std::vector<std::string> Inputs = P.Inputs;
  for (const std::string &A : Plan.Corpus)
    if (A.size() > 1 && A[0] == '@')
      Inputs.push_back(A.substr(1));
  Inputs.insert(Inputs.end(), Extra.begin(), Extra.end());
  return Inputs;
}

llvm::Error checkOutputs(const std::vector<std::string> &Outputs, const CorpusPlan &Plan,
                         const Prepared &P, const std::vector<std::string> &Extra) {
  if (llvm::Error E = support::checkOutputsAgainstInputs(Outputs, inputsOf(Plan, P, Extra)))
    return E;
  support::sweepStaleTemporaries(Outputs);
  return llvm::Error::success();
}

bool Exclusion::excludes(const std::string &Key) const {
  return std::binary_search(Packages.begin(), Packages.end(), Key);
}

llvm::Expected<Exclusion> transferExclusion(const std::string &ModelFile,
                                            const std::vector<std::string> &Keys) {
  Exclusion X;
  if (ModelFile.empty())
    return X;
  auto Seen = trainingPackagesOf(ModelFile);
  if (!Seen)
    return Seen.takeError();
  const std::set<std::string> SeenSet(Seen->begin(), Seen->end());
  const std::set<std::string> Present(Keys.begin(), Keys.end());
  std::set_intersection(SeenSet.begin(), SeenSet.end(), Present.begin(), Present.end(),
                        std::back_inserter(X.Packages));
  if (!Present.empty() && X.Packages.size() == Present.size())
    return support::makeError("the model " + ModelFile + " was trained on every package of "
                              "this corpus (" + llvm::join(X.Packages, ", ") +
                              "): nothing is left to judge it on");
  return X;
}

Verdict judge(std::vector<EvalModule> Judged, const Candidate &C, const CompileSetup &B, uint64_t Seed) {
  Verdict V;
  measurePolicy(Judged, C.Session, C.Embeddings, B);
  V.Summary = summarize(Judged, Seed);
  V.Modules = std::move(Judged);
  return V;
}

} // namespace wb::mlgo
