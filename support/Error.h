// Errors as values, in one family for the whole workbench: every message names the file and
// the place ("FILE: what", "FILE:LINE: what", "FILE: byte N: what"), and a few kinds of
// failure decide how a command ends (usage error, interruption, or a failure whose message
// has already been reported). Errors travel as llvm::Error / llvm::Expected to one boundary
// per command (tools/ir2vec/Command.h), which prints the message once and picks the exit
// status from the command's own table.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace wb::support {

/// A plain failure with a message (the form every error takes unless a kind says otherwise).
llvm::Error makeError(const llvm::Twine &Message);
/// "Path: What".
llvm::Error fileError(llvm::StringRef Path, const llvm::Twine &What);
/// "Path:Line: What" (Line 1-based), as compilers and editors expect.
llvm::Error lineError(llvm::StringRef Path, uint64_t Line, const llvm::Twine &What);
/// "Name: byte Offset: What", for binary streams and logs.
llvm::Error byteError(llvm::StringRef Name, uint64_t Offset, const llvm::Twine &What);
/// "Path: Message", unless Message already names Path first (an error made by fileError).
std::string aboutFile(llvm::StringRef Path, llvm::StringRef Message);
/// Text a parser's message quotes from its input (which may be anything: bitcode given by
/// mistake), safe to print: control bytes but line breaks and tabs, and non-ASCII bytes, replaced
/// by '?'. FirstLine: only the
/// first line (later lines of LLVM's messages quote the input).
std::string printableText(llvm::StringRef Text, bool FirstLine = false);
/// "Path: What: <E's message>", keeping E's kind.
llvm::Error prefixError(llvm::StringRef Path, llvm::Error E);

/// How a failed command ends. Commands map each kind to a status of their own table.
enum class FailureKind {
  Failed,      // the general failure: nothing usable came out
  Usage,       // the command line is wrong; nothing was started
  Interrupted, // SIGINT/SIGTERM/SIGHUP stopped the run; nothing is left under output names
  Reported,    // already reported (e.g. the one module of a batch): print nothing more
};

class CommandError : public llvm::ErrorInfo<CommandError> {
public:
  static char ID;
  CommandError(FailureKind Kind, std::string Message)
      : Kind(Kind), Message(std::move(Message)) {}
  FailureKind kind() const { return Kind; }
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

private:
  FailureKind Kind;
  std::string Message;
};

llvm::Error usageError(const llvm::Twine &Message);
llvm::Error interruptedError(const llvm::Twine &Message);
/// A failure whose cause has already been reported to the user.
llvm::Error reportedFailure();

/// The kind of E (Failed for any error that is not a CommandError); E stays as it is.
FailureKind failureKind(llvm::Error &E);
/// Whether E is an interruption; E stays as it is.
inline bool isInterruption(llvm::Error &E) { return failureKind(E) == FailureKind::Interrupted; }

/// The kind of E (Failed for any error that is not a CommandError) and its message ("" for
/// Reported). Consumes E.
std::pair<FailureKind, std::string> describeFailure(llvm::Error E);

/// How a command that did not fail ended.
struct Outcome {
  enum Kind {
    Complete, // everything was processed
    Partial,  // some inputs failed (each was reported); the output holds the others
    Status,   // end with this exact status (`mlgo run`: the compiler's)
  } K = Complete;
  int ExitStatus = 0;  // Status only
  std::string Warning; // Partial: one line saying what was skipped
  std::string Error;   // Status: what went wrong, if anything (printed as an error)

  static Outcome complete() { return {}; }
  static Outcome partial(std::string Warning) { return {Partial, 0, std::move(Warning), {}}; }
  static Outcome status(int S, std::string Error = "") { return {Status, S, {}, std::move(Error)}; }
};

/// A call that returns only an Error, as an outcome: complete, or the error.
inline llvm::Expected<Outcome> outcomeOf(llvm::Error E) {
  if (E)
    return E;
  return Outcome::complete();
}

} // namespace wb::support
