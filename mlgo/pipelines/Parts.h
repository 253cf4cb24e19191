// Resumable corpus runs (mlgo explore, mlgo collect): each finished module's result waits in
// OUT.parts/ until the output file is written, so that an interrupted run continues with
// --resume instead of compiling everything again. The directory holds a fingerprint of
// everything that decides the results (tool version, settings with the embeddings' digests,
// toolchain, the inputs' list); parts of a run with another fingerprint are never mixed in:
// that run starts over. Each part records the SHA-256 of its module's bytes: a module
// rewritten since is done again, the others are kept.
#pragma once

#include "support/Diagnostics.h"
#include "support/Files.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace wb::mlgo {

class PartsDir {
public:
  /// Takes the output's state (support::OutputState: a second run on the same output is
  /// refused) and prepares Output + ".parts": kept when Resume and its fingerprint equals
  /// Fingerprint, otherwise emptied (a warning says why when there was one).
  static llvm::Expected<PartsDir> open(const std::string &Output, const std::string &Fingerprint,
                                       bool Resume, const support::DiagnosticHandler &Report);

  /// Whether parts of an earlier run may be read.
  bool reusing() const { return Reuse; }
  const std::string &path() const { return Dir; }
  /// The file of module I with this suffix (".json", ".0.log", ...).
  std::string file(size_t I, llvm::StringRef Suffix) const;
  /// Writes module I's record (I.json), with the module's SHA-256 as it was compiled ("sha256").
  /// Written after the module's other files: its presence says the part is complete.
  llvm::Error writeRecord(size_t I, llvm::json::Object Record) const;
  /// Module I's record when reusing and it is complete, was made for Path (its "path") as
  /// Path's bytes are now (its "sha256") and did not fail (its "error": a failure is tried
  /// again, for its cause may have been the machine's).
  std::optional<llvm::json::Object> readRecord(size_t I, llvm::StringRef Path) const;
  /// Removes the directory (after the output is written).
  void remove() const;

private:
  explicit PartsDir(support::OutputState S) : State(std::move(S)) {}
  support::OutputState State;
  std::string Dir;
  bool Reuse = false;
};

} // namespace wb::mlgo
