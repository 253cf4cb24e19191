// Messages a run gives while it goes on: warnings, errors about one input that do not stop the
// run (a bad module in a batch), and notes (one-line summaries). Libraries hand them to a
// DiagnosticHandler; the command line prints them through a Reporter.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"

#include <functional>
#include <string>

namespace wb::support {

struct Diagnostic {
  enum Severity {
    Warning,
    Error,   // one input failed; the run goes on
    Note,    // a line of information (e.g. where a run resumed)
    Summary, // the line that ends a run, for a terminal only (like the progress line)
  } Kind;
  std::string Message; // "path: what happened"
};

using DiagnosticHandler = std::function<void(const Diagnostic &)>;

/// Prints "TOOL: warning: ..." and "TOOL: error: ..." on standard error (coloured on a
/// terminal) and "TOOL: ..." for notes and summaries (summaries only on a terminal). Quiet
/// silences everything but errors. With Held (a rank of an MPI job other than rank 0, whose
/// messages rank 0 prints), nothing is printed: errors are appended to *Held, to be printed
/// only if this rank ends the job on its own.
class Reporter {
public:
  Reporter(std::string Tool, bool Quiet, std::string *Held = nullptr)
      : Tool(std::move(Tool)), Quiet(Quiet || Held), Held(Held) {}
  const std::string &tool() const { return Tool; }
  bool quiet() const { return Quiet; }
  void warning(const llvm::Twine &Message) const;
  /// A warning that says how a run ended (e.g. some inputs were skipped): never silenced.
  void endWarning(const llvm::Twine &Message) const;
  void error(const llvm::Twine &Message) const;
  void note(const llvm::Twine &Message) const;
  /// A note only on a terminal (e.g. the summary after a progress line).
  void terminalNote(const llvm::Twine &Message) const;
  void warnings(llvm::ArrayRef<std::string> Messages) const;
  void report(const Diagnostic &D) const;
  DiagnosticHandler handler() const;

private:
  std::string Tool;
  bool Quiet;
  std::string *Held;
};

} // namespace wb::support
