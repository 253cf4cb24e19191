// The renderers of a device-mapping study: report.json (ir2vec.downstream-devmap/1,
// docs/formats/downstream-report.md), report.md with the paper's published table beside ours,
// results.h5 (every feature, fold and prediction) and the plot (gnuplot). They compute nothing
// the study did not; the files appear together or not at all.
#include "corpus/H5.h"
#include "downstream/Study.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/JSON.h"
#include "support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

namespace wb::downstream {

namespace {

/// The published accuracies (%) of SOURCE.md of the IR2Vec paper's dataset (ACM TACO 17(4),
/// 2020, and IITH's LLVM 19 notebook), AMD / NVIDIA / mean.
struct Published {
  const char *Model;
  double AMD, NVIDIA, Mean;
};
constexpr Published PublishedTable[] = {
    {"static mapping", 58.82, 56.91, 57.87},
    {"Grewe et al. (hand features)", 73.38, 72.94, 73.16},
    {"DeepTune (LSTM over tokens)", 83.68, 80.29, 81.99},
    {"NCC / inst2vec", 82.79, 81.76, 82.28},
    {"IR2Vec flow-aware, published (v0.1.0)", 92.82, 89.68, 91.25},
    {"IR2Vec symbolic, LLVM 19 branch", 91.77, 86.98, 89.37},
    {"IR2Vec flow-aware, LLVM 19 branch", 91.17, 88.32, 89.75},
};


std::string protocolName(FoldProtocol P) { return support::nameOf<FoldProtocol>(FoldProtocolNames, P).str(); }

std::string pct(double X) { return llvm::formatv("{0:f2}", 100 * X).str(); }
std::string pctInterval(const Interval &I) {
  return pct(I.Mean) + " [" + pct(I.Low) + ", " + pct(I.High) + "]";
}
std::string signedPct(double X) { return (X >= 0 ? "+" : "") + llvm::formatv("{0:f2}", 100 * X).str(); }

const char *protocolTitle(FoldProtocol P) {
  switch (P) {
  case FoldProtocol::Paper:
    return "the paper's protocol (stratified 10-fold over rows)";
  case FoldProtocol::Kernel:
    return "folds by kernel (no kernel on both sides)";
  case FoldProtocol::Suite:
    return "leave one suite out";
  }
  return "";
}

} // namespace

llvm::json::Value devmapReportJSON(const DevmapResult &R) {
  const size_t NP = R.Platforms.size();
  llvm::json::Array Platforms;
  for (size_t P = 0; P < NP; ++P) {
    size_t GPU = 0;
    for (const DevmapRow &Row : R.Rows[P])
      GPU += Row.GPU;
    Platforms.push_back(llvm::json::Object{{"name", R.Platforms[P]},
                                           {"csv", R.CSVs[P]},
                                           {"rows", int64_t(R.Rows[P].size())},
                                           {"gpu_rows", int64_t(GPU)},
                                           {"static", R.StaticGPU[P] ? "GPU" : "CPU"},
                                           {"oracle_speedup", intervalJSON(R.OracleSpeedup[P])}});
  }
  auto pairs = [](const std::vector<std::pair<std::string, std::string>> &V) {
    llvm::json::Array A;
    for (const auto &[F, Why] : V)
      A.push_back(llvm::json::Object{{"file", F}, {"why", Why}});
    return A;
  };
  llvm::json::Array Arms;
  for (size_t A = 0; A < R.Arms.size(); ++A) {
    const DevmapArm &Arm = R.Spec.Arms[A];
    const DevmapArmResult &Res = R.Arms[A];
    llvm::json::Object Protocols;
    for (size_t Pr = 0; Pr < R.Spec.Protocols.size(); ++Pr) {
      const CellResult &C = Res.Cells[Pr];
      llvm::json::Object Per;
      for (size_t P = 0; P <= NP; ++P)
        Per[P < NP ? R.Platforms[P] : std::string("mean")] =
            llvm::json::Object{{"accuracy", intervalJSON(C.Accuracy[P])},
                               {"speedup", intervalJSON(C.Speedup[P])},
                               {"vs_histogram", intervalJSON(C.VsHistogram[P])},
                               {"worst_seed_accuracy", support::numberOrNull(C.WorstSeedAccuracy[P])}};
      Protocols[protocolName(R.Spec.Protocols[Pr])] = llvm::json::Object{
          {"platforms", std::move(Per)},
          {"worst_suite", llvm::json::Object{{"name", C.WorstSuite},
                                             {"accuracy", support::numberOrNull(C.WorstSuiteAccuracy)}}},
          {"beats_histogram", C.Answer}};
    }
    llvm::json::Object J{{"name", Arm.Name},
                         {"control", Arm.Control},
                         {"features", Arm.describe()},
                         {"columns", int64_t(Res.Columns)},
                         {"used_columns", int64_t(Res.UsedColumns)},
                         {"protocols", std::move(Protocols)}};
    if (Arm.Machine)
      J = support::withKeys(std::move(J), llvm::json::Object{{"mode", "mir"},
                                                             {"mir_stage", Arm.MirStage},
                                                             {"vocabulary", Arm.FoldVocab ? "folds" : Arm.Vocabulary.empty() ? "default" : Arm.Vocabulary},
                                               {"fold_vocabulary", Arm.FoldVocab ? llvm::json::Value(Arm.FoldVocab->toJSON())
                                                                                 : llvm::json::Value(nullptr)},
                                                             {"grewe", Arm.WithGrewe},
                                                             {"histogram", Arm.WithHistogram}});
    else if (Arm.K == ArmKind::Embedding)
      J = support::withKeys(std::move(J),
                            llvm::json::Object{{"kind", ir2vec::kindName(Arm.EmbeddingKind).str()},
                                               {"vocabulary", Arm.FoldVocab ? "folds" : Arm.Vocabulary.empty() ? "default" : Arm.Vocabulary},
                                               {"fold_vocabulary", Arm.FoldVocab ? llvm::json::Value(Arm.FoldVocab->toJSON())
                                                                                 : llvm::json::Value(nullptr)},
                                               {"weights", llvm::json::Object{{"opcode", double(Arm.Weights.Opcode)},
                                                                              {"type", double(Arm.Weights.Type)},
                                                                              {"arg", double(Arm.Weights.Arg)}}},
                                               {"embeddings_digest", Arm.Embedding ? Arm.Embedding.digest() : std::string()},
                                               {"grewe", Arm.WithGrewe},
                                               {"histogram", Arm.WithHistogram},
                                               {"aggregation", support::nameOf<Aggregation>(AggregationNames, Arm.Aggregate).str()},
                                               {"loop_weight", Arm.Aggregate == Aggregation::Loop
                                                                   ? llvm::json::Value(Arm.LoopWeight)
                                                                   : llvm::json::Value(nullptr)}});
    Arms.push_back(std::move(J));
  }
  llvm::json::Array Pub;
  for (const Published &P : PublishedTable)
    Pub.push_back(llvm::json::Object{{"model", P.Model}, {"amd", P.AMD}, {"nvidia", P.NVIDIA}, {"mean", P.Mean}});
  llvm::json::Array Suites;
  for (const std::string &S : R.SuiteNames)
    Suites.push_back(S);
  return llvm::json::Object{
      {"schema", DevmapReportSchema},
      {"tool", llvm::json::Object{{"ir2vec", WB_VERSION}, {"llvm", WB_LLVM_VERSION}, {"xgboost", R.BoostVersion}}},
      {"dataset", llvm::json::Object{{"dir", R.DataDir},
                                     {"platforms", std::move(Platforms)},
                                     {"kernels", int64_t(R.Kernels.size())},
                                     {"distinct_kernel_files", int64_t(R.DistinctKernelFiles)},
                                     {"suites", std::move(Suites)},
                                     {"recompiled", pairs(R.Recompiled)},
                                     {"left_out", pairs(R.LeftOut)}}},
      {"settings", R.Spec.settingsJSON()},
      {"arms", std::move(Arms)},
      {"trainings", int64_t(R.Trainings)},
      {"fold_vocabularies", int64_t(R.FoldVocabularies)},
      {"published", std::move(Pub)}};
}

std::string devmapReportMarkdown(const DevmapResult &R) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  const size_t NP = R.Platforms.size();
  const DevmapSpec &Spec = R.Spec;
  OS << "# Device mapping: does the embedding know more than a histogram?\n\n"
     << "Dataset `" << R.DataDir << "`: ";
  for (size_t P = 0; P < NP; ++P)
    OS << (P ? ", " : "") << R.Platforms[P] << " " << R.Rows[P].size() << " rows";
  OS << "; " << R.Kernels.size() << " kernels in " << R.SuiteNames.size() << " suites ("
     << R.DistinctKernelFiles << " distinct kernel files). Classifier: XGBoost " << R.BoostVersion
     << " (max_depth " << Spec.Boost.MaxDepth << ", learning rate "
     << llvm::formatv("{0}", Spec.Boost.LearningRate).str() << ", "
     << Spec.Boost.Trees << " trees, exact); each arm's columns plus the run's `transfer` and "
        "`wgsize`, min-max scaled over the rows. Seeds "
     << llvm::join(llvm::map_range(Spec.Seeds, [](uint32_t X) { return std::to_string(X); }), ", ")
     << "; " << Spec.Folds << " folds (paper and kernel protocols). LLVM " << WB_LLVM_VERSION
     << ", ir2vec " << WB_VERSION << (Spec.Path.empty() ? ", built-in spec" : ", spec `" + Spec.Path + "` (SHA-256 " + Spec.SHA256.substr(0, 12) + ")")
     << ".\n\n"
     << "Accuracy = share of rows whose predicted device is the faster one, averaged over the "
        "seeds; intervals are 95% bootstrap intervals over kernels ("
     << Spec.Resamples
     << " resamples, the same for every arm); *vs histogram* is the paired difference to the "
        "entity-histogram control (same folds, seeds and resamples). *Beats counting?* says yes "
        "when that interval lies above zero, no when below, not shown when it spans zero. "
        "Speedup = mean over rows of the static mapping's runtime over the chosen device's "
        "(oracle: ";
  for (size_t P = 0; P < NP; ++P)
    OS << (P ? ", " : "") << R.Platforms[P] << " " << llvm::formatv("{0:f2}", R.OracleSpeedup[P].Mean);
  OS << "). Worst seed: the lowest mean accuracy over the platforms of one seed; worst suite: "
        "the suite whose rows the arm got least right.\n\n";
  for (size_t Pr = 0; Pr < Spec.Protocols.size(); ++Pr) {
    OS << "## " << protocolTitle(Spec.Protocols[Pr]) << "\n\n| arm | features |";
    for (size_t P = 0; P < NP; ++P)
      OS << " " << R.Platforms[P] << " |";
    OS << " mean [95%] | vs histogram [95%] | beats counting? | worst seed | worst suite | speedup |\n|---|---|";
    for (size_t P = 0; P < NP + 6; ++P)
      OS << "---|";
    OS << "\n";
    for (size_t A = 0; A < R.Arms.size(); ++A) {
      const CellResult &C = R.Arms[A].Cells[Pr];
      OS << "| `" << Spec.Arms[A].Name << "` | " << Spec.Arms[A].describe() << " |";
      for (size_t P = 0; P < NP; ++P)
        OS << " " << pct(C.Accuracy[P].Mean) << " |";
      OS << " " << pctInterval(C.Accuracy[NP]) << " | ";
      if (A == 2)
        OS << "– | – |";
      else
        OS << signedPct(C.VsHistogram[NP].Mean) << " [" << signedPct(C.VsHistogram[NP].Low) << ", "
           << signedPct(C.VsHistogram[NP].High) << "] | " << C.Answer << " |";
      OS << " " << pct(C.WorstSeedAccuracy[NP]) << " | " << C.WorstSuite << " " << pct(C.WorstSuiteAccuracy) << " | ";
      for (size_t P = 0; P < NP; ++P)
        OS << (P ? " / " : "") << llvm::formatv("{0:f2}", C.Speedup[P].Mean);
      OS << " |\n";
    }
    OS << "\n";
  }
  OS << "## Beats counting?\n\n";
  for (size_t A = 3; A < R.Arms.size(); ++A) {
    OS << "- `" << Spec.Arms[A].Name << "`:";
    for (size_t Pr = 0; Pr < Spec.Protocols.size(); ++Pr) {
      const CellResult &C = R.Arms[A].Cells[Pr];
      OS << (Pr ? ";" : "") << " " << protocolName(Spec.Protocols[Pr]) << " " << C.Answer << " ("
         << signedPct(C.VsHistogram[NP].Mean) << " points)";
    }
    OS << "\n";
  }
  if (R.Arms.size() <= 3)
    OS << "No embedding arm.\n";
  OS << "\n## The paper's published table (accuracy %, from the dataset's SOURCE.md)\n\n"
     << "| model | AMD | NVIDIA | mean |\n|---|---|---|---|\n";
  for (const Published &P : PublishedTable)
    OS << "| " << P.Model << " | " << llvm::formatv("{0:f2} | {1:f2} | {2:f2}", P.AMD, P.NVIDIA, P.Mean) << " |\n";
  OS << "\nThe published numbers come from the paper's protocol: compare its embedding rows with "
        "ours in that table (IR2Vec's published version used IITH's own flow-aware encoding and a "
        "300-dimensional vocabulary). Its Grewe row is Grewe et al.'s decision tree on four "
        "combined features; our `grewe` control is XGBoost on the six raw features, a different "
        "model.\n\n## Kernels\n\n";
  if (R.Recompiled.empty() && R.LeftOut.empty())
    OS << "LLVM 22 read every kernel file.\n";
  for (const auto &[F, Why] : R.Recompiled)
    OS << "- recompiled from its `src` with clang-22: `" << F << "` (" << Why << ")\n";
  for (const auto &[F, Why] : R.LeftOut)
    OS << "- left out of every arm: `" << F << "` (" << Why << ")\n";
  return S;
}

