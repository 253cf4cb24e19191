#include "mlgo/pipelines/ExplorationFile.h"

#include "corpus/H5.h"
#include "ir2vec/Embedder.h"
#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

namespace wb::mlgo {

namespace h5 = corpus::h5;

std::string observationSetName(const std::string &Key) {
  // "KIND:VOCAB" for a kind other than symbolic; the default vocabulary's key is "".
  for (const auto &[K, Name] : ir2vec::KindNames) {
    const std::string Prefix = std::string(Name) + ":";
    if (K != ir2vec::Kind::Symbolic && llvm::StringRef(Key).starts_with(Prefix))
      return Key.size() == Prefix.size() ? Prefix + "default" : Key;
  }
  return Key.empty() ? "default" : Key;
}

llvm::Error refuseHeldOut(const std::string &Path, const ExplorationHeader &H,
                          llvm::StringRef What) {
  if (H.Side != "test")
    return llvm::Error::success();
  return support::fileError(Path, "an exploration of the held-out side is for evaluation only; " +
                                      What + " on the training side's");
}

std::string ExplorationHeader::trainedSplit() const {
  if (Side != "all")
    return Split;
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Split);
  llvm::json::Object *O = V ? V->getAsObject() : nullptr;
  if (!O) {
    if (!V)
      llvm::consumeError(V.takeError());
    return Split;
  }
  llvm::json::Array Keys;
  for (const char *Side : {"train_keys", "test_keys"})
    if (const llvm::json::Array *A = O->getArray(Side))
      for (const llvm::json::Value &K : *A)
        Keys.push_back(K);
  std::sort(Keys.begin(), Keys.end(), [](const llvm::json::Value &A, const llvm::json::Value &B) {
    return A.getAsString().value_or("") < B.getAsString().value_or("");
  });
  (*O)["train_keys"] = std::move(Keys);
  (*O)["test_keys"] = llvm::json::Array();
  (*O)["side"] = "all: every module trained on";
  std::string Out;
  llvm::raw_string_ostream(Out) << *V;
  return Out;
}

namespace {
llvm::json::Array jsonStringArray(const std::vector<std::string> &V) {
  llvm::json::Array A;
  for (const std::string &X : V)
    A.push_back(X);
  return A;
}
} // namespace

ModuleChanges changedModules(const ExplorationFile &X) {
  ModuleChanges C;
  for (const ModuleExploration &M : X.Modules) {
    if (M.SHA256.empty()) {
      ++C.Unchecked;
      continue;
    }
    llvm::Expected<std::string> Now = support::sha256OfFile(M.Path);
    if (!Now)
      llvm::consumeError(Now.takeError());
    if (!Now || *Now != M.SHA256)
      C.Changed.push_back(M.Path);
  }
  return C;
}

std::string ModuleChanges::describe(const std::string &Exploration, llvm::StringRef What) const {
  std::string Names;
  for (size_t I = 0; I < Changed.size() && I < 3; ++I)
    Names += (I ? ", " : "") + Changed[I];
  if (Changed.size() > 3)
    Names += " and " + std::to_string(Changed.size() - 3) + " more";
  return llvm::formatv("{0}: {1} explored module{2} changed since the exploration (the SHA-256 "
                       "of {3} is not the one recorded): {4}",
                       Exploration, Changed.size(), Changed.size() == 1 ? "" : "s", Names, What)
      .str();
}

std::string ExplorationHeader::settings() const {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::json::Value(llvm::json::Object{{"budget", Budget},
                                             {"seed", Seed},
                                             {"flip_order", FlipOrder},
                                             {"split", Split},
                                             {"side", Side},
                                             {"toolchain", Toolchain},
                                             {"vocabularies", jsonStringArray(Vocabularies)},
                                             {"vocabulary_digests", jsonStringArray(VocabularyDigests)},
                                             {"rules", jsonStringArray(Rules)}});
  return Text;
}

