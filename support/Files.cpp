#include "support/Files.h"

#include "support/Error.h"
#include "support/Interrupts.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/Signals.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <mutex>
#include <pthread.h>
#include <shared_mutex>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace wb::support {

namespace {

// Every step that creates, registers, moves or removes a temporary output holds this lock
// shared; abandonPendingOutputs takes it exclusively and never gives it back (the process
// ends). So an interrupt sees each output either pending (removed) or committed (kept), never
// half-way, and no new temporary appears after the cleanup. Process-wide like the signals and
// LLVM's list of files to remove on them; never destroyed, as a thread may hold it at exit.
std::shared_mutex &outputLock() {
  static std::shared_mutex *M = new std::shared_mutex;
  return *M;
}

using OutputStep = std::shared_lock<std::shared_mutex>;

// What an interrupt removes besides the files registered with LLVM (which removes only regular
// files): private directory trees (state of outputs that are not files, TempDir) and output
// directories this run created (removed only when empty: their files were pending). Guarded by
// the output lock (shared for changes, which this mutex serialises).
struct Directories {
  std::mutex M;
  std::vector<std::string> Trees, Created;
  // Temporary trees whose removal failed (descriptors exhausted: listing a directory needs
  // one), removed again when the run ends.
  std::vector<std::string> Leftovers;
  // InterruptNote's texts by id ("" = nothing to say yet).
  std::map<size_t, std::string> Notes;
  size_t NextNote = 0;
};

Directories &directories() {
  static Directories *D = new Directories;
  return *D;
}

void track(std::vector<std::string> Directories::*List, const std::string &Path) {
  std::lock_guard<std::mutex> L(directories().M);
  (directories().*List).push_back(Path);
}

void untrack(std::vector<std::string> Directories::*List, const std::string &Path) {
  std::lock_guard<std::mutex> L(directories().M);
  auto &V = directories().*List;
  if (auto It = std::find(V.begin(), V.end(), Path); It != V.end())
    V.erase(It);
}

std::string errnoMessage(int E) { return std::error_code(E, std::generic_category()).message(); }

/// "/dev/fd/N", "/proc/self/fd/N" or "/proc/PID/fd/N" of this process: descriptor N.
std::optional<int> ownDescriptor(llvm::StringRef Path) {
  const std::string OwnProc = "/proc/" + std::to_string(::getpid()) + "/fd/";
  if (!Path.consume_front("/dev/fd/") && !Path.consume_front("/proc/self/fd/") &&
      !Path.consume_front(OwnProc))
    return std::nullopt;
  unsigned N = 0;
  if (Path.getAsInteger(10, N) || N > unsigned(INT32_MAX))
    return std::nullopt;
  return int(N);
}

/// A descriptor to write an output that is not a regular file to, as it is (no O_TRUNC, no
/// O_CREAT: a device or FIFO is never replaced or created). A FIFO's open waits for a reader,
/// as a shell's redirection does, but in steps: the interrupt signals are blocked in every
/// thread (support/Interrupts.h), so a blocking open would outlast any Ctrl-C or SIGTERM.
llvm::Expected<int> openStream(const OutputTarget &T) {
  if (T.Descriptor >= 0) {
    const int Fd = ::fcntl(T.Descriptor, F_DUPFD_CLOEXEC, 3);
    if (Fd < 0)
      return fileError(T.Named, "cannot open the output for writing: " + errnoMessage(errno));
    return Fd;
  }
  struct stat St;
  const bool Fifo = ::stat(T.Path.c_str(), &St) == 0 && S_ISFIFO(St.st_mode);
  while (true) {
    const int Fd = ::open(T.Path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | (Fifo ? O_NONBLOCK : 0));
    if (Fd >= 0) {
      if (Fifo) // writes block again, as for any output
        ::fcntl(Fd, F_SETFL, ::fcntl(Fd, F_GETFL) & ~O_NONBLOCK);
      return Fd;
    }
    if (errno == EINTR)
      continue;
    if (!(Fifo && errno == ENXIO)) // ENXIO: a FIFO without a reader yet
      return fileError(T.Named, "cannot open the output for writing: " + errnoMessage(errno));
    if (interruptReceived())
      return interruptedError(T.Named + ": interrupted while waiting for a reader of this FIFO; "
                              "nothing was written to it");
    ::usleep(20000);
  }
}

/// Writes all of Bytes to Fd; an error code, or 0.
int writeAll(int Fd, const char *Bytes, size_t N) {
  while (N) {
    const ssize_t W = ::write(Fd, Bytes, N);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      return W < 0 ? errno : EIO;
    Bytes += W;
    N -= size_t(W);
  }
  return 0;
}

/// Copies the file From into the output T (not a regular file), then closes it.
llvm::Error copyInto(const std::string &From, const OutputTarget &T) {
  // The finished output is opened first: its descriptor keeps it readable however long the
  // output's reader takes to come.
  const int In = ::open(From.c_str(), O_RDONLY | O_CLOEXEC);
  if (In < 0)
    return fileError(From, "cannot read the finished output: " + errnoMessage(errno));
  llvm::Expected<int> Out = openStream(T);
  if (!Out) {
    ::close(In);
    return Out.takeError();
  }
  std::vector<char> Buf(1 << 20);
  int Err = 0;
  while (!Err) {
    const ssize_t R = ::read(In, Buf.data(), Buf.size());
    if (R < 0 && errno == EINTR)
      continue;
    if (R <= 0) {
      Err = R < 0 ? errno : 0;
      break;
    }
    Err = writeAll(*Out, Buf.data(), size_t(R));
  }
  ::close(In);
  ::close(*Out);
  if (Err == EPIPE)
    endByBrokenPipe(); // the output's reader went away
  if (Err)
    return fileError(T.Named, "write error: " + errnoMessage(Err));
  return llvm::Error::success();
}

/// The kinds of private directories under $TMPDIR (TempDir::create's prefixes; LLVM's
/// createUniqueDirectory adds "-" and six hex digits), and the prefix of private files: the
/// names sweepStaleTemporaries recognises as this tool's.
constexpr llvm::StringLiteral PrivateDirectoryKinds[] = {
    "ir2vec-mlgo", "ir2vec-eval", "ir2vec-explore", "ir2vec-collect", "ir2vec-finetune", "ir2vec-state"};
constexpr llvm::StringLiteral PrivateFilePrefix = "ir2vec-output-";

/// The state a resumable run keeps beside its output OUT (OutputState::file), and its lock:
/// the run's own files, which no other output may name while it runs.
struct StateFile {
  llvm::StringLiteral Suffix;
  bool Directory;
};
constexpr StateFile StateFiles[] = {{".partial", false}, {".resume", false}, {".parts", true}};
constexpr llvm::StringLiteral LockSuffix = ".lock";

/// A unique path for a private temporary file (outputs that are not regular files, written by
/// a library that needs a seekable file), with Extension kept for writers that choose the format
/// by it.
std::string privateTemporary(llvm::StringRef Extension) {
  llvm::SmallString<256> Dir;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Dir);
  llvm::sys::path::append(Dir, PrivateFilePrefix + "%%%%%%%%" + Extension);
  llvm::SmallString<256> P;
  llvm::sys::fs::createUniquePath(Dir, P, /*MakeAbsolute=*/false);
  return std::string(P);
}

