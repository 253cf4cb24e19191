#include "runners/Collect.h"

#include "runners/Augment.h"
#include "vocab/IO.h"
#include "vocab/OrderedPipeline.h"
#include "vocab/Progress.h"

#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace wb::runners {

llvm::Expected<ObjectSizes> objectSizes(llvm::StringRef Path) {
  auto Bin = llvm::object::ObjectFile::createObjectFile(Path);
  if (!Bin)
    return vocab::fileError(Path, "not an object file: " + llvm::toString(Bin.takeError()));
  ObjectSizes S;
  for (const llvm::object::SectionRef &Sec : Bin->getBinary()->sections()) {
    llvm::Expected<llvm::StringRef> Name = Sec.getName();
    if (!Name)
      return vocab::fileError(Path, llvm::toString(Name.takeError()));
    if (*Name == ".text" || Name->starts_with(".text."))
      S.Text += Sec.getSize();
    if (Sec.isBerkeleyText())
      S.BerkeleyText += Sec.getSize();
  }
  return S;
}

namespace {

/// A module's scratch directory (outputs and compiler messages), removed afterwards.
struct ScratchDir {
  std::string Dir;
  ScratchDir() {
    llvm::SmallString<128> P;
    if (!llvm::sys::fs::createUniqueDirectory("ir2vec-collect", P))
      Dir = P.str().str();
  }
  ~ScratchDir() {
    if (!Dir.empty())
      removeTree(Dir);
  }
  std::string file(llvm::StringRef N) const { return Dir + "/" + N.str(); }
};

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

/// Runs a plain compiler command, messages to ErrFile; an error describes a failure.
llvm::Error runTool(const std::vector<std::string> &Cmd, const std::string &ErrFile,
                    const CollectConfig &C, bool &Cancelled) {
  int Err = ::open(ErrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  llvm::Expected<Child> Ch = Child::spawn(Cmd, -1, Err);
  if (Err >= 0)
    ::close(Err);
  if (!Ch)
    return Ch.takeError();
  auto [St, TimedOut] = Ch->wait(C.TimeoutSeconds, C.CancelFd);
  if (C.CancelFd >= 0) {
    pollfd P{C.CancelFd, POLLIN, 0};
    Cancelled = ::poll(&P, 1, 0) > 0;
  }
  if (TimedOut)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s timed out",
                                   Cmd[0].c_str());
  if (St.Signaled || St.Code)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s failed (%s): %s",
                                   Cmd[0].c_str(), St.describe().c_str(),
                                   lastLines(ErrFile).c_str());
  return llvm::Error::success();
}

ModuleResult collectOne(const std::string &Path, const CollectConfig &C) {
  ModuleResult R;
  R.Info.Path = Path;
  ScratchDir D;
  auto Fail = [&](llvm::Error E) {
    R.Info.Error = llvm::toString(std::move(E));
    return std::move(R);
  };
  if (D.Dir.empty())
    return Fail(vocab::fileError(Path, "cannot create a scratch directory"));
  auto Compile = [&](llvm::StringRef Tag, const std::optional<SessionConfig> &Host)
      -> llvm::Expected<int64_t> {
    std::string BC = D.file(Tag.str() + ".bc"), Obj = D.file(Tag.str() + ".o"),
                ErrFile = D.file(Tag.str() + ".err");
    std::vector<std::string> Opt = {C.Opt};
    Opt.insert(Opt.end(), C.OptArgs.begin(), C.OptArgs.end());
    Opt.insert(Opt.end(), {Path, "-o", BC});
    if (Host) {
      SessionConfig S = *Host;
      S.Command = Opt;
      int Err = ::open(ErrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      S.StderrFd = Err;
      llvm::Expected<SessionResult> SR = runSession(S);
      if (Err >= 0)
        ::close(Err);
      if (!SR)
        return SR.takeError();
      R.Cancelled = SR->Outcome == SessionResult::Cancelled;
      if (SR->Outcome != SessionResult::Exited || SR->Status.Signaled || SR->Status.Code)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(), "%s under the host: %s%s%s", C.Opt.c_str(),
            SR->Outcome == SessionResult::Exited ? SR->Status.describe().c_str()
                                                 : SR->Error.c_str(),
            SR->Error.empty() || SR->Outcome != SessionResult::Exited ? "" : ": ",
            (SR->Outcome == SessionResult::Exited ? lastLines(ErrFile) : std::string()).c_str());
      if (!SR->Error.empty())
        return llvm::createStringError(llvm::inconvertibleErrorCode(), SR->Error);
      R.Log = std::move(SR->SessionLog);
    } else if (llvm::Error E = runTool(Opt, ErrFile, C, R.Cancelled)) {
      return E;
    }
    std::vector<std::string> Llc = {C.Llc};
    Llc.insert(Llc.end(), C.LlcArgs.begin(), C.LlcArgs.end());
    Llc.insert(Llc.end(), {"-filetype=obj", BC, "-o", Obj});
    if (llvm::Error E = runTool(Llc, ErrFile, C, R.Cancelled))
      return E;
    llvm::Expected<ObjectSizes> S = objectSizes(Obj);
    if (!S)
      return S.takeError();
    return S->Text;
  };
  llvm::Expected<int64_t> Base = Compile("baseline", std::nullopt);
  if (!Base)
    return Fail(Base.takeError());
  SessionConfig S;
  S.T = C.T;
  S.Policy = C.Policy;
  S.Bind = C.Bind;
  if (C.Embeddings)
    S.Augment = embeddingAugmenter(C.T, *C.Embeddings, Path, {});
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
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "collect: only --task inline is supported (the reward is the "
                                   "module's .text size)");
  {
    // Fail early on a bad policy or model rather than once per module.
    llvm::Expected<std::unique_ptr<Policy>> P = makePolicy(C.T, C.Policy);
    if (!P)
      return P.takeError();
  }
  features::DatasetBuilder DS(C.T, C.Policy.Name);
  CollectSummary Sum;
  vocab::Progress Bar("modules", Inputs.size(), C.ShowProgress);
  vocab::OrderedPipeline<ModuleResult> Pipe(C.Jobs, 2 * C.Jobs, vocab::ContextPolicy{});
  llvm::Error E = Pipe.run(
      0, Inputs.size(),
      [&](size_t I, llvm::LLVMContext &) { return collectOne(Inputs[I], C); },
      [&](size_t I, ModuleResult &&R) -> llvm::Error {
        ++Sum.Modules;
        if (R.Cancelled) {
          Sum.Cancelled = true;
          return llvm::createStringError(llvm::inconvertibleErrorCode(), "cancelled");
        }
        if (R.Info.Error.empty()) {
          if (llvm::Error AE = DS.add(R.Info, R.Log))
            R.Info.Error = llvm::toString(std::move(AE));
        }
        if (!R.Info.Error.empty()) {
          ++Sum.Failed;
          Bar.clear();
          C.Report(R.Info.Error.rfind(R.Info.Path, 0) == 0 ? R.Info.Error
                                                           : R.Info.Path + ": " + R.Info.Error);
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

} // namespace wb::runners
