// LLVM's default optimisation pipelines run in-process, as `opt -O<x>` runs them: the
// new-pass-manager pipeline for the level, with a TargetMachine for the module's triple so
// that target-dependent passes (vectorisers, cost models) decide as opt does.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace wb::corpus {

enum class OptLevel { O0, O1, O2, O3, Os, Oz };

/// "O0", "O1", "O2", "O3", "Os", "Oz" (also without the leading O).
llvm::Expected<OptLevel> parseOptLevel(llvm::StringRef Text);
llvm::Expected<std::vector<OptLevel>> parseOptLevels(llvm::StringRef CommaList);
llvm::StringRef optLevelName(OptLevel L);

/// A run's choice (embeddings --opt-level): a level's pipeline, or none (the modules as they
/// are), spelled "none".
inline constexpr const char *NoOptLevel = "none";
llvm::Expected<std::optional<OptLevel>> parseOptChoice(llvm::StringRef Text);
std::string optChoiceName(const std::optional<OptLevel> &L);

/// Runs default<L> on M (which must verify). Fails if the triple has no registered target.
llvm::Error runDefaultPipeline(llvm::Module &M, OptLevel L);

} // namespace wb::corpus