/// A descriptor of the private directory Dir holding a flock on it while the run uses it, so
/// that sweepStaleTemporaries never takes it for a SIGKILLed run's leftover; -1 if it cannot.
int holdInUse(const std::string &Dir) {
  const int Fd = ::open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (Fd >= 0)
    ::flock(Fd, LOCK_EX | LOCK_NB);
  return Fd;
}

/// Registers a temporary output for removal on an interrupt, under the output lock.
llvm::Error registerTemporary(llvm::StringRef Named, const std::string &Temp) {
  std::string Msg;
  if (llvm::sys::RemoveFileOnSignal(Temp, &Msg))
    return fileError(Named, "cannot register the temporary output: " + Msg);
  return llvm::Error::success();
}

/// A fresh directory under $TMPDIR, removed (with all below it) by an interrupt until untracked.
llvm::Expected<std::string> privateDirectory(llvm::StringRef Prefix) {
  llvm::SmallString<128> Path;
  OutputStep L(outputLock());
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory(Prefix, Path))
    return makeError("cannot create a temporary directory: " + EC.message());
  track(&Directories::Trees, std::string(Path));
  return std::string(Path);
}

} // namespace

// ---- the output rules --------------------------------------------------------------------

llvm::Expected<OutputTarget> resolveOutput(llvm::StringRef Named, Within W) {
  OutputTarget T;
  T.Named = Named.str();
  if (Named == "-") {
    T.K = OutputTarget::StandardOutput;
    return T;
  }
  if (Named.empty())
    return usageError("an output name is empty");
  auto Fail = [&](const llvm::Twine &Why) { return fileError(Named, "cannot write the output: " + Why); };
  if (Named.ends_with("/"))
    return Fail("the name ends with '/', which names a directory: give the output file's name");
  // The chain of symlinks is followed by hand: a symlink's target is what gets replaced, and a
  // descriptor's name (/dev/stdout is a link to /proc/self/fd/1) is written as it is.
  std::string Cur = T.Named;
  bool Resolved = false;
  for (int Hop = 0; Hop < 40 && !Resolved; ++Hop) {
    if (W == Within::Directory) { // the entry itself, whatever it is
      struct stat St;
      if (::lstat(Cur.c_str(), &St) == 0 && S_ISDIR(St.st_mode))
        return Fail("it is a directory");
      Resolved = true;
      break;
    }
    if (std::optional<int> Fd = ownDescriptor(Cur)) {
      const int Flags = ::fcntl(*Fd, F_GETFL);
      if (Flags < 0 || (Flags & O_ACCMODE) == O_RDONLY)
        return Fail("descriptor " + llvm::Twine(*Fd) + " is not open for writing");
      T.K = OutputTarget::Stream;
      T.Path = Cur;
      T.Descriptor = *Fd;
      return T;
    }
    struct stat St;
    if (::lstat(Cur.c_str(), &St) != 0) {
      if (errno != ENOENT)
        return Fail(errnoMessage(errno));
      Resolved = true; // a new file (or a dangling symlink's target)
      break;
    }
    if (S_ISLNK(St.st_mode)) {
      char Buf[4096];
      const ssize_t N = ::readlink(Cur.c_str(), Buf, sizeof Buf);
      if (N < 0 || size_t(N) >= sizeof Buf)
        return Fail(N < 0 ? errnoMessage(errno) : std::string("a symlink's target is too long"));
      const llvm::StringRef Link(Buf, size_t(N));
      if (llvm::sys::path::is_absolute(Link)) {
        Cur = std::string(Link);
      } else {
        llvm::SmallString<256> Next(llvm::sys::path::parent_path(Cur));
        llvm::sys::path::append(Next, Link);
        Cur = std::string(Next);
      }
      continue;
    }
    if (S_ISDIR(St.st_mode))
      return Fail("it is a directory");
    if (!S_ISREG(St.st_mode)) { // a device, a FIFO, a socket, a terminal: written as it is
      T.K = OutputTarget::Stream;
      T.Path = T.Named;
      return T;
    }
    Resolved = true;
  }
  if (!Resolved)
    return Fail("too many levels of symbolic links");
  T.K = OutputTarget::File;
  T.Path = Cur;
  // The target's directory must take new entries (the temporary file), whatever the file's
  // own mode.
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Cur));
  if (Dir.empty())
    Dir = ".";
  if (!llvm::sys::fs::exists(Dir)) {
    if (W == Within::Directory)
      return T; // made by the writer, inside its output directory
    return Fail("the directory " + Dir + " does not exist");
  }
  if (!llvm::sys::fs::is_directory(Dir))
    return Fail(Dir + " is not a directory");
  if (::access(Dir.c_str(), W_OK | X_OK) != 0)
    return Fail(Dir + ": " + errnoMessage(errno));
  // Replacing takes only the directory's permission; a file its owner made read-only is
  // refused, as opening it for writing would be (root writes it, as with `>`).
  if (W == Within::Named && ::access(Cur.c_str(), F_OK) == 0 && ::access(Cur.c_str(), W_OK) != 0)
    return Fail(errnoMessage(errno));
  return T;
}

