#include "runners/InteractiveHost.h"

#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/StringSaver.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wb::runners {

namespace {

using support::makeError;

/// The session's private directory with the two FIFOs, both opened by the host.
struct Channel {
  support::TempDir Dir;
  std::string Base;
  int InFd = -1, OutFd = -1;

  static llvm::Expected<std::unique_ptr<Channel>> create() {
    llvm::Expected<support::TempDir> D = support::TempDir::create("ir2vec-mlgo");
    if (!D)
      return D.takeError();
    auto C = std::unique_ptr<Channel>(new Channel{std::move(*D), "", -1, -1});
    C->Base = C->Dir.file("channel");
    for (int *FD : {&C->InFd, &C->OutFd}) {
      std::string P = C->Base + (FD == &C->InFd ? ".in" : ".out");
      if (::mkfifo(P.c_str(), 0600) != 0)
        return makeError("mkfifo " + P + ": " + strerror(errno));
      // O_RDWR: never blocks, whatever the compiler does (see the header).
      *FD = ::open(P.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
      if (*FD < 0)
        return makeError("open " + P + ": " + strerror(errno));
    }
    return C;
  }
  ~Channel() {
    for (int FD : {InFd, OutFd})
      if (FD >= 0)
        ::close(FD);
  }
};

bool isClang(llvm::StringRef Argv0) {
  return llvm::sys::path::filename(Argv0).starts_with("clang");
}

/// Where the compiler's own command starts in Cmd: hosts nest (`ir2vec mlgo run --task inline
/// -- ir2vec mlgo run --task evict -- clang-22 ...`), and the flags go to the compiler at the
/// end of the chain.
size_t compilerStart(const std::vector<std::string> &Cmd) {
  size_t Start = 0;
  while (Start < Cmd.size() && llvm::sys::path::filename(Cmd[Start]).starts_with("ir2vec")) {
    auto Dash = std::find(Cmd.begin() + Start, Cmd.end(), "--");
    if (Dash == Cmd.end())
      break;
    Start = Dash - Cmd.begin() + 1;
  }
  return Start;
}

/// Whether the compiler's own command sets LLVM's option Name (NAME or NAME=VALUE, one or two
/// dashes, given to opt or llc directly or to clang through -mllvm): LLVM refuses an option
/// given twice, and the user's value is the one to keep.
bool setsOption(const std::vector<std::string> &Cmd, llvm::StringRef Name) {
  for (size_t I = compilerStart(Cmd); I < Cmd.size(); ++I) {
    llvm::StringRef A = llvm::StringRef(Cmd[I]).ltrim('-');
    if (A.consume_front(Name) && (A.empty() || A.starts_with("=")))
      return true;
  }
  return false;
}

/// The optimisation level the compiler's own command asks for ("O2", "Oz", ...; clang's -O is
/// O1, opt's -passes=default<Ox> is Ox), the last one given; none when it names none.
std::optional<std::string> optimisationLevel(const std::vector<std::string> &Cmd) {
  std::optional<std::string> Level;
  for (size_t I = compilerStart(Cmd); I < Cmd.size(); ++I) {
    llvm::StringRef A = Cmd[I];
    if (A == "-O")
      Level = "O1";
    else if (A.starts_with("-O") && A.size() <= 6 && !A.starts_with("-Ofast"))
      Level = A.drop_front().str();
    else if (A.starts_with("-Ofast"))
      Level = "O3";
    else if (size_t At = A.find("default<O"); At != llvm::StringRef::npos)
      Level = A.substr(At + 8, 2).str();
  }
  return Level;
}

std::string compilerOf(const std::vector<std::string> &Cmd) {
  const size_t Start = compilerStart(Cmd);
  return Start < Cmd.size() ? Cmd[Start] : std::string();
}

/// Writes all bytes to the non-blocking FIFO (normally they fit in the pipe at once).
/// The compiler's output file: the value of -o in any of the spellings opt, llc and clang
/// share ("-o F", "-o=F", "--o=F", "--o F"); "" for none or standard output. ("-oF" is left
/// alone: LLVM tools have options that start with "-o".)
std::string compilerOutputPath(const std::vector<std::string> &Command) {
  std::string Out;
  for (size_t I = 1; I < Command.size(); ++I) {
    llvm::StringRef A = Command[I];
    if ((A == "-o" || A == "--o") && I + 1 < Command.size())
      Out = Command[++I];
    else if (A.consume_front("-o=") || A.consume_front("--o="))
      Out = A.str();
  }
  return Out == "-" ? "" : Out;
}

/// Writes the advice, waiting while the pipe is full; gives up when the compiler exits, the
/// session's deadline passes or the run is cancelled (a compiler that stops reading must not
/// hold the host past --timeout).
llvm::Error writeAll(int FD, llvm::StringRef Bytes, const support::Child &C,
                     const support::Deadline &Until, int CancelFd) {
  size_t Done = 0;
  while (Done < Bytes.size()) {
    ssize_t N = ::write(FD, Bytes.data() + Done, Bytes.size() - Done);
    if (N > 0) {
      Done += N;
      continue;
    }
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0 && errno != EAGAIN)
      return makeError(llvm::Twine("writing the advice: ") + strerror(errno));
    // The pipe is full: the compiler is not reading (a desync). Wait for room or its exit.
    const int Timeout = Until.pollTimeout();
    if (Timeout == 0)
      return makeError("the compiler stopped reading the advice until the deadline");
    pollfd P[3] = {{FD, POLLOUT, 0}, {C.pidFd(), POLLIN, 0}, {CancelFd, POLLIN, 0}};
    if (::poll(P, CancelFd >= 0 ? 3 : 2, Timeout) < 0 && errno != EINTR)
      return makeError(llvm::Twine("waiting to write the advice: poll: ") + strerror(errno));
    if (P[1].revents)
      return makeError("the compiler exited while the host was answering");
    if (CancelFd >= 0 && P[2].revents)
      return makeError("cancelled while writing the advice");
  }
  return llvm::Error::success();
}

/// Whether the command reads IR (a .bc or .ll argument), whose -O0 build would explain a
/// session without questions; a compile from source cannot have that cause.
bool compilesIR(const std::vector<std::string> &Cmd) {
  for (const std::string &A : Cmd)
    if (llvm::StringRef(A).ends_with(".bc") || llvm::StringRef(A).ends_with(".ll"))
      return true;
  return false;
}

/// Whether a clang command line compiles for link-time optimisation (the last of -flto[=...]
/// and -fno-lto wins, as in clang).
bool ltoCompileStep(const std::vector<std::string> &Cmd) {
  bool LTO = false;
  for (const std::string &A : Cmd)
    if (A == "-flto" || llvm::StringRef(A).starts_with("-flto="))
      LTO = true;
    else if (A == "-fno-lto")
      LTO = false;
  return LTO;
}

} // namespace

