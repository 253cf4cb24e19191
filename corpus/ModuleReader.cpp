#include "corpus/ModuleReader.h"

#include "support/Error.h"
#include "support/Inputs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <mutex>
#include <optional>

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

// LLVM 22's verifier follows each location's inlinedAt chain and its scope's chain of
// lexical blocks up to the subprogram (DILocalScope::getSubprogram) without a bound: a module
// with a cycle in either makes it loop for ever (found by fuzz_ir; opt-22 hangs the same way).
// Both chains are checked first, every node at most once per module (a few nanoseconds per
// instruction with a location). Raw accessors: nothing here trusts the node kinds.
std::optional<std::string> cyclicDebugChain(const llvm::Module &M) {
  llvm::SmallPtrSet<const llvm::Metadata *, 32> Ends; // nodes whose chain is known to end
  auto Check = [&](const llvm::Metadata *N, auto Next) {
    llvm::SmallPtrSet<const llvm::Metadata *, 8> Path;
    for (; N && !Ends.count(N); N = Next(N))
      if (!Path.insert(N).second)
        return false;
    Ends.insert(Path.begin(), Path.end());
    return true;
  };
  auto OuterScope = [](const llvm::Metadata *N) -> const llvm::Metadata * {
    const auto *B = llvm::dyn_cast<llvm::DILexicalBlockBase>(N);
    return B ? B->getRawScope() : nullptr;
  };
  auto InlinedAt = [](const llvm::Metadata *N) -> const llvm::Metadata * {
    const auto *L = llvm::dyn_cast<llvm::DILocation>(N);
    return L ? L->getRawInlinedAt() : nullptr;
  };
  auto Location = [&](const llvm::DILocation *L) -> std::optional<std::string> {
    if (!Check(L, InlinedAt))
      return std::string("a debug location's inlinedAt chain is cyclic");
    for (const llvm::Metadata *N = L; N; N = InlinedAt(N))
      if (const auto *At = llvm::dyn_cast<llvm::DILocation>(N); At && !Check(At->getRawScope(), OuterScope))
        return std::string("a debug location's chain of lexical-block scopes is cyclic");
    return std::nullopt;
  };
  for (const llvm::Function &F : M)
    for (const llvm::Instruction &I : llvm::instructions(F)) {
      if (const llvm::DILocation *L = I.getDebugLoc().get())
        if (auto Why = Location(L))
          return Why;
      for (const llvm::DbgRecord &R : I.getDbgRecordRange())
        if (const llvm::DILocation *L = R.getDebugLoc().get())
          if (auto Why = Location(L))
            return Why;
    }
  return std::nullopt;
}