llvm::Error checkOutputPath(llvm::StringRef Path) { return resolveOutput(Path).takeError(); }

namespace {

/// A file's name made absolute through its directory's real path (the file itself need not
/// exist): two spellings of a file that is still to be written compare equal.
std::string canonicalName(llvm::StringRef Path) {
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(llvm::sys::path::parent_path(Abs), Real))
    return std::string(Abs);
  llvm::sys::path::append(Real, llvm::sys::path::filename(Abs));
  return std::string(Real);
}

/// The output whose state Path is, when a live run holds that output (its OUT.lock is locked):
/// Path is one of its StateFiles, its lock, or inside its state directory.
std::optional<std::string> liveStateOwner(llvm::StringRef Path) {
  llvm::StringRef Base;
  const llvm::StringRef Parent = llvm::sys::path::parent_path(Path);
  for (const StateFile &F : StateFiles)
    if (Path.ends_with(F.Suffix))
      Base = Path.drop_back(F.Suffix.size());
    else if (F.Directory && Parent.ends_with(F.Suffix))
      Base = Parent.drop_back(F.Suffix.size());
  if (Path.ends_with(LockSuffix))
    Base = Path.drop_back(LockSuffix.size());
  if (Base.empty())
    return std::nullopt;
  const std::string Lock = (Base + LockSuffix).str();
  const int Fd = ::open(Lock.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (Fd < 0)
    return std::nullopt;
  const bool Held = ::flock(Fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(Fd);
  if (!Held)
    return std::nullopt;
  return Base.str();
}

} // namespace

llvm::Error checkOutputsAgainstInputs(llvm::ArrayRef<std::string> Outputs,
                                      llvm::ArrayRef<std::string> Inputs, Within W) {
  // Outputs by name and, when they exist, by file (device and inode: links); a corpus extract
  // checks tens of thousands, hence the maps.
  std::map<std::string, std::string> ByName;                   // canonical name -> as given
  std::map<llvm::sys::fs::UniqueID, std::string> ByFile;       // existing file -> as given
  for (const std::string &O : Outputs) {
    if (O.empty())
      continue;
    llvm::Expected<OutputTarget> T = resolveOutput(O, W);
    if (!T)
      return T.takeError();
    if (!T->replaced())
      continue;
    if (std::optional<std::string> Owner = liveStateOwner(T->Path))
      return usageError(O + " is the state of a run writing " + *Owner +
                        " now; refusing to replace it");
    auto Twice = [&](const std::string &Other) {
      return usageError(Other == O ? O + " is given twice as an output"
                                   : O + " and " + Other + " are the same file, given twice as an output");
    };
    auto [It, New] = ByName.emplace(canonicalName(T->Path), O);
    if (!New)
      return Twice(It->second);
    llvm::sys::fs::UniqueID ID;
    // An entry inside an output directory that is a symlink is replaced, not what it names.
    const bool Exists = !llvm::sys::fs::getUniqueID(T->Path, ID) &&
                        !(W == Within::Directory && llvm::sys::fs::is_symlink_file(T->Path));
    if (Exists)
      if (auto [F, NewFile] = ByFile.emplace(ID, O); !NewFile)
        return Twice(F->second);
  }
  for (const std::string &In : Inputs) {
    if (In.empty() || In == "-")
      continue;
    // An input that exists is compared by file; one that does not (a file the compiler of
    // `mlgo run` is to write) by name.
    llvm::sys::fs::UniqueID ID;
    const std::string *Hit = nullptr;
    if (!llvm::sys::fs::getUniqueID(In, ID)) {
      if (auto F = ByFile.find(ID); F != ByFile.end())
        Hit = &F->second;
    } else if (auto N = ByName.find(canonicalName(In)); N != ByName.end()) {
      Hit = &N->second;
    }
    if (Hit)
      return usageError(*Hit + ": the output is also an input" +
                        (In == *Hit ? std::string() : " (" + In + ")") + "; refusing to replace it");
  }
  return llvm::Error::success();
}

std::vector<std::string> filesIn(llvm::StringRef Dir) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::sys::fs::is_regular_file(It->path()))
      Files.push_back(It->path());
  return Files;
}

