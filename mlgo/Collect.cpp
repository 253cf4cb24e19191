#include "mlgo/Collect.h"

#include "corpus/OrderedPipeline.h"
#include "features/Augment.h"
#include "support/Files.h"
#include "support/Process.h"
#include "support/Progress.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace wb::mlgo {

using namespace runners;
using support::makeError;

llvm::Expected<int64_t> textSize(llvm::StringRef Path) {
  auto Bin = llvm::object::ObjectFile::createObjectFile(Path);
  if (!Bin)
    return support::fileError(Path, "not an object file: " + llvm::toString(Bin.takeError()));
  int64_t Text = 0;
  for (const llvm::object::SectionRef &Sec : Bin->getBinary()->sections()) {
    llvm::Expected<llvm::StringRef> Name = Sec.getName();
    if (!Name)
      return support::fileError(Path, llvm::toString(Name.takeError()));
    if (*Name == ".text" || Name->starts_with(".text."))
      Text += Sec.getSize();
  }
  return Text;
}

namespace {

std::string lastLines(const std::string &Path, size_t Max = 400) {
  auto B = llvm::MemoryBuffer::getFile(Path);
  if (!B)
    return "";
  llvm::StringRef S = (*B)->getBuffer().rtrim();
  if (S.size() > Max)
    S = S.take_back(Max);
  return S.str();
}

struct ModuleResult {
  features::DatasetModule Info;
  features::Log Log;
  bool Cancelled = false;
};

/// Why a compiler run failed, with the end of its messages.
llvm::Error runFailed(llvm::StringRef Tool, const support::ExitStatus &St,
                      const std::string &ErrFile) {
  return makeError(Tool + " failed (" + St.describe() + "): " + lastLines(ErrFile));
}

/// Runs a plain compiler command with its messages going to ErrFd.
llvm::Error runTool(const std::vector<std::string> &Cmd, int ErrFd, const std::string &ErrFile,
                    const CollectConfig &C) {
  llvm::Expected<support::Child> Ch = support::Child::spawn(Cmd, -1, ErrFd);
  if (!Ch)
    return Ch.takeError();
  auto [St, TimedOut] = Ch->wait(C.TimeoutSeconds, C.CancelFd);
  if (TimedOut)
    return makeError(Cmd[0] + " timed out");
  if (St.Signaled || St.Code)
    return runFailed(Cmd[0], St, ErrFile);
  return llvm::Error::success();
}

ModuleResult collectOne(const std::string &Path, const CollectConfig &C) {
  ModuleResult R;
  R.Info.Path = Path;
  auto Fail = [&](llvm::Error E) {
    R.Info.Error = llvm::toString(std::move(E));
    R.Cancelled = support::cancelled(C.CancelFd);
    return std::move(R);
  };
  llvm::Expected<support::TempDir> D = support::TempDir::create("ir2vec-collect");
  if (!D)
    return Fail(D.takeError());
  // -Oz (plainly, or under the host), then llc; returns the object's .text bytes.
  auto Compile = [&](llvm::StringRef Tag, const std::optional<SessionConfig> &Host)
      -> llvm::Expected<int64_t> {
    std::string BC = D->file(Tag.str() + ".bc"), Obj = D->file(Tag.str() + ".o"),
                ErrFile = D->file(Tag.str() + ".err");
    int Err = ::open(ErrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (Err < 0)
      return support::fileError(ErrFile, strerror(errno));
    llvm::scope_exit CloseErr([Err] { ::close(Err); });
    std::vector<std::string> Opt = {C.Opt};
    Opt.insert(Opt.end(), C.OptArgs.begin(), C.OptArgs.end());
    Opt.insert(Opt.end(), {Path, "-o", BC});
    if (Host) {
      SessionConfig S = *Host;
      S.Command = Opt;
      S.StderrFd = Err;
      llvm::Expected<SessionResult> SR = runSession(S);
      if (!SR)
        return SR.takeError();
      if (SR->Outcome != SessionResult::Exited)
        return makeError(C.Opt + " under the host: " + SR->Error);
      if (SR->Status.Signaled || SR->Status.Code)
        return runFailed(C.Opt + " under the host", SR->Status, ErrFile);
      if (!SR->Error.empty())
        return makeError(SR->Error);
      R.Log = std::move(SR->SessionLog);
    } else if (llvm::Error E = runTool(Opt, Err, ErrFile, C)) {
      return E;
    }
    std::vector<std::string> Llc = {C.Llc};
    Llc.insert(Llc.end(), C.LlcArgs.begin(), C.LlcArgs.end());
    Llc.insert(Llc.end(), {"-filetype=obj", BC, "-o", Obj});
    if (llvm::Error E = runTool(Llc, Err, ErrFile, C))
      return E;
    return textSize(Obj);
  };
  llvm::Expected<int64_t> Base = Compile("baseline", std::nullopt);
  if (!Base)
    return Fail(Base.takeError());
  SessionConfig S;
  S.T = C.T;
  S.Policy = C.Policy;
  S.Bind = C.Bind;
  if (C.Embeddings)
    S.Augment = features::embeddingAugmenter(C.T, *C.Embeddings, Path, {});
  S.TimeoutSeconds = C.TimeoutSeconds;
  S.CancelFd = C.CancelFd;
  llvm::Expected<int64_t> Size = Compile("policy", S);
  if (!Size)
    return Fail(Size.takeError());
  R.Info.BaselineTextSize = *Base;
  R.Info.TextSize = *Size;
  R.Info.Reward = features::sizeReward(*Size, *Base);
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
