#include "corpus/Commands.h"

#include "support/Error.h"
#include "support/Files.h"
#include "support/Inputs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

namespace wb::corpus {

llvm::Expected<std::vector<std::string>> parseCommand(llvm::StringRef Bytes,
                                                      llvm::StringRef Where) {
  llvm::SmallVector<llvm::StringRef> Parts;
  Bytes.split(Parts, '\0', -1, /*KeepEmpty=*/false);
  std::vector<std::string> Args(Parts.begin(), Parts.end());
  if (Args.empty() || Args.front() != "-cc1")
    return support::fileError(Where, "expected a clang -cc1 command line, NUL-separated, whose "
                                     "first argument is -cc1 (the .llvmcmd section of an object "
                                     "built with -Xclang -fembed-bitcode=all)");
  if (std::find(Args.begin(), Args.end(), "-emit-obj") == Args.end())
    return support::fileError(Where, "the recorded command does not emit an object (no "
                                     "-emit-obj): its .text cannot be measured");
  if (llvm::Error E = checkCommand(Args, Where))
    return E;
  return Args;
}

llvm::Expected<std::vector<std::string>> readCommandFile(llvm::StringRef Path) {
  auto Buf = support::readInput(Path, /*IsText=*/false);
  if (!Buf)
    return support::fileError(Path, "cannot read the recorded command: " +
                                        support::readErrorMessage(Buf.getError()));
  return parseCommand((*Buf)->getBuffer(), Path);
}

llvm::Error checkCommand(const std::vector<std::string> &Args, llvm::StringRef Where) {
  for (const std::string &A : Args) {
    if (A == "<UNSPECIFIED>")
      return support::fileError(Where, "global_command_override is extract_ir's placeholder "
                                       "<UNSPECIFIED>: write the command the modules are "
                                       "compiled with there");
    if (llvm::StringRef(A).starts_with("-fthinlto-index"))
      return support::fileError(Where, "a ThinLTO backend command (" + A +
                                           "): ThinLTO corpora are not supported");
  }
  return llvm::Error::success();
}

const std::vector<std::string> *RecordedCommands::find(const std::string &Module) const {
  auto It = ByModule.find(Module);
  return It == ByModule.end() ? nullptr : &It->second;
}

std::string RecordedCommands::digest() const {
  std::string Text;
  for (const auto &[M, Args] : ByModule) {
    Text += M;
    for (const std::string &A : Args)
      Text += '\0' + A;
    Text += '\n';
  }
  return support::sha256Hex(Text);
}

llvm::Expected<RecordedCommands> readRecordedCommands(const std::vector<std::string> &Args) {
  RecordedCommands R;
  for (const std::string &Arg : Args) {
    std::optional<std::string> Desc = support::corpusDescriptionOf(Arg);
    if (!Desc)
      continue;
    const std::string &A = *Desc;
    llvm::Expected<support::CorpusDescription> D = support::readCorpusDescription(A);
    if (!D)
      return D.takeError();
    if (D->HasThinLTO)
      return support::fileError(A, "a ThinLTO corpus (has_thinlto): its modules need their "
                                   "ThinLTO indices, which are not supported");
    if (D->GlobalCommandOverride) {
      if (llvm::Error E = checkCommand(*D->GlobalCommandOverride, A))
        return E;
      if (D->GlobalCommandOverride->empty())
        return support::fileError(A, "global_command_override is empty");
    }
    for (size_t I = 0; I < D->Modules.size(); ++I) {
      const std::string Stem = D->stem(I);
      if (D->GlobalCommandOverride) {
        R.ByModule[Stem + ".bc"] = *D->GlobalCommandOverride;
        continue;
      }
      if (!llvm::sys::fs::exists(Stem + ".cmd"))
        continue; // an IR-only module: compiled with the fixed pipeline
      llvm::Expected<std::vector<std::string>> Cmd = readCommandFile(Stem + ".cmd");
      if (!Cmd)
        return Cmd.takeError();
      R.ByModule[Stem + ".bc"] = std::move(*Cmd);
    }
  }
  return R;
}

} // namespace wb::corpus