// ---- the exclusive state of a resumable output ---------------------------------------------

llvm::Expected<OutputState> OutputState::acquire(llvm::StringRef Output) {
  llvm::Expected<OutputTarget> T = resolveOutput(Output);
  if (!T)
    return T.takeError();
  OutputState S;
  S.Target = *T;
  if (!T->replaced()) {
    // Nothing beside a device or a FIFO: the state goes to a private directory, gone with us.
    llvm::Expected<std::string> D = privateDirectory("ir2vec-state");
    if (!D)
      return D.takeError();
    S.PrivateDir = *D;
    S.Base = pathIn(*D, "output");
    S.LockFd = holdInUse(*D);
    return S;
  }
  S.Base = T->Path;
  S.LockPath = (T->Path + LockSuffix).str();
  // flock on OUT.lock. The file is removed when the run ends, so a lock taken on a file another
  // run has just removed is not a lock: the path must still name the locked file.
  for (int Try = 0; Try < 100; ++Try) {
    const int Fd = ::open(S.LockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (Fd < 0)
      return fileError(Output, "cannot lock the output (" + S.LockPath + "): " + errnoMessage(errno));
    if (::flock(Fd, LOCK_EX | LOCK_NB) != 0) {
      const int E = errno;
      char Pid[32] = {0};
      [[maybe_unused]] ssize_t N = ::pread(Fd, Pid, sizeof Pid - 1, 0);
      ::close(Fd);
      if (E != EWOULDBLOCK)
        return fileError(Output, "cannot lock the output (" + S.LockPath + "): " + errnoMessage(E));
      llvm::StringRef Who = llvm::StringRef(Pid).trim();
      return fileError(Output, "another run" + (Who.empty() ? std::string() : " (pid " + Who.str() + ")") +
                                   " is writing this output; wait for it to end, or choose "
                                   "another output");
    }
    struct stat Held, Now;
    if (::fstat(Fd, &Held) == 0 && ::stat(S.LockPath.c_str(), &Now) == 0 &&
        Held.st_dev == Now.st_dev && Held.st_ino == Now.st_ino) {
      const std::string Pid = std::to_string(::getpid()) + "\n";
      if (::ftruncate(Fd, 0) == 0)
        (void)!::pwrite(Fd, Pid.data(), Pid.size(), 0);
      // The state files beside the output are the run's own: one that is a symlink (or a
      // device, a FIFO) would lead the run's writes, and --resume's truncation, elsewhere.
      for (const StateFile &F : StateFiles) {
        const std::string Name = (T->Path + F.Suffix).str();
        struct stat St;
        if (::lstat(Name.c_str(), &St) == 0 &&
            (F.Directory ? !S_ISDIR(St.st_mode) : !S_ISREG(St.st_mode))) {
          ::unlink(S.LockPath.c_str()); // still held: removed as at the end of a run
          ::close(Fd);
          return fileError(Output, Name + " is not a " + (F.Directory ? "directory" : "regular file") +
                                       " (a symbolic link?): the files beside the output are "
                                       "the run's own state; remove it");
        }
      }
      S.LockFd = Fd;
      OutputStep L(outputLock());
      if (llvm::Error E = registerTemporary(Output, S.LockPath)) {
        llvm::consumeError(std::move(E)); // a lock file left by an interrupt is harmless
      }
      return S;
    }
    ::close(Fd); // removed by the run that held it: take the new one
  }
  return fileError(Output, "cannot lock the output (" + S.LockPath + "): it keeps changing");
}

OutputState::OutputState(OutputState &&O) noexcept
    : Target(std::move(O.Target)), Base(std::move(O.Base)), LockPath(std::move(O.LockPath)),
      PrivateDir(std::move(O.PrivateDir)), LockFd(O.LockFd) {
  O.LockFd = -1;
  O.LockPath.clear();
  O.PrivateDir.clear();
}

OutputState::~OutputState() {
  OutputStep L(outputLock());
  if (LockFd >= 0 && !LockPath.empty()) {
    // Removed while still held: a run waiting on this file finds the path gone and retries.
    // (Never one this run did not lock: a refused run leaves the name as it found it.)
    ::unlink(LockPath.c_str());
    llvm::sys::DontRemoveFileOnSignal(LockPath);
  }
  if (!PrivateDir.empty()) {
    removeTree(PrivateDir);
    untrack(&Directories::Trees, PrivateDir);
  }
  if (LockFd >= 0)
    ::close(LockFd);
}

namespace {

/// The permissions of Target when it is a regular file: what a file replacing it keeps.
std::optional<mode_t> modeOf(const std::string &Target) {
  struct stat St;
  if (::stat(Target.c_str(), &St) == 0 && S_ISREG(St.st_mode))
    return St.st_mode & 07777;
  return std::nullopt;
}

/// The mode for a file that will become Target: no wider than Target's when it exists (plus
/// the owner's read and write, to finish it); otherwise the umask's.
unsigned modeFor(const std::string &Target) {
  std::optional<mode_t> M = modeOf(Target);
  return M ? (*M & 0777) | S_IRUSR | S_IWUSR : 0666;
}

} // namespace

void createAsTarget(const std::string &File, const std::string &Target) {
  const unsigned Mode = modeFor(Target);
  const int Fd = ::open(File.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, Mode);
  if (Fd < 0)
    return; // the writer's own open reports it
  if (Mode != 0666)
    ::fchmod(Fd, Mode); // an existing file too
  ::close(Fd);
}

// ---- PendingFile ---------------------------------------------------------------------------

llvm::Expected<PendingFile> PendingFile::create(llvm::StringRef Final, Use U, Within W) {
  llvm::Expected<OutputTarget> T = resolveOutput(Final, W);
  if (!T)
    return T.takeError();
  PendingFile P;
  P.Final = Final.str();
  P.Target = *T;
  if (T->K == OutputTarget::StandardOutput && U == Use::Path)
    return usageError("standard output ('-') cannot take this output: name a file");
  if (T->K != OutputTarget::File && U == Use::Descriptor) {
    llvm::Expected<int> Fd = T->K == OutputTarget::StandardOutput ? ::fcntl(1, F_DUPFD_CLOEXEC, 3)
                                                                  : openStream(*T);
    if (!Fd)
      return Fd.takeError();
    if (*Fd < 0)
      return fileError(Final, "cannot write standard output: " + errnoMessage(errno));
    P.StreamFd = *Fd;
    return P;
  }
  // A temporary file beside the target (renamed over it), or a private one (copied into an
  // output that is not a regular file). TempFile creates the file, then registers it for
  // removal on signals: one step for an interrupt. (Only this: the lock is not recursive, and
  // ~PendingFile takes it too.)
  const std::string Model = T->replaced() ? T->Path + ".tmp-%%%%%%%%" : privateTemporary("");
  auto F = [&] {
    OutputStep L(outputLock());
    return llvm::sys::fs::TempFile::create(Model, T->replaced() ? modeFor(T->Path) : 0666);
  }();
  if (!F)
    return fileError(Final, "cannot create output file: " + llvm::toString(F.takeError()));
  // In use: not a SIGKILLed run's leftover. (A file HDF5 writes is locked by HDF5 itself, with
  // flock on its own descriptor: a lock held here would make its H5Fcreate fail.)
  if (U == Use::Descriptor)
    ::flock(F->FD, LOCK_EX | LOCK_NB);
  P.Temp = F->TmpName;
  P.File.emplace(std::move(*F));
  return P;
}

PendingFile PendingFile::resumable(const OutputState &State) {
  PendingFile P;
  P.Final = State.target().Named;
  P.Target = State.target();
  P.Temp = State.file(".partial");
  return P;
}

PendingFile::PendingFile(PendingFile &&O) noexcept
    : Final(std::move(O.Final)), Temp(std::move(O.Temp)), Target(std::move(O.Target)),
      File(std::move(O.File)), StreamFd(O.StreamFd), RemovedOnSignal(O.RemovedOnSignal) {
  O.RemovedOnSignal = false;
  O.Temp.clear();
  O.File.reset();
  O.StreamFd = -1;
}

PendingFile::~PendingFile() {
  OutputStep L(outputLock());
  if (File)
    llvm::consumeError(File->discard());
  if (StreamFd >= 0)
    ::close(StreamFd);
}

llvm::Error PendingFile::startUntilCheckpoint(llvm::function_ref<llvm::Error()> Open) {
  OutputStep L(outputLock());
  if (!RemovedOnSignal && !Temp.empty() && !llvm::sys::RemoveFileOnSignal(Temp))
    RemovedOnSignal = true;
  createAsTarget(Temp, Target.Path);
  return Open();
}

void PendingFile::checkpointed() {
  OutputStep L(outputLock());
  keepOnSignal();
}

void PendingFile::keepOnSignal() {
  if (RemovedOnSignal)
    llvm::sys::DontRemoveFileOnSignal(Temp);
  RemovedOnSignal = false;
}

int PendingFile::fd() const { return StreamFd >= 0 ? StreamFd : File ? File->FD : -1; }

void PendingFile::discard() {
  OutputStep L(outputLock());
  if (File) {
    llvm::consumeError(File->discard());
    File.reset();
  } else if (!Temp.empty()) {
    llvm::sys::fs::remove(Temp);
  }
  keepOnSignal();
  if (StreamFd >= 0) { // what was written into a device or FIFO cannot be taken back
    ::close(StreamFd);
    StreamFd = -1;
  }
  Temp.clear();
}

namespace {

/// A file that replaces another keeps its permissions (a 0600 file stays private), as when a
/// program rewrites it in place; a new file has the umask's.
void keepModeOf(const std::string &Temp, const std::string &Target) {
  if (std::optional<mode_t> M = modeOf(Target))
    ::chmod(Temp.c_str(), *M);
}

} // namespace

llvm::Error PendingFile::commit() {
  if (StreamFd >= 0) {
    const int Fd = StreamFd;
    StreamFd = -1;
    if (::close(Fd) != 0 && errno != EINTR)
      return fileError(Final, "write error: " + errnoMessage(errno));
    return llvm::Error::success();
  }
  if (!Target.replaced()) {
    // A private temporary file, copied into the output; removed either way.
    llvm::Error E = copyInto(Temp, Target);
    discard();
    return E;
  }
  OutputStep L(outputLock());
  llvm::Error E = llvm::Error::success();
  keepModeOf(Temp, Target.Path);
  if (File) {
    E = File->keep(Target.Path);
    File.reset();
  } else if (std::error_code EC = llvm::sys::fs::rename(Temp, Target.Path)) {
    E = llvm::errorCodeToError(EC);
  }
  if (E) {
    // Nothing is left behind: neither under the requested name nor next to it.
    llvm::sys::fs::remove(Temp);
    Temp.clear();
    return fileError(Final, "cannot move output into place: " + llvm::toString(std::move(E)));
  }
  keepOnSignal();
  Temp.clear();
  return llvm::Error::success();
}

// ---- AtomicOutput --------------------------------------------------------------------------

llvm::Expected<AtomicOutput> AtomicOutput::create(llvm::StringRef Path, Within W) {
  AtomicOutput Out;
  Out.Path = Path.str();
  if (Path == "-") {
    Out.OS = &llvm::outs();
    return Out;
  }
  auto F = PendingFile::create(Path, PendingFile::Use::Descriptor, W);
  if (!F)
    return F.takeError();
  Out.File.emplace(std::move(*F));
  Out.FileOS = std::make_unique<llvm::raw_fd_ostream>(Out.File->fd(), /*shouldClose=*/false);
  Out.OS = Out.FileOS.get();
  return Out;
}

AtomicOutput::AtomicOutput(AtomicOutput &&Other) noexcept
    : Path(std::move(Other.Path)), File(std::move(Other.File)),
      FileOS(std::move(Other.FileOS)), OS(Other.OS) {
  Other.File.reset();
  Other.OS = nullptr;
}

AtomicOutput::~AtomicOutput() {
  // Flush into the temporary file before it goes: a stream destroyed later would flush into
  // a closed descriptor, which raw_fd_ostream treats as a fatal error.
  if (FileOS) {
    FileOS->flush();
    FileOS->clear_error();
    FileOS.reset();
  }
}

llvm::Error AtomicOutput::commit() {
  OS->flush();
  if (OS->has_error()) {
    const std::error_code EC = OS->error();
    OS->clear_error();
    // Standard output, a pipe or a FIFO whose reader went away: the way `cmd | head` ends.
    if (EC == std::errc::broken_pipe)
      endByBrokenPipe();
    return fileError(Path, "write error: " + EC.message());
  }
  if (!File)
    return llvm::Error::success();
  FileOS.reset();
  llvm::Error E = File->commit();
  File.reset();
  return E;
}

// ---- interrupts and broken pipes ---------------------------------------------------------

void abandonPendingOutputs() {
  outputLock().lock();
  // Removes the files registered with llvm::sys::RemoveFileOnSignal: every temporary file.
  llvm::sys::RunInterruptHandlers();
  Directories &D = directories();
  std::lock_guard<std::mutex> L(D.M);
  for (const std::string &T : D.Trees)
    removeTree(T);
  for (auto It = D.Created.rbegin(); It != D.Created.rend(); ++It)
    ::rmdir(It->c_str()); // only when empty: files committed before the signal stay
}

InterruptNote::InterruptNote() {
  std::lock_guard<std::mutex> L(directories().M);
  Id = directories().NextNote++;
  directories().Notes[Id];
}

InterruptNote::~InterruptNote() {
  std::lock_guard<std::mutex> L(directories().M);
  directories().Notes.erase(Id);
}

void InterruptNote::set(std::string Text) {
  std::lock_guard<std::mutex> L(directories().M);
  directories().Notes[Id] = std::move(Text);
}

void endBySignal(int Sig) {
  abandonPendingOutputs();
  {
    std::lock_guard<std::mutex> L(directories().M);
    for (const auto &[Id, Text] : directories().Notes)
      if (!Text.empty())
        llvm::errs() << Text << "\n";
    llvm::errs().flush();
  }
  // The signal is delivered as soon as this thread unblocks it: the process ends by Sig, which
  // tells a calling shell what happened (after SIGINT it stops its loop too).
  ::signal(Sig, SIG_DFL);
  sigset_t One;
  sigemptyset(&One);
  sigaddset(&One, Sig);
  ::pthread_kill(::pthread_self(), Sig);
  ::pthread_sigmask(SIG_UNBLOCK, &One, nullptr);
  ::_exit(128 + Sig); // not reached
}

void endByBrokenPipe() {
  llvm::outs().clear_error(); // LLVM's stream would abort at exit over it
  endBySignal(SIGPIPE);
}

llvm::Error finishStandardOutput() {
  llvm::outs().flush();
  llvm::errs().clear_error(); // a closed standard error cannot be told about anything
  if (!llvm::outs().has_error())
    return llvm::Error::success();
  const std::error_code EC = llvm::outs().error();
  llvm::outs().clear_error();
  if (EC == std::errc::broken_pipe)
    endByBrokenPipe();
  return makeError("standard output: write error: " + EC.message());
}

void removeStaleTemporaries(llvm::StringRef Path) {
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Path));
  if (Dir.empty())
    Dir = ".";
  const std::string Prefix = (llvm::sys::path::filename(Path) + ".tmp-").str();
  std::error_code EC;
  std::vector<std::string> Stale;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::sys::path::filename(It->path()).starts_with(Prefix))
      Stale.push_back(It->path());
  for (const std::string &F : Stale)
    llvm::sys::fs::remove(F);
}

