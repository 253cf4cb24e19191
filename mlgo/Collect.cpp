#include "mlgo/Collect.h"

#include "corpus/OrderedPipeline.h"
#include "features/Augment.h"
#include "support/Files.h"
#include "support/Process.h"
#include "support/Progress.h"

#include "llvm/Support/FormatVariadic.h"

namespace wb::mlgo {

using namespace runners;
using support::makeError;

namespace {

struct ModuleResult {
  features::DatasetModule Info;
  features::Log Log;
  bool Cancelled = false;
};

ModuleResult collectOne(const std::string &Path, const CollectConfig &C) {
  ModuleResult R;
  R.Info.Path = Path;
  auto Fail = [&](llvm::Error E) {
    R.Info.Error = llvm::toString(std::move(E));
    R.Cancelled = support::cancelled(C.Tools.CancelFd);
    return std::move(R);
  };
  llvm::Expected<support::TempDir> D = support::TempDir::create("ir2vec-collect");
  if (!D)
    return Fail(D.takeError());
  llvm::Expected<Compiled> Base = compileModule(Path, C.Tools, nullptr, *D, "baseline");
  if (!Base)
    return Fail(Base.takeError());
  SessionConfig S;
  S.T = C.T;
  S.Policy = C.Policy;
  S.Bind = C.Bind;
  if (C.Embeddings)
    S.Augment = features::embeddingAugmenter(C.T, *C.Embeddings, Path, {});
  llvm::Expected<Compiled> Policy = compileModule(Path, C.Tools, &S, *D, "policy");
  if (!Policy)
    return Fail(Policy.takeError());
  R.Log = std::move(Policy->SessionLog);
  R.Info.BaselineTextSize = Base->TextSize;
  R.Info.TextSize = Policy->TextSize;
  R.Info.Reward = features::sizeReward(Policy->TextSize, Base->TextSize);
  return R;
}

} // namespace

llvm::Expected<CollectSummary> collect(const std::vector<std::string> &Inputs,
                                       llvm::StringRef Output, const CollectConfig &C) {
  if (C.T != Task::Inline)
    return support::usageError("collect: only --task inline is supported (the reward is the "
                               "module's .text size)");
  {
    // Fail early on a bad policy or model rather than once per module.
    llvm::Expected<std::unique_ptr<Policy>> P = makePolicy(C.T, C.Policy);
    if (!P)
      return P.takeError();
  }
  features::DatasetBuilder DS(C.T, C.Policy.Name);
  CollectSummary Sum;
  support::Progress Bar("modules", Inputs.size(), C.ShowProgress);
  // Workers need no state: every module is compiled by other processes.
  corpus::OrderedPipeline<ModuleResult> Pipe(C.Jobs, 2 * C.Jobs);
  llvm::Error E = Pipe.run(
      0, Inputs.size(), [&](size_t I) { return collectOne(Inputs[I], C); },
      [&](size_t I, ModuleResult &&R) -> llvm::Error {
        ++Sum.Modules;
        if (R.Cancelled) {
          Sum.Cancelled = true;
          return makeError("cancelled");
        }
        if (R.Info.Error.empty()) {
          if (llvm::Error AE = DS.add(R.Info, R.Log))
            R.Info.Error = llvm::toString(std::move(AE));
        }
        if (!R.Info.Error.empty()) {
          ++Sum.Failed;
          Bar.clear();
          C.Report({support::Diagnostic::Error, R.Info.Error.rfind(R.Info.Path, 0) == 0
                                                    ? R.Info.Error
                                                    : R.Info.Path + ": " + R.Info.Error});
          DS.addFailed(R.Info);
        } else {
          Sum.Text += R.Info.TextSize;
          Sum.BaselineText += R.Info.BaselineTextSize;
          Sum.SameSize += R.Info.TextSize == R.Info.BaselineTextSize;
        }
        Bar.update(Sum.Modules, std::to_string(DS.rows()) + " decisions");
        return llvm::Error::success();
      });
  Bar.clear();
  if (Sum.Cancelled) {
    llvm::consumeError(std::move(E));
    return Sum;
  }
  if (E)
    return E;
  Sum.Rows = DS.rows();
  if (Sum.Failed == Sum.Modules)
    return Sum; // nothing usable: no output file
  if (llvm::Error WE = DS.write(Output))
    return WE;
  return Sum;
}

std::string CollectSummary::describe() const {
  return llvm::formatv("{0} modules, {1} decisions; .text {2} bytes vs baseline {3} ({4} "
                       "modules the same size); reward {5:f4}",
                       Modules - Failed, Rows, Text, BaselineText, SameSize,
                       features::sizeReward(Text, BaselineText))
      .str();
}

llvm::Expected<support::Outcome> collectDataset(const std::vector<std::string> &Inputs,
                                                llvm::StringRef Output, const CollectConfig &C) {
  if (Inputs.empty())
    return support::makeError("no input modules");
  if (Output.empty())
    return support::usageError("collect needs -o DATA.h5");
  llvm::Expected<CollectSummary> S = collect(Inputs, Output, C);
  if (!S)
    return S.takeError();
  if (S->Cancelled)
    return support::interruptedError("interrupted; no output written");
  if (S->Failed == S->Modules) // each failure was reported; one module needs no summary
    return S->Modules == 1 ? support::reportedFailure()
                           : support::makeError("none of the " + llvm::Twine(S->Modules) +
                                                " modules could be collected");
  C.Report({support::Diagnostic::Note, S->describe()});
  if (S->Failed)
    return support::Outcome::partial(std::to_string(S->Failed) + " of " +
                                     std::to_string(S->Modules) +
                                     " modules failed and were skipped");
  return support::Outcome::complete();
}

} // namespace wb::mlgo
