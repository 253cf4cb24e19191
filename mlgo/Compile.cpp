#include "mlgo/Compile.h"

#include "support/Error.h"
#include "support/Process.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace wb::mlgo {

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

/// Why a compiler run failed, with the end of its messages.
llvm::Error runFailed(llvm::StringRef Tool, const support::ExitStatus &St,
                      const std::string &ErrFile) {
  return makeError(Tool + " failed (" + St.describe() + "): " + lastLines(ErrFile));
}

/// Runs a plain compiler command with its messages going to ErrFd.
llvm::Error runTool(const std::vector<std::string> &Cmd, int ErrFd, const std::string &ErrFile,
                    const Toolchain &T) {
  llvm::Expected<support::Child> Ch = support::Child::spawn(Cmd, -1, ErrFd);
  if (!Ch)
    return Ch.takeError();
  auto [St, TimedOut] = Ch->wait(T.TimeoutSeconds, T.CancelFd);
  if (TimedOut)
    return makeError(Cmd[0] + " timed out");
  if (St.Signaled || St.Code)
    return runFailed(Cmd[0], St, ErrFile);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Compiled> compileModule(const std::string &Module, const Toolchain &T,
                                       const runners::SessionConfig *Host,
                                       const support::TempDir &Dir, llvm::StringRef Tag) {
  const std::string BC = Dir.file(Tag.str() + ".bc"), Obj = Dir.file(Tag.str() + ".o"),
                    ErrFile = Dir.file(Tag.str() + ".err");
  int Err = ::open(ErrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (Err < 0)
    return support::fileError(ErrFile, strerror(errno));
  llvm::scope_exit CloseErr([Err] { ::close(Err); });
  Compiled Out;
  std::vector<std::string> Opt = {T.Opt};
  Opt.insert(Opt.end(), T.OptArgs.begin(), T.OptArgs.end());
  Opt.insert(Opt.end(), {Module, "-o", BC});
  if (Host) {
    runners::SessionConfig S = *Host;
    S.Command = Opt;
    S.StderrFd = Err;
    S.TimeoutSeconds = T.TimeoutSeconds;
    S.CancelFd = T.CancelFd;
    llvm::Expected<runners::SessionResult> SR = runners::runSession(S);
    if (!SR)
      return SR.takeError();
    if (SR->Outcome != runners::SessionResult::Exited)
      return makeError(T.Opt + " under the host: " + SR->Error);
    if (SR->Status.Signaled || SR->Status.Code)
      return runFailed(T.Opt + " under the host", SR->Status, ErrFile);
    if (!SR->Error.empty())
      return makeError(SR->Error);
    Out.SessionLog = std::move(SR->SessionLog);
  } else if (llvm::Error E = runTool(Opt, Err, ErrFile, T)) {
    return E;
  }
  std::vector<std::string> Llc = {T.Llc};
  Llc.insert(Llc.end(), T.LlcArgs.begin(), T.LlcArgs.end());
  Llc.insert(Llc.end(), {"-filetype=obj", BC, "-o", Obj});
  if (llvm::Error E = runTool(Llc, Err, ErrFile, T))
    return E;
  llvm::Expected<int64_t> Size = textSize(Obj);
  if (!Size)
    return Size.takeError();
  Out.TextSize = *Size;
  return Out;
}

std::vector<int64_t> decisionsOf(runners::Task T, const features::Log &SessionLog) {
  const features::TensorSpec &Advice = features::taskInfo(T).Advice;
  std::vector<int64_t> Out;
  std::optional<size_t> Idx = SessionLog.Header.find(Advice.Name);
  if (!Idx)
    return Out;
  const size_t Off = SessionLog.Header.offsetOf(*Idx);
  for (const features::LogObservation &O : SessionLog.Observations)
    Out.push_back(static_cast<int64_t>(features::elementAsDouble(Advice.Type, O.Payload.data() + Off, 0)));
  return Out;
}

} // namespace wb::mlgo
