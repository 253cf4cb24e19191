// The command lines a corpus recorded for its modules, in ml-compiler-opt's layout: next to
// module a/b.bc, a/b.cmd holds the clang -cc1 arguments the module was compiled with,
// separated by NUL bytes (the .llvmcmd section of an object built with
// -Xclang -fembed-bitcode=all, as LLVM's extract_ir and `ir2vec corpus extract` write it). A
// corpus description's "global_command_override" replaces every module's recorded command,
// as ml-compiler-opt's corpus loader does. Recompiling a module is then
//   clang-22 ARGS... -x ir a/b.bc -o OUT.o
// which gives the object the build made (tests/corpus_extract_test.py checks .text).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace wb::corpus {

/// Parses a recorded command: NUL-separated arguments, empty ones dropped; the first must be
/// -cc1 (the only form clang records), and the command must emit an object (-emit-obj).
/// Where names the bytes' origin in errors.
llvm::Expected<std::vector<std::string>> parseCommand(llvm::StringRef Bytes,
                                                      llvm::StringRef Where);
/// parseCommand of a .cmd file.
llvm::Expected<std::vector<std::string>> readCommandFile(llvm::StringRef Path);

/// Checks a recorded or overriding command before it is used: ThinLTO index arguments are
/// refused (their index files are not part of the corpus here), as is extract_ir's
/// placeholder "<UNSPECIFIED>". Where names the file the command came from.
llvm::Error checkCommand(const std::vector<std::string> &Args, llvm::StringRef Where);

struct RecordedCommands {
  /// Module .bc path (as the inputs expand it) -> the arguments after the compiler's name.
  std::map<std::string, std::vector<std::string>> ByModule;

  const std::vector<std::string> *find(const std::string &Module) const;
  bool empty() const { return ByModule.empty(); }
  /// SHA-256 over every module and its arguments (fingerprints of resumable runs).
  std::string digest() const;
};

/// The recorded commands of every corpus description among the input arguments (other
/// inputs record none). A description with has_thinlto, a .cmd that cannot be read, or a bad
/// override is an error naming the file.
llvm::Expected<RecordedCommands> readRecordedCommands(const std::vector<std::string> &Args);

} // namespace wb::corpus
