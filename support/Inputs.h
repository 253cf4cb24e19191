// Expansion of command-line inputs into the ordered list of modules to process.
//
//   FILE                      a .ll or .bc file (any name), or "-" for standard input
//   DIR                       every *.bc and *.ll below DIR, recursively, in sorted path order
//   @LIST                     one path per line (blank lines and lines starting with '#' are
//                             skipped); relative paths are relative to the current directory
//   corpus description        an ml-compiler-opt corpus: {"modules": ["a/b", ...]}; module
//                             "a/b" is the file a/b.bc next to the description (its command
//                             line, when recorded, a/b.cmd: corpus/Commands.h). Recognised
//                             by its content (a JSON object), whatever its name
//                             (corpus_description.json by convention)
// The order of the result is the order of the arguments, then the order within each.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace wb::support {

/// An ml-compiler-opt corpus description (written by LLVM's extract_ir and `ir2vec corpus
/// extract`): {"has_thinlto": bool, "modules": [names], "global_command_override": [args]}.
struct CorpusDescription {
  std::string Path;                 // the description file
  std::vector<std::string> Modules; // the module names, as written
  std::optional<std::vector<std::string>> GlobalCommandOverride;
  bool HasThinLTO = false;

  /// Module I's file without extension (its .bc and .cmd are this plus the extension).
  std::string stem(size_t I) const;
};
llvm::Expected<CorpusDescription> readCorpusDescription(llvm::StringRef Path);
/// Whether an input argument names a corpus description (by name or by content).
bool isCorpusDescription(llvm::StringRef Path);

llvm::Expected<std::vector<std::string>> expandInputs(const std::vector<std::string> &Args);
/// The same, reading standard input ("-") when Args is empty, as llvm-ir2vec does; an error
/// when the expansion lists no module.
llvm::Expected<std::vector<std::string>>
expandInputsOrStdin(const std::vector<std::string> &Args);

} // namespace wb::support