/// What an input that LLVM could not read as IR is, when it is something else a user hands us
/// by mistake (LLVM's text parser would report a parse error quoting raw bytes): a C or C++
/// source, an object file, an archive, another binary. With what to do instead.
std::optional<std::string> notIR(llvm::StringRef Path, llvm::StringRef Data) {
  const llvm::file_magic Magic = llvm::identify_magic(Data);
  if (Magic == llvm::file_magic::bitcode)
    return std::nullopt; // LLVM's own (invalid or truncated bitcode)
  if (Magic == llvm::file_magic::archive)
    return std::string("an archive (ar), not LLVM IR: extract its objects (ar x); if they were "
                       "built with -Xclang -fembed-bitcode=all, `ir2vec corpus extract -o DIR "
                       "OBJECTS` makes a corpus of their modules");
  if (Magic.is_object() || Magic == llvm::file_magic::elf_relocatable ||
      Magic == llvm::file_magic::elf_executable || Magic == llvm::file_magic::elf_shared_object) {
    bool Embedded = false;
    if (auto Obj = llvm::object::ObjectFile::createObjectFile(
            llvm::MemoryBufferRef(Data, Path), Magic)) {
      for (const llvm::object::SectionRef &S : (*Obj)->sections())
        if (auto Name = S.getName(); Name && (*Name == ".llvmbc" || *Name == "__bitcode"))
          Embedded = true;
    } else {
      llvm::consumeError(Obj.takeError());
    }
    const bool Linked = Magic == llvm::file_magic::elf_shared_object ||
                        Magic == llvm::file_magic::elf_executable ||
                        Magic == llvm::file_magic::macho_dynamically_linked_shared_lib ||
                        Magic == llvm::file_magic::macho_executable ||
                        Magic == llvm::file_magic::pecoff_executable;
    if (Embedded && Linked)
      return std::string("a linked file (a shared library or an executable) with embedded "
                         "bitcode, not LLVM IR: it holds the modules of the objects it was "
                         "linked from; `ir2vec corpus extract -o DIR OBJECTS` makes a corpus of "
                         "those objects");
    if (Embedded)
      return std::string("an object file with embedded bitcode, not LLVM IR: `ir2vec corpus "
                         "extract -o DIR ") +
             Path.str() + "` makes a corpus of its module (and its command line); then use DIR";
    return std::string("an object file without LLVM bitcode, not LLVM IR: compile the source to "
                       "IR (clang-22 -Oz -Xclang -disable-llvm-passes -emit-llvm -c SRC -o "
                       "M.bc), or build with -Xclang -fembed-bitcode=all and use `ir2vec corpus "
                       "extract`");
  }
  static constexpr llvm::StringLiteral SourceExtensions[] = {
      ".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".h", ".hh", ".hpp", ".hxx", ".m", ".mm", ".i", ".ii"};
  if (llvm::is_contained(SourceExtensions, llvm::sys::path::extension(Path)))
    return std::string("a C/C++ source file, not LLVM IR: compile it to IR first, as MLGO "
                       "corpora are (clang-22 -Oz -Xclang -disable-llvm-passes -emit-llvm -c ") +
           Path.str() + " -o M.bc; -S -o M.ll for text)";
  // Binary: a NUL byte, or bytes that are not UTF-8 (text IR is UTF-8), early on.
  llvm::StringRef Head = Data.take_front(4096);
  const auto *Begin = reinterpret_cast<const llvm::UTF8 *>(Head.data());
  const auto *End = Begin + Head.size();
  while (End > Begin && End - Begin > 4096 - 4 && (*(End - 1) & 0xC0) == 0x80)
    --End; // a character cut by the 4 KiB window is not an error
  if (Head.contains('\0') || !llvm::isLegalUTF8String(&Begin, End))
    return "a binary file that is neither LLVM bitcode nor text IR (it begins with " +
           llvm::toHex(Data.take_front(8), /*LowerCase=*/true) + ")";
  return std::nullopt;
}

} // namespace

llvm::Expected<ModuleInput> readModule(llvm::StringRef Path, llvm::LLVMContext &Ctx) {
  disableReaderDebugInfoUpgrade();
  auto Buf = support::readInput(Path);
  if (!Buf)
    return fileError(Path, "cannot read input: " + support::readErrorMessage(Buf.getError()));
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
    if (std::optional<std::string> What = notIR(Path, Data))
      return fileError(Path, *What);
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
  // The order of llvm::UpgradeDebugInfo: debug info of another version is dropped unverified;
  // debug info of this version is verified with the rest and dropped (with a warning) when
  // only it is broken.
  const unsigned Version = llvm::getDebugMetadataVersionFromModule(*M);
  if (Version != llvm::DEBUG_METADATA_VERSION && llvm::StripDebugInfo(*M))
    In.Warnings.push_back(llvm::formatv("{0}: ignoring debug info with version {1} (expected "
                                        "{2})",
                                        Path, Version, llvm::DEBUG_METADATA_VERSION));
  else if (std::optional<std::string> Cycle = cyclicDebugChain(*M))
    return fileError(Path, "invalid module: " + *Cycle + " (LLVM's verifier would loop for ever)");
  std::string VerifierMsg;
  llvm::raw_string_ostream VOS(VerifierMsg);
  bool BrokenDebugInfo = false;
  if (llvm::verifyModule(*M, &VOS, &BrokenDebugInfo))
    return fileError(Path, "invalid module (LLVM verifier): " + firstLines(VerifierMsg, 8));
  if (BrokenDebugInfo && llvm::StripDebugInfo(*M))
    In.Warnings.push_back(
        (Path + ": ignoring invalid debug info: " + firstLines(VerifierMsg, 4)).str());
  In.M = std::move(M);
  return In;
}

} // namespace wb::corpus