namespace {

/// Whether Name is Prefix followed by exactly Digits lower-case hex digits (LLVM's unique names
/// replace each '%' by one), then nothing or an extension: a name this tool made, never a
/// user's file that merely starts alike.
bool uniqueName(llvm::StringRef Name, llvm::StringRef Prefix, size_t Digits) {
  if (!Name.consume_front(Prefix) || Name.size() < Digits)
    return false;
  for (char C : Name.take_front(Digits))
    if (!llvm::isDigit(C) && !(C >= 'a' && C <= 'f'))
      return false;
  Name = Name.drop_front(Digits);
  return Name.empty() || Name.front() == '.';
}

/// Removes the entries of Dir that Made says this tool made, that this user owns, untouched
/// for a minute (a live run's files are locked from the moment they exist; the minute covers
/// the instant before, and outputs renamed into a group's temporary name), and whose flock
/// can be taken.
void sweep(llvm::StringRef Dir, const std::function<bool(llvm::StringRef)> &Made) {
  std::error_code EC;
  std::vector<std::string> Names;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (Made(llvm::sys::path::filename(It->path())))
      Names.push_back(It->path());
  const time_t Now = ::time(nullptr);
  for (const std::string &N : Names) {
    struct stat St, Held;
    if (::lstat(N.c_str(), &St) != 0 || St.st_uid != ::getuid() ||
        !(S_ISREG(St.st_mode) || S_ISDIR(St.st_mode)) || Now - St.st_mtime < 60)
      continue;
    const int Fd = ::open(N.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (Fd < 0)
      continue;
    if (::flock(Fd, LOCK_EX | LOCK_NB) == 0 && ::fstat(Fd, &Held) == 0 &&
        Held.st_ino == St.st_ino && Held.st_dev == St.st_dev) {
      OutputStep L(outputLock());
      if (S_ISDIR(St.st_mode))
        removeTree(N);
      else
        ::unlink(N.c_str());
    }
    ::close(Fd);
  }
}

} // namespace

void sweepStaleTemporaries(llvm::ArrayRef<std::string> Outputs) {
  for (const std::string &O : Outputs) {
    llvm::Expected<OutputTarget> T = resolveOutput(O);
    if (!T) {
      llvm::consumeError(T.takeError()); // reported by the run itself
      continue;
    }
    if (!T->replaced())
      continue;
    llvm::SmallString<256> Dir(llvm::sys::path::parent_path(T->Path));
    if (Dir.empty())
      Dir = ".";
    const std::string Temp = (llvm::sys::path::filename(T->Path) + ".tmp-").str();
    sweep(Dir, [&](llvm::StringRef N) { return uniqueName(N, Temp, 8); });
  }
  llvm::SmallString<256> Tmp;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Tmp);
  sweep(Tmp, [](llvm::StringRef N) {
    return uniqueName(N, PrivateFilePrefix, 8) ||
           llvm::any_of(PrivateDirectoryKinds, [&](llvm::StringRef K) {
             return uniqueName(N, (K + "-").str(), 6);
           });
  });
}

