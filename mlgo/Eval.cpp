#include "mlgo/Eval.h"

#include "corpus/H5.h"
#include "mlgo/ExplorationFile.h"
#include "runners/Models.h"
#include "corpus/OrderedPipeline.h"
#include "features/Augment.h"
#include "learn/Random.h"
#include "support/JSON.h"
#include "support/Files.h"
#include "support/Process.h"
#include "support/Progress.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <limits>
#include <map>
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

namespace {

// A module's measurement as it travels from a rank to rank 0 of an MPI run.
void encodeMeasured(const EvalModule &M, support::WireWriter &W) {
  W.bytes(M.Error);
  W.num<double>(M.Baseline);
  W.num<double>(M.Policy);
  W.num<uint64_t>(M.Decisions);
}

llvm::Expected<EvalModule> decodeMeasured(support::WireReader &In) {
  EvalModule M;
  M.Error = In.bytes();
  M.Baseline = In.num<double>();
  M.Policy = In.num<double>();
  M.Decisions = size_t(In.num<uint64_t>());
  return M;
}

/// Runs Measure on every module with C.Run.Jobs workers (on every rank of C.Run.Dist), reporting
/// failures in input order. A pass measures some fields (the baseline, or the policy's size and
/// decisions); rank 0 keeps what it knew of the others (another rank knows only the paths).
void measureAll(std::vector<EvalModule> &Modules, const EvalRunConfig &C, const char *What,
                const std::function<void(EvalModule &, const support::TempDir &)> &Measure) {
  support::Progress P(What, Modules.size(), C.Run.ShowProgress);
  corpus::OrderedPipeline<EvalModule> Pipe(C.Run.Jobs, 2 * C.Run.Jobs);
  corpus::Spread<EvalModule> Sp;
  Sp.Dist = C.Run.Dist;
  Sp.Encode = encodeMeasured;
  Sp.Decode = decodeMeasured;
  // A module that failed already is not measured again (rank 0 alone knows it failed).
  Sp.Cached = [&](size_t I) -> std::optional<EvalModule> {
    if (Modules[I].Error.empty())
      return std::nullopt;
    return Modules[I];
  };
  size_t Done = 0;
  llvm::Error E = Pipe.run(
      0, Modules.size(),
      [&](size_t I) {
        EvalModule M = Modules[I];
        llvm::Expected<support::TempDir> D = support::TempDir::create("ir2vec-eval");
        if (!D)
          M.Error = llvm::toString(D.takeError());
        else
          Measure(M, *D);
        return M;
      },
      [&](size_t I, EvalModule &&M) -> llvm::Error {
        EvalModule &Into = Modules[I];
        if (!M.Error.empty() && Into.Error.empty()) {
          P.clear();
          C.Run.Report({Diagnostic::Error, support::aboutFile(Into.Path, M.Error)});
          Into.Error = M.Error;
        }
        if (M.Baseline >= 0)
          Into.Baseline = M.Baseline;
        if (M.Policy >= 0) {
          Into.Policy = M.Policy;
          Into.Decisions = M.Decisions;
        }
        P.update(++Done);
        return llvm::Error::success();
      },
      Sp);
  llvm::consumeError(std::move(E)); // the consumer never fails
}

} // namespace

/// The measure of a compilation: its .text, or (register allocation) its static cost.
static double measureOf(runners::Task T, const Compiled &R) {
  return T == runners::Task::Inline ? double(R.TextSize) : features::totalCost({}, R.Regalloc);
}

std::vector<EvalModule> measureBaselines(const std::vector<std::string> &Paths,
                                         const EvalRunConfig &C, runners::Task T) {
  std::vector<EvalModule> Modules;
  for (const std::string &P : Paths)
    Modules.push_back({P, "", -1, -1, 0, ""});
  measureAll(Modules, C, "baseline", [&](EvalModule &M, const support::TempDir &D) {
    llvm::Expected<Compiled> R = compileModule(M.Path, C.Tools, nullptr, D, "oz", C.Run.CancelFd,
                                               T != runners::Task::Inline);
    if (!R)
      M.Error = llvm::toString(R.takeError());
    else
      M.Baseline = measureOf(T, *R);
  });
  return Modules;
}

