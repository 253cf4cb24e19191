// Reading one module of IR (text or bitcode) safely: verified, with LLVM's debug-info upgrade
// applied without the process-wide abort LLVM's readers would take on invalid modules.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace wb::corpus {

/// A module read from disk, plus non-fatal remarks (e.g. debug info that was dropped).
struct ModuleInput {
  std::unique_ptr<llvm::Module> M;
  std::vector<std::string> Warnings;
};

/// Reads textual IR or bitcode ("-" = standard input) and verifies it.
///
/// LLVM's readers call UpgradeDebugInfo, which aborts the whole process (report_fatal_error)
/// on a module that carries debug info and fails the verifier; llvm-ir2vec-22 crashes that
/// way. We switch that upgrade off in the readers and apply its rules ourselves, in its order
/// (drop debug info of another version unverified; verify; drop broken debug info, with a
/// warning), returning the verifier's message as an error. Valid modules come out exactly as
/// LLVM's own reader gives them. A module whose debug locations have cyclic scope or
/// inlinedAt chains, on which LLVM 22's verifier loops for ever, is refused first.
llvm::Expected<ModuleInput> readModule(llvm::StringRef Path, llvm::LLVMContext &Ctx);

} // namespace wb::corpus
