#include "mlgo/pipelines/Compile.h"

#include "features/RegallocScore.h"
#include "support/Error.h"
#include "support/Inputs.h"
#include "support/Process.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

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
                    const Toolchain &T, int CancelFd) {
  llvm::Expected<support::Child> Ch = support::Child::spawn(Cmd, -1, ErrFd);
  if (!Ch)
    return Ch.takeError();
  auto [St, TimedOut] = Ch->wait(T.TimeoutSeconds, CancelFd);
  if (TimedOut)
    return makeError(Cmd[0] + " timed out");
  if (St.Signaled || St.Code)
    return runFailed(Cmd[0], St, ErrFile);
  return llvm::Error::success();
}

} // namespace

namespace {

/// Runs Cmd plainly, or under the host with Host's session settings (the session log goes to
/// Out).
llvm::Error runStep(std::vector<std::string> Cmd, bool Clang, const runners::SessionConfig *Host,
                    int Err, const std::string &ErrFile, const Toolchain &T, int CancelFd,
                    const std::string &RemarksFile, Compiled &Out) {
  if (!Host) {
    if (!RemarksFile.empty())
      for (std::string &F : runners::regallocRemarkFlags(Cmd, Clang, RemarksFile))
        Cmd.push_back(std::move(F));
    if (llvm::Error E = runTool(Cmd, Err, ErrFile, T, CancelFd))
      return E;
    if (RemarksFile.empty())
      return llvm::Error::success();
    // No file: the compiler had nothing to report (no function was allocated).
    llvm::Expected<std::vector<features::FunctionRegalloc>> Fs =
        llvm::sys::fs::exists(RemarksFile) ? features::readRegallocRemarks(RemarksFile)
                                           : std::vector<features::FunctionRegalloc>{};
    if (!Fs)
      return Fs.takeError();
    Out.Regalloc = std::move(*Fs);
    return llvm::Error::success();
  }
  runners::SessionConfig S = *Host;
  S.Command = Cmd;
  S.Clang = Clang;
  S.StderrFd = Err;
  S.TimeoutSeconds = T.TimeoutSeconds;
  S.CancelFd = CancelFd;
  llvm::Expected<runners::SessionResult> SR = runners::runSession(S);
  if (!SR)
    return SR.takeError();
  if (SR->Outcome != runners::SessionResult::Exited)
    return makeError(Cmd[0] + " under the host: " + SR->Error);
  if (SR->Status.Signaled || SR->Status.Code)
    return runFailed(Cmd[0] + " under the host", SR->Status, ErrFile);
  if (!SR->Error.empty())
    return makeError(SR->Error);
  Out.SessionLog = std::move(SR->SessionLog);
  if (!RemarksFile.empty()) {
    if (!SR->Regalloc)
      return makeError(Cmd[0] + " under the host: no register allocation remarks were read "
                                "(the session was not asked to score them)");
    Out.Regalloc = std::move(*SR->Regalloc);
  }
  return llvm::Error::success();
}

bool anyRecordedArgument(const Toolchain &T, llvm::StringRef Arg) {
  if (!T.Recorded || T.Mode == CompileMode::Pipeline)
    return false;
  for (const auto &[M, Args] : T.Recorded->ByModule)
    if (llvm::is_contained(Args, Arg))
      return true;
  return false;
}

/// The fixed pipeline's first step: opt-22 ARGS MODULE -o OUT.
std::vector<std::string> optCommand(const Toolchain &T, const std::string &Module,
                                    const std::string &Out) {
  std::vector<std::string> Opt = {T.Opt};
  Opt.insert(Opt.end(), T.OptArgs.begin(), T.OptArgs.end());
  Opt.insert(Opt.end(), {Module, "-o", Out});
  return Opt;
}

} // namespace

llvm::Expected<const std::vector<std::string> *>
Toolchain::recordedCommand(const std::string &Module) const {
  const std::vector<std::string> *Args =
      Mode == CompileMode::Pipeline || !Recorded ? nullptr : Recorded->find(Module);
  if (!Args && Mode == CompileMode::Recorded) {
    llvm::StringRef Stem = llvm::StringRef(Module);
    Stem.consume_back(".bc");
    if (llvm::sys::fs::exists(Stem + ".cmd"))
      return support::fileError(
          Module, "--compile recorded: its " + llvm::sys::path::filename(Stem) +
                      ".cmd is read only through its corpus: name the corpus directory or its "
                      "corpus_description.json instead of its modules");
    return support::fileError(Module, "the corpus recorded no command line for this module (no "
                                      ".cmd next to it in a corpus description, no "
                                      "global_command_override); --compile recorded needs one");
  }
  return Args;
}

std::string Toolchain::optCommand() const { return Opt + " " + llvm::join(OptArgs, " "); }

std::string Toolchain::llcCommand() const {
  return Llc + " " + llvm::join(LlcArgs, " ") + " -filetype=obj";
}

std::string Toolchain::describe(const std::string &Module) const {
  auto R = recordedCommand(Module);
  if (R && *R)
    return Clang + " " + llvm::join(**R, " ") + " -x ir " + Module + " -o OUT";
  llvm::consumeError(R.takeError());
  return Opt + " " + llvm::join(OptArgs, " ") + " " + Module + " -o X.bc; " + Llc + " " +
         llvm::join(LlcArgs, " ") + " -filetype=obj X.bc -o OUT";
}

