// A train/test split of a corpus by source package: modules of one package are alike, so a
// policy is judged on packages it never saw (shared doc policy-training.md, section 6). The
// key of a module is the first component of its name in its corpus (the name its corpus
// description gives it, or its path below the directory input it was found in; a module named
// directly is named by its path below the deepest directory holding every such module), or
// the key a user gives in a file. Keys are ordered by SHA-256 of (seed, key); in that order a
// key goes to the test side when it brings the test side closer to TestFraction of the
// modules, until the test side holds that fraction (at least one key on each side): the same
// split for the same keys and seed, whatever the order of the inputs, and never a test side
// far above the fraction because one large package came first.
#pragma once

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wb::mlgo {

struct SplitOptions {
  double TestFraction = 0.2;
  uint64_t Seed = 1;
  /// "": the first component of the name; else lines "MODULE<TAB>KEY", MODULE the module's
  /// name in its corpus or its path as the inputs expand to it.
  std::string KeysFile;
  /// Each module's name in its corpus (support::expandInputs), in the order of the modules;
  /// empty, or "" for a module: named by its path as said above.
  std::vector<std::string> Names;
};

struct CorpusSplit {
  SplitOptions Options;
  std::vector<std::string> Modules, Keys; // input order
  std::vector<bool> Test;                 // per module
  std::vector<std::string> TestKeys, TrainKeys;

  std::vector<std::string> modules(bool TestSide) const;
  /// The package of each of modules(TestSide), in the same order.
  std::vector<std::string> keysOf(bool TestSide) const;
  /// The split as recorded in outputs: options, keys of each side, module counts.
  llvm::json::Object toJSON() const;
  std::string toJSONText() const;
};

/// Splits Modules. An error when a keys file is unreadable or misses a module, or when either
/// side would be empty (fewer than two keys).
llvm::Expected<CorpusSplit> splitCorpus(const std::vector<std::string> &Modules,
                                        const SplitOptions &O);

/// The transfer protocol's folds (docs/benchmark.md): every package in exactly one fold, so a
/// model trained on the other folds scores it as code it never saw. Packages are taken in the
/// split's order (SHA-256 of (seed, key)) and each joins the fold with the fewest modules so
/// far (the lowest index on a tie): the same folds for the same keys and seed, in any input
/// order, and folds of about equal size however unequal the packages.
struct PackageFolds {
  unsigned Count = 0;
  std::map<std::string, unsigned> FoldOfKey;
  std::vector<unsigned> Fold; // per module, input order
  /// The keys of fold F, sorted.
  std::vector<std::string> keys(unsigned F) const;
  bool inFold(const std::string &Key, unsigned F) const { return FoldOfKey.at(Key) == F; }
  /// The split a model of fold F is trained and judged by, as its file records it: every
  /// other fold's packages on the training side, fold F's held out (Base's other fields kept).
  CorpusSplit splitOf(const CorpusSplit &Base, unsigned F) const;
  llvm::json::Object toJSON() const;
};

/// Folds of the modules' keys (CorpusSplit::Keys): Folds of them, or one per package when
/// Folds is 0 or at least the number of packages. An error with fewer than two packages.
llvm::Expected<PackageFolds> foldsByPackage(const std::vector<std::string> &Keys, unsigned Folds,
                                            uint64_t Seed);

} // namespace wb::mlgo
