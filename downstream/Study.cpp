#include "downstream/Study.h"
#include "ir2vec/FromCounts.h"

#include "ir2vec/EmbeddingBatch.h"
#include "mir/MirCorpus.h"
#include "support/SpecReader.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/Process.h"
#include "support/Progress.h"
#include "vocab/EntityLayout.h"
#include "vocab/VocabularyFile.h"

#include "learn/Random.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <set>

namespace wb::downstream {

namespace {

constexpr const char *ControlNames[] = {"static", "grewe", "histogram"};
constexpr size_t HistogramArm = 2; // index of the histogram control in every spec's arms

std::vector<DevmapArm> controls() {
  std::vector<DevmapArm> C(3);
  C[0].Name = ControlNames[0], C[0].K = ArmKind::Static;
  C[1].Name = ControlNames[1], C[1].K = ArmKind::Grewe;
  C[2].Name = ControlNames[2], C[2].K = ArmKind::Histogram;
  for (DevmapArm &A : C)
    A.Control = true;
  return C;
}

std::vector<uint32_t> defaultSeeds() {
  std::vector<uint32_t> S(10);
  std::iota(S.begin(), S.end(), 104u);
  return S;
}

double seconds(std::chrono::steady_clock::time_point Since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Since).count();
}

} // namespace

std::string DevmapArm::describe() const {
  switch (K) {
  case ArmKind::Static:
    return "the platform's static mapping (its more often faster device), no classifier";
  case ArmKind::Grewe:
    return "Grewe et al.'s six static features";
  case ArmKind::Histogram:
    return "entity counts (110 columns: opcodes, types, operand kinds)";
  case ArmKind::Embedding:
    break;
  }
  if (Machine)
    return "MIR2Vec embedding of the x86-64 machine IR (" + MirStage + "), " +
           (Vocabulary.empty() ? std::string("the default MIR vocabulary") : Vocabulary) +
           (WithHistogram ? ", with the entity histogram" : "") +
           (WithGrewe ? ", with Grewe's features" : "");
  std::string S = ir2vec::kindName(EmbeddingKind).str() + " embedding, " +
                  (FoldVocab ? llvm::formatv("a vocabulary of {0} dimensions trained per training set on its "
                                             "kernels' triplets ({1} epochs, seed {2}, start {3})",
                                             FoldVocab->Dim, FoldVocab->Epochs, FoldVocab->Seed, FoldVocab->Init)
                                   .str()
                             : std::string(vocab::vocabularySource(Vocabulary)));
  if (Weights.Opcode != 1.0f || Weights.Type != 0.5f || Weights.Arg != 0.2f)
    S += llvm::formatv(", weights {0}/{1}/{2}", Weights.Opcode, Weights.Type, Weights.Arg).str();
  if (Aggregate == Aggregation::Mean)
    S += ", mean over instructions";
  else if (Aggregate == Aggregation::Max)
    S += ", per-block maximum";
  else if (Aggregate == Aggregation::Loop)
    S += llvm::formatv(", blocks weighted {0}^loop depth", LoopWeight).str();
  if (WithHistogram)
    S += ", with the entity histogram";
  if (WithGrewe)
    S += ", with Grewe's features";
  return S;
}

llvm::json::Object DevmapSpec::settingsJSON() const {
  llvm::json::Array Ps, Ss;
  for (Protocol P : Protocols)
    Ps.push_back(support::nameOf<Protocol>(ProtocolNames, P).str());
  for (uint32_t S : Seeds)
    Ss.push_back(int64_t(S));
  return llvm::json::Object{
      {"spec", Path.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(Path)},
      {"spec_sha256", SHA256.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(SHA256)},
      {"protocols", std::move(Ps)},
      {"seeds", std::move(Ss)},
      {"folds", int64_t(Folds)},
      {"resamples", int64_t(Resamples)},
      {"bootstrap_seed", int64_t(BootstrapSeed)},
      {"unreadable", Recompile ? "recompile" : "skip"},
      {"classifier", llvm::json::Object{{"name", "xgboost"},
                                        {"max_depth", int64_t(Boost.MaxDepth)},
                                        {"learning_rate", Boost.LearningRate},
                                        {"trees", int64_t(Boost.Trees)},
                                        {"tree_method", "exact"},
                                        {"objective", "binary:logistic"}}}};
}

llvm::Expected<DevmapSpec> defaultDevmapSpec(const std::vector<std::string> &Vocabularies) {
  DevmapSpec S;
  S.Seeds = defaultSeeds();
  S.Arms = controls();
  auto Default = ir2vec::EmbeddingChoice::resolve({});
  if (!Default)
    return Default.takeError();
  std::vector<std::tuple<std::string, std::string, ir2vec::EmbeddingChoice>> Vs = {
      {"default", "", *Default}};
  for (const std::string &V : Vocabularies) {
    std::string Label = llvm::sys::path::stem(V).str();
    for (const auto &[Other, OtherPath, _] : Vs)
      if (Other == Label)
        return support::usageError("--vocab " + V + ": its arms would be named like " + OtherPath +
                                   "'s (" + Label + "-symbolic); rename the file or use --spec");
    // Resolved before any work: the one read of the file.
    auto E = ir2vec::EmbeddingChoice::resolve(
        {ir2vec::VocabSource::File, V, ir2vec::Kind::Symbolic, vocab::Weights{}});
    if (!E)
      return E.takeError();
    Vs.emplace_back(Label, V, std::move(*E));
  }
  for (const auto &[Label, Path, E] : Vs)
    for (ir2vec::Kind K : {ir2vec::Kind::Symbolic, ir2vec::Kind::FlowAware}) {
      DevmapArm A;
      A.Name = Label + "-" + ir2vec::kindName(K).str();
      A.EmbeddingKind = K;
      A.Vocabulary = Path;
      A.Embedding = E.withKind(K);
      S.Arms.push_back(std::move(A));
    }
  return S;
}

/// An arm's "fold_vocabulary" (with "vocabulary": "folds"): the training settings, and what
/// such an arm cannot be (its vectors are counts times each fold's vocabulary).
static llvm::Error readFoldVocabulary(const support::SpecReader &R, const llvm::json::Object &A,
                                      const std::string &Where, DevmapArm &Arm) {
  FoldVocabSettings S;
  if (const llvm::json::Value *V = A.get("fold_vocabulary")) {
    const llvm::json::Object *O = V->getAsObject();
    const std::string At = Where + ".fold_vocabulary";
    if (!O)
      return R.error(At, "expected an object (dim, epochs, seed, init)");
    if (llvm::Error E = R.onlyKeys(*O, At, {"dim", "epochs", "seed", "init"}))
      return E;
    if (llvm::Error E = R.integer(*O, "dim", At, S.Dim, 1))
      return E;
    if (llvm::Error E = R.integer(*O, "epochs", At, S.Epochs, 1))
      return E;
    if (llvm::Error E = R.integer(*O, "seed", At, S.Seed, 0))
      return E;
    if (S.Dim > 4096)
      return R.error(At + ".dim", "at most 4096 dimensions");
    if (S.Epochs > 100000)
      return R.error(At + ".epochs", "at most 100000 epochs");
    if (const llvm::json::Value *I = O->get("init")) {
      if (!I->getAsString())
        return R.error(At + ".init", "expected \"none\", \"default\" or a vocabulary file");
      S.Init = I->getAsString()->str();
      if (S.Init != "none" && S.Init != "default")
        S.Init = R.resolve(S.Init);
    }
  }
  if (Arm.Machine || Arm.EmbeddingKind != ir2vec::Kind::Symbolic ||
      (Arm.Aggregate != Aggregation::Sum && Arm.Aggregate != Aggregation::Mean))
    return R.error(Where + ".vocabulary", "\"folds\" is for symbolic LLVM IR arms summed or "
                                          "averaged (their vectors are counts times each fold's "
                                          "vocabulary)");
  Arm.FoldVocab = S;
  return llvm::Error::success();
}

