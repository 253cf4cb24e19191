// Input and output helpers shared by every layer (they live in the lowest one).
#pragma once

#include "vocab/Files.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace wb::vocab {

/// A module read from disk, plus non-fatal remarks (e.g. debug info that was dropped).
struct ModuleInput {
  std::unique_ptr<llvm::Module> M;
  std::vector<std::string> Warnings;
};

/// Reads textual IR or bitcode ("-" = standard input) and verifies it.
///
/// LLVM's readers call UpgradeDebugInfo, which aborts the whole process (report_fatal_error)
/// on a module that carries debug info and fails the verifier; llvm-ir2vec-22 crashes that
/// way. We switch that upgrade off in the readers, run the verifier ourselves, return its
/// message as an error, and then apply the same upgrade rules LLVM would have applied (drop
/// invalid or outdated debug info, with a warning). Valid modules come out exactly as LLVM's
/// own reader gives them.
llvm::Expected<ModuleInput> readModule(llvm::StringRef Path, llvm::LLVMContext &Ctx);

} // namespace wb::vocab
