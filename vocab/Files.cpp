#include "vocab/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"

#include <unistd.h>

namespace wb::vocab {

llvm::Expected<std::string> sha256OfFile(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return fileError(Path, "cannot read: " + Buf.getError().message());
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef((*Buf)->getBuffer())),
                     /*LowerCase=*/true);
}

llvm::Error fileError(llvm::StringRef Path, const llvm::Twine &What) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), (Path + ": " + What).str());
}

llvm::Error writeFileAtomically(llvm::StringRef Path,
                                const std::function<void(llvm::raw_ostream &)> &Body) {
  auto Out = AtomicOutput::create(Path);
  if (!Out)
    return Out.takeError();
  Body(Out->os());
  return Out->commit();
}

llvm::Expected<AtomicOutput> AtomicOutput::create(llvm::StringRef Path) {
  AtomicOutput Out;
  Out.Path = Path.str();
  if (Path == "-") {
    Out.OS = &llvm::outs();
    return Out;
  }
  // The temporary file sits next to the target so that the final rename is atomic.
  auto Temp = llvm::sys::fs::TempFile::create(Path + ".tmp-%%%%%%%%");
  if (!Temp)
    return fileError(Path, "cannot create output file: " + llvm::toString(Temp.takeError()));
  Out.Temp.emplace(std::move(*Temp));
  Out.FileOS = std::make_unique<llvm::raw_fd_ostream>(Out.Temp->FD, /*shouldClose=*/false);
  Out.OS = Out.FileOS.get();
  return Out;
}

AtomicOutput::AtomicOutput(AtomicOutput &&Other) noexcept
    : Path(std::move(Other.Path)), Temp(std::move(Other.Temp)),
      FileOS(std::move(Other.FileOS)), OS(Other.OS) {
  Other.Temp.reset();
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
  if (Temp)
    llvm::consumeError(Temp->discard());
}

llvm::Error AtomicOutput::commit() {
  OS->flush();
  if (OS->has_error()) {
    std::string Msg = OS->error().message();
    OS->clear_error();
    return fileError(Path, "write error: " + Msg);
  }
  if (!Temp)
    return llvm::Error::success();
  FileOS.reset();
  llvm::sys::fs::TempFile T = std::move(*Temp);
  Temp.reset();
  if (llvm::Error E = T.keep(Path))
    return fileError(Path, "cannot move output into place: " + llvm::toString(std::move(E)));
  return llvm::Error::success();
}

llvm::Expected<TempDir> TempDir::create(llvm::StringRef Prefix) {
  llvm::SmallString<128> Path;
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory(Prefix, Path))
    return llvm::createStringError(EC, "cannot create a temporary directory: " + EC.message());
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

} // namespace wb::vocab
