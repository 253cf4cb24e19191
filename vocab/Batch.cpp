#include "vocab/Batch.h"

namespace wb::vocab {

size_t defaultWindow(unsigned Jobs) { return 4 * static_cast<size_t>(std::max(1u, Jobs)) + 4; }

bool reportModule(const BatchIO &IO, Progress &P, std::vector<std::string> &Warnings,
                  const std::string &Error) {
  if (!Warnings.empty() || !Error.empty())
    P.clear();
  for (std::string &W : Warnings)
    IO.Report({false, std::move(W)});
  if (Error.empty())
    return false;
  IO.Report({true, Error});
  return true;
}

llvm::Expected<BatchSummary>
runTextBatch(const std::vector<std::string> &Inputs, llvm::raw_ostream &OS, const BatchIO &IO,
             const std::function<ModuleText(const std::string &Path, llvm::LLVMContext &)> &Work) {
  BatchSummary S;
  Progress P("modules", Inputs.size(), IO.ShowProgress);
  const bool Headers = Inputs.size() > 1;
  OrderedPipeline<ModuleText> Pipe(IO.Jobs, defaultWindow(IO.Jobs), IO.Policy);
  llvm::Error E = Pipe.run(
      0, Inputs.size(),
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

} // namespace wb::vocab
