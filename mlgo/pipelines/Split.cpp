#include "mlgo/pipelines/Split.h"

#include "support/Error.h"
#include "support/Inputs.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace wb::mlgo {

namespace {

/// The deepest directory that holds every module.
std::string corpusRoot(const std::vector<std::string> &Modules) {
  std::vector<std::string> Dirs;
  for (const std::string &M : Modules)
    Dirs.push_back(llvm::sys::path::parent_path(M).str());
  const std::string Root = support::commonDirectory(Dirs);
  return Root == "/" ? "" : Root; // names then keep their first directory below "/"
}

llvm::Expected<std::map<std::string, std::string>> readKeys(const std::string &Path) {
  auto Buf = support::readInput(Path, /*IsText=*/true);
  if (!Buf)
    return support::fileError(Path, "cannot read split keys: " + support::readErrorMessage(Buf.getError()));
  std::map<std::string, std::string> Keys;
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    llvm::StringRef L = Lines[I].rtrim("\r");
    if (L.trim().empty() || L.starts_with("#"))
      continue;
    auto [Module, Key] = L.split('\t');
    if (Key.empty())
      return support::lineError(Path, I + 1, "expected 'MODULE<TAB>KEY', found '" + L + "'");
    Keys[Module.str()] = Key.str();
  }
  return Keys;
}

/// Keys in the order both the split and the folds take them: by SHA-256 of (seed, key).
std::vector<std::string> keyOrder(const std::map<std::string, size_t> &Count, uint64_t Seed) {
  std::vector<std::pair<std::string, std::string>> Order; // (hash, key)
  for (const auto &[K, N] : Count)
    Order.emplace_back(support::sha256Hex(std::to_string(Seed) + "\n" + K), K);
  std::sort(Order.begin(), Order.end());
  std::vector<std::string> Keys;
  for (auto &[H, K] : Order)
    Keys.push_back(std::move(K));
  return Keys;
}

} // namespace

llvm::Expected<CorpusSplit> splitCorpus(const std::vector<std::string> &Modules,
                                        const SplitOptions &O) {
  if (!(O.TestFraction > 0 && O.TestFraction <= 1))
    return support::usageError("the test fraction must be above 0 and at most 1 (1: every "
                               "module is held out, to evaluate a policy on all of a corpus)");
  if (!O.Names.empty() && O.Names.size() != Modules.size())
    return support::makeError("internal error: module names do not match the modules");
  CorpusSplit S;
  S.Options = O;
  S.Modules = Modules;
  // A module's name in its corpus ("" when its inputs gave none).
  auto NameOf = [&](size_t I) { return O.Names.empty() ? std::string() : O.Names[I]; };
  if (!O.KeysFile.empty()) {
    auto Keys = readKeys(O.KeysFile);
    if (!Keys)
      return Keys.takeError();
    for (size_t I = 0; I < Modules.size(); ++I) {
      // A module is keyed by its name in its corpus (as the description writes it) or by its
      // path as the inputs expand to it.
      const std::string Name = NameOf(I);
      auto It = Name.empty() ? Keys->end() : Keys->find(Name);
      if (It == Keys->end())
        It = Keys->find(Modules[I]);
      if (It == Keys->end())
        return support::fileError(O.KeysFile, "no key for module " +
                                                  (Name.empty() ? Modules[I]
                                                                : Name + " (" + Modules[I] + ")") +
                                                  ": lines are 'MODULE<TAB>KEY', MODULE its name "
                                                  "in its corpus or its path");
      S.Keys.push_back(It->second);
    }
  } else {
    std::vector<std::string> Unnamed; // named by their paths below their deepest common directory
    for (size_t I = 0; I < Modules.size(); ++I)
      if (NameOf(I).empty())
        Unnamed.push_back(Modules[I]);
    const std::string Root = corpusRoot(Unnamed);
    for (size_t I = 0; I < Modules.size(); ++I) {
      std::string Name = NameOf(I);
      if (Name.empty())
        Name = llvm::StringRef(Modules[I]).drop_front(Root.empty() ? 0 : Root.size() + 1).str();
      S.Keys.push_back(llvm::StringRef(Name).ltrim('/').split('/').first.str());
    }
  }
  std::map<std::string, size_t> Count;
  for (const std::string &K : S.Keys)
    ++Count[K];
  if (O.TestFraction == 1) { // all of it held out: code a policy never saw, whole
    S.Test.assign(Modules.size(), true);
    for (const auto &[K, N] : Count)
      S.TestKeys.push_back(K);
    return S;
  }
  if (Count.size() < 2)
    return support::makeError(
        "a split by package needs modules of at least two packages; all " +
        llvm::Twine(Modules.size()) + " modules have the key '" +
        (S.Keys.empty() ? "" : S.Keys.front()) +
        "' (the first component of their names): to evaluate a policy on all of it, "
        "--test-fraction 1; to split it, --split-keys FILE with lines 'MODULE<TAB>KEY'");
  const std::vector<std::string> Order = keyOrder(Count, O.Seed);
  // A key joins the test side only when it brings it closer to the fraction: taking the keys
  // in order until the fraction was reached held out 59 of 64 modules of a two-package corpus
  // (--test-fraction 0.2) when the large package came first.
  std::set<std::string> TestKeys;
  size_t InTest = 0;
  const double Want = O.TestFraction * double(Modules.size());
  for (const std::string &K : Order) {
    if (double(InTest) >= Want || TestKeys.size() + 1 == Count.size())
      break;
    if (std::abs(double(InTest + Count[K]) - Want) < std::abs(double(InTest) - Want)) {
      TestKeys.insert(K);
      InTest += Count[K];
    }
  }
  if (TestKeys.empty()) { // every package alone overshoots: the one closest to the fraction
    const std::string *Best = nullptr;
    for (const std::string &K : Order)
      if (!Best || std::abs(double(Count[K]) - Want) < std::abs(double(Count[*Best]) - Want))
        Best = &K;
    TestKeys.insert(*Best);
  }
  for (const std::string &K : S.Keys)
    S.Test.push_back(TestKeys.count(K) != 0);
  for (const auto &[K, N] : Count)
    (TestKeys.count(K) ? S.TestKeys : S.TrainKeys).push_back(K);
  return S;
}