/// "protocols": names of ProtocolNames, each once.
static llvm::Error readProtocols(const support::SpecReader &R, const llvm::json::Object &O,
                                 DevmapSpec &S) {
  const llvm::json::Value *P = O.get("protocols");
  if (!P)
    return llvm::Error::success();
  std::vector<std::string> Names;
  if (llvm::Error E = R.strings(P, "protocols", Names))
    return E;
  if (Names.empty())
    return R.error("protocols", "name at least one protocol (paper, kernel, suite)");
  S.Protocols.clear();
  for (const std::string &N : Names) {
    auto Pr = support::parseNamed<Protocol>(ProtocolNames, N, "protocol");
    if (!Pr)
      return R.error("protocols", llvm::toString(Pr.takeError()));
    if (llvm::is_contained(S.Protocols, *Pr))
      return R.error("protocols", "'" + N + "' twice");
    S.Protocols.push_back(*Pr);
  }
  return llvm::Error::success();
}

/// "seeds": a count from 104, or a list of numpy RandomState seeds.
static llvm::Error readDevmapSeeds(const support::SpecReader &R, const llvm::json::Object &O,
                                   DevmapSpec &S) {
  const llvm::json::Value *V = O.get("seeds");
  if (!V)
    return llvm::Error::success();
  S.Seeds.clear();
  if (std::optional<int64_t> N = V->getAsInteger()) {
    if (*N < 1 || *N > 1000)
      return R.error("seeds", "expected 1 to 1000 seeds, or an array of seeds");
    for (int64_t I = 0; I < *N; ++I)
      S.Seeds.push_back(uint32_t(104 + I));
  } else if (const llvm::json::Array *A = V->getAsArray()) {
    for (const llvm::json::Value &E : *A) {
      std::optional<int64_t> X = E.getAsInteger();
      if (!X || *X < 0 || *X > int64_t(UINT32_MAX))
        return R.error("seeds", "expected seeds from 0 to 4294967295 (numpy's RandomState)");
      if (llvm::is_contained(S.Seeds, uint32_t(*X)))
        return R.error("seeds", "seed " + llvm::Twine(*X) + " twice");
      S.Seeds.push_back(uint32_t(*X));
    }
    if (S.Seeds.empty() || S.Seeds.size() > 1000)
      return R.error("seeds", "expected 1 to 1000 seeds");
  } else {
    return R.error("seeds", "expected a count or an array of seeds");
  }
  return llvm::Error::success();
}

/// "classifier": XGBoost's settings within their bounds.
static llvm::Error readClassifier(const support::SpecReader &R, const llvm::json::Object &O,
                                  DevmapSpec &S) {
  const llvm::json::Value *CV = O.get("classifier");
  if (!CV)
    return llvm::Error::success();
  const llvm::json::Object *C = CV->getAsObject();
  if (!C)
    return R.error("classifier", "expected an object");
  if (llvm::Error E = R.onlyKeys(*C, "classifier", {"max_depth", "learning_rate", "trees"}))
    return E;
  if (llvm::Error E = R.integer(*C, "max_depth", "classifier", S.Boost.MaxDepth, 1))
    return E;
  if (llvm::Error E = R.integer(*C, "trees", "classifier", S.Boost.Trees, 1))
    return E;
  if (llvm::Error E = R.number(*C, "learning_rate", "classifier", S.Boost.LearningRate))
    return E;
  if (S.Boost.MaxDepth > 30 || S.Boost.Trees > 10000 || !(S.Boost.LearningRate > 0) ||
      !(S.Boost.LearningRate <= 1))
    return R.error("classifier", "expected max_depth 1 to 30, trees 1 to 10000 and a "
                                 "learning_rate in (0, 1]");
  return llvm::Error::success();
}

/// An arm's section "weights" (opcode, type, arg).
static llvm::Error readArmWeights(const support::SpecReader &R, const llvm::json::Object &A,
                                  const std::string &Where, DevmapArm &Arm) {
  const llvm::json::Value *WV = A.get("weights");
  if (!WV)
    return llvm::Error::success();
  const llvm::json::Object *W = WV->getAsObject();
  if (!W)
    return R.error(Where + ".weights", "expected an object (opcode, type, arg)");
  if (llvm::Error E = R.onlyKeys(*W, Where + ".weights", {"opcode", "type", "arg"}))
    return E;
  double Op = Arm.Weights.Opcode, Ty = Arm.Weights.Type, Ar = Arm.Weights.Arg;
  for (auto [Key, Out] : {std::pair<const char *, double *>{"opcode", &Op}, {"type", &Ty}, {"arg", &Ar}}) {
    if (llvm::Error E = R.number(*W, Key, Where + ".weights", *Out))
      return E;
    if (!std::isfinite(*Out) || std::fabs(*Out) > 1e6)
      return R.error(Where + ".weights." + Key, "expected a finite weight of magnitude at most 1e6");
  }
  Arm.Weights = vocab::Weights{float(Op), float(Ty), float(Ar)};
  return llvm::Error::success();
}

/// How an arm makes a kernel's row: "grewe", "aggregation", "loop_weight", "histogram".
static llvm::Error readArmColumns(const support::SpecReader &R, const llvm::json::Object &A,
                                  const std::string &Where, DevmapArm &Arm) {
  if (const llvm::json::Value *G = A.get("grewe")) {
    std::optional<bool> B = G->getAsBoolean();
    if (!B)
      return R.error(Where + ".grewe", "expected true or false");
    Arm.WithGrewe = *B;
  }
  if (const llvm::json::Value *G = A.get("aggregation")) {
    std::optional<llvm::StringRef> Name = G->getAsString();
    auto Agg = Name ? support::parseNamed<Aggregation>(AggregationNames, *Name, "aggregation")
                    : llvm::Expected<Aggregation>(support::makeError("expected sum, mean, max or loop"));
    if (!Agg)
      return R.error(Where + ".aggregation", llvm::toString(Agg.takeError()));
    Arm.Aggregate = *Agg;
  }
  if (const llvm::json::Value *W = A.get("loop_weight")) {
    std::optional<double> X = W->getAsNumber();
    if (Arm.Aggregate != Aggregation::Loop)
      return R.error(Where + ".loop_weight", "only with \"aggregation\": \"loop\"");
    if (!X || !(*X > 0) || *X > 1000)
      return R.error(Where + ".loop_weight", "expected a number above 0, at most 1000");
    Arm.LoopWeight = *X;
  }
  if (const llvm::json::Value *H = A.get("histogram")) {
    std::optional<bool> B = H->getAsBoolean();
    if (!B)
      return R.error(Where + ".histogram", "expected true or false");
    Arm.WithHistogram = *B;
  }
  return llvm::Error::success();
}