int SessionResult::exitStatus() const {
  switch (Outcome) {
  case Exited:
    return Status.shellStatus();
  case TimedOut:
    return 124;
  case HostError:
    return 125;
  case Cancelled:
    return 130;
  }
  return 125;
}

llvm::Expected<SessionResult> runSessionToFiles(SessionConfig C, const std::string &LogPath,
                                                const std::string &TranscriptPath) {
  // Streamed into temporary files (no memory growth on long runs), moved into place only
  // after a clean session: a file under the requested name is always complete.
  std::optional<support::AtomicOutput> Log, Transcript;
  for (auto [Path, Out, Stream] : {std::tuple{&LogPath, &Log, &C.LogStream},
                                   {&TranscriptPath, &Transcript, &C.TranscriptStream}}) {
    if (Path->empty())
      continue;
    llvm::Expected<support::AtomicOutput> A = support::AtomicOutput::create(*Path);
    if (!A)
      return A.takeError();
    Out->emplace(std::move(*A));
    *Stream = &(*Out)->os();
    if (std::string Temp = (*Out)->temporaryPath(); !Temp.empty())
      C.HostTemporaries.push_back(Temp);
  }
  llvm::Expected<SessionResult> R = runSession(C);
  if (!R)
    return R.takeError();
  for (const std::string &N : R->ZeroFilled)
    R->Warnings.push_back("feature '" + N + "' is not sent by the compiler; the policy sees zeros");
  if (R->clean() && R->ChannelOpened) {
    for (std::optional<support::AtomicOutput> *Out : {&Log, &Transcript})
      if (*Out)
        if (llvm::Error E = (*Out)->commit())
          return E;
  }
  // A session that decided nothing says why: a run that reports nothing would read as "the
  // policy changed nothing" (reduction 0.00 %, exit 0).
  const std::string Compiler = llvm::sys::path::filename(compilerOf(C.Command)).str();
  const bool LLVMTool = llvm::StringRef(Compiler).starts_with("opt") ||
                        llvm::StringRef(Compiler).starts_with("llc") || isClang(Compiler) || C.Clang;
  const bool Failed = R->Outcome == SessionResult::Exited && !R->clean();
  if (compilerDecides(C.T, C.Policy.Name) && !C.MakePolicy)
    ; // no channel was offered: the compiler's own advisor decided, as asked
  else if (!R->ChannelOpened && !LLVMTool && (R->clean() || Failed))
    R->Warnings.push_back(Compiler + " never opened the channel: only LLVM 22's opt, llc and "
                                     "clang speak MLGO's protocol (the host gave it LLVM's flags)");
  // A compiler that failed (a usage error, a missing file) said why itself; whether a pipeline
  // had an inliner is only worth saying after one that succeeded.
  else if (R->clean() && R->Status.shellStatus() == 0 && !R->ChannelOpened)
    R->Warnings.push_back(
        std::string("the compiler never opened the channel: no ") +
        (C.T == Task::Inline ? "inliner" : "register allocator") + " with an ML advisor ran in "
        "this pipeline (at -O0 none runs; with -flto the link step inlines inside the linker, "
        "which the host's -mllvm flags do not reach; opt needs a pipeline with the pass)" +
        (Log || Transcript ? "; no log written" : ""));
  else if (R->clean() && R->Status.shellStatus() == 0 && R->Observations == 0)
    R->Warnings.push_back(
        C.T != Task::Inline ? "the compiler asked no question: no function needed the decision"
        : compilesIR(C.Command)
            ? "the compiler asked no inlining question: IR built at -O0 is optnone (build it "
              "with -Oz -Xclang -disable-llvm-passes), or the module calls no function defined "
              "in it"
            // From source the -O0 IR cause cannot apply: the flags in the command decide.
            : "the compiler asked no inlining question: the code calls no function defined in "
              "it (or none the inliner considers)");
  // A policy chosen at some levels, used at another: said, since its numbers do not hold there.
  if (std::optional<std::string> Level = optimisationLevel(C.Command); Level && R->ChannelOpened)
    if (std::optional<std::string> W = unmeasuredLevelWarning(C.Policy.Name, *Level))
      R->Warnings.push_back(std::move(*W));
  // -flto: the compile step's (pre-link) inliner asks the policy, but the link step inlines
  // again inside the linker, out of the host's reach; a user comparing objects should know.
  if (C.T == Task::Inline && R->clean() && R->ChannelOpened && isClang(Compiler) &&
      ltoCompileStep(C.Command))
    R->Warnings.push_back("-flto: the policy decided this compile step's (pre-link) inlining only; "
                          "the link step inlines again inside the linker, which the host does not "
                          "reach (docs/mlgo.md, Where a policy acts)");
  return R;
}

