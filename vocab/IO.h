// Input and output helpers shared by every layer (they live in the lowest one).
#pragma once

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

/// Lower-case hex SHA-256 of a file's bytes (identifies a vocabulary in output files).
llvm::Expected<std::string> sha256OfFile(llvm::StringRef Path);

/// "Path: What" as an error (the form every file-related message takes).
llvm::Error fileError(llvm::StringRef Path, const llvm::Twine &What);

/// Writes Body into Path through an AtomicOutput (complete or absent).
llvm::Error writeFileAtomically(llvm::StringRef Path,
                                const std::function<void(llvm::raw_ostream &)> &Body);

/// An output file that appears under its name only when complete: data goes to a temporary
/// file in the same directory, commit() renames it into place, and anything else (an error,
/// an exception, a signal) removes it. "-" writes to standard output directly.
class AtomicOutput {
public:
  static llvm::Expected<AtomicOutput> create(llvm::StringRef Path);
  AtomicOutput(AtomicOutput &&) noexcept;
  AtomicOutput &operator=(AtomicOutput &&) = delete;
  ~AtomicOutput();

  llvm::raw_ostream &os() { return *OS; }
  /// Flushes, checks for write errors and renames the temporary file to the target.
  llvm::Error commit();

private:
  AtomicOutput() = default;
  std::string Path;
  std::optional<llvm::sys::fs::TempFile> Temp;
  std::unique_ptr<llvm::raw_fd_ostream> FileOS;
  llvm::raw_fd_ostream *OS = nullptr;
};

} // namespace wb::vocab