/// One arm of "arms": its name (none of S's arms'), mode, kind and vocabulary, read now.
static llvm::Expected<DevmapArm> readDevmapArm(const support::SpecReader &R,
                                               const llvm::json::Object &A,
                                               const std::string &Where, const DevmapSpec &S,
                                               ir2vec::EmbeddingResolver &Resolve) {
  if (llvm::Error E = R.onlyKeys(A, Where,
                                 {"name", "mode", "kind", "vocabulary", "weights", "grewe",
                                  "histogram", "aggregation", "loop_weight", "mir_stage",
                                  "fold_vocabulary"}))
    return E;
  DevmapArm Arm;
  Arm.Name = A.getString("name").value_or("").str();
  // The name is an HDF5 group, a Markdown table cell and a plot label: letters, digits and
  // . _ + - only, not starting with a dot.
  if (Arm.Name.empty() || Arm.Name.size() > 100 || Arm.Name.front() == '.' ||
      !llvm::all_of(Arm.Name, [](char C) { return llvm::isAlnum(C) || C == '.' || C == '_' || C == '+' || C == '-'; }))
    return R.error(Where + ".name", "expected a name of 1 to 100 letters, digits, '.', '_', '+' "
                                    "or '-', not starting with '.'");
  for (const DevmapArm &Other : S.Arms)
    if (Other.Name == Arm.Name)
      return R.error(Where + ".name", "'" + Arm.Name + "' " +
                                          (Other.Control ? "is a control's name (static, grewe, histogram)"
                                                         : "names two arms"));
  const llvm::StringRef Mode = A.getString("mode").value_or("llvm");
  if (Mode != "llvm" && Mode != "mir")
    return R.error(Where + ".mode", "expected llvm or mir");
  Arm.Machine = Mode == "mir";
  if (Arm.Machine) {
    if (A.get("weights") || A.get("kind") || A.get("aggregation"))
      return R.error(Where, "a machine-IR arm (\"mode\": \"mir\") has no kind, weights or "
                            "aggregation: MIR2Vec is symbolic, with its own weights, summed");
    Arm.MirStage = A.getString("mir_stage").value_or("post-ra").str();
    if (auto St = mir::parseMirStage(Arm.MirStage); !St)
      return R.error(Where + ".mir_stage", llvm::toString(St.takeError()));
  } else if (A.get("mir_stage")) {
    return R.error(Where + ".mir_stage", "only a machine-IR arm (\"mode\": \"mir\") has a stage");
  }
  auto K = ir2vec::parseKind(A.getString("kind").value_or("symbolic"));
  if (!K)
    return R.error(Where + ".kind", llvm::toString(K.takeError()));
  Arm.EmbeddingKind = *K;
  if (const llvm::json::Value *VV = A.get("vocabulary"); VV && !VV->getAsString())
    return R.error(Where + ".vocabulary", "expected \"default\" or a file name");
  std::string V = A.getString("vocabulary").value_or("default").str();
  Arm.Vocabulary = V == "default" || V == "folds" ? "" : R.resolve(V);
  if (V != "folds" && A.get("fold_vocabulary"))
    return R.error(Where + ".fold_vocabulary", "only with \"vocabulary\": \"folds\"");
  if (llvm::Error E = readArmWeights(R, A, Where, Arm))
    return E;
  if (llvm::Error E = readArmColumns(R, A, Where, Arm))
    return E;
  if (V == "folds")
    if (llvm::Error E = readFoldVocabulary(R, A, Where, Arm))
      return E;
  // Read now: a vocabulary that cannot be read fails before any work (a MIR vocabulary is
  // read for its target when the arm runs; its file must exist now).
  if (Arm.Machine) {
    if (!Arm.Vocabulary.empty() && !llvm::sys::fs::exists(Arm.Vocabulary))
      return R.error(Where + ".vocabulary", Arm.Vocabulary + ": no such MIR vocabulary file");
  } else if (Arm.FoldVocab) {
    if (auto I = foldInit(*Arm.FoldVocab); !I)
      return R.error(Where + ".fold_vocabulary.init", llvm::toString(I.takeError()));
  } else {
    ir2vec::EmbeddingRequest Req{ir2vec::VocabSource::Default, "", Arm.EmbeddingKind, Arm.Weights};
    if (!Arm.Vocabulary.empty())
      Req.From = ir2vec::VocabSource::File, Req.File = Arm.Vocabulary;
    auto E = Resolve.resolve(Req);
    if (!E)
      return R.error(Where + ".vocabulary", llvm::toString(E.takeError()));
    Arm.Embedding = std::move(*E);
  }
  return Arm;
}

llvm::Expected<DevmapSpec> readDevmapSpec(const std::string &Path) {
  support::SpecReader R(Path);
  auto J = R.load();
  if (!J)
    return J.takeError();
  const llvm::json::Object &O = *J->getAsObject();
  if (llvm::Error E = R.onlyKeys(O, "spec",
                                 {"arms", "protocols", "seeds", "folds", "resamples", "bootstrap_seed",
                                  "unreadable", "classifier"}))
    return E;
  DevmapSpec S;
  S.Path = Path;
  S.SHA256 = R.SHA256;
  S.Seeds = defaultSeeds();
  S.Arms = controls();
  if (llvm::Error E = readProtocols(R, O, S))
    return E;
  if (llvm::Error E = readDevmapSeeds(R, O, S))
    return E;
  if (llvm::Error E = R.integer(O, "folds", "spec", S.Folds, 2))
    return E;
  if (S.Folds > 1000)
    return R.error("folds", "expected 2 to 1000 folds");
  if (llvm::Error E = R.integer(O, "resamples", "spec", S.Resamples, 100))
    return E;
  if (S.Resamples > 100000)
    return R.error("resamples", "expected 100 to 100000 resamples");
  if (llvm::Error E = R.integer(O, "bootstrap_seed", "spec", S.BootstrapSeed))
    return E;
  if (std::optional<llvm::StringRef> U = O.getString("unreadable")) {
    if (*U != "recompile" && *U != "skip")
      return R.error("unreadable", "expected recompile or skip");
    S.Recompile = *U == "recompile";
  } else if (O.get("unreadable")) {
    return R.error("unreadable", "expected recompile or skip");
  }
  if (llvm::Error E = readClassifier(R, O, S))
    return E;
  // Without "arms": the built-in spec's (the default vocabulary, symbolic and flow-aware).
  if (!O.get("arms")) {
    auto Default = defaultDevmapSpec();
    if (!Default)
      return Default.takeError();
    S.Arms = std::move(Default->Arms);
    return S;
  }
  ir2vec::EmbeddingResolver Resolve; // arms that name one vocabulary share one read
  llvm::Error E = R.objects(O, "arms", "arm", [&](const llvm::json::Object &A,
                                                  const std::string &Where) -> llvm::Error {
    llvm::Expected<DevmapArm> Arm = readDevmapArm(R, A, Where, S, Resolve);
    if (!Arm)
      return Arm.takeError();
    S.Arms.push_back(std::move(*Arm));
    return llvm::Error::success();
  });
  if (E)
    return E;
  return S;
}

