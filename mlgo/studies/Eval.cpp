#include "mlgo/studies/Eval.h"

#include "corpus/H5.h"
#include "mlgo/pipelines/ExplorationFile.h"
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

using support::Diagnostic;

llvm::json::Object evaluationJSON(const EvalJob &J, const CorpusSplit &S, const CompileSetup &C,
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
  if (J.Embeddings)
    Policy["embeddings"] = llvm::json::Object{{"vocabulary", J.Embeddings.spelling()},
                                              {"kind", ir2vec::kindName(J.Embeddings.kind())},
                                              {"digest", J.Embeddings.digest()}};
  if (!J.ModelPath.empty()) {
    auto SHA = support::sha256OfFile(J.ModelPath);
    Policy["model"] = J.ModelPath;
    Policy["model_sha256"] = SHA ? *SHA : llvm::toString(SHA.takeError());
  }
  const bool Split = J.Plan.Proto == JudgingProtocol::Split;
  llvm::json::Object Manifest{
      {"opt", C.Tools.optCommand() + " MODULE -o X.bc"},
      {"llc", C.Tools.llcCommand() + " X.bc"},
      {"compile", support::nameOf<CompileMode>(CompileModeNames, C.Tools.Mode)},
      {"clang", C.Tools.Clang},
      {"text", ".text and .text.* section bytes of the object"},
      {"policy", std::move(Policy)},
      {"protocol", support::nameOf<JudgingProtocol>(JudgingProtocolNames, J.Plan.Proto)},
      {"split", Split ? llvm::json::Value(S.toJSON()) : nullptr},
      {"side", Split ? (J.TestSide ? "test" : "train") : "all"},
      {"excluded_packages", std::move(ExcludedJ)},
      {"exploration", J.Exploration},
      {"bootstrap", bootstrapJSON(J.Seed)}};
  addVersions(Manifest);
  return llvm::json::Object{
      {"schema", EvalSchema},
      {"manifest", std::move(Manifest)},
      {"summary", summaryJSON(Sum)},
      {"packages", packagesJSON(Sum)},
      {"modules", std::move(Rows)}};
}