bool SessionResult::clean() const {
  return Outcome == Exited && Error.empty() && !Status.Signaled;
}

std::string SessionResult::summary() const {
  return llvm::formatv("{0} observations{5}, {1} contexts, feature set {2}, {3}; ignored by the "
                       "policy: {4}",
                       Observations, SessionLog.Contexts.size(),
                       FeatureSetVersion.empty() ? "-" : FeatureSetVersion,
                       Outcome == Exited ? Status.describe() : Error,
                       Ignored.empty() ? "none"
                       : Ignored.size() <= 5
                           ? llvm::join(Ignored, ",")
                           : llvm::formatv("{0} features ({1},{2},{3} and {4} more)", Ignored.size(),
                                           Ignored[0], Ignored[1], Ignored[2], Ignored.size() - 3)
                                 .str(),
                       Changed < 0 ? std::string()
                                   : llvm::formatv(" ({0} answered otherwise than the compiler's "
                                                   "own decision)",
                                                   Changed)
                                         .str())
      .str();
}

std::vector<std::string> sessionCommand(const SessionConfig &C, llvm::StringRef ChannelBase,
                                        llvm::ArrayRef<std::string> AugmentFlags) {
  const features::TaskInfo &TI = features::taskInfo(C.T);
  std::vector<std::string> Flags;
  if (!compilerDecides(C.T, C.Policy.Name) || C.MakePolicy)
    Flags = {TI.EnableFlag, std::string(TI.ChannelFlag) + ChannelBase.str()};
  std::vector<std::string> Cmd = C.Command;
  for (llvm::StringRef F : TI.SessionFlags)
    if (!setsOption(Cmd, F.split('=').first.ltrim('-')))
      Flags.push_back(F.str());
  Flags.insert(Flags.end(), AugmentFlags.begin(), AugmentFlags.end());
  Flags.insert(Flags.end(), C.ExtraFlags.begin(), C.ExtraFlags.end());
  const size_t Start = compilerStart(Cmd);
  bool Clang = C.Clang || (Start < Cmd.size() && isClang(Cmd[Start]));
  for (const std::string &F : Flags) {
    if (Clang)
      Cmd.push_back("-mllvm");
    Cmd.push_back(F);
  }
  return Cmd;
}