namespace {

/// A module vector per distinct kernel file (NaN-free), or why there is none.
struct KernelVectors {
  std::vector<std::vector<double>> Rows; // [distinct file]
  std::vector<std::string> Errors;       // [distinct file]: "" = embedded
};

/// The element-wise maximum of Dim-wide rows (every block of a module, unreachable ones too);
/// zeros for a module without blocks.
std::vector<double> blockMaximum(const std::vector<double> &Rows, unsigned Dim) {
  std::vector<double> Max(Dim, 0.0);
  const size_t N = Dim ? Rows.size() / Dim : 0;
  for (size_t R = 0; R < N; ++R)
    for (unsigned D = 0; D < Dim; ++D)
      Max[D] = R == 0 ? Rows[D] : std::max(Max[D], Rows[R * Dim + D]);
  return Max;
}

/// Each kernel's vector over its instruction count (each instruction has one opcode: the
/// histogram's opcode columns count them); kernels left out (no counts) untouched.
void overInstructions(std::vector<std::vector<double>> &Rows,
                      const std::vector<std::vector<double>> &Counts) {
  for (size_t D = 0; D < Rows.size(); ++D) {
    const std::vector<double> &Count = Counts[D];
    if (Count.size() != vocab::NumEntities)
      continue;
    const double N = std::accumulate(Count.begin(), Count.begin() + vocab::NumOpcodes, 0.0);
    for (double &X : Rows[D])
      X /= std::max(N, 1.0);
  }
}

/// An arm's feature rows (row-major) for a platform's Rows: the kernel's vector (Vectors, by
/// distinct content KernelOf[row]; none for the controls), its counts with the histogram,
/// Grewe's columns, then the run's transfer and work-group size.
std::vector<double> rowFeatures(const DevmapArm &Arm, const std::vector<std::vector<double>> &Vectors,
                                const std::vector<std::vector<double>> &Counts,
                                const std::vector<DevmapRow> &Rows, const std::vector<size_t> &KernelOf) {
  std::vector<double> F;
  for (size_t I = 0; I < Rows.size(); ++I) {
    const DevmapRow &Row = Rows[I];
    if (!Vectors.empty())
      F.insert(F.end(), Vectors[KernelOf[I]].begin(), Vectors[KernelOf[I]].end());
    if (Arm.WithHistogram)
      F.insert(F.end(), Counts[KernelOf[I]].begin(), Counts[KernelOf[I]].end());
    if (Arm.K == ArmKind::Grewe || Arm.WithGrewe)
      F.insert(F.end(), Row.Grewe.begin(), Row.Grewe.end());
    F.push_back(Row.Transfer);
    F.push_back(Row.WorkGroupSize);
  }
  return F;
}

/// Sum over blocks of Weight^depth times the block's row (every block, in layout order).
std::vector<double> loopWeighted(const std::vector<double> &Rows, const std::vector<int64_t> &Depth,
                                 unsigned Dim, double Weight) {
  std::vector<double> Sum(Dim, 0.0);
  for (size_t R = 0; Dim && R < Rows.size() / Dim; ++R) {
    const double W = std::pow(Weight, double(Depth[R]));
    for (unsigned D = 0; D < Dim; ++D)
      Sum[D] += W * Rows[R * Dim + D];
  }
  return Sum;
}

/// Embeds Files with V and K, or with Machine's source, aggregated as Arm says (module level:
/// the sum of the function vectors; Max and Loop from the block vectors; Mean is the caller's).
llvm::Expected<KernelVectors> embedFiles(const std::vector<std::string> &Files, const vocab::Vocabulary &V,
                                         ir2vec::Kind K, const DevmapConfig &C,
                                         const mir::MirSource *Machine = nullptr,
                                         const DevmapArm *Arm = nullptr) {
  const Aggregation Agg = Arm ? Arm->Aggregate : Aggregation::Sum;
  const bool FromBlocks = Agg == Aggregation::Max || Agg == Aggregation::Loop;
  ir2vec::EmbeddingJob J;
  J.Inputs = Files;
  J.Vocab = &V;
  J.EmbeddingKind = K;
  if (Machine)
    J.Source = &Machine->source();
  const unsigned Dim = Machine ? Machine->vocabulary().Dim : V.dimension();
  J.Granularity = ir2vec::Level::Module;
  corpus::BatchIO IO;
  IO.Run = C.Run;
  IO.Run.ShowProgress = false;
  IO.Run.Report = [](const support::Diagnostic &) {}; // failures are the study's to report
  IO.ModuleSeconds = C.ModuleSeconds;
  KernelVectors Out;
  Out.Rows.resize(Files.size());
  Out.Errors.resize(Files.size());
  ir2vec::LevelSet Levels;
  Levels.Blocks = FromBlocks;
  Levels.BlockLoopDepths = Agg == Aggregation::Loop;
  Levels.Functions = !FromBlocks;
  llvm::Error E = ir2vec::embedModules(J, Levels, /*InstructionText=*/false, 0, IO,
                                       [&](size_t I, ir2vec::EmbeddedModule &&M) -> llvm::Error {
                                         if (!M.Error.empty())
                                           Out.Errors[I] = M.Error;
                                         else if (Agg == Aggregation::Max)
                                           Out.Rows[I] = blockMaximum(M.E.BlockVectors, Dim);
                                         else if (Agg == Aggregation::Loop)
                                           Out.Rows[I] = loopWeighted(M.E.BlockVectors, M.E.BlockLoopDepth,
                                                                      Dim, Arm->LoopWeight);
                                         else if (M.E.ModuleVector.size() != Dim)
                                           Out.Rows[I].assign(Dim, 0.0); // no functions
                                         else
                                           Out.Rows[I] = std::move(M.E.ModuleVector);
                                         // A kernel vector XGBoost cannot use (a loop weight
                                         // to a deep nest's power, LLVM's flow-aware kind on
                                         // a doubling chain) fails the kernel, named.
                                         if (M.Error.empty() &&
                                             !llvm::all_of(Out.Rows[I], [](double X) { return std::isfinite(X); }))
                                           Out.Errors[I] = "its vector is not finite (it overflows a double" +
                                                           std::string(Agg == Aggregation::Loop ? ": loop_weight to the power of its loop depth" : "") + ")";
                                         return llvm::Error::success();
                                       });
  if (E)
    return E;
  if (C.Run.cancelled())
    return support::interruptedError("interrupted while embedding the kernels");
  return Out;
}

/// Compiles an OpenCL kernel's source with clang-22 as LLVM IR for the dataset's target
/// (x86-64 macOS, as the shipped IR), into Dir; the file, or clang's first error line.
llvm::Expected<std::string> recompile(const DevmapRow &R, const support::TempDir &Dir, size_t Index,
                                      const DevmapConfig &C) {
  const std::string Src = Dir.file("k" + std::to_string(Index) + ".cl"),
                    Out = Dir.file("k" + std::to_string(Index) + ".ll"),
                    Err = Dir.file("k" + std::to_string(Index) + ".err");
  if (llvm::Error E = support::writeFileAtomically(Src, [&](llvm::raw_ostream &OS) { OS << R.Source; }))
    return E;
  int ErrFd = -1;
  if (std::error_code EC = llvm::sys::fs::openFileForWrite(Err, ErrFd))
    return support::fileError(Err, "cannot write: " + EC.message());
  auto Child = support::Child::spawn({C.Clang, "-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header",
                                      "-O2", "-emit-llvm", "-S", "--target=x86_64-apple-macosx10.13.0",
                                      "-w", "-o", Out, Src},
                                     -1, ErrFd);
  ::close(ErrFd);
  if (!Child)
    return support::makeError("cannot run " + C.Clang + ": " + llvm::toString(Child.takeError()));
  auto [St, TimedOut] = Child->wait(C.ModuleSeconds, C.Run.CancelFd);
  if (TimedOut || St.Signaled || St.Code) {
    std::string First = "clang " + St.describe();
    if (auto B = llvm::MemoryBuffer::getFile(Err)) {
      llvm::StringRef T = (*B)->getBuffer();
      size_t P = T.find("error:");
      if (P != llvm::StringRef::npos)
        First = T.substr(P).split('\n').first.str();
    }
    return support::makeError("recompiling its src with " + C.Clang + " failed: " + First);
  }
  return Out;
}

/// Column-wise min-max scaling over all rows (scikit-learn's MinMaxScaler: a constant column
/// becomes 0), to floats; constant columns are dropped, which changes no tree (they offer no
/// split) and saves XGBoost their scans.
FloatMatrix scaled(const std::vector<double> &X, size_t Rows, size_t Cols, size_t &UsedCols) {
  std::vector<size_t> Keep;
  std::vector<double> Min(Cols, 0), Range(Cols, 0);
  for (size_t C = 0; C < Cols; ++C) {
    double Lo = INFINITY, Hi = -INFINITY;
    for (size_t R = 0; R < Rows; ++R) {
      Lo = std::min(Lo, X[R * Cols + C]);
      Hi = std::max(Hi, X[R * Cols + C]);
    }
    Min[C] = Lo, Range[C] = Hi - Lo;
    if (Hi > Lo)
      Keep.push_back(C);
  }
  FloatMatrix M;
  M.Rows = Rows;
  M.Cols = std::max<size_t>(1, Keep.size()); // XGBoost needs a column; a constant one never splits
  M.Data.assign(M.Rows * M.Cols, 0.0f);
  for (size_t R = 0; R < Rows; ++R)
    for (size_t K = 0; K < Keep.size(); ++K) {
      const size_t C = Keep[K];
      M.Data[R * M.Cols + K] = float((X[R * Cols + C] - Min[C]) / Range[C]);
    }
  UsedCols = Keep.size();
  return M;
}

/// Percentile interval of sorted V (nearest rank, the convention of the ablation reports).
Interval intervalOf(double Mean, std::vector<double> V) {
  std::sort(V.begin(), V.end());
  Interval I;
  I.Mean = Mean;
  if (V.empty())
    return I;
  const size_t B = V.size();
  I.Low = V[size_t(std::floor(0.025 * double(B)))];
  I.High = V[std::min(B - 1, size_t(std::ceil(0.975 * double(B))) - 1)];
  return I;
}

} // namespace

