#include "corpus/Batch.h"
#include "corpus/ModuleReader.h"
#include "support/Files.h"

#include "llvm/IR/Module.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#include <mutex>

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

void ContextSource::abandon() {
  (void)Ctx.release();
  Uses = 0;
}

namespace {

// report_fatal_error's reason, for the module's message: LLVM hands it to one process-wide
// handler, which leaves for the recovery point of the thread that failed.
thread_local std::string FatalReason;

// Stack overflows. LLVM's parsers recurse once per level of nesting (a constant expression
// 8,000 deep overflows the 8 MiB stack of a thread; opt-22 dies the same way). The fault
// happens on the guard page below the stack, where no handler can run: recovery needs the
// handler on an alternate stack (sigaltstack, one per thread that runs recoverable work, and
// SA_ONSTACK on the recovery context's handler). Plain thread-locals only (no constructor):
// the handler reads them.
thread_local uintptr_t StackLow = 0;     // the lowest address of this thread's stack
thread_local bool StackOverflowed = false;
constexpr size_t AltStackSize = 128 * 1024; // LLVM's handlers print a stack trace on it too
struct sigaction RecoveryHandler[2];        // the recovery context's own, for SIGSEGV, SIGBUS

/// This thread's alternate signal stack (made once; the thread's end removes it).
struct AltStack {
  void *Mem = nullptr;
  AltStack() {
    stack_t Old;
    if (::sigaltstack(nullptr, &Old) == 0 && !(Old.ss_flags & SS_DISABLE)) {
      // The thread has one already (Python's faulthandler makes one): it serves.
    } else if ((Mem = ::mmap(nullptr, AltStackSize, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) != MAP_FAILED) {
      stack_t S{Mem, 0, AltStackSize};
      ::sigaltstack(&S, nullptr);
    } else {
      Mem = nullptr;
    }
    pthread_attr_t A;
    if (::pthread_getattr_np(::pthread_self(), &A) == 0) {
      void *Addr = nullptr;
      size_t Size = 0;
      if (::pthread_attr_getstack(&A, &Addr, &Size) == 0)
        StackLow = reinterpret_cast<uintptr_t>(Addr);
      ::pthread_attr_destroy(&A);
    }
  }
  ~AltStack() {
    if (!Mem)
      return;
    stack_t Off{nullptr, SS_DISABLE, 0};
    ::sigaltstack(&Off, nullptr);
    ::munmap(Mem, AltStackSize);
  }
};
thread_local AltStack *TheAltStack = nullptr;

/// Notes whether the fault is on the guard area below this thread's stack, then hands the
/// signal to the recovery context's handler (which leaves for the recovery point).
void overflowAwareHandler(int Sig, siginfo_t *Info, void *Ctx) {
  const uintptr_t At = reinterpret_cast<uintptr_t>(Info->si_addr);
  if (StackLow && At < StackLow + 4096 && At + (1u << 20) >= StackLow)
    StackOverflowed = true;
  const struct sigaction &H = RecoveryHandler[Sig == SIGSEGV ? 0 : 1];
  if (H.sa_flags & SA_SIGINFO)
    H.sa_sigaction(Sig, Info, Ctx);
  else if (H.sa_handler != SIG_DFL && H.sa_handler != SIG_IGN)
    H.sa_handler(Sig);
  else {
    ::signal(Sig, SIG_DFL);
    ::raise(Sig);
  }
}

void enableRecovery() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::CrashRecoveryContext::Enable();
    // The recovery context's handlers for the faults of a stack overflow, moved onto the
    // alternate stack behind one that recognises the overflow.
    for (int I = 0; I < 2; ++I) {
      const int Sig = I == 0 ? SIGSEGV : SIGBUS;
      ::sigaction(Sig, nullptr, &RecoveryHandler[I]);
      struct sigaction Mine = RecoveryHandler[I];
      Mine.sa_sigaction = overflowAwareHandler;
      Mine.sa_flags = (Mine.sa_flags | SA_SIGINFO | SA_ONSTACK) & ~SA_RESETHAND;
      ::sigaction(Sig, &Mine, nullptr);
    }
    // Without this handler report_fatal_error would first run LLVM's interrupt handlers,
    // which remove every file registered for removal on a signal: our pending outputs.
    llvm::install_fatal_error_handler([](void *, const char *Reason, bool) {
      if (llvm::CrashRecoveryContext *C = llvm::CrashRecoveryContext::GetCurrent()) {
        FatalReason = Reason;
        C->HandleExit(1);
      }
      // Outside a recovery point: what LLVM's own handler would print, then LLVM exits.
      llvm::errs() << "LLVM ERROR: " << Reason << "\n";
    });
  });
}

} // namespace

