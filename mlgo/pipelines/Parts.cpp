#include "mlgo/pipelines/Parts.h"

#include "support/JSON.h"
#include "support/Error.h"
#include "support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

namespace wb::mlgo {

llvm::Expected<PartsDir> PartsDir::open(const std::string &Output, const std::string &Fingerprint,
                                        bool Resume, const support::DiagnosticHandler &Report) {
  llvm::Expected<support::OutputState> State = support::OutputState::acquire(Output);
  if (!State)
    return State.takeError();
  if (Resume && !State->resumable())
    return support::usageError(Output + ": --resume needs an output that is a regular file (a "
                                        "device or FIFO keeps no parts)");
  PartsDir P(std::move(*State));
  P.Dir = P.State.file(".parts");
  const std::string PrintFile = support::pathIn(P.Dir, "fingerprint");
  if (llvm::sys::fs::exists(P.Dir)) {
    auto Old = llvm::MemoryBuffer::getFile(PrintFile);
    P.Reuse = Resume && Old && (*Old)->getBuffer().trim() == Fingerprint;
    if (!P.Reuse)
      Report({support::Diagnostic::Warning,
              Resume ? P.Dir + ": the interrupted run used other options or inputs; starting over"
                     : P.Dir + ": discarding an interrupted run (use --resume to continue it)"});
  }
  if (!P.Reuse) {
    P.remove();
    // State, not output: it survives failures and interrupts for --resume.
    if (std::error_code EC = llvm::sys::fs::create_directory(P.Dir, /*IgnoreExisting=*/false))
      return support::fileError(P.Dir, "cannot create the directory of finished modules: " +
                                           EC.message());
    if (llvm::Error E = support::writeFileAtomically(
            PrintFile, [&](llvm::raw_ostream &OS) { OS << Fingerprint << "\n"; }))
      return E;
  }
  return P;
}

std::string PartsDir::file(size_t I, llvm::StringRef Suffix) const {
  return support::pathIn(Dir, llvm::formatv("{0:6}", I).str() + Suffix.str());
}

llvm::Error PartsDir::writeRecord(size_t I, llvm::json::Object Record) const {
  return support::writeFileAtomically(file(I, ".json"), [&](llvm::raw_ostream &OS) {
    OS << llvm::json::Value(std::move(Record)) << "\n";
  });
}

std::optional<llvm::json::Object> PartsDir::readRecord(size_t I, llvm::StringRef Path) const {
  if (!Reuse)
    return std::nullopt;
  auto Buf = llvm::MemoryBuffer::getFile(file(I, ".json"));
  if (!Buf)
    return std::nullopt;
  auto J = support::parseJSON((*Buf)->getBuffer());
  if (!J) {
    llvm::consumeError(J.takeError());
    return std::nullopt; // unreadable: the module is done again
  }
  llvm::json::Object *O = J->getAsObject();
  if (!O || O->getString("path") != Path)
    return std::nullopt;
  // A module that failed is done again: the cause may have been the machine's (descriptors,
  // memory, disk space), not the module's.
  if (!O->getString("error").value_or("").empty())
    return std::nullopt;
  // A module rewritten since is done again.
  llvm::Expected<std::string> Now = support::sha256OfFile(Path);
  if (!Now) {
    llvm::consumeError(Now.takeError());
    return std::nullopt;
  }
  if (O->getString("sha256") != *Now)
    return std::nullopt;
  return std::move(*O);
}

void PartsDir::remove() const { support::removeTree(Dir); }

} // namespace wb::mlgo
