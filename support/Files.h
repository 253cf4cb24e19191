// Outputs that appear complete or not at all, private temporary directories, and file hashes.
//
// PendingFile is the one way the workbench writes a file under a requested name: data goes to
// a temporary path in the target's directory (so the final rename is atomic), commit() moves
// it into place, and anything else (an error, an exception, a signal) leaves nothing under
// the requested name. Text writers use AtomicOutput (a stream over a PendingFile); libraries
// that open files themselves (HDF5) write to PendingFile::path().
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace wb::support {

/// Whether Path can become an output file, checked before any work so that a long run does
/// not fail at its end: not a directory, its directory exists and is writable. "-" passes.
llvm::Error checkOutputPath(llvm::StringRef Path);

class PendingFile {
public:
  /// A fresh temporary file "Final.tmp-XXXXXXXX", created (empty) now; removed when the object
  /// goes without commit(), and on SIGINT/SIGTERM/SIGHUP (abandonPendingOutputs).
  static llvm::Expected<PendingFile> create(llvm::StringRef Final);
  /// A fixed temporary name "Final.partial" for runs that can be resumed: it is not created
  /// here, and it survives failures and signals (the run continues it); discard() removes it.
  static PendingFile resumable(llvm::StringRef Final);
  PendingFile(PendingFile &&) noexcept;
  PendingFile &operator=(PendingFile &&) = delete;
  ~PendingFile();

  /// Where to write.
  const std::string &path() const { return Temp; }
  const std::string &finalPath() const { return Final; }
  /// An open descriptor of path() (create() only; -1 otherwise).
  int fd() const;
  /// Moves the file into place under the requested name.
  llvm::Error commit();
  /// Removes the temporary file now.
  void discard();

private:
  PendingFile() = default;
  std::string Final, Temp;
  std::optional<llvm::sys::fs::TempFile> File; // create() only
};

/// A text or binary output that appears under its name only when complete (a PendingFile);
/// "-" writes to standard output directly.
class AtomicOutput {
public:
  static llvm::Expected<AtomicOutput> create(llvm::StringRef Path);
  AtomicOutput(AtomicOutput &&) noexcept;
  AtomicOutput &operator=(AtomicOutput &&) = delete;
  ~AtomicOutput();

  llvm::raw_ostream &os() { return *OS; }
  /// Flushes, checks for write errors and moves the file into place.
  llvm::Error commit();

private:
  AtomicOutput() = default;
  std::string Path;
  std::optional<PendingFile> File;
  std::unique_ptr<llvm::raw_fd_ostream> FileOS;
  llvm::raw_fd_ostream *OS = nullptr;
};

/// Several outputs of one command that appear together or not at all: each is written under
/// a temporary name beside it (add() returns it; the name keeps the final extension, so
/// writers that choose the format by extension still do), commit() moves them all into place,
/// and whatever was not committed is removed when the group goes, on failure or signal.
class OutputGroup {
public:
  OutputGroup() = default;
  OutputGroup(const OutputGroup &) = delete;
  OutputGroup &operator=(const OutputGroup &) = delete;
  ~OutputGroup();
  /// Checks Final (checkOutputPath) and returns where to write it.
  llvm::Expected<std::string> add(llvm::StringRef Final);
  llvm::Error commit();

private:
  std::vector<std::pair<std::string, std::string>> Files; // (temporary, final)
};

/// Removes every temporary output (PendingFile, AtomicOutput, OutputGroup) not yet committed,
/// and from then on keeps any from being created, committed or discarded: for the interrupt
/// watcher (support/Interrupts), which ends the process next. Each output is then either
/// complete under its name or absent, and nothing is left beside it.
void abandonPendingOutputs();

/// Removes what an atomic write of Path (PendingFile, AtomicOutput) killed by SIGKILL left:
/// the files named Path.tmp-* beside it. Only for outputs no other process writes at the time.
void removeStaleTemporaries(llvm::StringRef Path);

/// Writes Body into Path through an AtomicOutput.
llvm::Error writeFileAtomically(llvm::StringRef Path,
                                const std::function<void(llvm::raw_ostream &)> &Body);
/// The same for a Body that can fail: its error is returned and nothing appears at Path.
llvm::Error writeFileAtomicallyChecked(llvm::StringRef Path,
                                       const std::function<llvm::Error(llvm::raw_ostream &)> &Body);

/// An output directory: used as it is when it exists, created (as mkdir(1) creates it) when
/// its parent exists; a missing parent is an error, as for an output file.
llvm::Error prepareOutputDirectory(llvm::StringRef Dir);
/// Dir/Name.
std::string pathIn(llvm::StringRef Dir, llvm::StringRef Name);

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

/// Lower-case hex SHA-256 of bytes, and of a file's bytes (identifies inputs in output files).
std::string sha256Hex(llvm::StringRef Bytes);
llvm::Expected<std::string> sha256OfFile(llvm::StringRef Path);

} // namespace wb::support
