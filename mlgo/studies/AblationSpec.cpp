// Reading an ablation spec (docs/formats/mlgo-ablation.md): the inliner's and eviction's.
#include "mlgo/studies/Ablation.h"
#include "mlgo/studies/StudySpec.h"

#include "llvm/ADT/StringExtras.h"

#include <set>

namespace wb::mlgo {

namespace {

llvm::Error readSplit(const support::SpecReader &R, const llvm::json::Object &O,
                      SplitOptions &Split) {
  const llvm::json::Object *Sp = O.getObject("split");
  if (!Sp)
    return llvm::Error::success();
  if (llvm::Error E = R.onlyKeys(*Sp, "split", {"test_fraction", "seed", "keys_file"}))
    return E;
  if (llvm::Error E = R.number(*Sp, "test_fraction", "split", Split.TestFraction))
    return E;
  if (llvm::Error E = R.integer(*Sp, "seed", "split", Split.Seed))
    return E;
  if (std::optional<llvm::StringRef> K = Sp->getString("keys_file"))
    Split.KeysFile = R.resolve(K->str());
  return llvm::Error::success();
}

llvm::Error readSeeds(const support::SpecReader &R, const llvm::json::Object &O,
                      std::vector<uint64_t> &Seeds) {
  if (const llvm::json::Array *A = O.getArray("seeds")) {
    Seeds.clear();
    for (const llvm::json::Value &V : *A) {
      std::optional<int64_t> N = V.getAsInteger();
      if (!N || *N < 0)
        return R.error("seeds", "expected an array of non-negative integers");
      Seeds.push_back(uint64_t(*N));
    }
  }
  if (Seeds.empty())
    return R.error("seeds", "name at least one seed");
  return llvm::Error::success();
}

/// An arm's "kind": where it can change the features and the counting vocabulary's meaning do
/// not forbid it.
llvm::Error readArmKind(const support::SpecReader &R, const llvm::json::Object &A,
                        const std::string &Where,
                        features::Task T, AblationArm &Arm) {
  const llvm::json::Value *V = A.get("kind");
  if (!V)
    return llvm::Error::success();
  std::optional<llvm::StringRef> Name = V->getAsString();
  if (!Name)
    return R.error(Where + ".kind", "expected a string: symbolic, flow-aware or flow-aware-rd");
  llvm::Expected<ir2vec::Kind> K = ir2vec::parseKind(*Name);
  if (!K)
    return R.error(Where + ".kind", llvm::toString(K.takeError()));
  if (*K == ir2vec::Kind::Symbolic)
    return llvm::Error::success();
  if (Arm.Vocab.counts())
    return R.error(Where + ".kind", "'" + Arm.Name + "': \"counts\" is the entity histogram, "
                                    "a symbolic embedding with the counting vocabulary; it has no "
                                    "other kind");
  auto Defs = features::featuresOfGroups(T, Arm.Groups);
  if (!Defs)
    return Defs.takeError();
  // LLVM 22 computes the inliner's callee_ and caller_embedding symbolic whatever its
  // -ir2vec-kind says: a kind only reaches the workbench's own IR2Vec features (those sized by
  // the IR vocabulary, DimD; MIR2Vec has the symbolic kind only).
  auto TakesKind = [](const features::FeatureDef &F) {
    return F.From == features::Origin::Workbench && llvm::is_contained(F.Shape, features::DimD);
  };
  const bool Reaches = std::any_of(Defs->begin(), Defs->end(),
                                   [&](const features::FeatureDef *F) { return TakesKind(*F); });
  if (!Reaches) {
    std::vector<std::string> Groups; // the task's groups a kind reaches, from its table
    for (const features::FeatureDef &F : features::taskInfo(T).Features)
      if (TakesKind(F) && !llvm::is_contained(Groups, F.Group))
        Groups.push_back(F.Group);
    return R.error(Where + ".kind",
                   "'" + Arm.Name + "' reads no IR2Vec embedding the workbench computes (the "
                                    "kind reaches only the group" + (Groups.size() > 1 ? "s " : " ") +
                                    "\"" + llvm::join(Groups, "\", \"") + "\"; LLVM 22 computes "
                                    "its own embeddings symbolic): the kind would not be used");
  }
  if (Arm.Vocab)
    Arm.Vocab = Arm.Vocab.withKind(*K);
  return llvm::Error::success();
}

llvm::Error readArms(const support::SpecReader &R, const llvm::json::Object &O, AblationSpec &S) {
  std::set<std::string> Names;
  ir2vec::EmbeddingResolver Resolve; // arms that name one vocabulary share one read
  return R.objects(O, "arms", "arms", [&](const llvm::json::Object &A,
                                          const std::string &Where) -> llvm::Error {
    AblationArm Arm;
    if (llvm::Error E = R.onlyKeys(A, Where, {"name", "features", "vocabulary", "kind"}))
      return E;
    if (llvm::Error E =
            readArm(R, A, Where, Arm.Name, Arm.Groups, Arm.Vocab, Resolve, S.T, /*AllowCounts=*/true))
      return E;
    if (llvm::Error E = readArmKind(R, A, Where, S.T, Arm))
      return E;
    if (!Names.insert(Arm.Name).second)
      return R.error(Where + ".name", "arm '" + Arm.Name + "' is named twice");
    S.Arms.push_back(std::move(Arm));
    return llvm::Error::success();
  });
}

/// An eviction study's spec: one split by package, ES settings instead of an exploration.
llvm::Expected<AblationSpec> readEvictSpec(const support::SpecReader &R, const llvm::json::Object &O,
                                           AblationSpec S) {
  if (llvm::Error E = R.onlyKeys(O, "spec",
                                 {"task", "corpus", "protocol", "split", "training", "model",
                                  "seeds", "arms", "timeout"}))
    return E;
  if (llvm::Error E = R.corpus(O, S.Corpus))
    return E;
  S.Proto = JudgingProtocol::Split;
  if (std::optional<llvm::StringRef> P = O.getString("protocol"); P && *P != "split")
    return R.error("protocol", "an eviction study judges one held-out side: \"split\"");
  S.Split.TestFraction = 0.3;
  if (llvm::Error E = readSplit(R, O, S.Split))
    return E;
  EvictStudySettings &T = S.Evict;
  if (const llvm::json::Object *Tr = O.getObject("training")) {
    if (llvm::Error E = R.onlyKeys(*Tr, "training",
                                   {"steps", "pairs", "modules_per_step", "sigma", "learning_rate"}))
      return E;
    if (llvm::Error E = R.integer(*Tr, "steps", "training", T.ES.Steps, 1))
      return E;
    if (llvm::Error E = R.integer(*Tr, "pairs", "training", T.ES.Pairs, 1))
      return E;
    if (llvm::Error E = R.integer(*Tr, "modules_per_step", "training", T.ES.ModulesPerStep, 1))
      return E;
    if (llvm::Error E = R.number(*Tr, "sigma", "training", T.ES.Sigma))
      return E;
    if (llvm::Error E = R.number(*Tr, "learning_rate", "training", T.ES.Optimizer.LearningRate))
      return E;
    if (!(T.ES.Sigma > 0) || !(T.ES.Optimizer.LearningRate > 0))
      return R.error("training", "sigma and learning_rate must be positive");
  }
  if (const llvm::json::Object *M = O.getObject("model")) {
    if (llvm::Error E = R.onlyKeys(*M, "model", {"kind", "hidden"}))
      return E;
    TrainConfig H;
    if (llvm::Error E = readModel(R, M, H))
      return E;
    if (H.Kind != runners::ModelKind::MLP)
      return R.error("model.kind", "an eviction study trains MLPs (\"mlp\"): a linear column "
                                   "scorer cannot use an embedding that is the same in every "
                                   "column");
    T.Hidden = H.Hidden;
  }
  if (llvm::Error E = readSeeds(R, O, S.Seeds))
    return E;
  if (llvm::Error E = R.timeout(O, S.Timeout))
    return E;
  if (llvm::Error E = readArms(R, O, S))
    return E;
  S.TrainingSide = false;
  S.SHA256 = R.SHA256;
  return S;
}

} // namespace

llvm::Expected<AblationSpec> readAblationSpec(const std::string &Path) {
  support::SpecReader R(Path);
  llvm::Expected<llvm::json::Value> J = R.load();
  if (!J)
    return J.takeError();
  const llvm::json::Object *O = J->getAsObject();
  AblationSpec S;
  S.Path = Path;
  if (const llvm::json::Value *T = O->get("task")) {
    auto Task = features::parseTask(T->getAsString().value_or(""));
    if (!Task || *Task == features::Task::Priority) {
      llvm::consumeError(Task ? llvm::Error::success() : Task.takeError());
      return R.error("task", "expected \"inline\" or \"evict\"");
    }
    S.T = *Task;
  }
  if (S.T == features::Task::Evict)
    return readEvictSpec(R, *O, std::move(S));
  if (llvm::Error E = R.onlyKeys(*O, "spec",
                                 {"task", "corpus", "protocol", "folds", "split", "exploration",
                                  "model", "seeds", "arms", "training_side", "timeout"}))
    return E;
  if (llvm::Error E = R.corpus(*O, S.Corpus))
    return E;
  if (llvm::Error E = readSplit(R, *O, S.Split))
    return E;
  // The transfer protocol unless the spec asks otherwise; a split of its own asks for a split.
  S.Proto = O->getObject("split") ? JudgingProtocol::Split : JudgingProtocol::Transfer;
  if (const llvm::json::Value *P = O->get("protocol")) {
    std::optional<llvm::StringRef> Name = P->getAsString();
    auto Proto = support::parseNamed<JudgingProtocol>(JudgingProtocolNames, Name.value_or(""), "protocol");
    if (!Proto)
      return R.error("protocol", llvm::toString(Proto.takeError()));
    S.Proto = *Proto;
  }
  if (llvm::Error E = readFolds(R, *O, S.Folds))
    return E;
  if (S.Proto == JudgingProtocol::Transfer && O->getObject("split") &&
      O->getObject("split")->get("test_fraction"))
    return R.error("split.test_fraction", "the transfer protocol scores every package by "
                                          "cross-validation; a test fraction goes with "
                                          "\"protocol\": \"split\"");
  if (llvm::Error E = readSearch(R, O->getObject("exploration"), S.Search))
    return E;
  if (llvm::Error E = readModel(R, O->getObject("model"), S.Model))
    return E;
  if (llvm::Error E = readSeeds(R, *O, S.Seeds))
    return E;
  if (const llvm::json::Value *T = O->get("training_side")) {
    std::optional<bool> B = T->getAsBoolean();
    if (!B)
      return R.error("training_side", "expected true or false");
    S.TrainingSide = *B;
  }
  if (llvm::Error E = R.timeout(*O, S.Timeout))
    return E;
  if (llvm::Error E = readArms(R, *O, S))
    return E;
  S.Model.Groups = S.Arms.front().Groups;
  if (llvm::Error E = S.Model.validate())
    return R.error("model", llvm::toString(std::move(E)));
  S.SHA256 = R.SHA256;
  return S;
}

} // namespace wb::mlgo
