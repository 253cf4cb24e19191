// `ir2vec corpus extract`: a corpus from a real build, the job LLVM's Python extract_ir does.
// Objects built with `-Xclang -fembed-bitcode=all` carry the module before optimisation
// (section .llvmbc; __LLVM,__bitcode on Mach-O) and the clang -cc1 command line that built it
// (.llvmcmd; __LLVM,__cmdline). Both are read with LLVM's Object library and written in
// ml-compiler-opt's layout: OUT/<name>.bc, OUT/<name>.cmd and OUT/corpus_description.json
// ({"has_thinlto": false, "modules": [names]}), where <name> is the object's path relative
// to its base directory (extract_ir's naming: build/a/b.o gives a/b.o.bc and a/b.o.cmd).
//
// Inputs: object files, directories (every *.o below, sorted), @lists, and compilation
// databases (compile_commands.json, recognised by name or by content: each entry's object is
// its "output", or the argument after -o, relative to its "directory").
#pragma once

#include "support/Diagnostics.h"
#include "support/RunSettings.h"
#include "support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace wb::corpus {

struct ExtractConfig {
  std::string OutputDir;
  /// Object names are relative to this directory (default: a directory input itself, a
  /// compilation database entry's "directory", the current directory for other files).
  std::string ObjBaseDir;
  /// Keep only modules with a recorded argument matching this regular expression (POSIX
  /// extended, as extract_ir's --cmd_filter).
  std::optional<std::string> CmdFilter;
  support::RunSettings Run;
};

/// One object to extract: where it is, and the module name it gets in the corpus.
struct ObjectInput {
  std::string Path, Name;
};

/// The objects the arguments name, with their module names; names that would leave the
/// output directory (absolute, "..") or that repeat are errors naming the input. Names are
/// relative to C.ObjBaseDir when given; notes go to C.Report.
llvm::Expected<std::vector<ObjectInput>> expandObjectInputs(const std::vector<std::string> &Args,
                                                            const ExtractConfig &C);

/// The whole command: modules extracted in input order; objects without embedded bitcode
/// are reported and skipped (partial outcome); the description is written last.
llvm::Expected<support::Outcome> runExtraction(const std::vector<std::string> &Args,
                                               const ExtractConfig &C);

} // namespace wb::corpus