std::vector<std::string> regallocRemarkFlags(const std::vector<std::string> &Cmd, bool Clang,
                                             const std::string &Path) {
  const size_t Start = compilerStart(Cmd);
  if (!Clang && !(Start < Cmd.size() && isClang(Cmd[Start])))
    return {"-pass-remarks-output=" + Path, "-pass-remarks-filter=regalloc"};
  if (llvm::is_contained(Cmd, "-cc1"))
    return {"-opt-record-file", Path, "-opt-record-passes", "regalloc", "-opt-record-format",
            "yaml"};
  return {"-fsave-optimization-record=yaml", "-foptimization-record-file=" + Path,
          "-foptimization-record-passes=regalloc"};
}

namespace {

/// The last value Args give LLVM option Name: "-Name=V", "--Name=V", or "-Name V".
std::optional<std::string> optionValue(llvm::ArrayRef<std::string> Args, llvm::StringRef Name) {
  std::optional<std::string> V;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (!A.starts_with("-"))
      continue;
    A = A.ltrim('-');
    if (!A.consume_front(Name))
      continue;
    if (A.consume_front("="))
      V = A.str();
    else if (A.empty() && I + 1 < Args.size())
      V = Args[++I];
  }
  return V;
}

/// The user's own remark file in a compiler's arguments (opt/llc's -pass-remarks-*, clang
/// -cc1's -opt-record-*), checked to hold the allocator's remarks as YAML; none when there is
/// no such file.
llvm::Expected<std::optional<std::string>> remarkFileIn(llvm::ArrayRef<std::string> Args, bool CC1) {
  const char *File = CC1 ? "opt-record-file" : "pass-remarks-output";
  const char *Filter = CC1 ? "opt-record-passes" : "pass-remarks-filter";
  const char *Format = CC1 ? "opt-record-format" : "pass-remarks-format";
  std::optional<std::string> Path = optionValue(Args, File);
  if (!Path)
    return std::nullopt;
  const std::string Named = CC1 ? "the compiler's remark file (" + *Path + ")" : "-" + std::string(File) + "=" + *Path;
  if (std::optional<std::string> F = optionValue(Args, Format); F && *F != "yaml")
    return support::usageError("--reward reads the register allocator's remarks from " + Named +
                               ", which is written as " + *F + ": ask for YAML");
  if (std::optional<std::string> F = optionValue(Args, Filter); F && !llvm::Regex(*F).match("regalloc"))
    return support::usageError("--reward reads the register allocator's remarks from " + Named +
                               ", and its pass filter '" + *F + "' leaves them out: add '|regalloc' to it");
  return Path;
}

} // namespace

std::string sessionSubject(const std::vector<std::string> &Cmd) {
  if (std::string Out = compilerOutputPath(Cmd); !Out.empty())
    return Out;
  for (size_t I = Cmd.size(); I-- > compilerStart(Cmd) + 1;)
    if (!llvm::StringRef(Cmd[I]).starts_with("-") && llvm::sys::fs::is_regular_file(Cmd[I]))
      return Cmd[I];
  return compilerOf(Cmd);
}

llvm::Expected<std::vector<std::string>> userRemarkFiles(const std::vector<std::string> &Cmd, bool Clang,
                                                          const std::string &Scratch) {
  const size_t Start = compilerStart(Cmd);
  const llvm::ArrayRef<std::string> Args = llvm::ArrayRef(Cmd).drop_front(std::min(Start, Cmd.size()));
  std::vector<std::string> Files;
  const bool IsClang = Clang || (!Args.empty() && isClang(Args.front()));
  const bool CC1 = llvm::is_contained(Args, "-cc1");
  if (!IsClang || CC1) {
    auto F = remarkFileIn(Args, CC1);
    if (!F)
      return F.takeError();
    if (*F)
      Files.push_back(**F);
    return Files;
  }
  // The clang driver names the files itself (after -o, per source, per offload target): ask it
  // which cc1 commands it would run, when the command asks for remarks at all.
  if (llvm::none_of(Args, [](llvm::StringRef A) {
        return A.starts_with("-fsave-optimization-record") || A.starts_with("-foptimization-record");
      }))
    return Files;
  std::vector<llvm::StringRef> Argv(Args.begin(), Args.end());
  Argv.push_back("-###");
  const std::string &Err = Scratch;
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""), llvm::StringRef(""), llvm::StringRef(Err)};
  const llvm::ErrorOr<std::string> Program = llvm::sys::findProgramByName(Argv.front());
  if (!Program || llvm::sys::ExecuteAndWait(*Program, Argv, std::nullopt, Redirects) != 0)
    return makeError("'" + Args.front() + " ... -###' did not list its commands (needed to find "
                     "the remark file the command asks for)");
  auto Text = llvm::MemoryBuffer::getFile(Err);
  if (!Text)
    return makeError("reading the driver's commands: " + Text.getError().message());
  llvm::SmallVector<llvm::StringRef, 8> Lines;
  (*Text)->getBuffer().split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    if (!Line.contains("\"-cc1\""))
      continue;
    llvm::BumpPtrAllocator A;
    llvm::StringSaver Saver(A);
    llvm::SmallVector<const char *, 64> Tokens;
    llvm::cl::TokenizeGNUCommandLine(Line, Saver, Tokens);
    std::vector<std::string> CC1Args(Tokens.begin(), Tokens.end());
    auto F = remarkFileIn(CC1Args, /*CC1=*/true);
    if (!F)
      return F.takeError();
    if (*F)
      Files.push_back(**F);
  }
  return Files;
}