namespace {

llvm::Error writeResultsHDF5(const DevmapResult &R, const std::string &ReportText, const std::string &Path) {
  return corpus::h5::writeFileAtomically(Path, [&](H5::H5File &F) {
    namespace h5 = corpus::h5;
    h5::writeAttr(F, "schema", std::string(DevmapReportSchema));
    h5::writeAttr(F, "report", ReportText);
    const size_t NS = R.Spec.Seeds.size();
    for (size_t P = 0; P < R.Platforms.size(); ++P) {
      H5::Group G = h5::createGroup(F, R.Platforms[P]);
      std::vector<std::string> Bench, Data;
      std::vector<double> Line, Label;
      for (const DevmapRow &Row : R.Rows[P]) {
        Bench.push_back(Row.Benchmark);
        Data.push_back(Row.Dataset);
        Line.push_back(Row.Line);
        Label.push_back(Row.GPU);
      }
      h5::writeStrings(G, "benchmark", Bench);
      h5::writeStrings(G, "dataset", Data);
      h5::writeMatrix(G, "csv_line", Line.data(), Line.size(), 1);
      h5::writeMatrix(G, "oracle_gpu", Label.data(), Label.size(), 1);
      const size_t N = R.Rows[P].size();
      H5::Group FG = h5::createGroup(G, "folds");
      for (size_t Pr = 0; Pr < R.Spec.Protocols.size(); ++Pr) {
        std::vector<double> M;
        for (size_t Si = 0; Si < NS; ++Si)
          M.insert(M.end(), R.Folds[P][Pr][Si].begin(), R.Folds[P][Pr][Si].end());
        h5::writeMatrix(FG, protocolName(R.Spec.Protocols[Pr]).c_str(), M.data(), NS, N);
      }
      H5::Group AG = h5::createGroup(G, "arms");
      for (size_t A = 0; A < R.Arms.size(); ++A) {
        const DevmapArmResult &Res = R.Arms[A];
        H5::Group One = h5::createGroup(AG, R.Spec.Arms[A].Name);
        if (!Res.Features.empty()) {
          h5::writeMatrix(One, "features", Res.Features[P].data(), N, Res.Columns);
          h5::writeStrings(One, "columns", Res.ColumnNames);
        }
        for (size_t Pr = 0; Pr < R.Spec.Protocols.size(); ++Pr) {
          std::vector<double> M;
          for (size_t Si = 0; Si < NS; ++Si)
            M.insert(M.end(), Res.Predictions[P][Pr][Si].begin(), Res.Predictions[P][Pr][Si].end());
          h5::writeMatrix(One, ("predicted_gpu_" + protocolName(R.Spec.Protocols[Pr])).c_str(), M.data(), NS, N);
        }
      }
    }
  });
}

/// accuracy.{png,svg} in Dir: each arm's mean accuracy over the platforms with its interval,
/// one bar per protocol.
llvm::Error drawPlot(const DevmapResult &R, const std::string &Dir, const std::string &Gnuplot, int CancelFd) {
  const std::string Data = Dir + "/accuracy.dat", Script = Dir + "/accuracy.gp";
  const size_t NP = R.Platforms.size();
  if (llvm::Error E = support::writeFileAtomically(Data, [&](llvm::raw_ostream &OS) {
        for (size_t A = 0; A < R.Arms.size(); ++A) {
          OS << R.Spec.Arms[A].Name;
          for (const CellResult &C : R.Arms[A].Cells)
            OS << " " << 100 * C.Accuracy[NP].Mean << " " << 100 * C.Accuracy[NP].Low << " "
               << 100 * C.Accuracy[NP].High;
          OS << "\n";
        }
      }))
    return E;
  if (llvm::Error E = support::writeFileAtomically(Script, [&](llvm::raw_ostream &OS) {
        for (const char *Term : {"pngcairo size 1100,560 font ',10'", "svg size 1100,560"}) {
          const std::string Ext = llvm::StringRef(Term).starts_with("png") ? "png" : "svg";
          OS << "set terminal " << Term << "\nset output '" << Dir << "/accuracy." << Ext << "'\n"
             << "set title 'Device mapping: accuracy, mean of the platforms (mean over "
             << R.Spec.Seeds.size() << " seeds, 95% bootstrap interval over kernels)'\n"
             << "set ylabel 'accuracy (%)'\nset yrange [0:100]\nset grid ytics\nset key top right\n"
             << "set xtics rotate by -25\nset style data histogram\n"
             << "set style histogram errorbars gap 1 lw 1\nset style fill solid 0.6 border -1\n"
             << "plot ";
          for (size_t Pr = 0; Pr < R.Spec.Protocols.size(); ++Pr)
            OS << (Pr ? ", " : "") << "'" << Data << "' using " << 2 + 3 * Pr << ":" << 3 + 3 * Pr << ":"
               << 4 + 3 * Pr << (Pr ? "" : ":xtic(1)") << " title '" << protocolName(R.Spec.Protocols[Pr]) << "'";
          OS << "\n";
        }
      }))
    return E;
  return support::runGnuplot(Gnuplot, Script, CancelFd);
}

} // namespace