std::optional<std::string> runRecoverable(llvm::function_ref<void()> Work) {
  enableRecovery();
  if (!TheAltStack) {
    static thread_local AltStack Mine; // made on this thread's first recoverable work
    TheAltStack = &Mine;
  }
  FatalReason.clear();
  StackOverflowed = false;
  llvm::CrashRecoveryContext CRC;
  if (CRC.RunSafely(Work))
    return std::nullopt;
  if (StackOverflowed && CRC.RetCode == 128 + SIGSEGV)
    return std::string("LLVM ran out of stack on it (nested too deeply for LLVM's recursive "
                       "parser; opt-22 dies on such modules); skipped");
  // Signals come back as 128 + the signal number, report_fatal_error as 1.
  if (CRC.RetCode > 128) {
    const int Sig = CRC.RetCode - 128;
    return "LLVM crashed on it (signal " + std::to_string(Sig) + ", " + strsignal(Sig) +
           "); skipped";
  }
  return "LLVM stopped with a fatal error" +
         (FatalReason.empty() ? std::string() : ": " + FatalReason) + "; skipped";
}

struct TimeLimit::Slot {
  pthread_t Thread;
  std::chrono::steady_clock::time_point Start;
  enum { Running, Done, Stopped } State = Running;
};

TimeLimit::TimeLimit(double Seconds) : Seconds(Seconds) {
  if (Seconds > 0)
    Watcher = std::thread([this] { watch(); });
}

TimeLimit::~TimeLimit() {
  if (!Watcher.joinable())
    return;
  {
    std::lock_guard<std::mutex> L(Mu);
    Stop = true;
  }
  CV.notify_all();
  Watcher.join();
}

void TimeLimit::watch() {
  const auto Limit = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(Seconds));
  std::unique_lock<std::mutex> L(Mu);
  while (!CV.wait_for(L, std::chrono::milliseconds(100), [&] { return Stop; })) {
    const auto Now = std::chrono::steady_clock::now();
    for (Slot *S : Running)
      if (S->State == Slot::Running && Now - S->Start > Limit) {
        // Under the lock: the worker cannot have left its recovery context (it marks itself
        // done under this lock, still inside the context, and waits for the signal when it
        // finds itself stopped).
        S->State = Slot::Stopped;
        pthread_kill(S->Thread, SIGABRT);
      }
  }
}

std::optional<std::string> TimeLimit::run(llvm::function_ref<void()> Work) {
  if (Seconds <= 0)
    return runRecoverable(Work);
  Slot S{pthread_self(), std::chrono::steady_clock::now()};
  {
    std::lock_guard<std::mutex> L(Mu);
    Running.push_back(&S);
  }
  std::optional<std::string> Crash = runRecoverable([&] {
    Work();
    // The signal must not arrive while this thread holds the lock (it would leave with it):
    // blocked until the state is settled.
    sigset_t Abort, Old;
    sigemptyset(&Abort);
    sigaddset(&Abort, SIGABRT);
    pthread_sigmask(SIG_BLOCK, &Abort, &Old);
    std::unique_lock<std::mutex> L(Mu);
    const bool Stopped = S.State == Slot::Stopped;
    if (!Stopped)
      S.State = Slot::Done; // from now on the watchdog leaves this thread alone
    L.unlock();
    pthread_sigmask(SIG_SETMASK, &Old, nullptr);
    while (Stopped)
      ::pause(); // the watchdog's signal is pending or on its way; it leaves this context
  });
  {
    std::lock_guard<std::mutex> L(Mu);
    llvm::erase(Running, &S);
  }
  if (S.State == Slot::Stopped)
    return llvm::formatv("LLVM did not finish with it within {0} s (a module too large for "
                         "the limit, or a malformed one LLVM loops on); stopped and skipped",
                         Seconds)
        .str();
  return Crash;
}

