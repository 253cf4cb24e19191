#include "support/Isolate.h"

#include "support/Error.h"
#include "support/Interrupts.h"
#include "support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cerrno>
#include <fcntl.h>
#include <cstring>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace wb::support {

namespace {

void writeAllFd(int Fd, const std::string &S) {
  size_t Done = 0;
  while (Done < S.size()) {
    ssize_t N = ::write(Fd, S.data() + Done, S.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return;
    Done += size_t(N);
  }
}

} // namespace

namespace {
// Process-wide by nature: a fork copies the whole process, its locks included.
std::shared_mutex &forkLock() {
  static std::shared_mutex M;
  return M;
}
// Set in an isolated child only (its copy of the lock is taken by a thread it does not have;
// glibc's rwlock cannot be released from another thread id).
bool InIsolatedChild = false;
} // namespace

ForkGuard::ForkGuard() {
  if (!InIsolatedChild)
    L = std::shared_lock<std::shared_mutex>(forkLock());
}

double isolatedSecondsForFile(llvm::StringRef File) {
  uint64_t Size = 0;
  if (llvm::sys::fs::file_size(File, Size))
    Size = 0;
  return isolatedSecondsFor(Size);
}

llvm::Expected<std::string> runIsolated(llvm::StringRef File, double Seconds,
                                        llvm::function_ref<llvm::Expected<std::string>()> Work) {
  int P[2];
  if (::pipe2(P, O_CLOEXEC) != 0)
    return fileError(File, llvm::Twine("cannot isolate the read: pipe: ") + strerror(errno));
  const pid_t Parent = ::getpid();
  // No other thread inside HDF5 while the process is copied.
  forkLock().lock();
  const pid_t Pid = ::fork();
  if (Pid != 0)
    forkLock().unlock();
  else
    InIsolatedChild = true;
  if (Pid < 0) {
    ::close(P[0]);
    ::close(P[1]);
    return fileError(File, llvm::Twine("cannot isolate the read: fork: ") + strerror(errno));
  }
  if (Pid == 0) {
    ::close(P[0]);
    // A crash here must be the child's plain death: LLVM's handlers (inherited) would print a
    // bug-report banner and remove the parent's pending output files.
    for (int Sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS})
      ::signal(Sig, SIG_DFL);
    // A Ctrl-C to the process group ends the child too, and so does the parent's end (its
    // interrupt watcher ends it by the signal; the forking thread waits here until we exit).
    restoreInterruptsInChild();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != Parent)
      ::_exit(1); // the parent is gone already
    // 'O' + the bytes, or 'E' + the message; _exit: no atexit handlers, no destructors of the
    // parent's state run twice.
    llvm::Expected<std::string> R = Work();
    writeAllFd(P[1], R ? "O" + *R : "E" + llvm::toString(R.takeError()));
    ::_exit(0);
  }
  ::close(P[1]);
  std::string Got;
  Deadline Until(Seconds);
  bool TimedOut = false;
  char Buf[1 << 16];
  while (true) {
    pollfd F{P[0], POLLIN, 0};
    const int N = ::poll(&F, 1, Until.pollTimeout());
    if (N == 0) {
      TimedOut = true;
      break;
    }
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      break;
    const ssize_t R = ::read(P[0], Buf, sizeof Buf);
    if (R < 0 && errno == EINTR)
      continue;
    if (R <= 0)
      break;
    Got.append(Buf, size_t(R));
  }
  ::close(P[0]);
  if (TimedOut)
    ::kill(Pid, SIGKILL);
  int WS = 0;
  while (::waitpid(Pid, &WS, 0) < 0 && errno == EINTR) {
  }
  if (TimedOut)
    return fileError(File, llvm::formatv("reading it did not finish within {0} s (the file is "
                                         "damaged or crafted; the HDF5 library loops on it)",
                                         Seconds)
                               .str());
  if (WIFSIGNALED(WS))
    return fileError(File, llvm::Twine("reading it crashed the HDF5 library (signal ") +
                               llvm::Twine(WTERMSIG(WS)) + ", " + strsignal(WTERMSIG(WS)) +
                               "): the file is damaged or crafted");
  if (!WIFEXITED(WS) || WEXITSTATUS(WS) != 0 || Got.empty())
    return fileError(File, "reading it failed in the HDF5 library (exit status " +
                               llvm::Twine(WIFEXITED(WS) ? WEXITSTATUS(WS) : -1) +
                               "): the file is damaged or crafted");
  if (Got[0] == 'E')
    return makeError(Got.substr(1));
  return Got.substr(1);
}

llvm::Error checkIsolated(llvm::StringRef File, double Seconds,
                          llvm::function_ref<llvm::Error()> Check) {
  auto R = runIsolated(File, Seconds, [&]() -> llvm::Expected<std::string> {
    if (llvm::Error E = Check())
      return E;
    return std::string();
  });
  return R ? llvm::Error::success() : R.takeError();
}

void putU64(std::string &Out, uint64_t V) {
  for (int I = 0; I < 8; ++I)
    Out.push_back(char(V >> (8 * I)));
}

void putString(std::string &Out, llvm::StringRef S) {
  putU64(Out, S.size());
  Out.append(S.data(), S.size());
}

void putDoubles(std::string &Out, const std::vector<double> &V) {
  putU64(Out, V.size());
  Out.append(reinterpret_cast<const char *>(V.data()), V.size() * sizeof(double));
}

bool getU64(llvm::StringRef &In, uint64_t &V) {
  if (In.size() < 8)
    return false;
  V = 0;
  for (int I = 0; I < 8; ++I)
    V |= uint64_t(uint8_t(In[I])) << (8 * I);
  In = In.drop_front(8);
  return true;
}

bool getString(llvm::StringRef &In, std::string &S) {
  uint64_t N;
  if (!getU64(In, N) || In.size() < N)
    return false;
  S = In.take_front(N).str();
  In = In.drop_front(N);
  return true;
}

bool getDoubles(llvm::StringRef &In, std::vector<double> &V) {
  uint64_t N;
  if (!getU64(In, N) || In.size() / sizeof(double) < N)
    return false;
  V.resize(N);
  if (N)
    std::memcpy(V.data(), In.data(), N * sizeof(double));
  In = In.drop_front(N * sizeof(double));
  return true;
}

} // namespace wb::support