namespace {

/// Scores a clean session's log as LLVM's development mode does: `reward` after every
/// observation, 0.0 but for each function's last, which carries its cost.
void scoreLog(features::Log &L, const std::vector<features::FunctionRegalloc> &Fs,
              const features::RegallocWeights &W) {
  llvm::StringMap<double> Cost;
  for (const features::FunctionRegalloc &F : Fs)
    Cost[F.Function] += W.cost(F.Counts);
  L.Header.Score = features::TensorSpec{"reward", features::TensorType::Float, 0, {1}};
  auto Bytes = [](float V) { return std::string(reinterpret_cast<const char *>(&V), sizeof V); };
  for (size_t I = 0; I < L.Observations.size(); ++I) {
    features::LogObservation &O = L.Observations[I];
    const bool Last = I + 1 == L.Observations.size() || L.Observations[I + 1].Context != O.Context;
    O.Score = Bytes(Last ? static_cast<float>(Cost.lookup(O.Context)) : 0.0f);
  }
}

/// One session after its set-up, as runSession's loop sees it: what the set-up made (the
/// channel, the compiler, its guardian and deadline; runSession owns them, so that they are
/// destroyed in its order), the conversation's own state (the stream's parser, the policy's
/// binding, the log as it is written) and the result it builds. One method per event.
class Session {
public:
  Session(const SessionConfig &C, const Channel &Dir, support::Guardian &Guard,
          const support::FileMark &OutputMark, const std::optional<features::Augmentation> &Extra,
          const support::Deadline &Until, support::Child &Compiler, std::unique_ptr<Policy> P,
          std::vector<std::string> RemarkFiles)
      : C(C), Dir(Dir), Guard(Guard), OutputMark(OutputMark), Extra(Extra), Until(Until),
        Compiler(Compiler), Pending(std::move(P)), RemarkFiles(std::move(RemarkFiles)) {
    Parser.allowRestarts(); // one clang command with several sources: one stream per compiler
  }

  bool streamEnded() const { return StreamEnded; }

  /// The compiler's stream is readable: reads it and answers every complete observation.
  /// False when that ended the session (the compiler was killed).
  bool onStreamReadable();
  /// The compiler exited (its pidfd is readable): reaped, then the session finishes.
  void onCompilerExit();
  void onTimeout();
  void onCancel();
  void onPollError(int Errno);

  SessionResult result() { return std::move(R); }

private:
  void fail(SessionResult::Kind K, std::string Msg);
  void removeOutput();
  std::string drain();
  std::string answerAll(bool CompilerAlive);
  std::string onHeader(bool CompilerAlive);
  void onContext(const std::string &Context);
  std::string onObservation(const features::LogEvent &E);
  void finish();
  void scoreAndWriteLog();

  const SessionConfig &C;
  const Channel &Dir;
  support::Guardian &Guard;
  const support::FileMark &OutputMark;
  const std::optional<features::Augmentation> &Extra;
  const support::Deadline &Until;
  support::Child &Compiler;
  std::unique_ptr<Policy> Pending; // until the compiler's header binds it (Runner)
  const std::vector<std::string> RemarkFiles;