llvm::Error writeFileAtomically(llvm::StringRef Path,
                                const std::function<void(llvm::raw_ostream &)> &Body, Within W) {
  auto Out = AtomicOutput::create(Path, W);
  if (!Out)
    return Out.takeError();
  Body(Out->os());
  return Out->commit();
}

llvm::Error writeFileAtomicallyChecked(
    llvm::StringRef Path, const std::function<llvm::Error(llvm::raw_ostream &)> &Body) {
  auto Out = AtomicOutput::create(Path);
  if (!Out)
    return Out.takeError();
  if (llvm::Error E = Body(Out->os()))
    return E; // the AtomicOutput removes its temporary file
  return Out->commit();
}

// ---- OutputGroup ---------------------------------------------------------------------------

OutputGroup::~OutputGroup() {
  OutputStep L(outputLock());
  for (const Entry &E : Files) {
    llvm::sys::fs::remove(E.Temp);
    llvm::sys::DontRemoveFileOnSignal(E.Temp);
  }
}

llvm::Expected<std::string> OutputGroup::add(llvm::StringRef Final, Within W) {
  llvm::Expected<OutputTarget> T = resolveOutput(Final, W);
  if (!T)
    return T.takeError();
  if (T->K == OutputTarget::StandardOutput)
    return usageError("standard output ('-') cannot take this output: name a file");
  for (const Entry &E : Files)
    if (E.Target.Path == T->Path)
      return usageError(Final + " is given twice as an output");
  const llvm::StringRef Ext = llvm::sys::path::extension(Final);
  llvm::SmallString<256> Temp;
  if (T->replaced())
    llvm::sys::fs::createUniquePath(T->Path + ".tmp-%%%%%%%%" + Ext, Temp, /*MakeAbsolute=*/false);
  else
    Temp = privateTemporary(Ext);
  OutputStep L(outputLock());
  // Registered for removal on signals before it can exist.
  if (llvm::Error E = registerTemporary(Final, std::string(Temp)))
    return E;
  Files.push_back({std::string(Temp), *T});
  return std::string(Temp);
}