namespace {

/// Per kernel, sums over its rows of the seed-mean correctness and speedup ([platform][kernel]),
/// and each seed's accuracy ([platform][seed]).
struct KernelSums {
  std::vector<std::vector<double>> Correct, Speed, N;
  std::vector<std::vector<double>> SeedAccuracy;
};

/// The statistics of a finished study: resamples of kernels with replacement (the spec's
/// count and seed, so every caller draws the same ones), and means over them.
class Statistics {
public:
  explicit Statistics(const DevmapResult &R)
      : R(R), Kernels(R.Kernels.size()), NP(R.Platforms.size()), NS(R.Spec.Seeds.size()) {
    learn::Rng G(R.Spec.BootstrapSeed);
    Draws.assign(R.Spec.Resamples, std::vector<uint32_t>(Kernels, 0));
    for (auto &W : Draws)
      for (size_t I = 0; I < Kernels; ++I)
        ++W[learn::below(G, uint32_t(Kernels))];
  }
  double staticSeconds(size_t P, const DevmapRow &Row) const {
    return R.StaticGPU[P] ? Row.GpuSeconds : Row.CpuSeconds;
  }
  KernelSums sums(size_t A, size_t Pr) const {
    KernelSums S;
    S.Correct.assign(NP, std::vector<double>(Kernels, 0));
    S.Speed = S.N = S.Correct;
    S.SeedAccuracy.assign(NP, std::vector<double>(NS, 0));
    for (size_t P = 0; P < NP; ++P)
      for (size_t I = 0; I < R.Rows[P].size(); ++I) {
        const DevmapRow &Row = R.Rows[P][I];
        const size_t K = size_t(R.Used[P][I].Kernel);
        double C = 0, Sp = 0;
        for (size_t Si = 0; Si < NS; ++Si) {
          const bool GPU = R.Arms[A].Predictions[P][Pr][Si][I];
          C += GPU == Row.GPU;
          S.SeedAccuracy[P][Si] += (GPU == Row.GPU) / double(R.Rows[P].size());
          Sp += staticSeconds(P, Row) / (GPU ? Row.GpuSeconds : Row.CpuSeconds);
        }
        S.Correct[P][K] += C / double(NS);
        S.Speed[P][K] += Sp / double(NS);
        S.N[P][K] += 1;
      }
    return S;
  }
  /// Sum of Num over sum of Den, kernels weighted by W (null: each once).
  double ratio(const std::vector<double> &Num, const std::vector<double> &Den,
               const std::vector<uint32_t> *W) const {
    double S = 0, N = 0;
    for (size_t K = 0; K < Kernels; ++K) {
      const double Wt = W ? (*W)[K] : 1.0;
      S += Wt * Num[K], N += Wt * Den[K];
    }
    return N > 0 ? S / N : NAN;
  }
  /// Per platform, then the mean over platforms.
  std::vector<double> means(const std::vector<std::vector<double>> &Num,
                            const std::vector<std::vector<double>> &Den, const std::vector<uint32_t> *W) const {
    std::vector<double> Out(NP + 1, 0);
    for (size_t P = 0; P < NP; ++P) {
      Out[P] = ratio(Num[P], Den[P], W);
      Out[NP] += Out[P] / double(NP);
    }
    return Out;
  }
  /// Arm A's accuracy minus arm B's on protocol Pr, per platform and mean: paired (the same
  /// rows, folds, seeds and resamples).
  std::vector<Interval> difference(size_t A, size_t B, size_t Pr) const {
    const KernelSums SA = sums(A, Pr), SB = sums(B, Pr);
    const std::vector<double> PA = means(SA.Correct, SA.N, nullptr), PB = means(SB.Correct, SB.N, nullptr);
    std::vector<std::vector<double>> Boot(NP + 1);
    for (const auto &W : Draws) {
      const std::vector<double> X = means(SA.Correct, SA.N, &W), Y = means(SB.Correct, SB.N, &W);
      for (size_t P = 0; P <= NP; ++P)
        Boot[P].push_back(X[P] - Y[P]);
    }
    std::vector<Interval> Out;
    for (size_t P = 0; P <= NP; ++P)
      Out.push_back(intervalOf(PA[P] - PB[P], Boot[P]));
    return Out;
  }

  const DevmapResult &R;
  const size_t Kernels, NP, NS;
  std::vector<std::vector<uint32_t>> Draws;
};

} // namespace

std::vector<Interval> pairedDifference(const DevmapResult &R, size_t A, size_t B, size_t Protocol) {
  return Statistics(R).difference(A, B, Protocol);
}

namespace {

/// What a study judges, set up once: the kernel files' distinct contents, what the arms embed
/// of each (the file, or its recompilation where LLVM 22 cannot read it), their entity
/// histograms, and each judged row's content.
struct DevmapKernels {
  std::map<std::string, size_t> FileIndex; // kernel file -> its index among the files
  std::vector<size_t> ContentOf;           // [file]: its distinct content
  std::vector<std::string> Distinct;       // [content]: the first file with it
  std::vector<const DevmapRow *> DistinctRow;
  std::vector<std::string> Effective;      // [content]: what the arms embed
  std::vector<bool> Usable;                // [content]: embedded (else left out)
  KernelVectors Counts;                    // [content]: the entity histogram
  std::vector<std::vector<size_t>> KernelOfRow; // [platform][judged row]: its content
  std::optional<support::TempDir> Tmp;     // the recompiled kernels