  SessionResult R;
  features::LogParser Parser{"compiler stream"};
  std::optional<ModelRunner> Runner;
  std::optional<features::LogWriter> Writer;
  std::vector<TensorSpec> Available;        // compiler features + workbench extras
  std::vector<TensorSpec> CompilerFeatures; // as the first compiler of the command sent them
  TensorSpec Advice;
  std::string Row; // one observation of the session log
  std::string ExtraBytes;
  // Where the compiler's own decision sits in an observation (for --stats), when it sends it.
  std::optional<size_t> DefaultAt;
  // Whether the compiler holds its -o open, asked when its header arrives (LLVM's tools open
  // their output before running passes): only then is a partial -o its own to remove.
  bool WritingOutput = false;
  std::vector<char> Buf = std::vector<char>(1 << 16);
  bool StreamEnded = false; // the compiler closed its end: nothing more to poll for
};

// After the host killed the compiler or failed itself, what the compiler wrote is not its
// output: a build system would take a truncated file for one (make's .DELETE_ON_ERROR).
void Session::removeOutput() { OutputMark.removeIfWritten(); }

void Session::fail(SessionResult::Kind K, std::string Msg) {
  // Only what the compiler itself was writing (another process may have written the same
  // name meanwhile): asked before it is stopped.
  const bool Writing = WritingOutput || OutputMark.openIn(Compiler.pid());
  Compiler.killGroup();
  R.Status = Compiler.reap();
  Guard.released();
  R.Outcome = K;
  R.Error = std::move(Msg);
  if (Writing)
    removeOutput();
}

// Reads what is buffered; "" or what went wrong. End of stream is not an error (the
// compiler's exit says how it ended), and errno is read only after a failed read.
std::string Session::drain() {
  while (true) {
    ssize_t N = ::read(Dir.OutFd, Buf.data(), Buf.size());
    if (N > 0) {
      R.ChannelOpened = true;
      Parser.feed(llvm::StringRef(Buf.data(), N));
      if (C.TranscriptStream)
        C.TranscriptStream->write(Buf.data(), N);
      continue;
    }
    if (N == 0) {
      // Only reached when poll saw the end (a FIFO never opened by a writer does not poll
      // readable) or after the compiler exited: poll it no more, or it would spin.
      StreamEnded = true;
      return "";
    }
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN)
      return "";
    return std::string("reading the compiler stream: ") + strerror(errno);
  }
}

// Parses and answers everything complete in the stream; returns an error message.
std::string Session::answerAll(bool CompilerAlive) {
  while (true) {
    llvm::Expected<std::optional<features::LogEvent>> Ev = Parser.next();
    if (!Ev)
      return llvm::toString(Ev.takeError());
    if (!*Ev)
      return "";
    const features::LogEvent &E = **Ev;
    std::string Err;
    switch (E.K) {
    case features::LogEvent::Header:
      Err = onHeader(CompilerAlive);
      break;
    case features::LogEvent::ContextSwitch:
      onContext(E.Context);
      break;
    case features::LogEvent::Observation:
      if (!CompilerAlive)
        break; // an exited compiler waits for nothing
      Err = onObservation(E);
      break;
    case features::LogEvent::Outcome:
      return "the compiler sent an outcome record; interactive streams have no score";
    }
    if (!Err.empty())
      return Err;
  }
}

std::string Session::onHeader(bool CompilerAlive) {
  if (CompilerAlive && !WritingOutput && OutputMark.openIn(Compiler.pid())) {
    WritingOutput = true;
    Guard.writing();
  }
  const features::LogHeader &H = Parser.header();
  if (Runner) { // the next compiler of the same command: the same features, or an error
    if (H.Features != CompilerFeatures || H.Advice != std::optional<TensorSpec>(Advice))
      return "the command ran several compilers (one per source file) and a later one "
             "sent another feature set: run one compiler per session";
    if (Extra && Extra->Bytes)
      ExtraBytes = Extra->Bytes("");
    return "";
  }
  llvm::Expected<std::vector<std::string>> Unknown = features::checkHeader(C.T, H.Features, H.Advice);
  if (!Unknown)
    return llvm::toString(Unknown.takeError());
  R.UnknownFeatures = *Unknown;
  Advice = *H.Advice;
  CompilerFeatures = H.Features;
  Available = H.Features;
  for (size_t I = 0, At = 0; I < H.Features.size(); At += H.Features[I++].byteSize())
    if (H.Features[I].Name == "inlining_default" && H.Features[I].byteSize() == 8 &&
        Advice.byteSize() == 8) {
      DefaultAt = At;
      R.Changed = 0;
    }
  if (Extra && !Extra->Specs.empty())
    Available.insert(Available.end(), Extra->Specs.begin(), Extra->Specs.end());
  R.FeatureSetVersion = features::featureSetVersion(C.T, Available);
  llvm::Expected<ModelRunner> MR =
      ModelRunner::create(std::move(Pending), C.T, Available, Advice, C.Bind);
  if (!MR)
    return llvm::toString(MR.takeError());
  R.Ignored = MR->ignored();
  R.ZeroFilled = MR->zeroFilled();
  Runner.emplace(std::move(*MR));
  R.SessionLog.Header.Features = Available;
  R.SessionLog.Header.Features.push_back(Advice);
  // Scores come from remarks read after the compiler exits: such a log is written whole.
  if (C.LogStream && !C.Costs)
    Writer.emplace(*C.LogStream, R.SessionLog.Header);
  if (Extra && Extra->Bytes)
    ExtraBytes = Extra->Bytes("");
  return "";
}

