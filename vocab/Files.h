// File helpers that need only LLVM's Support library (the MLGO host's launcher links nothing
// else): errors naming a file, atomic outputs, hashing.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace wb::vocab {

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

/// A private temporary directory (under $TMPDIR) that is removed with its entries, regular
/// files and FIFOs alike, when the object goes.
class TempDir {
public:
  static llvm::Expected<TempDir> create(llvm::StringRef Prefix);
  TempDir(TempDir &&O) noexcept : Dir(std::move(O.Dir)) { O.Dir.clear(); }
  TempDir &operator=(TempDir &&) = delete;
  ~TempDir();
  const std::string &path() const { return Dir; }
  std::string file(llvm::StringRef Name) const { return Dir + "/" + Name.str(); }

private:
  TempDir() = default;
  std::string Dir;
};

} // namespace wb::vocab