namespace {

void writeInts(H5::Group &G, const char *Name, const std::vector<int64_t> &V) {
  H5::DSetCreatPropList P;
  h5::noTimes(P.getId());
  hsize_t N[1] = {V.size()};
  H5::DataSet DS = G.createDataSet(Name, H5::PredType::STD_I64LE, H5::DataSpace(1, N), P);
  if (!V.empty())
    DS.write(V.data(), H5::PredType::NATIVE_INT64);
}

std::string jsonStrings(const std::vector<std::string> &V) {
  std::string Text;
  llvm::raw_string_ostream(Text) << llvm::json::Value(jsonStringArray(V));
  return Text;
}

/// Attribute Name of F, a JSON array of strings.
llvm::Expected<std::vector<std::string>> readJSONStrings(const std::string &Path, H5::H5File &F,
                                                         const char *Name) {
  const std::string Text = h5::readStrAttr(F, Name);
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  const llvm::json::Array *A = V ? V->getAsArray() : nullptr;
  auto Bad = [&] {
    return support::fileError(Path, llvm::Twine("attribute ") + Name +
                                        " is not a JSON array of strings");
  };
  if (!A) {
    if (!V)
      llvm::consumeError(V.takeError());
    return Bad();
  }
  std::vector<std::string> Out;
  for (const llvm::json::Value &E : *A) {
    auto S = E.getAsString();
    if (!S)
      return Bad();
    Out.push_back(S->str());
  }
  return Out;
}

void writeBody(H5::H5File &F, const ExplorationFile &X) {
  const ExplorationHeader &H = X.Header;
  h5::writeAttr(F, "schema", std::string(ExplorationSchema));
  h5::writeAttr(F, "task", std::string("inline"));
  h5::writeAttr(F, "budget", H.Budget);
  h5::writeAttr(F, "seed", H.Seed);
  h5::writeAttr(F, "flip_order", H.FlipOrder);
  h5::writeAttr(F, "split", H.Split);
  h5::writeAttr(F, "side", H.Side);
  h5::writeAttr(F, "opt", H.Opt);
  h5::writeAttr(F, "llc", H.Llc);
  h5::writeAttr(F, "compile", H.Compile);
  h5::writeAttr(F, "toolchain", H.Toolchain);
  h5::writeAttr(F, "llvm_version", H.LLVMVersion);
  h5::writeAttr(F, "tool_version", H.ToolVersion);
  h5::writeAttr(F, "vocabularies", jsonStrings(H.Vocabularies));
  h5::writeAttr(F, "vocabulary_digests", jsonStrings(H.VocabularyDigests));
  h5::writeAttr(F, "rules", jsonStrings(H.Rules));
  h5::writeAttr(F, "corpus", jsonStrings(H.Corpus));

  std::vector<std::string> Paths, Commands, Keys, Errors, Digests;
  std::vector<int64_t> Base, Best, BestRollout, FirstRollout;
  std::vector<int64_t> RModule, RSize, RFlip, RRule, RFirst, RCount;
  std::vector<std::string> RError;
  std::vector<int8_t> Decisions;
  for (size_t M = 0; M < X.Modules.size(); ++M) {
    const ModuleExploration &E = X.Modules[M];
    Paths.push_back(E.Path);
    Commands.push_back(E.Command);
    Keys.push_back(E.Key);
    Errors.push_back(E.Error);
    Digests.push_back(E.SHA256);
    Base.push_back(E.BaselineSize);
    Best.push_back(E.BestSize);
    FirstRollout.push_back(int64_t(RModule.size()));
    BestRollout.push_back(E.Rollouts.empty() ? -1 : int64_t(RModule.size() + E.Best));
    for (const Rollout &R : E.Rollouts) {
      RModule.push_back(int64_t(M));
      RSize.push_back(R.TextSize);
      RFlip.push_back(R.Flip);
      RRule.push_back(R.Rule);
      RError.push_back(R.Error);
      RFirst.push_back(int64_t(Decisions.size()));
      RCount.push_back(int64_t(R.Decisions.size()));
      for (int64_t D : R.Decisions)
        Decisions.push_back(int8_t(D));
    }
  }
  H5::Group MG = h5::createGroup(F, "modules");
  h5::writeStrings(MG, "path", Paths);
  h5::writeStrings(MG, "command", Commands);
  h5::writeStrings(MG, "key", Keys);
  h5::writeStrings(MG, "error", Errors);
  h5::writeStrings(MG, "sha256", Digests);
  writeInts(MG, "baseline_text_size", Base);
  writeInts(MG, "best_text_size", Best);
  writeInts(MG, "best_rollout", BestRollout);
  writeInts(MG, "first_rollout", FirstRollout);
  H5::Group RG = h5::createGroup(F, "rollouts");
  writeInts(RG, "module", RModule);
  writeInts(RG, "text_size", RSize);
  writeInts(RG, "flip", RFlip);
  writeInts(RG, "rule", RRule);
  h5::writeStrings(RG, "error", RError);
  writeInts(RG, "first_decision", RFirst);
  writeInts(RG, "decision_count", RCount);
  {
    H5::DSetCreatPropList P;
    h5::noTimes(P.getId());
    hsize_t N[1] = {Decisions.size()};
    H5::DataSet DS = RG.createDataSet("decisions", H5::PredType::STD_I8LE, H5::DataSpace(1, N), P);
    if (!Decisions.empty())
      DS.write(Decisions.data(), H5::PredType::NATIVE_INT8);
  }
  // The best trajectories' observations: one dataset per observation set.
  H5::Group OG = h5::createGroup(F, "observations");
  for (size_t V = 0; V <= H.Vocabularies.size(); ++V) {
    features::DatasetBuilder DS(features::Task::Inline, "exploration-best");
    for (const ModuleExploration &E : X.Modules) {
      features::DatasetModule M;
      M.Path = E.Path;
      M.SHA256 = E.SHA256;
      M.Error = E.Error;
      M.TextSize = E.BestSize;
      M.BaselineTextSize = E.BaselineSize;
      if (!E.Error.empty() || V >= E.Observations.size()) {
        DS.addFailed(M);
        continue;
      }
      M.Reward = features::sizeReward(E.BestSize, E.BaselineSize);
      if (llvm::Error Err = DS.add(M, E.Observations[V]))
        throw H5::Exception("exploration", llvm::toString(std::move(Err)));
    }
    if (V > 0)
      DS.setEmbeddings(observationSetName(H.Vocabularies[V - 1]),
                       V - 1 < H.VocabularyDigests.size() ? H.VocabularyDigests[V - 1] : "");
    H5::Group G = h5::createGroup(OG, std::to_string(V));
    h5::writeAttr(G, "vocabulary",
                  V == 0 ? std::string("none") : observationSetName(H.Vocabularies[V - 1]));
    DS.writeTo(G);
  }
}

/// The header and the observation sets' names of an open file.
llvm::Expected<ExplorationFile> readHeader(const std::string &Path, H5::H5File &F) {
  const std::string Schema = F.attrExists("schema") ? h5::readStrAttr(F, "schema") : "";
  if (Schema != ExplorationSchema && Schema != ExplorationSchemaV2 && Schema != ExplorationSchemaV1)
    return support::fileError(Path, llvm::Twine("not an exploration (expected attribute "
                                                "schema = ") +
                                        ExplorationSchema + ")");
  ExplorationFile X;
  ExplorationHeader &H = X.Header;
  H.Budget = h5::readNumAttr<int64_t>(F, "budget", H5::PredType::NATIVE_INT64);
  H.Seed = h5::readNumAttr<int64_t>(F, "seed", H5::PredType::NATIVE_INT64);
  H.FlipOrder = h5::readStrAttr(F, "flip_order");
  H.Split = h5::readStrAttr(F, "split");
  H.Side = F.attrExists("side") ? h5::readStrAttr(F, "side") : "train";
  H.Opt = h5::readStrAttr(F, "opt");
  H.Llc = h5::readStrAttr(F, "llc");
  H.Compile = F.attrExists("compile") ? h5::readStrAttr(F, "compile") : "";
  H.Toolchain = F.attrExists("toolchain") ? h5::readStrAttr(F, "toolchain") : "";
  H.LLVMVersion = h5::readStrAttr(F, "llvm_version");
  H.ToolVersion = h5::readStrAttr(F, "tool_version");
  if (H.Side != "train" && H.Side != "test" && H.Side != "all")
    return support::fileError(Path, "attribute side '" + H.Side +
                                        "', expected train, test or all");
  llvm::Expected<std::vector<std::string>> Vocabs = readJSONStrings(Path, F, "vocabularies");
  if (!Vocabs)
    return Vocabs.takeError();
  H.Vocabularies = std::move(*Vocabs);
  if (F.attrExists("vocabulary_digests")) { // schema 3
    llvm::Expected<std::vector<std::string>> Digests =
        readJSONStrings(Path, F, "vocabulary_digests");
    if (!Digests)
      return Digests.takeError();
    if (Digests->size() != H.Vocabularies.size())
      return support::fileError(Path, "attribute vocabulary_digests does not name one digest per "
                                      "vocabulary");
    H.VocabularyDigests = std::move(*Digests);
  }
  if (Schema != ExplorationSchemaV1) { // schema /1 rolled out no rules
    llvm::Expected<std::vector<std::string>> Rules = readJSONStrings(Path, F, "rules");
    if (!Rules)
      return Rules.takeError();
    H.Rules = std::move(*Rules);
  }
  if (F.attrExists("corpus")) { // older files do not record it
    llvm::Expected<std::vector<std::string>> Corpus = readJSONStrings(Path, F, "corpus");
    if (!Corpus)
      return Corpus.takeError();
    H.Corpus = std::move(*Corpus);
  }
  H5::Group O = F.openGroup("observations");
  for (hsize_t I = 0; I < O.getNumObjs(); ++I) {
    H5::Group G = O.openGroup(std::to_string(I));
    X.ObservationSets.push_back(h5::readStrAttr(G, "vocabulary"));
  }
  return X;
}

llvm::Error readBody(const std::string &Path, H5::H5File &F, ExplorationFile &X) {
  H5::DataSet P = F.openDataSet("modules/path");
  const uint64_t N = h5::extentOf(P);
  auto Strings = [&](const char *Name) {
    H5::DataSet D = F.openDataSet(Name);
    if (h5::extentOf(D) != N)
      throw H5::DataSetIException(Name, "a length other than /modules/path's");
    return h5::readStrings(D, 0, N);
  };
  auto Ints = [&](const char *Name, uint64_t Want) {
    H5::DataSet D = F.openDataSet(Name);
    if (h5::extentOf(D) != Want)
      throw H5::DataSetIException(Name, "a length other than its group's");
    return h5::readNumbers<int64_t>(D, H5::PredType::NATIVE_INT64, 0, Want, 1);
  };
  const auto Paths = h5::readStrings(P, 0, N), Commands = Strings("modules/command"),
             Keys = Strings("modules/key"), Errors = Strings("modules/error"),
             Digests = F.nameExists("modules/sha256") ? Strings("modules/sha256") // schema 3
                                                      : std::vector<std::string>(N);
  const auto Base = Ints("modules/baseline_text_size", N), Best = Ints("modules/best_text_size", N),
             BestRollout = Ints("modules/best_rollout", N),
             FirstRollout = Ints("modules/first_rollout", N);
  H5::DataSet RM = F.openDataSet("rollouts/module");
  const uint64_t NR = h5::extentOf(RM);
  const auto RModule = h5::readNumbers<int64_t>(RM, H5::PredType::NATIVE_INT64, 0, NR, 1);
  const auto RSize = Ints("rollouts/text_size", NR), RFlip = Ints("rollouts/flip", NR),
             RRule = F.nameExists("rollouts/rule") ? Ints("rollouts/rule", NR)
                                                   : std::vector<int64_t>(NR, -1),
             RFirst = Ints("rollouts/first_decision", NR),
             RCount = Ints("rollouts/decision_count", NR);
  H5::DataSet RE = F.openDataSet("rollouts/error");
  if (h5::extentOf(RE) != NR)
    return support::fileError(Path, "/rollouts/error: a length other than /rollouts/module's");
  const auto RError = h5::readStrings(RE, 0, NR);
  H5::DataSet DD = F.openDataSet("rollouts/decisions");
  const uint64_t ND = h5::extentOf(DD);
  const auto Decisions = h5::readNumbers<int8_t>(DD, H5::PredType::NATIVE_INT8, 0, ND, 1);

  X.Modules.resize(N);
  for (uint64_t M = 0; M < N; ++M) {
    ModuleExploration &E = X.Modules[M];
    E.Path = Paths[M];
    E.Command = Commands[M];
    E.Key = Keys[M];
    E.Error = Errors[M];
    E.SHA256 = Digests[M];
    E.BaselineSize = Base[M];
    E.BestSize = Best[M];
    if (FirstRollout[M] < 0 || uint64_t(FirstRollout[M]) > NR)
      return support::fileError(Path, llvm::formatv("module {0}: first_rollout {1} outside "
                                                    "the {2} rollouts",
                                                    M, FirstRollout[M], NR)
                                          .str());
    if (BestRollout[M] >= 0)
      E.Best = size_t(BestRollout[M] - FirstRollout[M]);
  }
  for (uint64_t R = 0; R < NR; ++R) {
    if (RModule[R] < 0 || uint64_t(RModule[R]) >= N || RFirst[R] < 0 || RCount[R] < 0 ||
        uint64_t(RFirst[R]) > ND || uint64_t(RCount[R]) > ND - uint64_t(RFirst[R]))
      return support::fileError(Path, llvm::formatv("rollout {0}: module or decisions outside "
                                                    "the file's {1} modules and {2} decisions",
                                                    R, N, ND)
                                          .str());
    if (RRule[R] < -1 || RRule[R] >= int64_t(X.Header.Rules.size()))
      return support::fileError(Path, llvm::formatv("rollout {0}: rule {1} is not one of the "
                                                    "{2} rules of attribute rules",
                                                    R, RRule[R], X.Header.Rules.size())
                                          .str());
    Rollout Ro;
    Ro.TextSize = RSize[R];
    Ro.Flip = RFlip[R];
    Ro.Rule = RRule[R];
    Ro.Error = RError[R];
    Ro.Decisions.assign(Decisions.begin() + RFirst[R], Decisions.begin() + RFirst[R] + RCount[R]);
    X.Modules[size_t(RModule[R])].Rollouts.push_back(std::move(Ro));
  }
  for (uint64_t M = 0; M < N; ++M) {
    const ModuleExploration &E = X.Modules[M];
    if (BestRollout[M] >= 0 && (BestRollout[M] < FirstRollout[M] || E.Best >= E.Rollouts.size()))
      return support::fileError(Path, llvm::formatv("module {0}: best_rollout {1} is not one of "
                                                    "its rollouts",
                                                    M, BestRollout[M])
                                          .str());
  }
  return llvm::Error::success();
}

template <typename Fn> auto withFile(const std::string &Path, Fn &&Body) -> decltype(Body(std::declval<H5::H5File &>())) {
  try {
    H5::Exception::dontPrint();
    H5::H5File F(Path, H5F_ACC_RDONLY);
    return Body(F);
  } catch (const H5::Exception &E) {
    return h5::h5Error(Path, E);
  }
}

} // namespace

