#include "runners/InteractiveHost.h"

#include "ir2vec/ModuleEmbedding.h"
#include "vocab/IO.h"
#include "vocab/VocabularyFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wb::runners {

/// Removes a flat directory and its entries. (llvm::sys::fs::remove refuses FIFOs.)
void removeTree(const std::string &Dir) {
  std::error_code EC;
  std::vector<std::string> Entries;
  for (llvm::sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC; I.increment(EC))
    Entries.push_back(I->path());
  for (const std::string &P : Entries)
    ::unlink(P.c_str());
  ::rmdir(Dir.c_str());
}

namespace {

llvm::Error hostError(const llvm::Twine &What) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), What);
}

/// The session's private directory with the two FIFOs; removed with everything in it.
class ChannelDir {
public:
  static llvm::Expected<std::unique_ptr<ChannelDir>> create() {
    auto D = std::unique_ptr<ChannelDir>(new ChannelDir);
    llvm::SmallString<128> Path;
    if (std::error_code EC = llvm::sys::fs::createUniqueDirectory("ir2vec-mlgo", Path))
      return hostError("cannot create a temporary directory: " + EC.message());
    D->Dir = Path.str().str();
    D->Base = D->Dir + "/channel";
    for (const char *Suffix : {".in", ".out"}) {
      std::string P = D->Base + Suffix;
      if (::mkfifo(P.c_str(), 0600) != 0)
        return hostError("mkfifo " + P + ": " + strerror(errno));
      // O_RDWR: never blocks, whatever the compiler does (see the header).
      int FD = ::open(P.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
      if (FD < 0)
        return hostError("open " + P + ": " + strerror(errno));
      (Suffix[1] == 'i' ? D->InFd : D->OutFd) = FD;
    }
    return D;
  }
  ~ChannelDir() {
    for (int FD : {InFd, OutFd})
      if (FD >= 0)
        ::close(FD);
    removeTree(Dir);
  }
  std::string file(llvm::StringRef Name) const { return Dir + "/" + Name.str(); }

  std::string Dir, Base;
  int InFd = -1, OutFd = -1;
};

bool isClang(llvm::StringRef Argv0) {
  return llvm::sys::path::filename(Argv0).starts_with("clang");
}

/// The IR input among the compiler's arguments: the first existing .bc or .ll that is not
/// an option's value (-o FILE is the output, and may exist from an earlier run).
std::string findModule(const std::vector<std::string> &Command) {
  for (size_t I = 1; I < Command.size(); ++I) {
    llvm::StringRef A = Command[I], Prev = Command[I - 1];
    if (Prev == "-o" || A.starts_with("-"))
      continue;
    if ((A.ends_with(".bc") || A.ends_with(".ll")) && llvm::sys::fs::exists(A))
      return A.str();
  }
  return "";
}

/// Writes all bytes to the non-blocking FIFO (normally they fit in the pipe at once).
llvm::Error writeAll(int FD, llvm::StringRef Bytes, const Child &C) {
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
      return hostError(llvm::Twine("writing the advice: ") + strerror(errno));
    // The pipe is full: the compiler is not reading (a desync). Wait for room or its exit.
    pollfd P[2] = {{FD, POLLOUT, 0}, {C.pidFd(), POLLIN, 0}};
    ::poll(P, 2, 1000);
    if (P[1].revents)
      return hostError("the compiler exited while the host was answering");
  }
  return llvm::Error::success();
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

llvm::Expected<Augmentation> workbenchFeatures(Task T, llvm::StringRef ModulePath,
                                               llvm::StringRef VocabPath) {
  llvm::Expected<vocab::LoadedVocabulary> V = vocab::readVocabularyFile(VocabPath, {});
  if (!V)
    return V.takeError();
  llvm::LLVMContext Ctx;
  llvm::Expected<vocab::ModuleInput> M = vocab::readModule(ModulePath, Ctx);
  if (!M)
    return M.takeError();
  ir2vec::EmbedRequest R;
  R.InstructionText = false;
  ir2vec::ModuleEmbedding E = ir2vec::embedModule(*M->M, V->Vocab, R);
  const unsigned D = E.Dim;
  Augmentation A;
  for (const features::FeatureDef &F : features::taskInfo(T).Features)
    if (F.From == features::Origin::Workbench)
      A.Specs.push_back(features::specOf(F, D));
  auto ToBytes = [](const double *Row, unsigned D) {
    std::string S(D * sizeof(float), '\0');
    for (unsigned I = 0; I < D; ++I) {
      float F = static_cast<float>(Row[I]); // as LLVM narrows its embeddings for the tensors
      std::memcpy(S.data() + I * sizeof(float), &F, sizeof(float));
    }
    return S;
  };
  switch (T) {
  case Task::Inline: {
    std::vector<double> Sum(D, 0.0);
    for (size_t F = 0; F < E.FunctionNames.size(); ++F)
      for (unsigned I = 0; I < D; ++I)
        Sum[I] += E.FunctionVectors[F * D + I];
    std::string Bytes = ToBytes(Sum.data(), D);
    A.Bytes = [Bytes](llvm::StringRef) { return Bytes; };
    break;
  }
  case Task::Evict: {
    auto ByName = std::make_shared<llvm::StringMap<std::string>>();
    for (size_t F = 0; F < E.FunctionNames.size(); ++F)
      (*ByName)[E.FunctionNames[F]] = ToBytes(&E.FunctionVectors[F * D], D);
    std::string Zero(D * sizeof(float), '\0');
    A.Bytes = [ByName, Zero](llvm::StringRef Ctx) {
      auto It = ByName->find(Ctx);
      return It == ByName->end() ? Zero : It->second;
    };
    break;
  }
  case Task::Priority:
    A.Bytes = [](llvm::StringRef) { return std::string(); };
    break;
  }
  return A;
}

std::vector<std::string> sessionCommand(const SessionConfig &C, llvm::StringRef ChannelBase,
                                        llvm::StringRef VocabFile) {
  const features::TaskInfo &TI = features::taskInfo(C.T);
  std::vector<std::string> Flags = {TI.EnableFlag, std::string(TI.ChannelFlag) + ChannelBase.str()};
  if (C.T == Task::Inline) {
    Flags.push_back("-inliner-interactive-include-default");
    if (C.Embeddings) {
      // LLVM 22 needs both: the first only switches the features on, the second is read.
      Flags.push_back("-ml-inliner-ir2vec-vocab-file=" + VocabFile.str());
      Flags.push_back("-ir2vec-vocab-path=" + VocabFile.str());
    }
  }
  Flags.insert(Flags.end(), C.ExtraFlags.begin(), C.ExtraFlags.end());
  std::vector<std::string> Cmd = C.Command;
  bool Clang = !Cmd.empty() && isClang(Cmd[0]);
  for (const std::string &F : Flags) {
    if (Clang)
      Cmd.push_back("-mllvm");
    Cmd.push_back(F);
  }
  return Cmd;
}

llvm::Expected<SessionResult> runSession(const SessionConfig &C) {
  if (C.Command.empty())
    return hostError("no compiler command given (after --)");
  llvm::Expected<std::unique_ptr<Policy>> P = makePolicy(C.T, C.Policy);
  if (!P)
    return P.takeError();
  llvm::Expected<std::unique_ptr<ChannelDir>> Dir = ChannelDir::create();
  if (!Dir)
    return Dir.takeError();

  // Embedding augmentation: the compiler's own features need a JSON vocabulary file; the
  // workbench's features are computed here, before the compiler runs.
  std::string VocabFile;
  std::optional<Augmentation> Extra;
  if (C.Embeddings) {
    const std::string &V = *C.Embeddings;
    if (C.T == Task::Inline) {
      if (V.empty()) {
        VocabFile = (*Dir)->file("vocabulary.json");
        if (llvm::Error E = vocab::writeFileAtomically(
                VocabFile, [](llvm::raw_ostream &OS) { OS << vocab::defaultVocabularyJSON(); }))
          return E;
      } else {
        llvm::Expected<vocab::EntityVectors> EV = vocab::readEntityVectors(V);
        if (!EV)
          return EV.takeError();
        VocabFile = V;
        if (!llvm::StringRef(V).ends_with(".json")) { // HDF5: the compiler reads JSON only
          VocabFile = (*Dir)->file("vocabulary.json");
          if (llvm::Error E = vocab::writeVocabularyJSON(VocabFile, *EV))
            return E;
        }
      }
    }
    std::string Module = C.ModulePath.empty() ? findModule(C.Command) : C.ModulePath;
    if (Module.empty())
      return hostError("--embeddings: no .bc or .ll input found in the compiler command; "
                       "name the IR file with --module");
    llvm::Expected<Augmentation> A = workbenchFeatures(C.T, Module, V);
    if (!A)
      return A.takeError();
    if (!A->Specs.empty())
      Extra = std::move(*A);
  }

  SessionResult R;
  std::vector<std::string> Cmd = sessionCommand(C, (*Dir)->Base, VocabFile);
  llvm::Expected<Child> Ch = Child::spawn(Cmd, C.StdoutFd, C.StderrFd);
  if (!Ch)
    return Ch.takeError();

  features::LogParser Parser("compiler stream");
  std::optional<ModelRunner> Runner;
  std::vector<TensorSpec> Available; // compiler features + workbench extras
  TensorSpec Advice;
  std::string Row; // one observation of the session log
  std::string CurrentContext, ExtraBytes;
  auto Fail = [&](SessionResult::Kind K, std::string Msg) {
    Ch->killGroup();
    R.Status = Ch->reap();
    R.Outcome = K;
    R.Error = std::move(Msg);
  };

  // Parses and answers everything complete in the stream; returns an error message.
  auto Process = [&](bool CompilerAlive) -> std::string {
    while (true) {
      llvm::Expected<std::optional<features::LogEvent>> Ev = Parser.next();
      if (!Ev)
        return llvm::toString(Ev.takeError());
      if (!*Ev)
        return "";
      const features::LogEvent &E = **Ev;
      switch (E.K) {
      case features::LogEvent::Header: {
        const features::LogHeader &H = Parser.header();
        llvm::Expected<std::vector<std::string>> Unknown = features::checkHeader(C.T, H.Features, H.Advice);
        if (!Unknown)
          return llvm::toString(Unknown.takeError());
        R.UnknownFeatures = *Unknown;
        Advice = *H.Advice;
        Available = H.Features;
        if (Extra)
          Available.insert(Available.end(), Extra->Specs.begin(), Extra->Specs.end());
        R.FeatureSetVersion = features::featureSetVersion(C.T, Available);
        llvm::Expected<ModelRunner> MR =
            ModelRunner::create(std::move(*P), C.T, Available, Advice, C.Bind);
        if (!MR)
          return llvm::toString(MR.takeError());
        R.Ignored = MR->ignored();
        R.ZeroFilled = MR->zeroFilled();
        Runner.emplace(std::move(*MR));
        R.SessionLog.Header.Features = Available;
        R.SessionLog.Header.Features.push_back(Advice);
        if (Extra)
          ExtraBytes = Extra->Bytes("");
        break;
      }
      case features::LogEvent::ContextSwitch:
        CurrentContext = E.Context;
        R.SessionLog.Contexts.push_back(E.Context);
        R.SessionLog.ContextAt.push_back(R.SessionLog.Observations.size());
        if (Extra)
          ExtraBytes = Extra->Bytes(E.Context);
        break;
      case features::LogEvent::Observation: {
        if (!CompilerAlive)
          break; // an exited compiler waits for nothing
        Row.assign(E.Payload.data(), E.Payload.size());
        Row += ExtraBytes;
        llvm::Expected<std::string> A = Runner->evaluate(Row);
        if (!A)
          return llvm::toString(A.takeError());
        if (llvm::Error Err = writeAll((*Dir)->InFd, *A, *Ch))
          return llvm::toString(std::move(Err));
        R.SessionLog.Observations.push_back({E.Context, E.Id, Row + *A, std::nullopt});
        break;
      }
      case features::LogEvent::Outcome:
        return "the compiler sent an outcome record; interactive streams have no score";
      }
    }
  };

  auto Deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(C.TimeoutSeconds > 0 ? C.TimeoutSeconds : 0);
  std::vector<char> Buf(1 << 16);
  auto Drain = [&]() -> bool { // reads what is buffered; false on a read error
    while (true) {
      ssize_t N = ::read((*Dir)->OutFd, Buf.data(), Buf.size());
      if (N > 0) {
        R.ChannelOpened = true;
        Parser.feed(llvm::StringRef(Buf.data(), N));
        if (C.KeepTranscript)
          R.Transcript.append(Buf.data(), N);
        continue;
      }
      if (N < 0 && errno == EINTR)
        continue;
      return N < 0 && errno == EAGAIN;
    }
  };

  while (true) {
    int Timeout = -1;
    if (C.TimeoutSeconds > 0) {
      long long Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                           Deadline - std::chrono::steady_clock::now())
                           .count();
      if (Left <= 0) {
        Fail(SessionResult::TimedOut,
             "the compiler did not finish within " + llvm::formatv("{0}", C.TimeoutSeconds).str() +
                 " s and was killed");
        return R;
      }
      Timeout = static_cast<int>(std::min<long long>(Left + 1, 1 << 30));
    }
    pollfd PF[3] = {{(*Dir)->OutFd, POLLIN, 0}, {Ch->pidFd(), POLLIN, 0}, {C.CancelFd, POLLIN, 0}};
    int N = ::poll(PF, C.CancelFd >= 0 ? 3 : 2, Timeout);
    if (N < 0) {
      if (errno == EINTR)
        continue;
      Fail(SessionResult::HostError, std::string("poll: ") + strerror(errno));
      return R;
    }
    if (C.CancelFd >= 0 && PF[2].revents) {
      Fail(SessionResult::Cancelled, "cancelled");
      return R;
    }
    if (PF[0].revents) {
      if (!Drain()) {
        Fail(SessionResult::HostError, std::string("reading the compiler stream: ") + strerror(errno));
        return R;
      }
      std::string Err = Process(true);
      if (!Err.empty()) {
        Fail(SessionResult::HostError, Err);
        return R;
      }
    }
    if (PF[1].revents) {
      R.Status = Ch->reap();
      Drain();
      std::string Err = Process(false);
      if (Err.empty() && R.ChannelOpened)
        if (llvm::Error E = Parser.finish())
          Err = llvm::toString(std::move(E));
      if (!Err.empty()) {
        // A compiler that failed may stop mid-record; its status is the news, not the stream.
        if (R.Status.Signaled || R.Status.Code)
          R.Error = "the compiler stream ended early: " + Err;
        else
          R.Outcome = SessionResult::HostError, R.Error = Err;
      }
      return R;
    }
  }
}

} // namespace wb::runners
