#include "corpus/Batch.h"

namespace wb::corpus {

llvm::LLVMContext &ContextSource::next() {
  if (!Ctx || Uses >= Policy.ReuseContext) {
    Ctx.reset(); // free the old context before building the next one
    Ctx = std::make_unique<llvm::LLVMContext>();
    Ctx->setDiscardValueNames(Policy.DiscardValueNames);
    Uses = 0;
  }
  ++Uses;
  return *Ctx;
}

llvm::Expected<support::Outcome> outcomeOf(const BatchSummary &S) {
  if (S.Modules == 0)
    return support::makeError("no input modules");
  if (S.Failed == S.Modules)
    return S.Modules == 1 ? support::reportedFailure()
                          : support::makeError("none of the " + llvm::Twine(S.Modules) +
                                               " inputs could be processed");
  if (S.Failed)
    return support::Outcome::partial((llvm::Twine(S.Failed) + " of " + llvm::Twine(S.Modules) +
                                      " modules failed and were skipped")
                                         .str());
  return support::Outcome::complete();
}

size_t defaultWindow(unsigned Jobs) { return 4 * static_cast<size_t>(std::max(1u, Jobs)) + 4; }

bool reportModule(const BatchIO &IO, support::Progress &P, std::vector<std::string> &Warnings,
                  const std::string &Error) {
  if (!Warnings.empty() || !Error.empty())
    P.clear();
  for (std::string &W : Warnings)
    IO.Report({support::Diagnostic::Warning, std::move(W)});
  if (Error.empty())
    return false;
  IO.Report({support::Diagnostic::Error, Error});
  return true;
}

llvm::Expected<BatchSummary>
runTextBatch(const std::vector<std::string> &Inputs, llvm::raw_ostream &OS, const BatchIO &IO,
             ContextPolicy Policy,
             const std::function<ModuleText(const std::string &Path, llvm::LLVMContext &)> &Work) {
  BatchSummary S;
  support::Progress P("modules", Inputs.size(), IO.ShowProgress);
  const bool Headers = Inputs.size() > 1;
  llvm::Error E = runModules<ModuleText>(
      IO, Policy, 0, Inputs.size(),
      [&](size_t I, llvm::LLVMContext &Ctx) { return Work(Inputs[I], Ctx); },
      [&](size_t I, ModuleText &&R) {
        ++S.Modules;
        if (reportModule(IO, P, R.Warnings, R.Error)) {
          ++S.Failed;
        } else {
          if (Headers)
            OS << "Module: " << Inputs[I] << "\n";
          OS << R.Text;
        }
        P.update(S.Modules);
        return llvm::Error::success();
      });
  if (E)
    return E;
  return S;
}

} // namespace wb::corpus