llvm::Error writeExplorationFile(const std::string &Path, const ExplorationFile &F) {
  return h5::writeFileAtomically(Path, [&](H5::H5File &File) { writeBody(File, F); });
}

llvm::Expected<ExplorationFile> readExplorationHeader(const std::string &Path) {
  return withFile(Path, [&](H5::H5File &F) { return readHeader(Path, F); });
}

llvm::Expected<ExplorationFile> readExploration(const std::string &Path) {
  return withFile(Path, [&](H5::H5File &F) -> llvm::Expected<ExplorationFile> {
    llvm::Expected<ExplorationFile> X = readHeader(Path, F);
    if (!X)
      return X.takeError();
    if (llvm::Error E = readBody(Path, F, *X))
      return E;
    return X;
  });
}

llvm::Expected<features::DatasetTable> readObservations(const std::string &Path,
                                                        const std::string &Name) {
  llvm::Expected<ExplorationFile> X = readExplorationHeader(Path);
  if (!X)
    return X.takeError();
  for (size_t I = 0; I < X->ObservationSets.size(); ++I)
    if (X->ObservationSets[I] == Name)
      return features::readDataset(Path, "/observations/" + std::to_string(I));
  return support::fileError(Path, "no observation set '" + Name + "' (it has: " +
                                      llvm::join(X->ObservationSets, ", ") + ")");
}

} // namespace wb::mlgo