llvm::Expected<ModuleInput> readModuleRecoverable(llvm::StringRef Path,
                                                  std::unique_ptr<llvm::LLVMContext> &Ctx,
                                                  double Seconds) {
  std::optional<llvm::Expected<ModuleInput>> In;
  TimeLimit Limit(Seconds);
  if (std::optional<std::string> Crash = Limit.run([&] { In.emplace(readModule(Path, *Ctx)); })) {
    if (In && !*In)
      llvm::consumeError(In->takeError());
    In.reset();
    (void)Ctx.release(); // abandoned on purpose
    Ctx = std::make_unique<llvm::LLVMContext>();
    return support::makeError(Path + ": " + *Crash);
  }
  return std::move(*In);
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

void encode(const ModuleText &T, support::WireWriter &W) {
  W.bytes(T.Error);
  W.strings(T.Warnings);
  W.bytes(T.Text);
}

void decode(support::WireReader &In, ModuleText &T) {
  T.Error = In.bytes();
  T.Warnings = In.strings();
  T.Text = In.bytes();
}

size_t defaultWindow(unsigned Jobs) { return 4 * static_cast<size_t>(std::max(1u, Jobs)) + 4; }

bool reportModule(const BatchIO &IO, support::Progress &P, std::vector<std::string> &Warnings,
                  const std::string &Error) {
  if (!Warnings.empty() || !Error.empty())
    P.clear();
  for (std::string &W : Warnings)
    IO.Run.Report({support::Diagnostic::Warning, std::move(W)});
  if (Error.empty())
    return false;
  IO.Run.Report({support::Diagnostic::Error, Error});
  return true;
}

llvm::Expected<BatchSummary>
runTextBatch(const std::vector<std::string> &Inputs, llvm::raw_ostream &OS, const BatchIO &IO,
             ContextPolicy Policy,
             const std::function<ModuleText(const std::string &Path, llvm::LLVMContext &)> &Work,
             ModuleHeaders When) {
  BatchSummary S;
  support::Progress P("modules", Inputs.size(), IO.Run.ShowProgress);
  const bool Headers = Inputs.size() > 1 || When == ModuleHeaders::Always;
  llvm::Error E = runModules<ModuleText>(
      IO, Policy, Inputs, 0,
      [&](size_t I, llvm::LLVMContext &Ctx) { return Work(Inputs[I], Ctx); },
      [&](size_t I, ModuleText &&R) {
        ++S.Modules;
        if (reportModule(IO, P, R.Warnings, R.Error)) {
          ++S.Failed;
        } else {
          if (Headers)
            OS << "Module: " << Inputs[I] << "\n";
          OS << R.Text;
          // A reader that went away (`| head`) ends the run now, not after the corpus. (Other
          // write errors are reported, with the file, when the output is committed.)
          if (OS.get_kind() == llvm::raw_ostream::OStreamKind::OK_FDStream) {
            auto &FD = static_cast<llvm::raw_fd_ostream &>(OS);
            if (FD.has_error() && FD.error() == std::errc::broken_pipe)
              support::endByBrokenPipe();
          }
        }
        P.update(S.Modules);
        return llvm::Error::success();
      });
  if (E)
    return E;
  return S;
}

} // namespace wb::corpus