llvm::Error OutputGroup::commit() {
  // Renames cannot be undone one by one; they are the last step and rarely fail once the
  // files are written beside their targets (same directory, checked writable). Outputs that
  // are not regular files are written last, after every file is in place.
  {
    OutputStep L(outputLock());
    for (const Entry &E : Files) {
      if (!E.Target.replaced())
        continue;
      keepModeOf(E.Temp, E.Target.Path);
      if (std::error_code EC = llvm::sys::fs::rename(E.Temp, E.Target.Path))
        return fileError(E.Target.Named, "cannot move output into place: " + EC.message());
      llvm::sys::DontRemoveFileOnSignal(E.Temp);
    }
  }
  for (const Entry &E : Files)
    if (!E.Target.replaced())
      if (llvm::Error X = copyInto(E.Temp, E.Target))
        return X; // the destructor removes the temporaries
  std::vector<Entry> Done = std::move(Files);
  Files.clear();
  OutputStep L(outputLock());
  for (const Entry &E : Done)
    if (!E.Target.replaced()) {
      llvm::sys::fs::remove(E.Temp);
      llvm::sys::DontRemoveFileOnSignal(E.Temp);
    }
  return llvm::Error::success();
}

// ---- directories ---------------------------------------------------------------------------

llvm::Expected<OutputDirectory> OutputDirectory::prepare(llvm::StringRef Dir) {
  // "kg/" as well as "kg" (the docs write both): the parent of "kg/" is not "kg".
  llvm::StringRef Name = Dir;
  while (Name.size() > 1 && llvm::sys::path::is_separator(Name.back()))
    Name = Name.drop_back();
  OutputDirectory D;
  D.Dir = Name.str();
  if (llvm::sys::fs::is_directory(Name))
    return D;
  if (!llvm::sys::fs::exists(Name) && llvm::sys::fs::is_symlink_file(Name))
    return fileError(Dir, "cannot use as output directory: it is a symbolic link to a directory "
                          "that does not exist (create it, or remove the link)");
  if (llvm::sys::fs::exists(Name))
    return fileError(Dir, "cannot use as output directory: it exists and is not a directory");
  llvm::StringRef Parent = llvm::sys::path::parent_path(Name);
  if (!Parent.empty() && !llvm::sys::fs::is_directory(Parent))
    return fileError(Dir, "cannot create output directory: " + Parent +
                              " does not exist (create it first)");
  OutputStep L(outputLock());
  // all_all: the process umask decides, as for mkdir(1) and for our output files.
  if (::mkdir(D.Dir.c_str(), 0777) != 0) {
    if (errno == EEXIST && llvm::sys::fs::is_directory(D.Dir))
      return D; // made by someone else meanwhile: theirs
    return fileError(Dir, "cannot create output directory: " + errnoMessage(errno));
  }
  D.Created = true;
  track(&Directories::Created, D.Dir);
  return D;
}