void Session::onContext(const std::string &Context) {
  if (Writer)
    Writer->switchContext(Context);
  R.SessionLog.Contexts.push_back(Context);
  R.SessionLog.ContextAt.push_back(R.SessionLog.Observations.size());
  if (Extra && Extra->Bytes)
    ExtraBytes = Extra->Bytes(Context);
}

std::string Session::onObservation(const features::LogEvent &E) {
  Row.assign(E.Payload.data(), E.Payload.size());
  Row += ExtraBytes;
  llvm::Expected<std::string> A = Runner->evaluate(Row);
  if (!A)
    return llvm::toString(A.takeError());
  if (llvm::Error Err = writeAll(Dir.InFd, *A, Compiler, Until, C.CancelFd))
    return llvm::toString(std::move(Err));
  ++R.Observations;
  if (DefaultAt && *DefaultAt + 8 <= E.Payload.size() && A->size() == 8)
    R.Changed += std::memcmp(E.Payload.data() + *DefaultAt, A->data(), 8) != 0;
  if (Writer) {
    if (llvm::Error Err = Writer->observation(Row + *A))
      return llvm::toString(std::move(Err));
  } else
    R.SessionLog.Observations.push_back({E.Context, E.Id, Row + *A, std::nullopt});
  return "";
}

bool Session::onStreamReadable() {
  std::string Err = drain();
  if (Err.empty())
    Err = answerAll(/*CompilerAlive=*/true);
  if (Err.empty())
    return true;
  // Answering can stop on the deadline or a cancellation (writeAll): say which.
  fail(support::cancelled(C.CancelFd) ? SessionResult::Cancelled
       : Until.expired()              ? SessionResult::TimedOut
                                      : SessionResult::HostError,
       std::move(Err));
  return false;
}

void Session::onCompilerExit() {
  R.Status = Compiler.reap();
  Guard.released();
  finish();
}

void Session::onTimeout() {
  fail(SessionResult::TimedOut, "the compiler did not finish within " +
                                    llvm::formatv("{0}", C.TimeoutSeconds).str() + " s and was killed");
}

void Session::onCancel() { fail(SessionResult::Cancelled, "interrupted: the compiler was stopped"); }

void Session::onPollError(int Errno) { fail(SessionResult::HostError, std::string("poll: ") + strerror(Errno)); }

/// After the compiler's exit: what it left in the stream, how the stream ended, and with
/// SessionConfig::Costs the log's scores.
void Session::finish() {
  std::string DrainErr = drain();
  std::string Err = DrainErr.empty() ? answerAll(/*CompilerAlive=*/false) : DrainErr;
  if (Err.empty() && R.ChannelOpened)
    if (llvm::Error E = Parser.finish())
      Err = llvm::toString(std::move(E));
  if (!Err.empty()) {
    // A compiler that failed may stop mid-record; its status is the news, not the stream.
    if (R.Status.Signaled || R.Status.Code)
      R.Error = "the compiler stream ended early: " + Err;
    else {
      R.Outcome = SessionResult::HostError, R.Error = Err;
      removeOutput();
    }
  }
  if (C.Costs && R.clean())
    scoreAndWriteLog();
}

/// With SessionConfig::Costs, the session log is written whole after the compiler's exit,
/// scored from the allocator's remarks when the compiler succeeded.
void Session::scoreAndWriteLog() {
  // A compiler that failed leaves its remarks incomplete: its log has no scores.
  if (R.Status.shellStatus() == 0) {
    // LLVM's tools create the file even when nothing is reported: none means that this
    // compiler compiled nothing (a link step) or ignored the flags.
    std::vector<features::FunctionRegalloc> All;
    for (const std::string &File : RemarkFiles) {
      if (!llvm::sys::fs::exists(File)) {
        R.Warnings.push_back("the compiler wrote no register allocation remarks (" + File +
                             ": it compiled nothing, or is not LLVM 22's llc, opt or "
                             "clang): cost 0 counted");
        continue;
      }
      llvm::Expected<std::vector<features::FunctionRegalloc>> Fs = C.ReadRemarks(File);
      if (!Fs) {
        R.Outcome = SessionResult::HostError, R.Error = llvm::toString(Fs.takeError());
        return;
      }
      All.insert(All.end(), Fs->begin(), Fs->end());
    }
    scoreLog(R.SessionLog, All, *C.Costs);
    R.Regalloc = std::move(All);
  }
  if (C.LogStream && R.ChannelOpened)
    if (llvm::Error E = features::writeLog(*C.LogStream, R.SessionLog))
      R.Outcome = SessionResult::HostError, R.Error = llvm::toString(std::move(E));
}

} // namespace

