// Reading the JSON specs of studies (mlgo ablate, mlgo benchmark): unknown keys are errors,
// every error names the spec file and the key, paths are relative to the spec's directory.
#pragma once

#include "features/FeatureSets.h"
#include "mlgo/Explore.h"
#include "mlgo/Train.h"
#include "support/Error.h"
#include "vocab/VocabularyFile.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <string>
#include <vector>

namespace wb::mlgo {

class SpecReader {
public:
  explicit SpecReader(std::string Path) : Path(std::move(Path)) {}

  llvm::Error error(const llvm::Twine &Where, const llvm::Twine &What) const {
    return support::fileError(Path, Where + ": " + What);
  }
  /// Unknown keys are errors: a misspelt key must not silently fall back to a default.
  llvm::Error onlyKeys(const llvm::json::Object &O, const llvm::Twine &Where,
                       std::initializer_list<llvm::StringRef> Known) const {
    for (const auto &[K, V] : O)
      if (std::find(Known.begin(), Known.end(), llvm::StringRef(K)) == Known.end())
        return error(Where, "unknown key \"" + llvm::StringRef(K).str() + "\" (expected " +
                                llvm::join(std::vector<std::string>(Known.begin(), Known.end()), ", ") +
                                ")");
    return llvm::Error::success();
  }
  llvm::Error number(const llvm::json::Object &O, llvm::StringRef Key, const llvm::Twine &Where,
                     double &Out) const {
    if (const llvm::json::Value *V = O.get(Key)) {
      std::optional<double> D = V->getAsNumber();
      if (!D)
        return error(Where + "." + Key, "expected a number");
      Out = *D;
    }
    return llvm::Error::success();
  }
  template <typename T>
  llvm::Error integer(const llvm::json::Object &O, llvm::StringRef Key, const llvm::Twine &Where,
                      T &Out, int64_t Min = 0) const {
    if (const llvm::json::Value *V = O.get(Key)) {
      std::optional<int64_t> I = V->getAsInteger();
      if (!I || *I < Min)
        return error(Where + "." + Key, "expected an integer of at least " + llvm::Twine(Min));
      Out = T(*I);
    }
    return llvm::Error::success();
  }
  llvm::Error strings(const llvm::json::Value *V, const llvm::Twine &Where,
                      std::vector<std::string> &Out) const {
    Out.clear();
    if (!V)
      return llvm::Error::success();
    if (std::optional<llvm::StringRef> S = V->getAsString()) {
      Out.push_back(S->str());
      return llvm::Error::success();
    }
    const llvm::json::Array *A = V->getAsArray();
    if (!A)
      return error(Where, "expected a string or an array of strings");
    for (const llvm::json::Value &E : *A) {
      std::optional<llvm::StringRef> S = E.getAsString();
      if (!S)
        return error(Where, "expected an array of strings");
      Out.push_back(S->str());
    }
    return llvm::Error::success();
  }
  /// The spec's top-level JSON object, read and parsed (errors name the file); SHA256 is then
  /// the hash of the bytes read (a spec that is a FIFO or /dev/fd/N is read once).
  /// What names the file in a read error ("the spec", "the performance track's results").
  llvm::Expected<llvm::json::Value> load(llvm::StringRef What = "the spec");
  /// "timeout": seconds, not negative.
  llvm::Error timeout(const llvm::json::Object &O, double &Out) const {
    if (llvm::Error E = number(O, "timeout", "spec", Out))
      return E;
    if (!(Out >= 0))
      return error("spec.timeout", "expected seconds, 0 or more (0: no limit)");
    return llvm::Error::success();
  }
  /// "corpus": inputs as on the command line, relative to the spec's directory; required.
  llvm::Error corpus(const llvm::json::Object &O, std::vector<std::string> &Out) const;
  /// A non-empty array of objects under Key (What names them in the error), each given to Each
  /// with where it is ("arms[2]").
  llvm::Error objects(const llvm::json::Object &O, llvm::StringRef Key, llvm::StringRef What,
                      llvm::function_ref<llvm::Error(const llvm::json::Object &, const std::string &)> Each) const;
  /// "folds": folds of whole packages (0: one per package; never 1).
  llvm::Error folds(const llvm::json::Object &O, unsigned &Out) const;
  /// "model": the training settings (kind, hidden, epochs, batch_size, learning_rate).
  llvm::Error model(const llvm::json::Object *M, TrainConfig &Out) const {
    if (!M)
      return llvm::Error::success();
    if (llvm::Error E = onlyKeys(*M, "model",
                                 {"kind", "hidden", "epochs", "batch_size", "learning_rate"}))
      return E;
    if (std::optional<llvm::StringRef> K = M->getString("kind")) {
      std::optional<runners::ModelKind> Kind =
          support::findNamed<runners::ModelKind>(runners::TrainedKindNames, *K);
      if (!Kind)
        return error("model.kind", "expected " +
                                       support::choices<runners::ModelKind>(runners::TrainedKindNames) +
                                       ", found \"" + *K + "\"");
      Out.Kind = *Kind;
    }
    if (const llvm::json::Array *H = M->getArray("hidden")) {
      Out.Hidden.clear();
      for (const llvm::json::Value &V : *H) {
        std::optional<int64_t> N = V.getAsInteger();
        if (!N || *N < 1)
          return error("model.hidden", "expected an array of positive integers");
        Out.Hidden.push_back(unsigned(std::min<int64_t>(*N, UINT32_MAX)));
      }
      if (std::optional<std::string> P = hiddenProblem(Out.Hidden))
        return error("model.hidden", *P);
    }
    if (llvm::Error E = integer(*M, "epochs", "model", Out.Epochs, 1))
      return E;
    if (llvm::Error E = integer(*M, "batch_size", "model", Out.BatchSize, 1))
      return E;
    return number(*M, "learning_rate", "model", Out.Optimizer.LearningRate);
  }
  /// "exploration": budget, seed, flip_order, rules ("all", "none" or an array of names).
  llvm::Error exploration(const llvm::json::Object *X, SearchSettings &S) const {
    if (!X)
      return llvm::Error::success();
    if (llvm::Error E = onlyKeys(*X, "exploration", {"budget", "seed", "flip_order", "rules"}))
      return E;
    if (llvm::Error E = integer(*X, "budget", "exploration", S.Budget, 1))
      return E;
    if (llvm::Error E = integer(*X, "seed", "exploration", S.Seed))
      return E;
    if (std::optional<llvm::StringRef> F = X->getString("flip_order")) {
      auto O = support::parseNamed<FlipOrder>(FlipOrderNames, *F, "flip order");
      if (!O)
        return error("exploration.flip_order", llvm::toString(O.takeError()));
      S.Order = *O;
    }
    if (const llvm::json::Value *R = X->get("rules")) {
      std::string Text;
      if (std::optional<llvm::StringRef> Word = R->getAsString()) {
        Text = Word->str();
      } else {
        std::vector<std::string> Names;
        if (llvm::Error E = strings(R, "exploration.rules", Names))
          return E;
        Text = llvm::join(Names, ",");
        if (Names.empty())
          Text = "none";
      }
      auto Rules = parseRules(Text);
      if (!Rules)
        return error("exploration.rules", llvm::toString(Rules.takeError()));
      S.Rules = std::move(*Rules);
    }
    return llvm::Error::success();
  }
  /// A trained policy's name (no spaces or slashes), feature groups and vocabulary ("none",
  /// "default" or a file; required exactly when the groups read embeddings).
  /// With AllowCounts, "counts" names the counting vocabulary (vocab::countingEntityVectors:
  /// the entity histogram in place of embeddings), which the caller makes into a file.
  llvm::Error arm(const llvm::json::Object &A, const std::string &Where, std::string &Name,
                  std::vector<std::string> &Groups, std::string &Vocabulary,
                  features::Task T = features::Task::Inline, bool AllowCounts = false) const {
    Name = A.getString("name").value_or("").str();
    // The name is part of the models' file names: a NUL cut them short (two folds' models then
    // collided) and 5,000 characters were too long, found only after the exploration.
    constexpr size_t MaxNameBytes = 100;
    if (Name.empty() || Name == "." || Name == ".." || Name.size() > MaxNameBytes ||
        std::any_of(Name.begin(), Name.end(),
                    [](char C) { return C == '/' || C == ' ' || (unsigned char)C < 0x20 || C == 0x7f; }))
      return error(Where + ".name", "expected a name of 1 to " + std::to_string(MaxNameBytes) +
                                        " bytes without spaces, slashes or control characters");
    if (llvm::Error E = strings(A.get("features"), Where + ".features", Groups))
      return E;
    if (Groups.empty())
      return error(Where + ".features", "name at least one feature group");
    auto Defs = features::featuresOfGroups(T, Groups);
    if (!Defs)
      return error(Where + ".features", llvm::toString(Defs.takeError()));
    Vocabulary = A.getString("vocabulary").value_or("none").str();
    if (Vocabulary != "none" && Vocabulary != "default" && !(AllowCounts && Vocabulary == "counts")) {
      Vocabulary = resolve(Vocabulary);
      // Read now: a file that is missing or not a vocabulary failed every session of the arm,
      // and the study then said the compiler sent no features.
      auto V = vocab::loadEmbeddingVocabulary(Vocabulary, vocab::Weights{});
      if (!V)
        return error(Where + ".vocabulary", llvm::toString(V.takeError()));
    }
    const bool Embeds = std::any_of(Defs->begin(), Defs->end(),
                                    [](const features::FeatureDef *F) { return features::isEmbedding(*F); });
    if (Embeds && Vocabulary == "none")
      return error(Where + ".vocabulary", "'" + Name + "' reads embedding features: name a "
                                          "vocabulary (\"default\", " +
                                          (AllowCounts ? "\"counts\", " : "") + "or a file)");
    if (!Embeds && Vocabulary != "none")
      return error(Where + ".vocabulary", "'" + Name + "' reads no embedding feature: its "
                                          "vocabulary would not be used (\"none\")");
    return llvm::Error::success();
  }
  /// A path of the spec, relative to the spec's directory.
  std::string resolve(const std::string &P) const {
    if (P.empty() || llvm::sys::path::is_absolute(P))
      return P;
    llvm::SmallString<256> Out(llvm::sys::path::parent_path(Path));
    llvm::sys::path::append(Out, P);
    return std::string(Out);
  }

  std::string Path;
  std::string SHA256;
};

} // namespace wb::mlgo