namespace {

/// Too few packages or too wide an interval: the numbers stand, the answer is not one ("" when
/// it is).
std::string notMeaningful(const EvalSummary &Sum) {
  if (Sum.Packages.size() < MinTrainingPackages)
    return "judged on " + std::to_string(Sum.Packages.size()) + " package" +
           (Sum.Packages.size() == 1 ? "" : "s") + " (at least " +
           std::to_string(MinTrainingPackages) + " are needed)";
  if (Sum.High - Sum.Low > MaxMeaningfulInterval)
    return llvm::formatv("the 95% interval spans {0:P2} (more than {1:P0})", Sum.High - Sum.Low,
                         MaxMeaningfulInterval)
        .str();
  return "";
}

/// The report as HDF5 (schema, manifest, summary attributes, every module) into Path.
llvm::Error writeEvaluationHDF5(const std::string &Path, const llvm::json::Object &Report,
                                const EvalSummary &Sum, const std::vector<EvalModule> &Modules) {
  std::string Manifest;
  llvm::raw_string_ostream(Manifest) << llvm::json::Value(llvm::json::Object(*Report.getObject("manifest")));
  return corpus::h5::writeFileAtomically(Path, [&](H5::H5File &F) {
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
  });
}

/// The JSON report (JSONOutput, "-": standard output) and the HDF5 one, together or not at all.
llvm::Error writeEvaluation(const EvalJob &J, llvm::json::Object Report, const EvalSummary &Sum,
                            const std::vector<EvalModule> &Modules) {
  support::OutputGroup Group;
  if (!J.HDF5Output.empty()) {
    auto HDF5Temp = Group.add(J.HDF5Output);
    if (!HDF5Temp)
      return HDF5Temp.takeError();
    if (llvm::Error E = writeEvaluationHDF5(*HDF5Temp, Report, Sum, Modules))
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
  return Group.commit();
}

/// The line that says what was measured.
std::string evaluationNote(const EvalJob &J, const EvalSummary &Sum) {
  std::string Worst;
  if (Sum.Worst >= 0)
    Worst = llvm::formatv("; worst package {0} {1:P2}", Sum.Packages[size_t(Sum.Worst)].Key,
                          Sum.Packages[size_t(Sum.Worst)].Reduction)
                .str();
  if (Sum.Room.Modules)
    Worst += llvm::formatv("; headroom {0:P2}, captured {1:P1}", Sum.Room.Headroom,
                           Sum.Room.Captured)
                 .str();
  return llvm::formatv("{0} on {1} {2} modules: .text {3} bytes vs -Oz {4}: reduction "
                       "{5:P2} (95% interval {6:P2} to {7:P2}; over {10} packages {11:P2} to "
                       "{12:P2}); {8} grow, {9} shrink{13}",
                       J.PolicyLabel, Sum.Modules - Sum.Failed,
                       J.Plan.Proto == JudgingProtocol::Transfer ? "unseen"
                       : J.TestSide                       ? "held-out"
                                                          : "training",
                       int64_t(Sum.PolicyTotal), int64_t(Sum.BaselineTotal), Sum.Reduction,
                       Sum.Low, Sum.High, Sum.Grown, Sum.Shrunk, Sum.Packages.size(),
                       Sum.PackageLow, Sum.PackageHigh, Worst)
      .str();
}

} // namespace

llvm::Expected<support::Outcome> runEvaluation(const EvalJob &J, const CompileSetup &B,
                                               const std::vector<std::string> &Extra) {
  if (J.JSONOutput.empty())
    return support::usageError("eval needs an output: -o REPORT.json ('-' = standard output)");
  llvm::Expected<Prepared> P = prepare(J.Plan, B);
  if (!P)
    return P.takeError();
  if (llvm::Error E = checkOutputs({J.JSONOutput, J.HDF5Output}, J.Plan, *P, Extra))
    return E;
  const CompileSetup &C = P->Setup;
  {
    // A policy that cannot be made fails once here, not once per module.
    auto Made = J.Session.MakePolicy ? J.Session.MakePolicy() : runners::makePolicy(J.Session.T, J.Session.Policy);
    if (!Made)
      return Made.takeError();
  }
  const std::string ModelFile =
      J.Session.MakePolicy ? J.ModelPath : runners::modelFileOf(J.Session.Policy);
  // Judged with the embeddings the model was made with (its recorded digest), or refused.
  if (J.Embeddings && !ModelFile.empty()) {
    llvm::Expected<runners::ModelFile> M = runners::readModelFile(ModelFile);
    if (!M)
      return M.takeError();
    if (llvm::Error E = checkModelEmbeddings(*M, ModelFile, J.Embeddings))
      return E;
  }
  // The transfer protocol judges every package the model was not trained on; the split
  // protocol one side of a split.
  CorpusSplit &S = P->Split;
  Exclusion X;
  if (J.Plan.Proto == JudgingProtocol::Transfer) {
    auto Got = transferExclusion(ModelFile, S.Keys);
    if (!Got)
      return Got.takeError();
    X = std::move(*Got);
    for (size_t I = 0; I < S.Modules.size(); ++I)
      S.Test[I] = S.Test[I] && !X.excludes(S.Keys[I]);
    if (!X.Packages.empty())
      C.Run.Report({Diagnostic::Note, "left out the packages the model was trained on: " +
                                          llvm::join(X.Packages, ", ")});
  }
  std::vector<EvalModule> Modules = P->baselines(J.Plan.Proto == JudgingProtocol::Transfer || J.TestSide);
  if (!J.Exploration.empty() && !C.Run.Dist.serving())
    if (llvm::Error E = attachBest(Modules, J.Exploration, C.Run.Report))
      return E;
  if (support::cancelled(C.Run.CancelFd))
    return support::interruptedError("interrupted; no output written");
  Verdict V = judge(std::move(Modules), {J.Session, J.Embeddings}, C, J.Seed);
  if (C.Run.Dist.serving())
    return support::Outcome::complete(); // rank 0 reports the run
  if (support::cancelled(C.Run.CancelFd))
    return support::interruptedError("interrupted; no output written");
  const EvalSummary &Sum = V.Summary;
  // "reduction 0.00 %" from a policy that was never asked is not a measurement: say so.
  if (Sum.Failed < Sum.Modules &&
      llvm::all_of(V.Modules, [](const EvalModule &M) { return !M.Error.empty() || M.Decisions == 0; }))
    C.Run.Report({Diagnostic::Warning, noDecisionsWarning(C.Tools)});
  if (Sum.Failed == Sum.Modules)
    return Sum.Modules == 1 ? support::reportedFailure()
                            : support::makeError("none of the " + llvm::Twine(Sum.Modules) +
                                                 " modules could be evaluated");
  llvm::json::Object Report = evaluationJSON(J, S, C, V.Modules, Sum, X.Packages);
  const std::string NotMeaningful = notMeaningful(Sum);
  if (!NotMeaningful.empty())
    Report["not_meaningful"] = NotMeaningful;
  if (llvm::Error E = writeEvaluation(J, std::move(Report), Sum, V.Modules))
    return E;
  C.Run.Report({Diagnostic::Note, evaluationNote(J, Sum)});
  if (!NotMeaningful.empty())
    C.Run.Report({Diagnostic::Warning, "this evaluation is not meaningful: " + NotMeaningful});
  if (Sum.Failed)
    return support::Outcome::partial(std::to_string(Sum.Failed) + " of " +
                                     std::to_string(Sum.Modules) +
                                     " modules failed and were skipped");
  return support::Outcome::complete();
}

} // namespace wb::mlgo
