#include "support/Files.h"

#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/Signals.h"

#include <mutex>
#include <shared_mutex>
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

} // namespace

void abandonPendingOutputs() {
  outputLock().lock();
  // Removes the files registered with llvm::sys::RemoveFileOnSignal: every temporary below.
  llvm::sys::RunInterruptHandlers();
}

// ---- PendingFile ---------------------------------------------------------------------------

llvm::Error checkOutputPath(llvm::StringRef Path) {
  if (Path == "-")
    return llvm::Error::success();
  if (llvm::sys::fs::is_directory(Path))
    return fileError(Path, "cannot write the output: it is a directory");
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Path));
  if (Dir.empty())
    Dir = ".";
  if (!llvm::sys::fs::is_directory(Dir))
    return fileError(Path, "cannot write the output: " + Dir + " is not a directory");
  // The directory must take new entries (the temporary file), whatever the file's own mode.
  if (::access(Dir.c_str(), W_OK | X_OK) != 0)
    return fileError(Path, "cannot write the output: " + Dir + ": " +
                               std::error_code(errno, std::generic_category()).message());
  return llvm::Error::success();
}

llvm::Expected<PendingFile> PendingFile::create(llvm::StringRef Final) {
  if (llvm::Error E = checkOutputPath(Final))
    return E;
  // TempFile creates the file, then registers it for removal on signals: one step for an
  // interrupt. (Only this: the lock is not recursive, and ~PendingFile takes it too.)
  auto T = [&] {
    OutputStep L(outputLock());
    return llvm::sys::fs::TempFile::create(Final + ".tmp-%%%%%%%%");
  }();
  if (!T)
    return fileError(Final, "cannot create output file: " + llvm::toString(T.takeError()));
  PendingFile P;
  P.Final = Final.str();
  P.Temp = T->TmpName;
  P.File.emplace(std::move(*T));
  return P;
}

PendingFile PendingFile::resumable(llvm::StringRef Final) {
  PendingFile P;
  P.Final = Final.str();
  P.Temp = (Final + ".partial").str();
  return P;
}

PendingFile::PendingFile(PendingFile &&O) noexcept
    : Final(std::move(O.Final)), Temp(std::move(O.Temp)), File(std::move(O.File)) {
  O.Temp.clear();
  O.File.reset();
}

PendingFile::~PendingFile() {
  OutputStep L(outputLock());
  if (File)
    llvm::consumeError(File->discard());
}

int PendingFile::fd() const { return File ? File->FD : -1; }

void PendingFile::discard() {
  OutputStep L(outputLock());
  if (File) {
    llvm::consumeError(File->discard());
    File.reset();
  } else if (!Temp.empty()) {
    llvm::sys::fs::remove(Temp);
  }
  Temp.clear();
}

llvm::Error PendingFile::commit() {
  OutputStep L(outputLock());
  llvm::Error E = llvm::Error::success();
  if (File) {
    E = File->keep(Final);
    File.reset();
  } else if (std::error_code EC = llvm::sys::fs::rename(Temp, Final)) {
    E = llvm::errorCodeToError(EC);
  }
  if (E) {
    // Nothing is left behind: neither under the requested name nor next to it.
    llvm::sys::fs::remove(Temp);
    Temp.clear();
    return fileError(Final, "cannot move output into place: " + llvm::toString(std::move(E)));
  }
  Temp.clear();
  return llvm::Error::success();
}

// ---- AtomicOutput --------------------------------------------------------------------------

llvm::Expected<AtomicOutput> AtomicOutput::create(llvm::StringRef Path) {
  AtomicOutput Out;
  Out.Path = Path.str();
  if (Path == "-") {
    Out.OS = &llvm::outs();
    return Out;
  }
  auto F = PendingFile::create(Path);
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
    std::string Msg = OS->error().message();
    OS->clear_error();
    return fileError(Path, "write error: " + Msg);
  }
  if (!File)
    return llvm::Error::success();
  FileOS.reset();
  llvm::Error E = File->commit();
  File.reset();
  return E;
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

llvm::Error writeFileAtomically(llvm::StringRef Path,
                                const std::function<void(llvm::raw_ostream &)> &Body) {
  auto Out = AtomicOutput::create(Path);
  if (!Out)
    return Out.takeError();
  Body(Out->os());
  return Out->commit();
}

OutputGroup::~OutputGroup() {
  OutputStep L(outputLock());
  for (const auto &[Temp, Final] : Files) {
    llvm::sys::fs::remove(Temp);
    llvm::sys::DontRemoveFileOnSignal(Temp);
  }
}

llvm::Expected<std::string> OutputGroup::add(llvm::StringRef Final) {
  if (llvm::Error E = checkOutputPath(Final))
    return E;
  llvm::SmallString<256> Temp;
  OutputStep L(outputLock());
  // Registered for removal on signals before it can exist.
  llvm::sys::fs::createUniquePath(Final + ".tmp-%%%%%%%%" + llvm::sys::path::extension(Final),
                                  Temp, /*MakeAbsolute=*/false);
  std::string Msg;
  if (llvm::sys::RemoveFileOnSignal(Temp, &Msg))
    return fileError(Final, "cannot register the temporary output: " + Msg);
  Files.emplace_back(std::string(Temp), Final.str());
  return std::string(Temp);
}

llvm::Error OutputGroup::commit() {
  // Renames cannot be undone one by one; they are the last step and rarely fail once the
  // files are written beside their targets (same directory, checked writable).
  OutputStep L(outputLock());
  for (const auto &[Temp, Final] : Files) {
    if (std::error_code EC = llvm::sys::fs::rename(Temp, Final))
      return fileError(Final, "cannot move output into place: " + EC.message());
    llvm::sys::DontRemoveFileOnSignal(Temp);
  }
  Files.clear();
  return llvm::Error::success();
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

// ---- directories ---------------------------------------------------------------------------

llvm::Error prepareOutputDirectory(llvm::StringRef Dir) {
  if (llvm::sys::fs::is_directory(Dir))
    return llvm::Error::success();
  if (llvm::sys::fs::exists(Dir))
    return fileError(Dir, "cannot use as output directory: it exists and is not a directory");
  llvm::StringRef Parent = llvm::sys::path::parent_path(Dir);
  if (!Parent.empty() && !llvm::sys::fs::is_directory(Parent))
    return fileError(Dir, "cannot create output directory: " + Parent +
                              " does not exist (create it first)");
  // all_all: the process umask decides, as for mkdir(1) and for our output files.
  if (std::error_code EC =
          llvm::sys::fs::create_directory(Dir, /*IgnoreExisting=*/true, llvm::sys::fs::all_all))
    return fileError(Dir, "cannot create output directory: " + EC.message());
  return llvm::Error::success();
}

std::string pathIn(llvm::StringRef Dir, llvm::StringRef Name) {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, Name);
  return std::string(P);
}

llvm::Expected<TempDir> TempDir::create(llvm::StringRef Prefix) {
  llvm::SmallString<128> Path;
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory(Prefix, Path))
    return makeError("cannot create a temporary directory: " + EC.message());
  TempDir D;
  D.Dir = Path.str().str();
  return D;
}

TempDir::~TempDir() {
  if (Dir.empty())
    return;
  // ::unlink, because llvm::sys::fs::remove refuses FIFOs.
  std::error_code EC;
  std::vector<std::string> Entries;
  for (llvm::sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC; I.increment(EC))
    Entries.push_back(I->path());
  for (const std::string &P : Entries)
    ::unlink(P.c_str());
  ::rmdir(Dir.c_str());
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