llvm::Error writeDevmapOutputs(const DevmapResult &R, const std::string &Dir, const std::string &Gnuplot,
                               int CancelFd) {
  std::string JSONText;
  llvm::raw_string_ostream(JSONText) << llvm::formatv("{0:2}", devmapReportJSON(R)) << "\n";
  const std::string MD = devmapReportMarkdown(R);
  // Made in a private directory first, so that the outputs appear together or not at all.
  auto Stage = support::TempDir::create("ir2vec-eval");
  if (!Stage)
    return Stage.takeError();
  if (llvm::Error E = writeResultsHDF5(R, JSONText, Stage->file("results.h5")))
    return E;
  if (llvm::Error E = drawPlot(R, Stage->path(), Gnuplot, CancelFd))
    return E;
  std::vector<std::pair<std::string, std::unique_ptr<llvm::MemoryBuffer>>> Made;
  for (const char *N : DevmapOutputFiles) {
    if (llvm::StringRef(N).starts_with("report."))
      continue; // written from memory below
    auto B = llvm::MemoryBuffer::getFile(Stage->file(N));
    if (!B)
      return support::fileError(Stage->file(N), "cannot read back: " + B.getError().message());
    Made.emplace_back(N, std::move(*B));
  }
  auto Out = support::OutputDirectory::prepare(Dir);
  if (!Out)
    return Out.takeError();
  std::vector<std::pair<std::string, support::FileBody>> Files = {
      {"report.json", [&](llvm::raw_ostream &OS) { OS << JSONText; }},
      {"report.md", [&](llvm::raw_ostream &OS) { OS << MD; }}};
  for (const auto &[N, B] : Made)
    Files.emplace_back(N, [&B = B](llvm::raw_ostream &OS) { OS << B->getBuffer(); });
  return support::writeFilesTogether(*Out, Files);
}

llvm::json::Value intervalJSON(const Interval &I) {
  return llvm::json::Object{{"mean", support::numberOrNull(I.Mean)},
                            {"low", support::numberOrNull(I.Low)},
                            {"high", support::numberOrNull(I.High)}};
}

} // namespace wb::downstream
