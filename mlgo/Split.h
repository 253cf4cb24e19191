// A train/test split of a corpus by source package: modules of one package are alike, so a
// policy is judged on packages it never saw (shared doc policy-training.md, section 6). The
// key of a module is the first path component below the corpus root (the deepest directory
// holding every module), or the key a user gives in a file. Keys are ordered by SHA-256 of
// (seed, key), and the first keys in that order go to the test side until it holds at least
// TestFraction of the modules: the same split for the same keys and seed, whatever the order
// of the inputs.
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
  std::string KeysFile; // "": first path component; else lines "MODULE<TAB>KEY"
};

struct CorpusSplit {
  SplitOptions Options;
  std::vector<std::string> Modules, Keys; // input order
  std::vector<bool> Test;                 // per module
  std::vector<std::string> TestKeys, TrainKeys;

  std::vector<std::string> modules(bool TestSide) const;
  /// The split as recorded in outputs: options, keys of each side, module counts.
  llvm::json::Object toJSON() const;
  std::string toJSONText() const;
};

/// Splits Modules. An error when a keys file is unreadable or misses a module, or when either
/// side would be empty (fewer than two keys).
llvm::Expected<CorpusSplit> splitCorpus(const std::vector<std::string> &Modules,
                                        const SplitOptions &O);

} // namespace wb::mlgo