OutputDirectory::OutputDirectory(OutputDirectory &&O) noexcept
    : Dir(std::move(O.Dir)), Created(O.Created), Kept(O.Kept) {
  O.Created = false;
  O.Dir.clear();
}

OutputDirectory::~OutputDirectory() {
  if (!Created)
    return;
  OutputStep L(outputLock());
  untrack(&Directories::Created, Dir);
  if (!Kept)
    removeTree(Dir); // made by this run, which produced nothing: as if never started
}

std::string OutputDirectory::file(llvm::StringRef Name) const { return pathIn(Dir, Name); }

void OutputDirectory::keep() { Kept = true; }

std::string pathIn(llvm::StringRef Dir, llvm::StringRef Name) {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, Name);
  return std::string(P);
}

llvm::Error writeFilesTogether(OutputDirectory &Dir,
                               llvm::ArrayRef<std::pair<std::string, FileBody>> Files) {
  OutputGroup Group;
  for (const auto &[Name, Body] : Files) {
    llvm::Expected<std::string> Temp = Group.add(Dir.file(Name), Within::Directory);
    if (!Temp)
      return Temp.takeError();
    if (llvm::Error E = writeFileAtomically(*Temp, Body))
      return E;
  }
  if (llvm::Error E = Group.commit())
    return E;
  Dir.keep();
  return llvm::Error::success();
}

llvm::Expected<TempDir> TempDir::create(llvm::StringRef Prefix) {
  if (!llvm::is_contained(PrivateDirectoryKinds, Prefix))
    return makeError("internal error: " + Prefix + " is not a kind of private directory (the "
                     "list sweepStaleTemporaries recognises)");
  llvm::Expected<std::string> Path = privateDirectory(Prefix);
  if (!Path)
    return Path.takeError();
  TempDir D;
  D.Dir = std::move(*Path);
  D.LockFd = holdInUse(D.Dir);
  return D;
}

TempDir::~TempDir() {
  if (Dir.empty())
    return;
  OutputStep L(outputLock());
  if (LockFd >= 0)
    ::close(LockFd); // first: one more descriptor for the removal
  if (!removeTree(Dir)) {
    static std::once_flag AtExit;
    std::call_once(AtExit, [] { std::atexit(removeLeftoverTrees); });
    track(&Directories::Leftovers, Dir);
  }
  untrack(&Directories::Trees, Dir);
}

void removeLeftoverTrees() {
  std::vector<std::string> Left;
  {
    std::lock_guard<std::mutex> G(directories().M);
    Left.swap(directories().Leftovers);
  }
  for (const std::string &T : Left)
    removeTree(T);
}

bool removeTree(llvm::StringRef Path) {
  namespace fs = std::filesystem;
  std::error_code EC;
  fs::remove_all(fs::path(Path.str()), EC);
  if (!EC)
    return true;
  // A directory without write or search permission (a child made it so) keeps its entries:
  // open every directory up, then remove again.
  for (auto It = fs::recursive_directory_iterator(Path.str(), fs::directory_options::skip_permission_denied, EC);
       !EC && It != fs::recursive_directory_iterator(); It.increment(EC))
    if (It->is_directory(EC) && !It->is_symlink(EC))
      fs::permissions(It->path(), fs::perms::owner_all, fs::perm_options::add, EC);
  fs::permissions(fs::path(Path.str()), fs::perms::owner_all, fs::perm_options::add, EC);
  EC.clear();
  fs::remove_all(fs::path(Path.str()), EC);
  return !EC && !fs::exists(fs::path(Path.str()), EC);
}

// ---- hashes --------------------------------------------------------------------------------

std::string sha256Hex(llvm::StringRef Bytes) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(Bytes)), /*LowerCase=*/true);
}

llvm::Expected<std::string> sha256OfFile(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return fileError(Path, "cannot read: " + Buf.getError().message());
  return sha256Hex((*Buf)->getBuffer());
}

} // namespace wb::support
