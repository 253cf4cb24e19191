#include "mlgo/studies/StudySpec.h"


namespace wb::mlgo {

llvm::Error readFolds(const support::SpecReader &R, const llvm::json::Object &O, unsigned &Out) {
  if (llvm::Error E = R.integer(O, "folds", "spec", Out))
    return E;
  if (Out == 1)
    return R.error("folds", "one fold leaves nothing to train on: 0 (one per package) or at "
                            "least 2");
  return llvm::Error::success();
}

llvm::Error readModel(const support::SpecReader &R, const llvm::json::Object *M,
                      TrainConfig &Out) {
  if (!M)
    return llvm::Error::success();
  if (llvm::Error E = R.onlyKeys(*M, "model",
                               {"kind", "hidden", "epochs", "batch_size", "learning_rate"}))
    return E;
  if (std::optional<llvm::StringRef> K = M->getString("kind")) {
    std::optional<runners::ModelKind> Kind =
        support::findNamed<runners::ModelKind>(runners::TrainedKindNames, *K);
    if (!Kind)
      return R.error("model.kind", "expected " +
                                     support::choices<runners::ModelKind>(runners::TrainedKindNames) +
                                     ", found \"" + *K + "\"");
    Out.Kind = *Kind;
  }
  if (const llvm::json::Array *H = M->getArray("hidden")) {
    Out.Hidden.clear();
    for (const llvm::json::Value &V : *H) {
      std::optional<int64_t> N = V.getAsInteger();
      if (!N || *N < 1)
        return R.error("model.hidden", "expected an array of positive integers");
      Out.Hidden.push_back(unsigned(std::min<int64_t>(*N, UINT32_MAX)));
    }
    if (std::optional<std::string> P = hiddenProblem(Out.Hidden))
      return R.error("model.hidden", *P);
  }
  if (llvm::Error E = R.integer(*M, "epochs", "model", Out.Epochs, 1))
    return E;
  if (llvm::Error E = R.integer(*M, "batch_size", "model", Out.BatchSize, 1))
    return E;
  return R.number(*M, "learning_rate", "model", Out.Optimizer.LearningRate);
}

llvm::Error readSearch(const support::SpecReader &R, const llvm::json::Object *X,
                       SearchSettings &S) {
  if (!X)
    return llvm::Error::success();
  if (llvm::Error E = R.onlyKeys(*X, "exploration", {"budget", "seed", "flip_order", "rules"}))
    return E;
  if (llvm::Error E = R.integer(*X, "budget", "exploration", S.Budget, 1))
    return E;
  if (llvm::Error E = R.integer(*X, "seed", "exploration", S.Seed))
    return E;
  if (std::optional<llvm::StringRef> F = X->getString("flip_order")) {
    auto O = support::parseNamed<FlipOrder>(FlipOrderNames, *F, "flip order");
    if (!O)
      return R.error("exploration.flip_order", llvm::toString(O.takeError()));
    S.Order = *O;
  }
  if (const llvm::json::Value *RulesV = X->get("rules")) {
    std::string Text;
    if (std::optional<llvm::StringRef> Word = RulesV->getAsString()) {
      Text = Word->str();
    } else {
      std::vector<std::string> Names;
      if (llvm::Error E = R.strings(RulesV, "exploration.rules", Names))
        return E;
      Text = llvm::join(Names, ",");
      if (Names.empty())
        Text = "none";
    }
    auto Rules = parseRules(Text);
    if (!Rules)
      return R.error("exploration.rules", llvm::toString(Rules.takeError()));
    S.Rules = std::move(*Rules);
  }
  return llvm::Error::success();
}

llvm::Error readArm(const support::SpecReader &R, const llvm::json::Object &A,
                    const std::string &Where, std::string &Name, std::vector<std::string> &Groups,
                    ir2vec::EmbeddingChoice &Vocab, ir2vec::EmbeddingResolver &Resolve,
                    features::Task T, bool AllowCounts) {
  Name = A.getString("name").value_or("").str();
  // The name is part of the models' file names: a NUL cut them short (two folds' models then
  // collided) and 5,000 characters were too long, found only after the exploration.
  constexpr size_t MaxNameBytes = 100;
  if (Name.empty() || Name == "." || Name == ".." || Name.size() > MaxNameBytes ||
      std::any_of(Name.begin(), Name.end(),
                  [](char C) { return C == '/' || C == ' ' || (unsigned char)C < 0x20 || C == 0x7f; }))
    return R.error(Where + ".name", "expected a name of 1 to " + std::to_string(MaxNameBytes) +
                                      " bytes without spaces, slashes or control characters");
  if (llvm::Error E = R.strings(A.get("features"), Where + ".features", Groups))
    return E;
  if (Groups.empty())
    return R.error(Where + ".features", "name at least one feature group");
  auto Defs = features::featuresOfGroups(T, Groups);
  if (!Defs)
    return R.error(Where + ".features", llvm::toString(Defs.takeError()));
  if (llvm::Error E = readVocabulary(R, A.getString("vocabulary").value_or("none"),
                                     Where + ".vocabulary", Vocab, Resolve, AllowCounts))
    return E;
  const bool Embeds = std::any_of(Defs->begin(), Defs->end(),
                                  [](const features::FeatureDef *F) { return features::isEmbedding(*F); });
  if (Embeds && !Vocab)
    return R.error(Where + ".vocabulary", "'" + Name + "' reads embedding features: name a "
                                        "vocabulary (\"default\", " +
                                        (AllowCounts ? "\"counts\", " : "") + "or a file)");
  if (!Embeds && Vocab)
    return R.error(Where + ".vocabulary", "'" + Name + "' reads no embedding feature: its "
                                        "vocabulary would not be used (\"none\")");
  return llvm::Error::success();
}

llvm::Error readVocabulary(const support::SpecReader &R, llvm::StringRef Text,
                           const std::string &Where, ir2vec::EmbeddingChoice &Vocab,
                           ir2vec::EmbeddingResolver &Resolve, bool AllowCounts) {
  Vocab = ir2vec::EmbeddingChoice();
  if (Text == "none")
    return llvm::Error::success();
  ir2vec::EmbeddingRequest Req;
  std::optional<ir2vec::VocabSource> S =
      support::findNamed<ir2vec::VocabSource>(ir2vec::VocabSourceNames, Text);
  if (S && (*S != ir2vec::VocabSource::Counts || AllowCounts)) {
    Req.From = *S;
  } else {
    Req.From = ir2vec::VocabSource::File;
    Req.File = R.resolve(Text.str());
  }
  auto V = Resolve.resolve(Req);
  if (!V)
    return R.error(Where, llvm::toString(V.takeError()));
  Vocab = std::move(*V);
  return llvm::Error::success();
}

} // namespace wb::mlgo