std::string Toolchain::fingerprint() const {
  return llvm::formatv("{0} {1} | {2} {3} | {4} | {5} | {6}", Opt, llvm::join(OptArgs, " "), Llc,
                       llvm::join(LlcArgs, " "), Clang,
                       support::nameOf<CompileMode>(CompileModeNames, Mode),
                       Recorded ? Recorded->digest() : std::string("none"))
      .str();
}

std::vector<std::string> corpusDescriptions(const std::vector<std::string> &InputArgs) {
  std::vector<std::string> Out;
  for (const std::string &A : InputArgs)
    if (std::optional<std::string> D = support::corpusDescriptionOf(A))
      Out.push_back(*D);
  return Out;
}

llvm::Error loadRecordedCommands(Toolchain &T, const std::vector<std::string> &InputArgs) {
  if (T.Mode == CompileMode::Pipeline)
    return llvm::Error::success();
  llvm::Expected<corpus::RecordedCommands> R = corpus::readRecordedCommands(InputArgs);
  if (!R)
    return R.takeError();
  T.Recorded = std::make_shared<const corpus::RecordedCommands>(std::move(*R));
  return llvm::Error::success();
}

std::string noDecisionsWarning(const Toolchain &T) {
  std::string Why;
  if (anyRecordedArgument(T, "-disable-llvm-passes"))
    Why = "the recorded command lines disable LLVM's passes (-disable-llvm-passes): build the "
          "objects with -Oz -Xclang -fembed-bitcode=all and nothing that turns passes off";
  else if (anyRecordedArgument(T, "-O0"))
    Why = "the recorded command lines compile at -O0, where clang makes every function optnone "
          "and runs no inliner: build the objects with -Oz -Xclang -fembed-bitcode=all";
  else
    Why = "IR built at -O0 is optnone (build the corpus with -Oz -Xclang -disable-llvm-passes), "
          "or the modules call no defined function";
  return "the compiler asked no inlining question in any module: " + Why;
}

llvm::Expected<std::string> optimizeModule(const std::string &Module, const Toolchain &T,
                                           const support::TempDir &Dir, llvm::StringRef Tag,
                                           int CancelFd) {
  const std::string BC = Dir.file(Tag.str() + ".bc"), ErrFile = Dir.file(Tag.str() + ".err");
  int Err = ::open(ErrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (Err < 0)
    return support::fileError(ErrFile, strerror(errno));
  llvm::scope_exit CloseErr([Err] { ::close(Err); });
  if (llvm::Error E = runTool(optCommand(T, Module, BC), Err, ErrFile, T, CancelFd))
    return E;
  return BC;
}

features::Augmenter sessionAugmenter(runners::Task T, const ir2vec::EmbeddingChoice &E,
                                     const std::string &Module) {
  return features::embeddingAugmenter(T, E, T == runners::Task::Inline ? Module : "");
}

llvm::Expected<Compiled> compileModule(const std::string &Module, const Toolchain &T,
                                       const runners::SessionConfig *Host,
                                       const support::TempDir &Dir, llvm::StringRef Tag,
                                       int CancelFd, bool Remarks, const std::string *Optimized) {
  llvm::Expected<const std::vector<std::string> *> Recorded = T.recordedCommand(Module);
  if (!Recorded)
    return Recorded.takeError();
  const std::string BC = Dir.file(Tag.str() + ".bc"), Obj = Dir.file(Tag.str() + ".o"),
                    ErrFile = Dir.file(Tag.str() + ".err"),
                    RemarksFile = Remarks ? Dir.file(Tag.str() + ".regalloc.yaml") : "";
  int Err = ::open(ErrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (Err < 0)
    return support::fileError(ErrFile, strerror(errno));
  llvm::scope_exit CloseErr([Err] { ::close(Err); });
  Compiled Out;
  if (*Recorded) {
    // As the build compiled it, from the module before optimisation to the object.
    std::vector<std::string> Cmd = {T.Clang};
    Cmd.insert(Cmd.end(), (*Recorded)->begin(), (*Recorded)->end());
    Cmd.insert(Cmd.end(), {"-x", "ir", Module, "-o", Obj});
    if (llvm::Error E = runStep(Cmd, /*Clang=*/true, Host, Err, ErrFile, T, CancelFd,
                                RemarksFile, Out))
      return E;
  } else {
    // The host's advisor runs in opt (the inliner) or in llc (register allocation); the
    // allocator's remarks come from llc.
    const bool HostInLlc = Host && Host->T != runners::Task::Inline;
    if (!Optimized)
      if (llvm::Error E = runStep(optCommand(T, Module, BC), /*Clang=*/false,
                                  HostInLlc ? nullptr : Host, Err, ErrFile, T, CancelFd, "", Out))
        return E;
    std::vector<std::string> Llc = {T.Llc};
    Llc.insert(Llc.end(), T.LlcArgs.begin(), T.LlcArgs.end());
    Llc.insert(Llc.end(), {"-filetype=obj", Optimized ? *Optimized : BC, "-o", Obj});
    if (llvm::Error E = runStep(Llc, /*Clang=*/false, HostInLlc ? Host : nullptr, Err, ErrFile,
                                T, CancelFd, RemarksFile, Out))
      return E;
  }
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