void measurePolicy(std::vector<EvalModule> &Modules, const runners::SessionConfig &Session,
                   const std::optional<std::string> &Embeddings, const EvalRunConfig &C) {
  // The one read of the model file, before the workers start (the loader caches it): a read
  // is isolated in a forked child, and a fork while other threads allocate can leave the child
  // waiting for a lock no thread of it will release (AddressSanitizer's allocator: the
  // benchmark test hung there).
  if (!Session.MakePolicy && Session.Policy.LoadModel &&
      !runners::modelFileOf(Session.Policy).empty())
    if (auto P = runners::makePolicy(Session.T, Session.Policy); !P) {
      const std::string Why = llvm::toString(P.takeError());
      C.Run.Report({Diagnostic::Error, Why});
      for (EvalModule &M : Modules)
        if (M.Error.empty())
          M.Error = Why;
      return;
    }
  measureAll(Modules, C, "modules", [&](EvalModule &M, const support::TempDir &D) {
    runners::SessionConfig S = Session;
    if (Embeddings)
      S.Augment = sessionAugmenter(S.T, *Embeddings, M.Path);
    const bool Costs = S.T != runners::Task::Inline;
    if (Costs) {
      S.Costs = features::RegallocWeights{};
      S.ReadRemarks = features::readRegallocRemarks;
    }
    llvm::Expected<Compiled> R =
        compileModule(M.Path, C.Tools, &S, D, "policy", C.Run.CancelFd, Costs);
    if (!R) {
      M.Error = llvm::toString(R.takeError());
      return;
    }
    M.Policy = measureOf(S.T, *R);
    M.Decisions = R->SessionLog.Observations.size();
  });
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

llvm::Error attachBest(std::vector<EvalModule> &Modules, const std::string &Exploration) {
  llvm::Expected<ExplorationFile> X = readExploration(Exploration);
  if (!X)
    return X.takeError();
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

llvm::json::Object evaluationJSON(const EvalJob &J, const CorpusSplit &S, const EvalRunConfig &C,
                                  const std::vector<EvalModule> &Modules, const EvalSummary &Sum,
                                  const std::vector<std::string> &Excluded) {
  llvm::json::Array Rows;
  for (const EvalModule &M : Modules) {
    auto SHA = support::sha256OfFile(M.Path);
    Rows.push_back(llvm::json::Object{{"path", M.Path},
                                      {"sha256", SHA ? *SHA : llvm::toString(SHA.takeError())},
                                      {"command", C.Tools.describe(M.Path)},
                                      {"baseline_text_size", M.Baseline},
                                      {"policy_text_size", M.Policy},
                                      {"decisions", int64_t(M.Decisions)},
                                      {"best_text_size", M.Best},
                                      {"package", M.Package},
                                      {"error", M.Error}});
  }
  llvm::json::Array ExcludedJ;
  for (const std::string &K : Excluded)
    ExcludedJ.push_back(K);
  llvm::json::Object Policy{{"name", J.PolicyLabel}};
  if (!J.ModelPath.empty()) {
    auto SHA = support::sha256OfFile(J.ModelPath);
    Policy["model"] = J.ModelPath;
    Policy["model_sha256"] = SHA ? *SHA : llvm::toString(SHA.takeError());
  }
  return llvm::json::Object{
      {"schema", EvalSchema},
      {"manifest",
       llvm::json::Object{
           {"llvm_version", WB_LLVM_VERSION},
           {"tool_version", WB_VERSION},
           {"opt", C.Tools.Opt + " " + llvm::join(C.Tools.OptArgs, " ") + " MODULE -o X.bc"},
           {"llc", C.Tools.Llc + " " + llvm::join(C.Tools.LlcArgs, " ") + " -filetype=obj X.bc"},
           {"compile", support::nameOf<CompileMode>(CompileModeNames, C.Tools.Mode)},
           {"clang", C.Tools.Clang},
           {"text", ".text and .text.* section bytes of the object"},
           {"policy", std::move(Policy)},
           {"protocol", support::nameOf<Protocol>(ProtocolNames, J.Proto)},
           {"split", J.Proto == Protocol::Split ? llvm::json::Value(S.toJSON()) : nullptr},
           {"side", J.Proto == Protocol::Split ? (J.TestSide ? "test" : "train") : "all"},
           {"excluded_packages", std::move(ExcludedJ)},
           {"exploration", J.Exploration},
           {"bootstrap", llvm::json::Object{{"resamples", 1000}, {"seed", int64_t(J.Seed)}}}}},
      {"summary", summaryJSON(Sum)},
      {"packages", packagesJSON(Sum)},
      {"modules", std::move(Rows)}};
}

llvm::Expected<support::Outcome> runEvaluation(const EvalJob &J, const EvalRunConfig &C) {
  if (J.JSONOutput.empty())
    return support::usageError("eval needs an output: -o REPORT.json ('-' = standard output)");
  for (const std::string &Out : {J.JSONOutput, J.HDF5Output})
    if (!Out.empty() && !C.Run.Dist.serving())
      if (llvm::Error E = support::checkOutputPath(Out))
        return E;
  // The transfer protocol judges every module, keyed by package, of the packages the model
  // was not trained on; the split protocol one side of a split.
  SplitOptions SO = J.Split;
  if (J.Proto == Protocol::Transfer)
    SO.TestFraction = 1;
  auto S = splitCorpus(J.Inputs, SO);
  if (!S)
    return S.takeError();
  {
    // A policy that cannot be made fails once here, not once per module.
    auto P = J.Session.MakePolicy ? J.Session.MakePolicy() : runners::makePolicy(J.Session.T, J.Session.Policy);
    if (!P)
      return P.takeError();
  }
  std::vector<std::string> Excluded;
  if (J.Proto == Protocol::Transfer) {
    const std::string Model = J.Session.MakePolicy ? J.ModelPath : runners::modelFileOf(J.Session.Policy);
    if (!Model.empty()) {
      auto Seen = trainingPackagesOf(Model);
      if (!Seen)
        return Seen.takeError();
      std::set<std::string> SeenSet(Seen->begin(), Seen->end());
      for (size_t I = 0; I < S->Modules.size(); ++I)
        if (SeenSet.count(S->Keys[I])) {
          S->Test[I] = false;
          if (Excluded.empty() || Excluded.back() != S->Keys[I])
            Excluded.push_back(S->Keys[I]);
        }
      std::sort(Excluded.begin(), Excluded.end());
      Excluded.erase(std::unique(Excluded.begin(), Excluded.end()), Excluded.end());
      if (!llvm::is_contained(S->Test, true))
        return support::makeError("the model " + Model + " was trained on every package of "
                                  "this corpus (" + llvm::join(Excluded, ", ") +
                                  "): nothing is left to judge it on");
      if (!Excluded.empty())
        C.Run.Report({Diagnostic::Note, "left out the packages the model was trained on: " +
                                        llvm::join(Excluded, ", ")});
    }
  }
  const bool Side = J.Proto == Protocol::Transfer ? true : J.TestSide;
  std::vector<EvalModule> Modules = measureBaselines(S->modules(Side), C);
  const std::vector<std::string> Keys = S->keysOf(Side);
  for (size_t I = 0; I < Modules.size(); ++I)
    Modules[I].Package = Keys[I];
  if (!J.Exploration.empty() && !C.Run.Dist.serving())
    if (llvm::Error E = attachBest(Modules, J.Exploration))
      return E;
  if (support::cancelled(C.Run.CancelFd))
    return support::interruptedError("interrupted; no output written");
  measurePolicy(Modules, J.Session, J.Embeddings, C);
  if (C.Run.Dist.serving())
    return support::Outcome::complete(); // rank 0 reports the run
  if (support::cancelled(C.Run.CancelFd))
    return support::interruptedError("interrupted; no output written");
  const EvalSummary Sum = summarize(Modules, J.Seed);
  // "reduction 0.00 %" from a policy that was never asked is not a measurement: say so.
  if (Sum.Failed < Sum.Modules &&
      llvm::all_of(Modules, [](const EvalModule &M) { return !M.Error.empty() || M.Decisions == 0; }))
    C.Run.Report({Diagnostic::Warning, noDecisionsWarning(C.Tools)});
  if (Sum.Failed == Sum.Modules)
    return Sum.Modules == 1 ? support::reportedFailure()
                            : support::makeError("none of the " + llvm::Twine(Sum.Modules) +
                                                 " modules could be evaluated");
  llvm::json::Object Report = evaluationJSON(J, *S, C, Modules, Sum, Excluded);
  // Too few packages or too wide an interval: the numbers stand, the answer is not one.
  std::string NotMeaningful;
  if (Sum.Packages.size() < MinTrainingPackages)
    NotMeaningful = "judged on " + std::to_string(Sum.Packages.size()) + " package" +
                    (Sum.Packages.size() == 1 ? "" : "s") + " (at least " +
                    std::to_string(MinTrainingPackages) + " are needed)";
  else if (Sum.High - Sum.Low > MaxMeaningfulInterval)
    NotMeaningful = llvm::formatv("the 95% interval spans {0:P2} (more than {1:P0})", Sum.High - Sum.Low,
                                  MaxMeaningfulInterval)
                        .str();
  if (!NotMeaningful.empty())
    Report["not_meaningful"] = NotMeaningful;
  // The JSON and HDF5 reports appear together or not at all.
  support::OutputGroup Group;
  if (!J.HDF5Output.empty()) {
    auto HDF5Temp = Group.add(J.HDF5Output);
    if (!HDF5Temp)
      return HDF5Temp.takeError();
    std::string Manifest;
    llvm::raw_string_ostream(Manifest) << llvm::json::Value(llvm::json::Object(*Report.getObject("manifest")));
    if (llvm::Error E = corpus::h5::writeFileAtomically(*HDF5Temp, [&](H5::H5File &F) {
          namespace h5 = corpus::h5;
          h5::writeAttr(F, "schema", std::string(EvalSchema));
          h5::writeAttr(F, "manifest", Manifest);
          h5::writeAttr(F, "reduction", Sum.Reduction);
          h5::writeAttr(F, "ci95_low", Sum.Low);
          h5::writeAttr(F, "ci95_high", Sum.High);
          h5::writeAttr(F, "ci95_packages_low", Sum.PackageLow);
          h5::writeAttr(F, "ci95_packages_high", Sum.PackageHigh);
          std::vector<std::string> Paths, Errors, Keys;
          std::vector<double> Base, Pol, Best;
          for (const EvalModule &M : Modules) {
            Paths.push_back(M.Path);
            Errors.push_back(M.Error);
            Keys.push_back(M.Package);
            Base.push_back(double(M.Baseline));
            Pol.push_back(double(M.Policy));
            Best.push_back(double(M.Best));
          }
          H5::Group G = h5::createGroup(F, "modules");
          h5::writeStrings(G, "path", Paths);
          h5::writeStrings(G, "error", Errors);
          h5::writeStrings(G, "package", Keys);
          h5::writeMatrix(G, "baseline_text_size", Base.data(), Base.size(), 1);
          h5::writeMatrix(G, "policy_text_size", Pol.data(), Pol.size(), 1);
          h5::writeMatrix(G, "best_text_size", Best.data(), Best.size(), 1);
        }))
      return E;
  }
  std::string JSONPath = J.JSONOutput;
  if (JSONPath != "-") {
    auto Temp = Group.add(JSONPath);
    if (!Temp)
      return Temp.takeError();
    JSONPath = *Temp;
  }
  if (llvm::Error E = support::writeFileAtomically(JSONPath, [&](llvm::raw_ostream &OS) {
        OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Report))) << "\n";
      }))
    return E;
  if (llvm::Error E = Group.commit())
    return E;
  std::string Worst;
  if (Sum.Worst >= 0)
    Worst = llvm::formatv("; worst package {0} {1:P2}", Sum.Packages[size_t(Sum.Worst)].Key,
                          Sum.Packages[size_t(Sum.Worst)].Reduction)
                .str();
  if (Sum.Room.Modules)
    Worst += llvm::formatv("; headroom {0:P2}, captured {1:P1}", Sum.Room.Headroom,
                           Sum.Room.Captured)
                 .str();
  C.Run.Report({Diagnostic::Note,
            llvm::formatv("{0} on {1} {2} modules: .text {3} bytes vs -Oz {4}: reduction "
                          "{5:P2} (95% interval {6:P2} to {7:P2}; over {10} packages {11:P2} to "
                          "{12:P2}); {8} grow, {9} shrink{13}",
                          J.PolicyLabel, Sum.Modules - Sum.Failed,
                          J.Proto == Protocol::Transfer ? "unseen"
                          : J.TestSide                  ? "held-out"
                                                        : "training",
                          int64_t(Sum.PolicyTotal), int64_t(Sum.BaselineTotal), Sum.Reduction,
                          Sum.Low, Sum.High,
                          Sum.Grown, Sum.Shrunk, Sum.Packages.size(), Sum.PackageLow,
                          Sum.PackageHigh, Worst)
                .str()});
  if (!NotMeaningful.empty())
    C.Run.Report({Diagnostic::Warning, "this evaluation is not meaningful: " + NotMeaningful});
  if (Sum.Failed)
    return support::Outcome::partial(std::to_string(Sum.Failed) + " of " +
                                     std::to_string(Sum.Modules) +
                                     " modules failed and were skipped");
  return support::Outcome::complete();
}

} // namespace wb::mlgo
