// Specs of `evaluate devmap` (docs/downstream.md): the built-in spec, a JSON spec read and
// checked with support/SpecReader (every error names the file and the key), the controls every
// spec starts with, and what an arm reads in words.
#include "downstream/DevmapSpec.h"

#include "ir2vec/Embedder.h"
#include "mir/MirCorpus.h"
#include "support/Error.h"
#include "support/SpecReader.h"
#include "vocab/VocabularyFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <numeric>

namespace wb::downstream {

namespace {

constexpr const char *ControlNames[] = {"static", "grewe", "histogram"};

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
  for (FoldProtocol P : Protocols)
    Ps.push_back(support::nameOf<FoldProtocol>(FoldProtocolNames, P).str());
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

llvm::Expected<DevmapSpec>
defaultDevmapSpec(const std::vector<ir2vec::EmbeddingChoice> &Vocabularies) {
  DevmapSpec S;
  S.Seeds = defaultSeeds();
  S.Arms = controls();
  auto Default = ir2vec::EmbeddingChoice::resolve({});
  if (!Default)
    return Default.takeError();
  std::vector<std::tuple<std::string, std::string, ir2vec::EmbeddingChoice>> Vs = {
      {"default", "", *Default}};
  for (const ir2vec::EmbeddingChoice &E : Vocabularies) {
    const std::string &V = E.spelling();
    std::string Label = llvm::sys::path::stem(V).str();
    for (const auto &[Other, OtherPath, _] : Vs)
      if (Other == Label)
        return support::usageError("--vocab " + V + ": its arms would be named like " + OtherPath +
                                   "'s (" + Label + "-symbolic); rename the file or use --spec");
    Vs.emplace_back(Label, V, E);
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

/// "protocols": names of FoldProtocolNames, each once.
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
    auto Pr = support::parseNamed<FoldProtocol>(FoldProtocolNames, N, "protocol");
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

} // namespace wb::downstream