  size_t contentOf(const std::string &Dir, const DevmapRow &Row) const {
    return ContentOf[FileIndex.at(kernelFile(Dir, Row))];
  }
};

/// The distinct kernel files and contents: each content is embedded once per arm.
llvm::Error readKernels(const DevmapData &Data, DevmapKernels &K) {
  std::vector<std::string> Files;
  std::vector<const DevmapRow *> FirstRow;
  for (const DevmapPlatform &P : Data.Platforms)
    for (const DevmapRow &Row : P.Rows) {
      const std::string F = kernelFile(Data.Dir, Row);
      if (K.FileIndex.emplace(F, Files.size()).second) {
        Files.push_back(F);
        FirstRow.push_back(&Row);
      }
    }
  std::map<std::string, size_t> ByContent;
  K.ContentOf.resize(Files.size());
  for (size_t I = 0; I < Files.size(); ++I) {
    auto B = support::readInput(Files[I]);
    if (!B)
      return support::fileError(Files[I], "cannot read: " + support::readErrorMessage(B.getError()));
    auto [It, New] = ByContent.emplace(support::sha256Hex((*B)->getBuffer()), K.Distinct.size());
    if (New) {
      K.Distinct.push_back(Files[I]);
      K.DistinctRow.push_back(FirstRow[I]);
    }
    K.ContentOf[I] = It->second;
  }
  return llvm::Error::success();
}

/// The histogram first: it tells which kernels LLVM 22 reads; those it cannot are recompiled
/// from their source (or left out) before any arm embeds them.
llvm::Error embedHistograms(const DevmapSpec &Spec, const DevmapConfig &C, DevmapKernels &K,
                            DevmapResult &R) {
  auto Counts = embedFiles(K.Distinct, ir2vec::countingVocabulary(), ir2vec::Kind::Symbolic, C);
  if (!Counts)
    return Counts.takeError();
  K.Counts = std::move(*Counts);
  K.Effective = K.Distinct;
  K.Usable.assign(K.Distinct.size(), true);
  for (size_t D = 0; D < K.Distinct.size(); ++D) {
    if (K.Counts.Errors[D].empty())
      continue;
    // LLVM's diagnostics quote the line and mark the column below it: the first line says it.
    std::string Why = llvm::StringRef(K.Counts.Errors[D]).split('\n').first.str();
    if (Spec.Recompile) {
      if (!K.Tmp) {
        auto T = support::TempDir::create("ir2vec-eval");
        if (!T)
          return T.takeError();
        K.Tmp.emplace(std::move(*T));
      }
      auto Out = recompile(*K.DistinctRow[D], *K.Tmp, D, C);
      if (C.Run.cancelled())
        return support::interruptedError("interrupted while recompiling kernels");
      if (Out) {
        auto Again = embedFiles({*Out}, ir2vec::countingVocabulary(), ir2vec::Kind::Symbolic, C);
        if (!Again)
          return Again.takeError();
        if (Again->Errors[0].empty()) {
          K.Effective[D] = *Out;
          K.Counts.Rows[D] = std::move(Again->Rows[0]);
          K.Counts.Errors[D].clear();
          R.Recompiled.emplace_back(K.Distinct[D], Why);
          continue;
        }
        Why += "; recompiled, LLVM 22 still cannot read it: " +
               llvm::StringRef(Again->Errors[0]).split('\n').first.str();
      } else {
        Why += "; " + llvm::toString(Out.takeError());
      }
    }
    K.Usable[D] = false;
    R.LeftOut.emplace_back(K.Distinct[D], Why);
  }
  return llvm::Error::success();
}

/// What the protocols need of one platform's rows, before any work (scikit-learn's
/// StratifiedKFold refuses more folds than rows, or than every class has rows).
llvm::Error checkProtocols(const DevmapSpec &Spec, const std::vector<DevmapRow> &Rows,
                           const std::string &CSV) {
  const size_t N = Rows.size(), GPU = size_t(llvm::count_if(Rows, [](const DevmapRow &X) { return X.GPU; }));
  std::set<std::string> Kernels, Suites;
  for (const DevmapRow &Row : Rows) {
    Kernels.insert(Row.Benchmark);
    Suites.insert(suiteOf(Row.Benchmark));
  }
  for (Protocol Pr : Spec.Protocols) {
    const std::string What = support::nameOf<Protocol>(ProtocolNames, Pr).str() + " protocol: ";
    if (Pr == Protocol::Paper && (Spec.Folds > N || (Spec.Folds > GPU && Spec.Folds > N - GPU)))
      return support::fileError(CSV, What + llvm::Twine(Spec.Folds) + " folds, but " + llvm::Twine(N) +
                                         " rows (" + llvm::Twine(GPU) + " GPU, " + llvm::Twine(N - GPU) +
                                         " CPU): stratified folds need at least as many rows of one device");
    if (Pr == Protocol::Kernel && Spec.Folds > Kernels.size())
      return support::fileError(CSV, What + llvm::Twine(Spec.Folds) + " folds, but " +
                                         llvm::Twine(Kernels.size()) + " kernels");
    if (Pr == Protocol::Suite && Suites.size() < 2)
      return support::fileError(CSV, What + "leaving one suite out needs at least 2 suites, the "
                                         "rows have " + llvm::Twine(Suites.size()) + " (" + *Suites.begin() + ")");
  }
  return llvm::Error::success();
}

/// The rows every arm judges (those whose kernel is embedded), their kernels and suites
/// (numbered by name: the leave-one-suite-out folds).
llvm::Error judgedRows(const DevmapData &Data, const DevmapSpec &Spec, DevmapKernels &K,
                       DevmapResult &R) {
  const size_t NP = Data.Platforms.size();
  std::map<std::string, int> KernelIndex;
  for (size_t P = 0; P < NP; ++P) {
    R.Platforms.push_back(Data.Platforms[P].Name);
    R.CSVs.push_back(Data.Platforms[P].CSV);
    R.Used.emplace_back();
    R.Rows.emplace_back();
    for (size_t I = 0; I < Data.Platforms[P].Rows.size(); ++I) {
      const DevmapRow &Row = Data.Platforms[P].Rows[I];
      if (!K.Usable[K.contentOf(Data.Dir, Row)])
        continue;
      auto [It, New] = KernelIndex.emplace(Row.Benchmark, int(R.Kernels.size()));
      if (New) {
        R.Kernels.push_back(Row.Benchmark);
        R.Suites.push_back(suiteOf(Row.Benchmark));
      }
      R.Used[P].push_back({I, It->second});
      R.Rows[P].push_back(Row);
    }
    if (R.Used[P].size() < 2)
      return support::fileError(Data.Platforms[P].CSV, "fewer than 2 rows have a kernel LLVM 22 can read");
  }
  for (size_t P = 0; P < NP; ++P)
    if (llvm::Error E = checkProtocols(Spec, R.Rows[P], R.CSVs[P]))
      return E;
  std::vector<std::string> Names = R.Suites;
  std::sort(Names.begin(), Names.end());
  Names.erase(std::unique(Names.begin(), Names.end()), Names.end());
  R.SuiteNames = Names;
  for (const std::string &S : R.Suites)
    R.SuiteOf.push_back(int(std::lower_bound(Names.begin(), Names.end(), S) - Names.begin()));
  K.KernelOfRow.assign(NP, {});
  for (size_t P = 0; P < NP; ++P)
    for (const DevmapRow &Row : R.Rows[P])
      K.KernelOfRow[P].push_back(K.contentOf(Data.Dir, Row));
  return llvm::Error::success();
}

/// The vocabularies of "vocabulary": "folds" arms: every kernel's triplets once, a warm start
/// per arm, and a vocabulary per training (thread-safe: trainings run on several workers).
class FoldVocabularies {
public:
  static llvm::Expected<FoldVocabularies> make(const DevmapSpec &Spec, const DevmapKernels &K) {
    FoldVocabularies F;
    F.Spec = &Spec;
    F.K = &K;
    F.Inits.resize(Spec.Arms.size());
    for (size_t A = 0; A < Spec.Arms.size(); ++A) {
      if (!Spec.Arms[A].FoldVocab)
        continue;
      if (!F.Triplets) {
        auto T = KernelTriplets::collect(K.Effective, K.Usable);
        if (!T)
          return T.takeError();
        F.Triplets = std::move(*T);
      }
      auto I = foldInit(*Spec.Arms[A].FoldVocab);
      if (!I)
        return support::prefixError("arm " + Spec.Arms[A].Name, I.takeError());
      F.Inits[A] = std::move(*I);
    }
    return F;
  }
  /// Arm A's vocabulary trained on the triplets of Kernels (distinct contents) only.
  llvm::Expected<vocab::Vocabulary> train(size_t A, const std::vector<size_t> &Kernels) const {
    const DevmapArm &Arm = Spec->Arms[A];
    return Triplets->train(Kernels, *Arm.FoldVocab, Arm.Weights, Inits[A] ? &*Inits[A] : nullptr);
  }
  /// A fold vocabulary's vectors per distinct content: the counts times it (summed as the
  /// symbolic module vector is, by linearity), over the instruction count with Mean.
  std::vector<std::vector<double>> vectors(const DevmapArm &Arm, const vocab::Vocabulary &V) const {
    std::vector<std::vector<double>> Out(K->Counts.Rows.size());
    for (size_t D = 0; D < Out.size(); ++D)
      if (K->Usable[D])
        Out[D] = ir2vec::countsTimesVocabulary(K->Counts.Rows[D], V);
    if (Arm.Aggregate == Aggregation::Mean)
      overInstructions(Out, K->Counts.Rows);
    return Out;
  }

private:
  const DevmapSpec *Spec = nullptr;
  const DevmapKernels *K = nullptr;
  std::optional<KernelTriplets> Triplets;
  std::vector<std::optional<vocab::InitialEntities>> Inits;
};

/// Arm A's vector per distinct content and the names of its columns (the histogram, machine
/// IR's, a fold vocabulary's trained on every kernel, or an embedding's).
llvm::Expected<std::vector<std::vector<double>>>
armVectors(size_t A, const DevmapSpec &Spec, const DevmapConfig &C, const DevmapKernels &K,
           const FoldVocabularies &FV, DevmapArmResult &Out) {
  const DevmapArm &Arm = Spec.Arms[A];
  if (Arm.K == ArmKind::Histogram) {
    for (vocab::EntityId E = 0; E < vocab::NumEntities; ++E)
      Out.ColumnNames.push_back("count:" + std::string(vocab::entityName(E)));
    return K.Counts.Rows;
  }
  if (Arm.Machine) {
    // For x86-64 (the shipped IR's target is x86-64 macOS; code generation for it is llc's).
    mir::MirRunOptions O;
    O.Target.Triple = "x86_64-unknown-linux-gnu";
    O.Stop = *mir::parseMirStage(Arm.MirStage);
    O.VocabPath = Arm.Vocabulary;
    auto Src = mir::MirSource::create(O, K.Effective, [](const support::Diagnostic &) {});
    if (!Src)
      return support::makeError("arm " + Arm.Name + ": " + llvm::toString(Src.takeError()));
    auto E = embedFiles(K.Effective, ir2vec::countingVocabulary(), ir2vec::Kind::Symbolic, C, Src->get());
    if (!E)
      return E.takeError();
    for (size_t D = 0; D < K.Effective.size(); ++D)
      if (K.Usable[D] && !E->Errors[D].empty())
        return support::fileError(K.Effective[D], "arm " + Arm.Name + ": cannot compile and embed its machine IR: " +
                                                      llvm::StringRef(E->Errors[D]).split('\n').first);
    for (unsigned D = 0; D < (*Src)->vocabulary().Dim; ++D)
      Out.ColumnNames.push_back("mir" + std::to_string(D));
    return std::move(E->Rows);
  }
  if (Arm.FoldVocab) {
    // Each training uses its own (runTrainings); results.h5 keeps the vectors of the
    // vocabulary trained on every kernel, for inspection.
    std::vector<size_t> All;
    for (size_t D = 0; D < K.Usable.size(); ++D)
      if (K.Usable[D])
        All.push_back(D);
    auto V = FV.train(A, All);
    if (!V)
      return support::prefixError("arm " + Arm.Name, V.takeError());
    for (unsigned D = 0; D < Arm.FoldVocab->Dim; ++D)
      Out.ColumnNames.push_back("dim" + std::to_string(D));
    return FV.vectors(Arm, *V);
  }
  if (Arm.K != ArmKind::Embedding)
    return std::vector<std::vector<double>>();
  const ir2vec::EmbeddingChoice &V = Arm.Embedding;
  auto E = embedFiles(K.Effective, V.vocabulary(), V.kind(), C, nullptr, &Arm);
  if (!E)
    return E.takeError();
  if (Arm.Aggregate == Aggregation::Mean)
    overInstructions(E->Rows, K.Counts.Rows);
  for (size_t D = 0; D < K.Effective.size(); ++D)
    if (K.Usable[D] && !E->Errors[D].empty())
      return support::fileError(K.Effective[D], "arm " + Arm.Name + ": cannot embed: " + E->Errors[D]);
  for (unsigned D = 0; D < V.vocabulary().dimension(); ++D)
    Out.ColumnNames.push_back("dim" + std::to_string(D));
  return std::move(E->Rows);
}

/// The candidates: every arm's features, per platform a row per judged row (the arm's vector
/// of its kernel, then the histogram, Grewe's columns, transfer and work-group size).
llvm::Error armFeatures(const DevmapSpec &Spec, const DevmapConfig &C, const DevmapKernels &K,
                        const FoldVocabularies &FV, DevmapResult &R) {
  const size_t NP = R.Platforms.size();
  R.Arms.resize(Spec.Arms.size());
  for (size_t A = 0; A < Spec.Arms.size(); ++A) {
    const DevmapArm &Arm = Spec.Arms[A];
    DevmapArmResult &Out = R.Arms[A];
    if (Arm.K == ArmKind::Static)
      continue;
    auto Vectors = armVectors(A, Spec, C, K, FV, Out);
    if (!Vectors)
      return Vectors.takeError();
    if (Arm.WithHistogram)
      for (vocab::EntityId E = 0; E < vocab::NumEntities; ++E)
        Out.ColumnNames.push_back("count:" + std::string(vocab::entityName(E)));
    if (Arm.K == ArmKind::Grewe || Arm.WithGrewe)
      for (const char *G : GreweColumns)
        Out.ColumnNames.push_back(G);
    Out.ColumnNames.push_back("transfer");
    Out.ColumnNames.push_back("wgsize");
    Out.Columns = Out.ColumnNames.size();
    Out.Features.resize(NP);
    for (size_t P = 0; P < NP; ++P)
      Out.Features[P] = rowFeatures(Arm, *Vectors, K.Counts.Rows, R.Rows[P], K.KernelOfRow[P]);
  }
  return llvm::Error::success();
}

/// Folds: [platform][protocol][seed]; leave-one-suite-out has no randomness (one per seed
/// all the same, trained once). And the static mapping's device per platform.
void makeFolds(const DevmapSpec &Spec, DevmapResult &R) {
  const size_t NP = R.Platforms.size(), NR = Spec.Protocols.size(), NS = Spec.Seeds.size();
  R.Folds.assign(NP, std::vector<std::vector<std::vector<int>>>(NR));
  for (size_t P = 0; P < NP; ++P) {
    std::vector<int> Labels, Kernel, Suite;
    for (size_t I = 0; I < R.Rows[P].size(); ++I) {
      Labels.push_back(R.Rows[P][I].GPU);
      Kernel.push_back(R.Used[P][I].Kernel);
      Suite.push_back(R.SuiteOf[size_t(R.Used[P][I].Kernel)]);
    }
    // Kernels renumbered densely within the platform (groupFolds numbers groups 0..G-1).
    std::map<int, int> Dense;
    for (int &K : Kernel)
      K = Dense.emplace(K, int(Dense.size())).first->second;
    std::map<int, int> DenseSuite;
    for (int &S : Suite)
      S = DenseSuite.emplace(S, int(DenseSuite.size())).first->second;
    for (size_t Pr = 0; Pr < NR; ++Pr)
      for (size_t Si = 0; Si < NS; ++Si) {
        switch (Spec.Protocols[Pr]) {
        case Protocol::Paper:
          R.Folds[P][Pr].push_back(stratifiedFolds(Labels, Spec.Folds, Spec.Seeds[Si]));
          break;
        case Protocol::Kernel:
          R.Folds[P][Pr].push_back(groupFolds(Kernel, Spec.Folds, Spec.Seeds[Si]));
          break;
        case Protocol::Suite:
          R.Folds[P][Pr].push_back(leaveGroupOut(Suite));
          break;
        }
      }
    size_t GPU = size_t(std::count(Labels.begin(), Labels.end(), 1));
    R.StaticGPU.push_back(2 * GPU > Labels.size());
  }
}

/// One training: an arm's classifier for one fold of one seed of one protocol on one platform.
struct TrainingTask {
  size_t A, P, Pr, S;
  int Fold;
};

/// The trainings: one per (arm, platform, protocol, seed, fold) with rows on both sides; every
/// prediction starts as the static mapping's.
std::vector<TrainingTask> trainingTasks(const DevmapSpec &Spec, DevmapResult &R) {
  const size_t NP = R.Platforms.size(), NR = Spec.Protocols.size(), NS = Spec.Seeds.size();
  std::vector<TrainingTask> Tasks;
  for (size_t A = 0; A < Spec.Arms.size(); ++A) {
    DevmapArmResult &Out = R.Arms[A];
    Out.Predictions.assign(NP, std::vector<std::vector<std::vector<uint8_t>>>(NR));
    for (size_t P = 0; P < NP; ++P)
      for (size_t Pr = 0; Pr < NR; ++Pr)
        for (size_t Si = 0; Si < NS; ++Si) {
          Out.Predictions[P][Pr].emplace_back(R.Rows[P].size(), uint8_t(R.StaticGPU[P]));
          if (Spec.Arms[A].K == ArmKind::Static)
            continue;
          if (Spec.Protocols[Pr] == Protocol::Suite && Si > 0)
            continue; // the same folds as seed 0: copied after the trainings
          const std::vector<int> &F = R.Folds[P][Pr][Si];
          const int Max = *std::max_element(F.begin(), F.end());
          for (int K = 0; K <= Max; ++K)
            if (llvm::is_contained(F, K))
              Tasks.push_back({A, P, Pr, Si, K});
        }
  }
  return Tasks;
}

/// The judging: every training on -j workers, each fold's rows predicted by a classifier
/// trained on the other folds' rows (and a fold vocabulary arm's features made from a
/// vocabulary trained on those rows' kernels only).
llvm::Error runTrainings(const DevmapSpec &Spec, const DevmapConfig &C, const DevmapKernels &K,
                         const FoldVocabularies &FV, DevmapResult &R) {
  const size_t NA = Spec.Arms.size(), NP = R.Platforms.size(), NR = Spec.Protocols.size(),
               NS = Spec.Seeds.size();
  const std::vector<TrainingTask> Tasks = trainingTasks(Spec, R);
  std::vector<std::vector<FloatMatrix>> X(NA, std::vector<FloatMatrix>(NP));
  for (size_t A = 0; A < NA; ++A)
    if (Spec.Arms[A].K != ArmKind::Static)
      for (size_t P = 0; P < NP; ++P)
        X[A][P] = scaled(R.Arms[A].Features[P], R.Rows[P].size(), R.Arms[A].Columns, R.Arms[A].UsedColumns);
  std::vector<std::vector<int>> Y(NP);
  for (size_t P = 0; P < NP; ++P)
    for (const DevmapRow &Row : R.Rows[P])
      Y[P].push_back(Row.GPU);
  const auto TrainStart = std::chrono::steady_clock::now();
  support::Progress Prog("trainings", Tasks.size(), C.Run.ShowProgress);
  std::atomic<size_t> Next{0}, Done{0}, FoldVocabs{0};
  std::mutex M;
  std::optional<std::string> Failure;
  {
    llvm::StdThreadPool Pool(llvm::hardware_concurrency(std::max(1u, C.Run.Jobs)));
    const unsigned Workers = std::max(1u, C.Run.Jobs);
    for (unsigned W = 0; W < Workers; ++W)
      Pool.async([&] {
        for (size_t T; (T = Next++) < Tasks.size();) {
          if (C.Run.cancelled())
            return;
          {
            std::lock_guard<std::mutex> G(M);
            if (Failure)
              return;
          }
          const TrainingTask &Tk = Tasks[T];
          const std::vector<int> &F = R.Folds[Tk.P][Tk.Pr][Tk.S];
          std::vector<size_t> Train, Test;
          for (size_t I = 0; I < F.size(); ++I)
            (F[I] == Tk.Fold ? Test : Train).push_back(I);
          const FloatMatrix *Xm = &X[Tk.A][Tk.P];
          FloatMatrix Own; // an arm with fold vocabularies: this training's own features
          const DevmapArm &Arm = Spec.Arms[Tk.A];
          if (Arm.FoldVocab) {
            std::vector<size_t> Kernels;
            for (size_t I : Train)
              Kernels.push_back(K.KernelOfRow[Tk.P][I]);
            std::sort(Kernels.begin(), Kernels.end());
            Kernels.erase(std::unique(Kernels.begin(), Kernels.end()), Kernels.end());
            auto V = FV.train(Tk.A, Kernels);
            if (!V) {
              std::lock_guard<std::mutex> G(M);
              Failure = "arm " + Arm.Name + ": " + llvm::toString(V.takeError());
              return;
            }
            size_t Used = 0;
            Own = scaled(rowFeatures(Arm, FV.vectors(Arm, *V), K.Counts.Rows, R.Rows[Tk.P], K.KernelOfRow[Tk.P]),
                         R.Rows[Tk.P].size(), R.Arms[Tk.A].Columns, Used);
            Xm = &Own;
            ++FoldVocabs;
          }
          auto Probs = trainAndPredict(*Xm, Y[Tk.P], Train, Test, Spec.Boost);
          std::lock_guard<std::mutex> G(M);
          if (!Probs) {
            Failure = "arm " + Arm.Name + ": " + llvm::toString(Probs.takeError());
            return;
          }
          std::vector<uint8_t> &Pred = R.Arms[Tk.A].Predictions[Tk.P][Tk.Pr][Tk.S];
          for (size_t I = 0; I < Test.size(); ++I)
            Pred[Test[I]] = (*Probs)[I] > 0.5f; // XGBClassifier.predict's threshold
          Prog.update(++Done);
        }
      });
    Pool.wait();
  }
  Prog.clear();
  if (C.Run.cancelled())
    return support::interruptedError("interrupted after " + std::to_string(Done.load()) + " of " +
                                     std::to_string(Tasks.size()) + " trainings");
  if (Failure)
    return support::makeError(*Failure);
  R.Trainings = Tasks.size();
  R.FoldVocabularies = FoldVocabs.load();
  R.TrainSeconds = seconds(TrainStart);
  for (size_t A = 0; A < NA; ++A)
    for (size_t P = 0; P < NP; ++P)
      for (size_t Pr = 0; Pr < NR; ++Pr)
        if (Spec.Protocols[Pr] == Protocol::Suite)
          for (size_t Si = 1; Si < NS; ++Si)
            R.Arms[A].Predictions[P][Pr][Si] = R.Arms[A].Predictions[P][Pr][0];
  return llvm::Error::success();
}

/// One arm's figures under one protocol: accuracy and speedup per platform and pooled with
/// intervals over resamples of kernels, the worst seed, the worst suite, the difference to
/// the histogram control and the answer it gives.
CellResult armCell(const DevmapResult &R, const Statistics &St, size_t A, size_t Pr) {
  const size_t NP = R.Platforms.size(), NS = R.Spec.Seeds.size();
  const KernelSums S = St.sums(A, Pr);
  CellResult Cell;
  const std::vector<double> Acc = St.means(S.Correct, S.N, nullptr), Sp = St.means(S.Speed, S.N, nullptr);
  std::vector<std::vector<double>> BA(NP + 1), BS(NP + 1);
  for (const auto &W : St.Draws) {
    const std::vector<double> A1 = St.means(S.Correct, S.N, &W), S1 = St.means(S.Speed, S.N, &W);
    for (size_t P = 0; P <= NP; ++P) {
      BA[P].push_back(A1[P]);
      BS[P].push_back(S1[P]);
    }
  }
  Cell.VsHistogram = St.difference(A, HistogramArm, Pr);
  for (size_t P = 0; P <= NP; ++P) {
    Cell.Accuracy.push_back(intervalOf(Acc[P], BA[P]));
    Cell.Speedup.push_back(intervalOf(Sp[P], BS[P]));
    double Worst = INFINITY;
    for (size_t Si = 0; Si < NS; ++Si) {
      double V = 0;
      if (P < NP)
        V = S.SeedAccuracy[P][Si];
      else
        for (size_t Q = 0; Q < NP; ++Q)
          V += S.SeedAccuracy[Q][Si] / double(NP);
      Worst = std::min(Worst, V);
    }
    Cell.WorstSeedAccuracy.push_back(Worst);
  }
  // The worst suite: the lowest accuracy over its rows (seed means, platforms pooled).
  std::vector<double> SC(R.SuiteNames.size(), 0), SN(R.SuiteNames.size(), 0);
  for (size_t P = 0; P < NP; ++P)
    for (size_t K = 0; K < St.Kernels; ++K)
      SC[size_t(R.SuiteOf[K])] += S.Correct[P][K], SN[size_t(R.SuiteOf[K])] += S.N[P][K];
  Cell.WorstSuiteAccuracy = INFINITY;
  for (size_t Su = 0; Su < SC.size(); ++Su)
    if (SN[Su] > 0 && SC[Su] / SN[Su] < Cell.WorstSuiteAccuracy) {
      Cell.WorstSuiteAccuracy = SC[Su] / SN[Su];
      Cell.WorstSuite = R.SuiteNames[Su];
    }
  const Interval &D = Cell.VsHistogram.back();
  Cell.Answer = A == HistogramArm ? "-" : D.Low > 0 ? "yes" : D.High < 0 ? "no" : "not shown";
  return Cell;
}

/// Statistics: per arm and protocol, intervals over resamples of kernels shared by every arm
/// (pairedDifference and the figures use the same draws); the oracle's speedup.
void summarize(DevmapResult &R) {
  const Statistics St(R);
  for (size_t P = 0; P < R.Platforms.size(); ++P) {
    std::vector<double> Num(St.Kernels, 0), Den(St.Kernels, 0);
    double Sum = 0;
    for (size_t I = 0; I < R.Rows[P].size(); ++I) {
      const DevmapRow &Row = R.Rows[P][I];
      const double V = St.staticSeconds(P, Row) / std::min(Row.CpuSeconds, Row.GpuSeconds);
      Sum += V;
      Num[size_t(R.Used[P][I].Kernel)] += V;
      Den[size_t(R.Used[P][I].Kernel)] += 1;
    }
    std::vector<double> Boot;
    for (const auto &W : St.Draws)
      Boot.push_back(St.ratio(Num, Den, &W));
    R.OracleSpeedup.push_back(intervalOf(Sum / double(R.Rows[P].size()), Boot));
  }
  for (size_t Pr = 0; Pr < R.Spec.Protocols.size(); ++Pr)
    for (size_t A = 0; A < R.Spec.Arms.size(); ++A)
      R.Arms[A].Cells.push_back(armCell(R, St, A, Pr));
}

} // namespace