llvm::Expected<SessionResult> runSession(const SessionConfig &C) {
  if (C.Command.empty())
    return support::usageError("no compiler command given (after --)");
  // The compiler's own advisor (policy default of a register-allocation task): no channel.
  const bool Own = compilerDecides(C.T, C.Policy.Name) && !C.MakePolicy;
  llvm::Expected<std::unique_ptr<Policy>> P =
      C.MakePolicy ? C.MakePolicy()
      : Own        ? std::unique_ptr<Policy>()
                   : makePolicy(C.T, C.Policy);
  if (!P)
    return P.takeError();
  // Declared first, so that it goes last: it stays until the host has cleaned up itself.
  std::optional<support::Guardian> Guard;
  llvm::Expected<std::unique_ptr<Channel>> Dir = Channel::create();
  if (!Dir)
    return Dir.takeError();
  // The compiler's -o as it was before (only what the compiler wrote there is ever removed),
  // then the guardian, which cleans up should the host be killed.
  const support::FileMark OutputMark = support::FileMark::take(compilerOutputPath(C.Command));
  {
    llvm::Expected<support::Guardian> G =
        support::Guardian::start({(*Dir)->Dir.path()}, C.HostTemporaries, OutputMark);
    if (!G)
      return G.takeError();
    Guard.emplace(std::move(*G));
  }

  std::optional<features::Augmentation> Extra;
  if (C.Augment) {
    llvm::Expected<features::Augmentation> A = C.Augment((*Dir)->Dir.path(), C.Command);
    if (!A)
      return A.takeError();
    Extra = std::move(*A);
  }

  const support::Deadline Until(C.TimeoutSeconds);
  std::vector<std::string> Cmd =
      sessionCommand(C, (*Dir)->Base, Extra ? Extra->CompilerFlags : std::vector<std::string>());
  // The allocator's remarks: where the user's command writes its own remark file, read from it
  // (the user keeps the file asked for); else from a file of the session's.
  std::vector<std::string> RemarkFiles;
  if (C.Costs) {
    if (C.T == Task::Inline)
      return support::usageError("rewards from the register allocator's remarks are for --task "
                                 "evict or priority");
    if (!C.ReadRemarks)
      return support::makeError("this program cannot read the register allocator's remarks");
    auto Own = userRemarkFiles(Cmd, C.Clang, (*Dir)->Dir.file("driver-commands.txt"));
    if (!Own)
      return Own.takeError();
    RemarkFiles = std::move(*Own);
    if (RemarkFiles.empty()) {
      RemarkFiles.push_back((*Dir)->Dir.file("regalloc.yaml"));
      for (std::string &F : regallocRemarkFlags(Cmd, C.Clang, RemarkFiles.front()))
        Cmd.push_back(std::move(F));
    }
  }
  llvm::Expected<support::Child> Ch = support::Child::spawn(Cmd, C.StdoutFd, C.StderrFd);
  if (!Ch)
    return Ch.takeError();
  Guard->watch(Ch->pid());

  Session S(C, **Dir, *Guard, OutputMark, Extra, Until, *Ch, std::move(*P), std::move(RemarkFiles));
  while (true) {
    const int Timeout = Until.pollTimeout();
    if (Timeout == 0) {
      S.onTimeout();
      break;
    }
    pollfd PF[3] = {{S.streamEnded() ? -1 : (*Dir)->OutFd, POLLIN, 0},
                    {Ch->pidFd(), POLLIN, 0},
                    {C.CancelFd, POLLIN, 0}};
    if (::poll(PF, C.CancelFd >= 0 ? 3 : 2, Timeout) < 0) {
      if (errno == EINTR)
        continue;
      S.onPollError(errno);
      break;
    }
    if (C.CancelFd >= 0 && PF[2].revents) {
      S.onCancel();
      break;
    }
    if (PF[0].revents && !S.onStreamReadable())
      break;
    if (PF[1].revents) {
      S.onCompilerExit();
      break;
    }
  }
  return S.result();
}

} // namespace wb::runners
