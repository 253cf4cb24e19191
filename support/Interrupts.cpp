#include "support/Interrupts.h"

#include "support/Error.h"
#include "support/Files.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace wb::support {

namespace {

constexpr int InterruptSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The dispositions the process was started with, read before main runs (a static
// initialiser): InitLLVM then installs LLVM's handlers over them. Written once, then only read.
struct StartDispositions {
  sigset_t Ignored;
  StartDispositions() {
    sigemptyset(&Ignored);
    for (int Sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) {
      struct sigaction A;
      if (::sigaction(Sig, nullptr, &A) == 0 && A.sa_handler == SIG_IGN)
        sigaddset(&Ignored, Sig);
    }
  }
};
const StartDispositions AtStart;

// A program started with standard input, output or error closed (`2>&-`) would get those
// numbers for the first files it opens, and diagnostics written to "stderr" would land in an
// output file (an HDF5 file made unreadable by a warning). They are opened on /dev/null
// before anything else runs. Standard input and output in the direction that makes their use
// fail as it would have (EBADF: a closed stdout still gives a write error); standard error for
// writing, so that diagnostics vanish as with 2>/dev/null instead of failing the run (and a
// compiler the host starts inherits a usable one).
__attribute__((constructor(101))) void keepStandardDescriptors() {
  for (int Fd = 0; Fd <= 2; ++Fd)
    if (::fcntl(Fd, F_GETFD) < 0 && errno == EBADF) {
      const int Opened = ::open("/dev/null", Fd == 1 ? O_RDONLY : O_WRONLY);
      if (Opened >= 0 && Opened != Fd) {
        ::dup2(Opened, Fd);
        ::close(Opened);
      }
    }
}

/// The interrupt signals the watcher takes: those not ignored at start.
sigset_t interruptSet() {
  sigset_t S;
  sigemptyset(&S);
  for (int Sig : InterruptSignals)
    if (!ignoredAtStart(Sig))
      sigaddset(&S, Sig);
  return S;
}

struct Watch {
  std::mutex M;
  bool Started = false;
  std::vector<int> Subscribers; // eventfds of runs that stop by themselves
  bool HandedOver = false;      // an interrupt went to the subscribers: the run is stopping
};

// Never destroyed: the watcher may still wait while static destructors run at exit.
Watch &watch() {
  static Watch *W = new Watch;
  return *W;
}

void notify(int Fd) {
  const uint64_t One = 1;
  // Cannot fail but by overflow after 2^64 - 2 signals; the descriptor is readable anyway.
  [[maybe_unused]] ssize_t N = ::write(Fd, &One, sizeof One);
}

void watchLoop() {
  const sigset_t S = interruptSet();
  if (sigisemptyset(&S))
    return; // every interrupt was ignored at start: nothing to wait for
  while (true) {
    const int Sig = ::sigwaitinfo(&S, nullptr);
    if (Sig < 0)
      continue; // EINTR (a stop/continue): wait again
    Watch &W = watch();
    std::unique_lock<std::mutex> L(W.M);
    if (W.HandedOver)
      continue;
    if (W.Subscribers.empty())
      endBySignal(Sig); // with the lock held: no run subscribes while the process ends
    W.HandedOver = true;
    for (int Fd : W.Subscribers)
      notify(Fd);
  }
}

// With W.M held.
llvm::Error startLocked(Watch &W) {
  if (W.Started)
    return llvm::Error::success();
  ::signal(SIGPIPE, SIG_IGN);
  // Ignored at start (nohup, a background job): ignored again, over LLVM's handlers, and never
  // waited for.
  for (int Sig : InterruptSignals)
    if (ignoredAtStart(Sig))
      ::signal(Sig, SIG_IGN);
  const sigset_t S = interruptSet();
  if (int E = ::pthread_sigmask(SIG_BLOCK, &S, nullptr))
    return makeError(llvm::Twine("cannot block the interrupt signals: ") + strerror(E));
  try {
    std::thread(watchLoop).detach();
  } catch (const std::system_error &E) {
    return makeError(llvm::Twine("cannot start the interrupt watcher: ") + E.what());
  }
  W.Started = true;
  return llvm::Error::success();
}

} // namespace

llvm::Error takeInterrupts() {
  Watch &W = watch();
  std::lock_guard<std::mutex> L(W.M);
  return startLocked(W);
}

llvm::Expected<int> cancellationFd() {
  Watch &W = watch();
  std::lock_guard<std::mutex> L(W.M);
  // Without main's call, startLocked blocks the signals in this thread at least (and in the
  // threads it starts: the run's workers), which leave them to the watcher.
  if (llvm::Error E = startLocked(W))
    return E;
  const int Fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (Fd < 0)
    return makeError(llvm::Twine("cannot create the cancellation descriptor: eventfd: ") +
                     strerror(errno));
  W.Subscribers.push_back(Fd);
  if (W.HandedOver)
    notify(Fd); // interrupted already: a run that starts now stops at once
  return Fd;
}

void releaseCancellationFd(int Fd) {
  Watch &W = watch();
  {
    std::lock_guard<std::mutex> L(W.M);
    W.Subscribers.erase(std::remove(W.Subscribers.begin(), W.Subscribers.end(), Fd),
                        W.Subscribers.end());
  }
  ::close(Fd);
}

bool cancelled(int CancelFd) {
  pollfd P{CancelFd, POLLIN, 0};
  return CancelFd >= 0 && ::poll(&P, 1, 0) > 0;
}

bool interruptReceived() {
  Watch &W = watch();
  std::lock_guard<std::mutex> L(W.M);
  return W.HandedOver;
}

bool ignoredAtStart(int Sig) { return sigismember(&AtStart.Ignored, Sig) == 1; }

void restoreInterruptsInChild() {
  for (int Sig : InterruptSignals)
    ::signal(Sig, ignoredAtStart(Sig) ? SIG_IGN : SIG_DFL);
  const sigset_t S = interruptSet();
  ::pthread_sigmask(SIG_UNBLOCK, &S, nullptr);
}

} // namespace wb::support
