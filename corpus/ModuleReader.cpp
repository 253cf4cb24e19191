#include "corpus/ModuleReader.h"

#include "support/Error.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <mutex>

namespace wb::corpus {

using support::fileError;

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
    return support::makeError(llvm::StringRef(Msg).rtrim());
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

} // namespace wb::corpus
