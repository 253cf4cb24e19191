// Expansion of command-line inputs into the ordered list of modules to process.
//
//   FILE                      a .ll or .bc file (any name), or "-" for standard input
//   DIR                       a corpus, when DIR holds a corpus_description.json (made by
//                             `ir2vec corpus extract` or LLVM's extract_ir): read as that
//                             description, so its modules keep their recorded command lines;
//                             otherwise every *.bc and *.ll below DIR, recursively, in sorted
//                             path order:
//                             each real file once (a second path to it through a symlink is
//                             skipped), each directory once (a symlink loop is reported once and
//                             not followed), files that are not regular (a link to /dev/zero, a
//                             FIFO) reported and skipped
//   @LIST                     one input a line, as an argument gives it (a module, a directory,
//                             a corpus description; not another list); blank lines and lines
//                             starting with '#' are skipped; relative paths are relative to
//                             the current directory
//   corpus description        an ml-compiler-opt corpus: {"modules": ["a/b", ...]}; module
//                             "a/b" is the file a/b.bc next to the description (its command
//                             line, when recorded, a/b.cmd: corpus/Commands.h). Recognised
//                             by its content (a JSON object), whatever its name
//                             (corpus_description.json by convention)
// The order of the result is the order of the arguments, then the order within each.
#pragma once

#include "support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorOr.h"
#include "llvm/Support/MemoryBuffer.h"

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

/// Whether an input argument is a JSON input of one kind, whatever it is called: its file name
/// is Conventional, or it is a regular file whose first HeadBytes hold, after white space,
/// Opener ('{' an object, '[' an array). LLVM IR never starts so (text IR starts with a
/// comment, a directive or a definition; bitcode with its magic number), nor does an object
/// file: the first bytes decide.
bool isJSONInput(llvm::StringRef Path, llvm::StringRef Conventional, char Opener, size_t HeadBytes);

/// The deepest directory that holds every one of Dirs (each a directory path, all absolute or
/// all relative): "/" or "" when they share none.
std::string commonDirectory(const std::vector<std::string> &Dirs);

/// The corpus description an input argument stands for: the argument itself when it is one,
/// or DIR/corpus_description.json for a directory holding one.
std::optional<std::string> corpusDescriptionOf(llvm::StringRef Arg);

/// What a directory input gives: LLVM IR modules, or (machine-level runs) those and .mir files.
inline constexpr llvm::StringRef IRExtensions[] = {".bc", ".ll"};
inline constexpr llvm::StringRef MachineExtensions[] = {".bc", ".ll", ".mir"};

/// Report gets the warnings of directory walks (loops, files that are not regular). Names, when
/// given, gets each module's name in its corpus: as its corpus description writes it, or its
/// path relative to the directory walked; "" for modules named directly (files, @lists).
/// Directories give the files with one of Extensions.
llvm::Expected<std::vector<std::string>> expandInputs(const std::vector<std::string> &Args,
                                                      const DiagnosticHandler &Report = nullptr,
                                                      std::vector<std::string> *Names = nullptr,
                                                      llvm::ArrayRef<llvm::StringRef> Extensions = IRExtensions);
/// The same, reading standard input ("-") when Args is empty, as llvm-ir2vec does; an error
/// when the expansion lists no module.
llvm::Expected<std::vector<std::string>>
expandInputsOrStdin(const std::vector<std::string> &Args, const DiagnosticHandler &Report = nullptr,
                    llvm::ArrayRef<llvm::StringRef> Extensions = IRExtensions);

/// The files below Dir whose extension is one of Extensions (".bc"), sorted, walked as a
/// directory input is: each real file and directory once, loops and files that are not
/// regular reported to Report and skipped.
llvm::Expected<std::vector<std::string>> findFiles(llvm::StringRef Dir,
                                                   llvm::ArrayRef<llvm::StringRef> Extensions,
                                                   const DiagnosticHandler &Report);

/// How much readInput takes from an input that is not a regular file (a FIFO, a device such as
/// /dev/zero, a terminal, a pipe on standard input) before refusing it: its size cannot be
/// known, and reading it without a bound grows memory without one. Regular files have no limit.
inline constexpr uint64_t MaxStreamedInput = uint64_t(1) << 30;

/// The bytes of an input file ("-": standard input), as MemoryBuffer::getFileOrSTDIN gives
/// them, but a stream longer than MaxStreamedInput fails with errc::file_too_large and a
/// directory with errc::is_a_directory. Messages: readErrorMessage.
/// What identifies an input's content for resuming a run, cheaply: its device, inode, size
/// and modification time ("" for one that cannot be read, "-"). A module rewritten since the
/// interrupted run changes it (so does a touch: the run starts over, which is safe).
std::string fileStamp(llvm::StringRef Path);

llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> readInput(llvm::StringRef Path,
                                                              bool IsText = false);
/// What readInput's error means, for "FILE: cannot read ...: <this>".
std::string readErrorMessage(std::error_code EC);

} // namespace wb::support