llvm::Expected<DevmapResult> runDevmapStudy(const DevmapData &Data, const DevmapSpec &Spec,
                                            const DevmapConfig &C) {
  const auto Start = std::chrono::steady_clock::now();
  DevmapResult R;
  R.Spec = Spec;
  R.DataDir = Data.Dir;
  R.BoostVersion = boostVersion();
  // Prepare: the kernels, what LLVM 22 reads of them, the rows every arm judges.
  DevmapKernels K;
  if (llvm::Error E = readKernels(Data, K))
    return E;
  R.DistinctKernelFiles = K.Distinct.size();
  const auto EmbedStart = std::chrono::steady_clock::now();
  if (llvm::Error E = embedHistograms(Spec, C, K, R))
    return E;
  if (llvm::Error E = judgedRows(Data, Spec, K, R))
    return E;
  // The candidates: every arm's features.
  llvm::Expected<FoldVocabularies> FV = FoldVocabularies::make(Spec, K);
  if (!FV)
    return FV.takeError();
  if (llvm::Error E = armFeatures(Spec, C, K, *FV, R))
    return E;
  R.EmbedSeconds = seconds(EmbedStart);
  K.Tmp.reset();
  // Judge them by the protocols' folds, then summarise.
  makeFolds(Spec, R);
  if (llvm::Error E = runTrainings(Spec, C, K, *FV, R))
    return E;
  summarize(R);
  R.Seconds = seconds(Start);
  return R;
}

} // namespace wb::downstream
