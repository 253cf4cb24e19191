// The register allocator's static reward, from the compiler's own accounting: the greedy
// allocator's optimisation remarks (`-pass-remarks-output=F -pass-remarks-filter=regalloc` for
// opt/llc, `-opt-record-file F -opt-record-passes regalloc` for clang -cc1) report, per function
// ("SpillReloadCopies") and per loop, the spills, reloads, folded spills and reloads and copies
// it inserted, with their block-frequency-weighted costs (frequency relative to the entry
// block). A function's cost weights those costs as LLVM's RegAllocScore weights the
// instructions it counts (llvm/lib/CodeGen/RegAllocScore.cpp: copies 0.2, loads 4.0, stores
// 1.0): reloads and folded reloads are loads, spills and folded spills stores. Lower is better;
// a function without the remark inserted none of them (cost 0). The reward of a policy is
// ml-compiler-opt's relative form, 1 - (cost + 0.01) / (baseline cost + 0.01).
// docs/regalloc.md describes the measure and what it leaves out (rematerialisation).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb::features {

/// What the allocator inserted in one function, as its SpillReloadCopies remark says.
struct RegallocCounts {
  int64_t Spills = 0, Reloads = 0, FoldedSpills = 0, FoldedReloads = 0, Copies = 0;
  double SpillsCost = 0, ReloadsCost = 0, FoldedSpillsCost = 0, FoldedReloadsCost = 0,
         CopiesCost = 0;
  RegallocCounts &operator+=(const RegallocCounts &O);
};

/// The remark's keys (RAGreedy::reportStats in LLVM 22; keys with a zero count are omitted)
/// and the fields they fill: one table for the parser and the sums.
struct RegallocKey {
  const char *CountKey, *CostKey;
  int64_t RegallocCounts::*Count;
  double RegallocCounts::*Cost;
};
inline constexpr RegallocKey RegallocKeys[] = {
    {"NumSpills", "TotalSpillsCost", &RegallocCounts::Spills, &RegallocCounts::SpillsCost},
    {"NumReloads", "TotalReloadsCost", &RegallocCounts::Reloads, &RegallocCounts::ReloadsCost},
    {"NumFoldedSpills", "TotalFoldedSpillsCost", &RegallocCounts::FoldedSpills,
     &RegallocCounts::FoldedSpillsCost},
    {"NumFoldedReloads", "TotalFoldedReloadsCost", &RegallocCounts::FoldedReloads,
     &RegallocCounts::FoldedReloadsCost},
    {"NumVRCopies", "TotalCopiesCost", &RegallocCounts::Copies, &RegallocCounts::CopiesCost}};

/// The weights of a cost; the defaults are RegAllocScore's (its -regalloc-*-weight flags).
struct RegallocWeights {
  double Copy = 0.2, Load = 4.0, Store = 1.0;
  /// Copy x copies + Load x (reloads + folded reloads) + Store x (spills + folded spills),
  /// each count being its block-frequency-weighted cost.
  double cost(const RegallocCounts &C) const;
  /// The formula as written in datasets and docs.
  std::string describe() const;
};

struct FunctionRegalloc {
  std::string Function; // the IR name (the eviction log's context)
  RegallocCounts Counts;
};

/// Functions as JSON (the parts of an interrupted run, the wire of an MPI run): an array of
/// {"function": NAME, "<remark key>": value, ...} with every key of RegallocKeys.
llvm::json::Array regallocToJSON(const std::vector<FunctionRegalloc> &Fs);
/// The same with each function's "cost" under W: what `mlgo regalloc-cost` prints and the
/// Python module returns.
llvm::json::Array regallocCostJSON(const std::vector<FunctionRegalloc> &Fs,
                                   const RegallocWeights &W);
/// The inverse of regallocToJSON; Where names the source in errors.
llvm::Expected<std::vector<FunctionRegalloc>> regallocFromJSON(const llvm::json::Value *V,
                                                               llvm::StringRef Where);

// Parsing (RegallocRemarks.cpp, apart: the launcher links the rest without LLVM's remark
// parser).

/// Every SpillReloadCopies remark of a YAML remarks file, in order; other remarks are skipped.
/// Name is used in messages. A remark with a count that is not a non-negative integer, or a
/// cost that is not a finite non-negative number, is an error naming the function and key.
llvm::Expected<std::vector<FunctionRegalloc>> parseRegallocRemarks(llvm::StringRef Bytes,
                                                                   llvm::StringRef Name);
llvm::Expected<std::vector<FunctionRegalloc>> readRegallocRemarks(llvm::StringRef Path);

/// ml-compiler-opt's relative reward (compilation_runner.calculate_reward's form).
inline double relativeReward(double Cost, double Baseline) {
  return 1.0 - (Cost + 0.01) / (Baseline + 0.01);
}

} // namespace wb::features
