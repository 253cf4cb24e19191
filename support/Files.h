// Outputs that appear complete or not at all, and never destroy what the user did not ask to
// replace; private temporary directories; file hashes.
//
// The output rules (docs/cli.md, "Outputs"), decided once for each output before any work
// (resolveOutput):
//  * a regular file, or a name that does not exist yet, is replaced atomically: data goes to a
//    temporary file beside it, which commit() renames over it. Anything else (an error, an
//    exception, a signal) leaves nothing under the requested name and nothing beside it.
//  * a symlink is followed to the end of its chain: the target is what gets replaced, by a
//    temporary file beside the target; the link stays (a dangling link's target is created).
//  * anything that is not a regular file (a character device such as /dev/null, a FIFO, a
//    terminal) and a descriptor named as a file (/dev/stdout, /dev/fd/N) is written to as it
//    is, never replaced. Writers that need a seekable file (HDF5) write a private temporary
//    file, whose bytes commit() then copies into the output.
//  * a file inside an output directory (OpenKE files, an extracted corpus) was not named by
//    the user: the directory entry itself is replaced, whatever it is (Within::Directory), as
//    tar and cp -r replace it. A symlink left there cannot lead a write to its target.
// PendingFile is the one way the workbench writes a file under a requested name; text writers
// use AtomicOutput (a stream over a PendingFile); libraries that open files themselves (HDF5)
// write to PendingFile::path().
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wb::support {

/// Where an output goes, by the rules above.
struct OutputTarget {
  enum Kind {
    StandardOutput, // "-"
    File,           // a regular file, or none yet: Path is replaced atomically
    Stream,         // not a regular file, or a descriptor: written as it is, never replaced
  } K = File;
  std::string Named; // as the user gave it (for messages)
  /// File: the file that is replaced (the end of the symlink chain); Stream: what to open.
  std::string Path;
  int Descriptor = -1; // Stream named as a descriptor (/dev/stdout, /dev/fd/N): that one

  bool replaced() const { return K == File; }
};

/// How an output was named: by the user (the rules above), or as a file inside an output
/// directory (the entry itself is replaced).
enum class Within { Named, Directory };

/// Resolves Named by the output rules and checks, before any work, that it can be written: not
/// a directory, the target's directory exists and takes new entries. "-" passes.
llvm::Expected<OutputTarget> resolveOutput(llvm::StringRef Named, Within W = Within::Named);
/// The same check, for callers that write later.
llvm::Error checkOutputPath(llvm::StringRef Path);

/// Refuses, before any work, outputs that would destroy an input or each other: an output
/// that is the same file as one of Inputs (through symlinks and hard links: the same device
/// and inode; an input that does not exist yet, such as a compiler's -o, by its name through
/// its directory's real path), or the same file as another output. "-" and outputs that are
/// not regular files are not compared. Usage errors naming both.
llvm::Error checkOutputsAgainstInputs(llvm::ArrayRef<std::string> Outputs,
                                      llvm::ArrayRef<std::string> Inputs,
                                      Within W = Within::Named);

/// The regular files directly in Dir (inputs read from a directory, for the check above).
std::vector<std::string> filesIn(llvm::StringRef Dir);

/// The exclusive right to an output's resumable state (OUT.partial, OUT.resume, OUT.parts/):
/// held for a whole run, so two runs never write the same state; the second is refused. A lock
/// file OUT.lock (flock) beside the output's target, removed when the run ends. For an output
/// that is not a regular file the state lives in a private temporary directory instead (which
/// goes with the object), and the run cannot be resumed.
class OutputState {
public:
  static llvm::Expected<OutputState> acquire(llvm::StringRef Output);
  OutputState(OutputState &&O) noexcept;
  OutputState &operator=(OutputState &&) = delete;
  ~OutputState();

  const OutputTarget &target() const { return Target; }
  /// Whether state kept here survives the run (the output is a regular file).
  bool resumable() const { return Target.K == OutputTarget::File; }
  /// The path of a piece of state: the target plus Suffix (".partial", ".resume", ".parts").
  std::string file(llvm::StringRef Suffix) const { return Base + Suffix.str(); }

private:
  OutputState() = default;
  OutputTarget Target;
  std::string Base, LockPath, PrivateDir;
  int LockFd = -1;
};

class PendingFile {
public:
  /// How the data gets written: through fd() by us, or to path() by a library that opens the
  /// file itself (HDF5) and so needs a regular, seekable file.
  enum class Use { Descriptor, Path };
  /// A fresh temporary file "TARGET.tmp-XXXXXXXX" beside the output's target, created (empty)
  /// now; removed when the object goes without commit(), and on SIGINT/SIGTERM/SIGHUP
  /// (abandonPendingOutputs). An output that is not a regular file is opened now (Descriptor)
  /// or gets a private temporary file copied into it on commit() (Path).
  static llvm::Expected<PendingFile> create(llvm::StringRef Final, Use U = Use::Descriptor,
                                            Within W = Within::Named);
  /// For runs that can be resumed (Use::Path): the fixed name "TARGET.partial" of State. It is
  /// not created here, and it survives failures and signals (the run continues it); discard()
  /// removes it.
  static PendingFile resumable(const OutputState &State);
  PendingFile(PendingFile &&) noexcept;
  PendingFile &operator=(PendingFile &&) = delete;
  ~PendingFile();

  /// Where to write (Use::Path).
  const std::string &path() const { return Temp; }
  const std::string &finalPath() const { return Final; }
  /// An open descriptor to write to (create() with Use::Descriptor; -1 otherwise).
  int fd() const;
  /// Moves the file into place under the requested name (or copies it into an output that is
  /// not a regular file).
  llvm::Error commit();
  /// Removes the temporary file now.
  void discard();
  /// For a resumable file started afresh: creates it with the target's mode and runs Open
  /// (the writer's own open of path(), e.g. HDF5's create) under the output lock. Until the
  /// run's first checkpoint it resumes nothing, so a signal removes it like a temporary file;
  /// checkpointed() keeps it from then on. The lock makes a signal wait for Open: a writer
  /// that opened with O_CREAT after the removal would bring the file back.
  llvm::Error startUntilCheckpoint(llvm::function_ref<llvm::Error()> Open);
  void checkpointed();

private:
  PendingFile() = default;
  /// Ends uselessUntilCheckpoint()'s registration (the output lock held).
  void keepOnSignal();
  std::string Final, Temp;
  OutputTarget Target;
  std::optional<llvm::sys::fs::TempFile> File; // create() only
  int StreamFd = -1;                           // an output written as it is
  bool RemovedOnSignal = false;                // resumable, before its first checkpoint
};

/// A text or binary output that appears under its name only when complete (a PendingFile);
/// "-" writes to standard output directly, and so does any output that is not a regular file.
class AtomicOutput {
public:
  static llvm::Expected<AtomicOutput> create(llvm::StringRef Path, Within W = Within::Named);
  AtomicOutput(AtomicOutput &&) noexcept;
  AtomicOutput &operator=(AtomicOutput &&) = delete;
  ~AtomicOutput();

  llvm::raw_ostream &os() { return *OS; }
  /// The temporary file written until commit() ("" when the output is written as it is).
  std::string temporaryPath() const { return File ? File->path() : std::string(); }
  /// Flushes, checks for write errors and moves the file into place. A reader of standard
  /// output that went away (EPIPE) ends the process by SIGPIPE, as Unix tools end
  /// (endByBrokenPipe).
  llvm::Error commit();

private:
  AtomicOutput() = default;
  std::string Path;
  std::optional<PendingFile> File;
  std::unique_ptr<llvm::raw_fd_ostream> FileOS;
  llvm::raw_fd_ostream *OS = nullptr;
};

/// Several outputs of one command that appear together or not at all: each is written under
/// a temporary name beside its target (add() returns it; the name keeps the final extension,
/// so writers that choose the format by extension still do), commit() moves them all into
/// place, and whatever was not committed is removed when the group goes, on failure or signal.
/// Outputs that are not regular files get private temporary files, copied into them on
/// commit(). The same file added twice is an error.
class OutputGroup {
public:
  OutputGroup() = default;
  OutputGroup(const OutputGroup &) = delete;
  OutputGroup &operator=(const OutputGroup &) = delete;
  ~OutputGroup();
  /// Checks Final (resolveOutput) and returns where to write it.
  llvm::Expected<std::string> add(llvm::StringRef Final, Within W = Within::Named);
  llvm::Error commit();

private:
  struct Entry {
    std::string Temp;
    OutputTarget Target;
  };
  std::vector<Entry> Files;
};

/// Removes every temporary output (PendingFile, AtomicOutput, OutputGroup, private state
/// directories, output directories this run created and left empty) not yet committed, and
/// from then on keeps any from being created, committed or discarded: for the interrupt
/// watcher (support/Interrupts), which ends the process next. Each output is then either
/// complete under its name or absent, and nothing is left beside it.
void abandonPendingOutputs();

/// What to tell the user if the run ends by a signal now (printed by abandonPendingOutputs):
/// where the work done is kept and how to continue it. Set while a run has something to resume.
class InterruptNote {
public:
  InterruptNote();
  InterruptNote(const InterruptNote &) = delete;
  InterruptNote &operator=(const InterruptNote &) = delete;
  ~InterruptNote();
  void set(std::string Text);

private:
  size_t Id;
};

/// Removes every pending output (abandonPendingOutputs) and ends the process by Sig, as a
/// shell expects of a process the signal ended.
[[noreturn]] void endBySignal(int Sig);
/// Standard output's reader went away (EPIPE): removes every pending output and ends the
/// process by SIGPIPE, silently, as `cmd | head` expects of a Unix tool.
[[noreturn]] void endByBrokenPipe();
/// For the end of main: flushes standard output; EPIPE ends the process as endByBrokenPipe,
/// another write error is returned (and cleared, so LLVM's stream does not abort at exit).
llvm::Error finishStandardOutput();

/// Removes what an atomic write of Path (PendingFile, AtomicOutput) killed by SIGKILL left:
/// the files named Path.tmp-* beside it. Only for outputs whose OutputState this run holds.
void removeStaleTemporaries(llvm::StringRef Path);

/// What runs killed by SIGKILL (no handler runs) left: the temporary files beside each of
/// Outputs (OUT.tmp-*) and the private directories and files under $TMPDIR (ir2vec-*). A live
/// run holds a flock on each of its own (PendingFile, TempDir), so only files this user owns,
/// whose lock can be taken and that are older than a minute are removed. Called once per run,
/// at the drivers' boundary (listing a directory per output file would be quadratic).
void sweepStaleTemporaries(llvm::ArrayRef<std::string> Outputs);

/// Creates File (or sets the mode of an existing one), a state file that will become Target,
/// with no wider permissions than Target has when Target exists (plus the owner's read and
/// write, to finish it), before a library writes it: a copy of a 0600 output is never readable
/// by others, even after SIGKILL. (PendingFile's temporary files are created the same way.)
void createAsTarget(const std::string &File, const std::string &Target);

/// Writes Body into Path through an AtomicOutput.
llvm::Error writeFileAtomically(llvm::StringRef Path,
                                const std::function<void(llvm::raw_ostream &)> &Body,
                                Within W = Within::Named);
/// The same for a Body that can fail: its error is returned and nothing appears at Path.
llvm::Error writeFileAtomicallyChecked(llvm::StringRef Path,
                                       const std::function<llvm::Error(llvm::raw_ostream &)> &Body);

/// An output directory: used as it is when it exists, created (as mkdir(1) creates it, a
/// trailing slash allowed) when its parent exists; a missing parent is an error, as for an
/// output file. A directory this object created is removed again, with what the run wrote into
/// it, unless keep() is called (the run produced something), and on an interrupt when the run
/// left it empty.
class OutputDirectory {
public:
  static llvm::Expected<OutputDirectory> prepare(llvm::StringRef Dir);
  OutputDirectory(OutputDirectory &&O) noexcept;
  OutputDirectory &operator=(OutputDirectory &&) = delete;
  ~OutputDirectory();
  const std::string &path() const { return Dir; }
  /// Dir/Name.
  std::string file(llvm::StringRef Name) const;
  /// The run produced its output: the directory stays.
  void keep();

private:
  OutputDirectory() = default;
  std::string Dir;
  bool Created = false, Kept = false;
};
/// Dir/Name.
std::string pathIn(llvm::StringRef Dir, llvm::StringRef Name);

/// Files in Dir that appear together or not at all (an OutputGroup): each body writes one
/// named file. Dir is kept once they are in place.
using FileBody = std::function<void(llvm::raw_ostream &)>;
llvm::Error writeFilesTogether(OutputDirectory &Dir,
                               llvm::ArrayRef<std::pair<std::string, FileBody>> Files);

/// A private temporary directory (under $TMPDIR) that is removed with everything in it (files,
/// FIFOs, subdirectories a child made) when the object goes, and on an interrupt.
class TempDir {
public:
  static llvm::Expected<TempDir> create(llvm::StringRef Prefix);
  TempDir(TempDir &&O) noexcept : Dir(std::move(O.Dir)), LockFd(O.LockFd) {
    O.Dir.clear();
    O.LockFd = -1;
  }
  TempDir &operator=(TempDir &&) = delete;
  ~TempDir();
  const std::string &path() const { return Dir; }
  std::string file(llvm::StringRef Name) const { return Dir + "/" + Name.str(); }

private:
  TempDir() = default;
  std::string Dir;
  int LockFd = -1; // a flock on the directory while it is in use (sweepStaleTemporaries)
};
/// Removes Path and everything below it, never following symlinks; whether it is gone.
bool removeTree(llvm::StringRef Path);
/// Removes the temporary directories whose removal failed when they went (descriptors
/// exhausted): called where a command ends, and at exit.
void removeLeftoverTrees();

/// Lower-case hex SHA-256 of bytes, and of a file's bytes (identifies inputs in output files).
std::string sha256Hex(llvm::StringRef Bytes);
llvm::Expected<std::string> sha256OfFile(llvm::StringRef Path);

} // namespace wb::support
