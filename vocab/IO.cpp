#include "vocab/IO.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <mutex>

namespace wb::vocab {
namespace {

// LLVM has no per-call switch for its readers' debug-info upgrade, only this process-wide
// option. Setting it once is safe: the only effect is that *we* run the verifier and the
// upgrade (see readModule), so results for valid modules are unchanged.
void disableReaderDebugInfoUpgrade() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    auto &Opts = llvm::cl::getRegisteredOptions();
    auto It = Opts.find("disable-auto-upgrade-debug-info");
    if (It != Opts.end())
      static_cast<llvm::cl::opt<bool> *>(It->second)->setValue(true);
  });
}

std::string firstLines(llvm::StringRef Text, unsigned N) {
  std::string Out;
  for (unsigned I = 0; I < N && !Text.empty(); ++I) {
    auto [Line, Rest] = Text.split('\n');
    if (!Out.empty())
      Out += '\n';
    Out += Line.str();
    Text = Rest;
  }
  if (!Text.trim().empty())
    Out += "\n...";
  return Out;
}

} // namespace

llvm::Expected<ModuleInput> readModule(llvm::StringRef Path, llvm::LLVMContext &Ctx) {
  disableReaderDebugInfoUpgrade();
  auto Buf = llvm::MemoryBuffer::getFileOrSTDIN(Path);
  if (!Buf)
    return fileError(Path, "cannot read input: " + Buf.getError().message());
  llvm::SMDiagnostic Diag;
  const llvm::StringRef Data = (*Buf)->getBuffer();
  const bool Bitcode = llvm::isBitcode(Data.bytes_begin(), Data.bytes_end());
  // Discarding local value names only speeds up bitcode; the text parser needs the names to
  // resolve references, so lift it while parsing text.
  const bool Discard = Ctx.shouldDiscardValueNames();
  if (!Bitcode)
    Ctx.setDiscardValueNames(false);
  std::unique_ptr<llvm::Module> M = llvm::parseIR((*Buf)->getMemBufferRef(), Diag, Ctx);
  Ctx.setDiscardValueNames(Discard);
  if (!M) {
    // Bitcode errors carry no location and LLVM's reasons are terse ("can't skip to bit
    // 38944 from 320"): say what the file is. Text errors come as file:line:col + caret.
    if (Bitcode)
      return fileError(Path, "invalid bitcode (corrupt or truncated): " + Diag.getMessage());
    std::string Msg;
    llvm::raw_string_ostream OS(Msg);
    Diag.print(nullptr, OS, /*ShowColors=*/false, /*ShowKindLabel=*/false);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::StringRef(Msg).rtrim().str());
  }

  ModuleInput In;
  std::string VerifierMsg;
  llvm::raw_string_ostream VOS(VerifierMsg);
  bool BrokenDebugInfo = false;
  if (llvm::verifyModule(*M, &VOS, &BrokenDebugInfo))
    return fileError(Path, "invalid module (LLVM verifier): " + firstLines(VerifierMsg, 8));
  // The rest of llvm::UpgradeDebugInfo, now that the module is known to be valid.
  const unsigned Version = llvm::getDebugMetadataVersionFromModule(*M);
  if (Version != llvm::DEBUG_METADATA_VERSION || BrokenDebugInfo) {
    const bool Stripped = llvm::StripDebugInfo(*M);
    if (Version == llvm::DEBUG_METADATA_VERSION)
      In.Warnings.push_back((Path + ": ignoring invalid debug info: " +
                             firstLines(VerifierMsg, 4))
                                .str());
    else if (Stripped)
      In.Warnings.push_back(llvm::formatv("{0}: ignoring debug info with version {1} (expected "
                                          "{2})",
                                          Path, Version, llvm::DEBUG_METADATA_VERSION));
  }
  In.M = std::move(M);
  return In;
}

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

} // namespace wb::vocab
