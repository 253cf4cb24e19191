#include "support/Diagnostics.h"

#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace wb::support {

void Reporter::warning(const llvm::Twine &Message) const {
  if (!Quiet)
    llvm::WithColor::warning(llvm::errs(), Tool) << Message << "\n";
}

void Reporter::endWarning(const llvm::Twine &Message) const {
  if (!Held)
    llvm::WithColor::warning(llvm::errs(), Tool) << Message << "\n";
}

void Reporter::error(const llvm::Twine &Message) const {
  if (Held)
    *Held += Tool + ": error: " + Message.str() + "\n";
  else
    llvm::WithColor::error(llvm::errs(), Tool) << Message << "\n";
}

void Reporter::note(const llvm::Twine &Message) const {
  if (!Quiet)
    llvm::errs() << Tool << ": " << Message << "\n";
}

void Reporter::terminalNote(const llvm::Twine &Message) const {
  if (!Held && llvm::sys::Process::StandardErrIsDisplayed())
    note(Message);
}

void Reporter::warnings(llvm::ArrayRef<std::string> Messages) const {
  for (const std::string &M : Messages)
    warning(M);
}

void Reporter::report(const Diagnostic &D) const {
  switch (D.Kind) {
  case Diagnostic::Warning:
    return warning(D.Message);
  case Diagnostic::Error:
    return error(D.Message);
  case Diagnostic::Note:
    return note(D.Message);
  case Diagnostic::Summary:
    return terminalNote(D.Message);
  }
}

DiagnosticHandler Reporter::handler() const {
  return [this](const Diagnostic &D) { report(D); };
}

} // namespace wb::support
