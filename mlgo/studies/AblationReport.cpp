// The renderers of an ablation study's result (mlgo/studies/Ablation.h): report.json, results.h5, the
// plots (gnuplot) and report.md. They compute nothing the study did not.
#include "mlgo/studies/Ablation.h"

#include "corpus/H5.h"
#include "support/JSON.h"
#include "support/Files.h"
#include "support/Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>

namespace wb::mlgo {

using support::numberOrNull;
using support::withKeys;

std::string percent(double X) {
  return std::isnan(X) ? std::string("–") : llvm::formatv("{0:f2}%", 100 * X).str();
}

namespace {

bool transfer(const AblationResult &R) { return R.Spec.Proto == JudgingProtocol::Transfer; }
bool evict(const AblationResult &R) { return R.Spec.T == features::Task::Evict; }

/// What a study measures, in the words of its reports.
struct Measure {
  const char *Title;    // "Held-out <Title>"
  const char *Baseline; // the HDF5 dataset of the judged modules' baselines
};
Measure measureOf(const AblationResult &R) {
  return evict(R) ? Measure{"register allocation cost reduction against the default advisor",
                            "baseline_cost"}
                  : Measure{".text reduction against -Oz", "baseline_text_size"};
}

std::string joinNumbers(llvm::ArrayRef<unsigned> V) {
  return llvm::join(llvm::map_range(V, [](unsigned X) { return std::to_string(X); }), ", ");
}

/// What the judged modules are, in words.
std::string judgedWhat(const AblationResult &R) {
  if (transfer(R))
    return llvm::formatv("all {0} modules of {1} packages, each fold of packages by models "
                         "trained on the other {2}",
                         R.Judged.size(), R.Split.TestKeys.size(), R.Folds->Count - 1)
        .str();
  return llvm::formatv("{0} held-out modules ({1})", R.Judged.size(),
                       llvm::join(R.Split.TestKeys, ", "))
      .str();
}

std::vector<std::pair<std::string, double>> sortedImportance(const AblationResult &R) {
  std::vector<std::pair<std::string, double>> Sorted = R.Importance;
  std::stable_sort(Sorted.begin(), Sorted.end(),
                   [](const auto &A, const auto &B) { return A.second > B.second; });
  return Sorted;
}

/// The first cells of an arm's row, common to both tasks' tables: name, features, vocabulary,
/// reduction and interval, difference to the reference and its interval, worst package.
std::string armCells(const AblationArm &A, const AblationArmResult &X, size_t AI) {
  const std::string Worst = X.Worst >= 0 ? X.PackageMeans[size_t(X.Worst)].first + " " +
                                               percent(X.PackageMeans[size_t(X.Worst)].second)
                                         : std::string("–");
  return "| `" + A.Name + "` | " + llvm::join(A.Groups, ", ") + " | " +
         armEmbeddingName(A) + " | " + percent(X.Pooled.Mean) + " | " +
         percent(X.Pooled.Low) + " to " + percent(X.Pooled.High) + " | " +
         (AI ? percent(X.Pooled.Diff) : std::string("–")) + " | " +
         (AI ? percent(X.Pooled.DiffLow) + " to " + percent(X.Pooled.DiffHigh) : std::string("–")) +
         " | " + Worst;
}

/// An eviction study's training settings as its report states them.
llvm::json::Object evictTrainingJSON(const AblationResult &R) {
  const EvictStudySettings &S = R.Spec.Evict;
  llvm::json::Array Hidden;
  for (unsigned H : S.Hidden)
    Hidden.push_back(int64_t(H));
  return llvm::json::Object{{"method", "es from the density rule (an MLP)"},
                            {"steps", int64_t(S.ES.Steps)},
                            {"pairs", int64_t(S.ES.Pairs)},
                            {"modules_per_step", int64_t(S.ES.ModulesPerStep)},
                            {"sigma", S.ES.Sigma},
                            {"learning_rate", S.ES.Optimizer.LearningRate},
                            {"hidden", std::move(Hidden)},
                            {"training_modules", int64_t(R.ExploredModules)}};
}

} // namespace

llvm::json::Object ablationJSON(const AblationResult &R) {
  const AblationSpec &Spec = R.Spec;
  llvm::json::Array ArmsJ;
  for (size_t AI = 0; AI < Spec.Arms.size(); ++AI) {
    const AblationArm &A = Spec.Arms[AI];
    const AblationArmResult &X = R.Arms[AI];
    llvm::json::Array Seeds, Groups, Packages;
    for (const std::string &G : A.Groups)
      Groups.push_back(G);
    for (size_t K = 0; K < Spec.Seeds.size(); ++K) {
      const EvalSummary &S = X.Summaries[K];
      llvm::json::Array Files;
      for (const std::string &F : X.Models[K])
        Files.push_back(F);
      Seeds.push_back(llvm::json::Object{{"seed", int64_t(Spec.Seeds[K])},
                                         {"model", X.Models[K].front()},
                                         {"models", std::move(Files)},
                                         {"reduction", S.Reduction},
                                         {"ci95", llvm::json::Array{S.Low, S.High}},
                                         {"ci95_packages", llvm::json::Array{S.PackageLow, S.PackageHigh}},
                                         {"grown", int64_t(S.Grown)},
                                         {"shrunk", int64_t(S.Shrunk)},
                                         {"failed", int64_t(S.Failed)},
                                         {"agreement", X.Agreement[K]},
                                         {"summary", summaryJSON(S)},
                                         {"packages", packagesJSON(S)}});
    }
    for (const auto &[K, V] : X.PackageMeans)
      Packages.push_back(llvm::json::Object{{"package", K}, {"reduction", V}});
    double Grown = 0, Agree = 0, PackageLow = 0, PackageHigh = 0;
    for (size_t K = 0; K < Spec.Seeds.size(); ++K) {
      const double N = double(Spec.Seeds.size());
      Grown += double(X.Summaries[K].Grown) / N;
      Agree += X.Agreement[K] / N;
      PackageLow += X.Summaries[K].PackageLow / N;
      PackageHigh += X.Summaries[K].PackageHigh / N;
    }
    llvm::json::Object O{{"name", A.Name},
                         {"features", std::move(Groups)},
                         {"vocabulary", embeddingSpelling(A.Vocab)},
                         {"counts", A.Vocab.counts()},
                         {"kind", ir2vec::kindName(A.Vocab ? A.Vocab.kind() : ir2vec::Kind::Symbolic)},
                         {"embeddings_digest", A.Vocab ? A.Vocab.digest() : std::string()},
                         {"reduction", X.Pooled.Mean},
                         {"ci95", llvm::json::Array{X.Pooled.Low, X.Pooled.High}},
                         {"ci95_packages_mean", llvm::json::Array{PackageLow, PackageHigh}},
                         {"difference_to_reference", X.Pooled.Diff},
                         {"difference_ci95", llvm::json::Array{X.Pooled.DiffLow, X.Pooled.DiffHigh}},
                         {"grown_mean", Grown},
                         {"agreement_mean", Agree},
                         {"headroom_captured_mean", numberOrNull(X.HeadroomCaptured)},
                         {"packages", std::move(Packages)},
                         {"worst_package",
                          X.Worst >= 0 ? llvm::json::Value(llvm::json::Object{
                                             {"package", X.PackageMeans[size_t(X.Worst)].first},
                                             {"reduction", X.PackageMeans[size_t(X.Worst)].second}})
                                       : llvm::json::Value(nullptr)},
                         {"seeds", std::move(Seeds)}};
    if (X.TrainingSide)
      O["training_side_reduction"] = X.TrainingSide->Reduction;
    if (!X.TrainingReductions.empty()) {
      llvm::json::Array TR;
      for (const auto &[Start, Tuned] : X.TrainingReductions)
        TR.push_back(llvm::json::Object{{"start", Start}, {"tuned", Tuned}});
      O["training_reductions"] = std::move(TR);
    }
    ArmsJ.push_back(std::move(O));
  }
  llvm::json::Array ImpJ, AnsJ, SeedsJ;
  for (const auto &[N, V] : R.Importance)
    ImpJ.push_back(llvm::json::Object{{"feature", N}, {"importance", V}});
  for (const std::string &A : R.Answers)
    AnsJ.push_back(A);
  for (uint64_t Sd : Spec.Seeds)
    SeedsJ.push_back(int64_t(Sd));
  llvm::json::Value Search = withKeys(Spec.Search.toJSON(), llvm::json::Object
                                      {{"side", transfer(R) ? "all" : "train"},
                                       {"modules", int64_t(R.ExploredModules)},
                                       {"compilations", int64_t(R.Rollouts)},
                                       {"modules_smaller", int64_t(R.Smaller)}});
  llvm::json::Value Training = nullptr;
  if (evict(R)) {
    Search = nullptr;
    Training = evictTrainingJSON(R);
  }
  llvm::json::Object Report{
      {"schema", AblationSchema},
      {"task", features::taskInfo(Spec.T).Name},
      {"measure", measureOf(R).Title},
      {"training", std::move(Training)},
      {"spec", Spec.Path},
      {"spec_sha256", Spec.SHA256},
      {"opt", R.Tools.optCommand()},
      {"llc", R.Tools.llcCommand()},
      {"compile", support::nameOf<CompileMode>(CompileModeNames, R.Tools.Mode)},
      {"protocol", support::nameOf<JudgingProtocol>(JudgingProtocolNames, Spec.Proto)},
      {"folds", R.Folds ? llvm::json::Value(R.Folds->toJSON()) : nullptr},
      {"split", transfer(R) ? llvm::json::Value(nullptr) : llvm::json::Value(R.Split.toJSON())},
      {"exploration", std::move(Search)},
      {"reference_arm", Spec.Arms.front().Name},
      {"seeds", std::move(SeedsJ)},
      {"judged_modules", int64_t(R.Judged.size())},
      {"arms", std::move(ArmsJ)},
      {"permutation_importance", std::move(ImpJ)},
      {"answers", std::move(AnsJ)},
      {"wall_seconds", R.Seconds},
      {"exploration_seconds", R.ExploreSeconds},
      {"evaluation_seconds", R.EvalSeconds},
      {"compilations", int64_t(R.Compilations)},
      {"compilations_per_second", R.Seconds > 0 ? double(R.Compilations) / R.Seconds : 0.0}};
  addVersions(Report);
  return Report;
}

llvm::Error writeAblationHDF5(const AblationResult &R, const std::string &ReportText,
                              const std::string &Path) {
  return corpus::h5::writeFileAtomically(Path, [&](H5::H5File &F) {
    namespace h5 = corpus::h5;
    h5::writeAttr(F, "schema", std::string(AblationSchema));
    h5::writeAttr(F, "report", ReportText);
    std::vector<std::string> Paths, Packages;
    std::vector<double> Base, Best;
    for (const EvalModule &M : R.Judged) {
      Paths.push_back(M.Path);
      Packages.push_back(M.Package);
      Base.push_back(double(M.Baseline));
      Best.push_back(double(M.Best));
    }
    H5::Group G = h5::createGroup(F, "judged");
    h5::writeStrings(G, "path", Paths);
    h5::writeStrings(G, "package", Packages);
    h5::writeMatrix(G, measureOf(R).Baseline, Base.data(), Base.size(), 1);
    if (!evict(R))
      h5::writeMatrix(G, "best_text_size", Best.data(), Best.size(), 1);
    for (size_t AI = 0; AI < R.Spec.Arms.size(); ++AI) {
      // [modules, seeds]: each arm's .text (eviction: cost) per judged module and seed.
      std::vector<double> Sizes;
      for (size_t M = 0; M < R.Judged.size(); ++M)
        for (const std::vector<EvalModule> &E : R.Arms[AI].PerSeed)
          Sizes.push_back(double(E[M].Policy));
      h5::writeMatrix(G, R.Spec.Arms[AI].Name.c_str(), Sizes.data(), R.Judged.size(),
                      R.Spec.Seeds.size());
    }
  });
}

llvm::Error drawAblationPlots(const AblationResult &R, const std::string &Gnuplot, int CancelFd) {
  const std::string &Dir = R.Dir;
  const std::string RedData = support::pathIn(Dir, "reduction.dat"),
                    ImpData = support::pathIn(Dir, "importance.dat"),
                    Script = support::pathIn(Dir, "plots.gp");
  if (llvm::Error E = support::writeFileAtomically(RedData, [&](llvm::raw_ostream &OS) {
        for (size_t AI = 0; AI < R.Spec.Arms.size(); ++AI)
          OS << R.Spec.Arms[AI].Name << " " << 100 * R.Arms[AI].Pooled.Mean << " "
             << 100 * R.Arms[AI].Pooled.Low << " " << 100 * R.Arms[AI].Pooled.High << "\n";
      }))
    return E;
  const auto Sorted = sortedImportance(R);
  if (llvm::Error E = support::writeFileAtomically(ImpData, [&](llvm::raw_ostream &OS) {
        for (const auto &[N, V] : Sorted)
          OS << N << " " << 100 * V << "\n";
        if (Sorted.empty())
          OS << "none 0\n";
      }))
    return E;
  const std::string Judged = transfer(R) ? "Cross-validated" : "Held-out";
  if (llvm::Error E = support::writeFileAtomically(Script, [&](llvm::raw_ostream &OS) {
        for (const char *Term : {"pngcairo size 1000,560 font ',10'", "svg size 1000,560 dynamic"}) {
          const std::string Ext = llvm::StringRef(Term).starts_with("png") ? "png" : "svg";
          OS << "set terminal " << Term << "\n"
             << "set output '" << support::pathIn(Dir, "reduction." + Ext) << "'\n"
             << "set title '" << Judged << " " << measureOf(R).Title << " (mean over "
             << R.Spec.Seeds.size() << " seeds, 95% bootstrap interval over modules)'\n"
             << "set ylabel 'reduction (%)'\nset grid ytics\nset key off\nset xtics rotate by -25\n"
             << "set style data histogram\nset style histogram errorbars gap 1 lw 1\n"
             << "set style fill solid 0.6 border -1\nset xzeroaxis lt -1\n"
             << "plot '" << RedData << "' using 2:3:4:xtic(1)\n";
          if (evict(R)) // no labels: no permutation importance
            continue;
          OS << "set output '" << support::pathIn(Dir, "importance." + Ext) << "'\n"
             << "set title 'Permutation importance on judged decisions (arm "
             << R.Spec.Arms.front().Name << ", seed " << R.Spec.Seeds.front()
             << "): drop in agreement with the best labels'\n"
             << "set ylabel 'agreement drop (percentage points)'\nset xtics rotate by -60 font ',8'\n"
             << "set style histogram clustered gap 1\n"
             << "plot '" << ImpData << "' using 2:xtic(1)\n"
             << "unset xtics\nset xtics\n";
        }
      }))
    return E;
  return support::runGnuplot(Gnuplot, Script, CancelFd);
}

/// The mean over the study's seeds of Of(seed index): the figures the Markdown tables show.
template <typename F> static double seedMean(const AblationSpec &Spec, F Of) {
  double Sum = 0;
  for (size_t K = 0; K < Spec.Seeds.size(); ++K)
    Sum += Of(K);
  return Spec.Seeds.empty() ? 0.0 : Sum / double(Spec.Seeds.size());
}

static std::string seedList(const AblationSpec &Spec) {
  return llvm::join(llvm::map_range(Spec.Seeds, [](uint64_t X) { return std::to_string(X); }), ", ");
}

/// The Markdown report of an eviction study: no exploration, labels or agreement; ES's
/// training-side figures instead.
static llvm::Error writeEvictMarkdown(const AblationResult &R, const std::string &Path) {
  const AblationSpec &Spec = R.Spec;
  const EvictStudySettings &T = Spec.Evict;
  return support::writeFileAtomically(Path, [&](llvm::raw_ostream &OS) {
    OS << "# Feature ablation: register allocation, eviction\n\n"
       << "Spec `" << llvm::sys::path::filename(Spec.Path) << "` (SHA-256 "
       << Spec.SHA256.substr(0, 12) << "); LLVM " << WB_LLVM_VERSION << ", ir2vec " << WB_VERSION
       << ". One split by package: " << R.ExploredModules << " training modules ("
       << llvm::join(R.Split.TrainKeys, ", ") << "), " << judgedWhat(R)
       << ". Models: an MLP (" << joinNumbers(T.Hidden)
       << ") scoring each of the 33 columns, started from the density rule and tuned by "
          "evolution strategies ("
       << T.ES.Steps << " steps × " << T.ES.Pairs << " antithetic pairs × " << T.ES.ModulesPerStep
       << " training modules, σ " << llvm::formatv("{0:f3}", T.ES.Sigma).str() << ", learning rate "
       << llvm::formatv("{0:f3}", T.ES.Optimizer.LearningRate).str()
       << ") on the training side's cost; seeds "
       << seedList(Spec)
       << ".\n\n"
       << "## Held-out " << measureOf(R).Title << "\n\n"
       << "Cost = Σ over a module's functions of 0.2 × copies + 4 × reloads + 1 × spills, "
          "weighted by block frequency (docs/regalloc.md); reduction = 1 − Σ policy / Σ default "
          "advisor over the held-out modules, averaged over the seeds; intervals are 95% "
          "bootstrap intervals over modules ("
       << BootstrapResamples << " resamples), the difference to `" << Spec.Arms.front().Name
       << "` with paired resamples; the worst package has the smallest seed-mean reduction. "
          "Training side: ES's reduction on the training modules, start model → tuned model "
          "(the tuned model is kept only when better), seed means.\n\n"
       << "| arm | features | vocabulary | reduction | 95% interval | vs `" << Spec.Arms.front().Name
       << "` | 95% interval | worst package | training side | modules costlier |\n"
       << "|---|---|---|---|---|---|---|---|---|---|\n";
    for (size_t AI = 0; AI < Spec.Arms.size(); ++AI) {
      const AblationArm &A = Spec.Arms[AI];
      const AblationArmResult &X = R.Arms[AI];
      const double Grown = seedMean(Spec, [&](size_t K) { return double(X.Summaries[K].Grown); });
      const double Start = seedMean(Spec, [&](size_t K) { return X.TrainingReductions[K].first; });
      const double Tuned = seedMean(Spec, [&](size_t K) { return X.TrainingReductions[K].second; });
      OS << armCells(A, X, AI) << " | " << percent(Start) << " → " << percent(Tuned) << " | "
         << llvm::formatv("{0:f1}", Grown).str() << " of " << R.Judged.size() << " |\n";
    }
    OS << "\n![Reduction per arm](reduction.svg)\n\n## Answers\n\n";
    for (const std::string &A : R.Answers)
      OS << "- " << A << "\n";
    OS << "\n## Run\n\n" << llvm::formatv("{0:f0}", R.Seconds).str() << " s wall time, "
       << R.Compilations << " compilations ("
       << llvm::formatv("{0:f1}", R.Seconds > 0 ? double(R.Compilations) / R.Seconds : 0.0).str()
       << " per second); each is `" << R.Compile
       << "` with the allocator's remarks (under the host where a policy answers). Everything "
          "the numbers come from is in this directory: report.json, results.h5 (every module's "
          "cost per arm and seed) and the models.\n";
  });
}

llvm::Error writeAblationMarkdown(const AblationResult &R, const std::string &Path) {
  if (evict(R))
    return writeEvictMarkdown(R, Path);
  const AblationSpec &Spec = R.Spec;
  const auto Sorted = sortedImportance(R);
  const bool T = transfer(R);
  return support::writeFileAtomically(Path, [&](llvm::raw_ostream &OS) {
    OS << "# Feature ablation: inlining for size\n\n";
    OS << "Spec `" << llvm::sys::path::filename(Spec.Path) << "` (SHA-256 "
       << Spec.SHA256.substr(0, 12) << "); LLVM " << WB_LLVM_VERSION
       << ", ir2vec " << WB_VERSION << ". Protocol "
       << support::nameOf<JudgingProtocol>(JudgingProtocolNames, Spec.Proto).str() << " (docs/benchmark.md): "
       << judgedWhat(R) << ". Exploration: " << R.ExploredModules << " modules, budget "
       << Spec.Search.describe() << ", " << R.Rollouts
       << " compilations, " << R.Smaller << " modules smaller than with -Oz. Models: "
       << runners::kindName(Spec.Model.Kind);
    if (Spec.Model.Kind == runners::ModelKind::MLP)
      OS << " (" << llvm::join(llvm::map_range(Spec.Model.Hidden, [](unsigned H) { return std::to_string(H); }), ", ") << ")";
    OS << ", " << Spec.Model.Epochs << " epochs, seeds "
       << seedList(Spec)
       << ".\n\n";
    OS << "## " << (T ? "Cross-validated" : "Held-out") << " .text reduction against -Oz\n\n"
       << "Reduction = 1 − Σ policy / Σ -Oz over the judged modules (native objects, "
          "`.text` and `.text.*`), averaged over the seeds; intervals are 95% bootstrap "
          "intervals over modules ("
       << BootstrapResamples << " resamples), the difference to `" << Spec.Arms.front().Name
       << "` with paired resamples; the worst package is the one with the smallest seed-mean "
          "reduction; captured is the share of the exploration's headroom the arm took.\n\n"
       << "| arm | features | vocabulary | reduction | 95% interval | vs `" << Spec.Arms.front().Name
       << "` | 95% interval | worst package | captured | training side | agreement | modules "
          "that grow |\n"
       << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (size_t AI = 0; AI < Spec.Arms.size(); ++AI) {
      const AblationArm &A = Spec.Arms[AI];
      const AblationArmResult &X = R.Arms[AI];
      const double Grown = seedMean(Spec, [&](size_t K) { return double(X.Summaries[K].Grown); });
      const double Agree = seedMean(Spec, [&](size_t K) { return X.Agreement[K]; });
      OS << armCells(A, X, AI) << " | " << percent(X.HeadroomCaptured) << " | "
         << (X.TrainingSide ? percent(X.TrainingSide->Reduction) : std::string("–")) << " | "
         << llvm::formatv("{0:f3}", Agree).str() << " | "
         << llvm::formatv("{0:f1}", Grown).str() << " of " << R.Judged.size() << " |\n";
    }
    OS << "\n![Reduction per arm](reduction.svg)\n\n## Answers\n\n";
    for (const std::string &A : R.Answers)
      OS << "- " << A << "\n";
    OS << "\n## Permutation importance\n\nArm `" << Spec.Arms.front().Name << "`, seed "
       << Spec.Seeds.front() << (T ? ", first fold" : "")
       << ": the drop in agreement with the best decisions of the judged modules when one "
          "feature's values are shuffled across decisions.\n\n"
       << "![Permutation importance](importance.svg)\n\n| feature | agreement drop |\n|---|---|\n";
    for (size_t I = 0; I < std::min<size_t>(Sorted.size(), 10); ++I)
      OS << "| `" << Sorted[I].first << "` | " << llvm::formatv("{0:f4}", Sorted[I].second).str() << " |\n";
    OS << "\n## Run\n\n" << llvm::formatv("{0:f0}", R.Seconds).str() << " s wall time ("
       << llvm::formatv("{0:f0}", R.ExploreSeconds).str() << " s exploring, "
       << llvm::formatv("{0:f0}", R.EvalSeconds).str() << " s training and evaluating), "
       << R.Compilations << " compilations ("
       << llvm::formatv("{0:f1}", R.Seconds > 0 ? double(R.Compilations) / R.Seconds : 0.0).str()
       << " per second); each is `" << R.Compile
       << "` (under the host where a policy answers; modules with a recorded command line are "
          "compiled with it). Everything the numbers come from is in this directory: "
          "report.json, results.h5 (every .text), the explorations and the models.\n";
  });
}

} // namespace wb::mlgo