llvm::Expected<PackageFolds> foldsByPackage(const std::vector<std::string> &Keys, unsigned Folds,
                                            uint64_t Seed) {
  std::map<std::string, size_t> Count;
  for (const std::string &K : Keys)
    ++Count[K];
  if (Count.size() < 2)
    return support::makeError("folds by package need modules of at least two packages; all " +
                              llvm::Twine(Keys.size()) + " modules have the key '" +
                              (Keys.empty() ? "" : Keys.front()) +
                              "' (the first component of their names): name modules "
                              "PACKAGE/..., as docs/benchmark.md 'Your own corpus' shows");
  if (Folds == 1)
    return support::usageError("one fold leaves nothing to train on: --folds 0 (one per "
                               "package) or at least 2");
  PackageFolds F;
  F.Count = Folds == 0 || Folds >= Count.size() ? unsigned(Count.size()) : Folds;
  std::vector<size_t> Size(F.Count, 0);
  for (const std::string &K : keyOrder(Count, Seed)) {
    const unsigned To = unsigned(std::min_element(Size.begin(), Size.end()) - Size.begin());
    F.FoldOfKey[K] = To;
    Size[To] += Count[K];
  }
  for (const std::string &K : Keys)
    F.Fold.push_back(F.FoldOfKey[K]);
  return F;
}

std::vector<std::string> PackageFolds::keys(unsigned Fold) const {
  std::vector<std::string> Out;
  for (const auto &[K, F] : FoldOfKey)
    if (F == Fold)
      Out.push_back(K);
  return Out;
}

CorpusSplit PackageFolds::splitOf(const CorpusSplit &Base, unsigned F) const {
  CorpusSplit Own = Base;
  Own.TrainKeys.clear();
  Own.TestKeys = keys(F);
  for (const auto &[K, Fo] : FoldOfKey)
    if (Fo != F)
      Own.TrainKeys.push_back(K);
  return Own;
}

llvm::json::Object PackageFolds::toJSON() const {
  llvm::json::Array A;
  for (unsigned F = 0; F < Count; ++F) {
    llvm::json::Array K;
    for (const std::string &Key : keys(F))
      K.push_back(Key);
    A.push_back(std::move(K));
  }
  return llvm::json::Object{{"by", "package"}, {"folds", int64_t(Count)}, {"packages", std::move(A)}};
}

std::vector<std::string> CorpusSplit::modules(bool TestSide) const {
  std::vector<std::string> Out;
  for (size_t I = 0; I < Modules.size(); ++I)
    if (Test[I] == TestSide)
      Out.push_back(Modules[I]);
  return Out;
}

std::vector<std::string> CorpusSplit::keysOf(bool TestSide) const {
  std::vector<std::string> Out;
  for (size_t I = 0; I < Modules.size(); ++I)
    if (Test[I] == TestSide)
      Out.push_back(Keys[I]);
  return Out;
}

llvm::json::Object CorpusSplit::toJSON() const {
  llvm::json::Array Tr, Te;
  for (const std::string &K : TrainKeys)
    Tr.push_back(K);
  for (const std::string &K : TestKeys)
    Te.push_back(K);
  const size_t NTest = std::count(Test.begin(), Test.end(), true);
  return llvm::json::Object{{"by", Options.KeysFile.empty() ? "package" : "keys file"},
                            {"keys_file", Options.KeysFile},
                            {"test_fraction", Options.TestFraction},
                            {"seed", int64_t(Options.Seed)},
                            {"train_modules", int64_t(Modules.size() - NTest)},
                            {"test_modules", int64_t(NTest)},
                            {"train_keys", std::move(Tr)},
                            {"test_keys", std::move(Te)}};
}

std::string CorpusSplit::toJSONText() const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::json::Value(toJSON());
  return S;
}

} // namespace wb::mlgo
