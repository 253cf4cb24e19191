#include "support/Process.h"

#include "support/Error.h"

#include "llvm/Support/Program.h"

#include "llvm/Support/FormatVariadic.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace wb::support {

llvm::Error checkSeconds(double X, const std::string &What) {
  if (std::isfinite(X) && X >= 0)
    return llvm::Error::success();
  return usageError(What + ": '" + llvm::formatv("{0}", X).str() +
                    "' is not a number of seconds (0 or more)");
}

Deadline::Deadline(double Seconds) {
  if (Seconds > 0)
    At = std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             std::chrono::duration<double>(Seconds));
}

int Deadline::pollTimeout() const {
  if (!At)
    return -1;
  auto Left = *At - std::chrono::steady_clock::now();
  if (Left <= std::chrono::steady_clock::duration::zero())
    return 0;
  auto Ms = std::chrono::ceil<std::chrono::milliseconds>(Left).count();
  return static_cast<int>(std::min<long long>(Ms, 1 << 30));
}

std::string ExitStatus::describe() const {
  if (!HostError.empty())
    return "stopped because the host failed (" + HostError + ")";
  if (Signaled)
    return "killed by signal " + std::to_string(Code) + " (" + strsignal(Code) + ")";
  return "exit status " + std::to_string(Code);
}

namespace {

/// What the spawned child needs, prepared by the parent (the child may not allocate).
struct SpawnArgs {
  const char *Path;
  char *const *Argv;
  char *const *Envp;
  int StdoutFd, StderrFd;
  pid_t Host;
  sigset_t Defaults; // signals set to their default action (unless ignored at start)
  int Error = 0;     // errno of a failed exec, written by the child
};

// The child of a vfork-style clone: it shares the host's memory until it execs, so it calls
// only async-signal-safe functions and allocates nothing (glibc's posix_spawn works the same
// way, but cannot set PR_SET_PDEATHSIG).
__attribute__((no_sanitize("address", "undefined"))) int spawnedChild(void *P) {
  SpawnArgs &A = *static_cast<SpawnArgs *>(P);
  // The host's handlers must never run here, on its memory: handled signals go back to their
  // default action (signals are blocked until then). Ignored ones stay ignored across exec.
  for (int Sig = 1; Sig < NSIG; ++Sig) {
    struct sigaction Old;
    if (Sig == SIGKILL || Sig == SIGSTOP || ::sigaction(Sig, nullptr, &Old) != 0)
      continue;
    const bool Handled = Old.sa_handler != SIG_IGN && Old.sa_handler != SIG_DFL;
    const bool Reset = sigismember(&A.Defaults, Sig) == 1 && !ignoredAtStart(Sig);
    if (Handled || (Reset && Old.sa_handler == SIG_IGN)) {
      struct sigaction Default {};
      Default.sa_handler = SIG_DFL;
      ::sigaction(Sig, &Default, nullptr);
    }
  }
  // Bound to the host's death; a host that died before this line is not our parent any more.
  // SIGTERM, so that the compiler removes its own temporaries (clang's .o.tmp); the guardian
  // follows with SIGKILL for one that ignores it.
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != A.Host)
    ::_exit(127);
  ::setpgid(0, 0);
  if (A.StdoutFd >= 0)
    ::dup2(A.StdoutFd, 1);
  if (A.StderrFd >= 0)
    ::dup2(A.StderrFd, 2);
  sigset_t None;
  sigemptyset(&None);
  ::sigprocmask(SIG_SETMASK, &None, nullptr);
  ::execve(A.Path, A.Argv, A.Envp);
  A.Error = errno;
  ::_exit(127);
}

} // namespace

llvm::Expected<Child> Child::spawn(const std::vector<std::string> &Argv, int StdoutFd,
                                   int StderrFd) {
  if (Argv.empty())
    return makeError("no command given");
  // PATH is searched here, as posix_spawnp would: the child may not allocate.
  std::string Path = Argv[0];
  if (Path.find('/') == std::string::npos) {
    llvm::ErrorOr<std::string> Found = llvm::sys::findProgramByName(Path);
    if (!Found)
      return makeError("cannot run '" + Argv[0] + "': " + strerror(ENOENT));
    Path = *Found;
  }
  std::vector<char *> Args;
  for (const std::string &S : Argv)
    Args.push_back(const_cast<char *>(S.c_str()));
  Args.push_back(nullptr);
  SpawnArgs A{Path.c_str(), Args.data(), environ, StdoutFd, StderrFd, ::getpid(), {}, 0};
  sigemptyset(&A.Defaults);
  for (int S : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGXFSZ})
    sigaddset(&A.Defaults, S);
  // The child's stack; CLONE_VFORK suspends this thread until the child execs or exits.
  constexpr size_t StackSize = 64 * 1024;
  void *Stack = ::mmap(nullptr, StackSize, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (Stack == MAP_FAILED)
    return makeError(llvm::Twine("cannot run '") + Argv[0] + "': mmap: " + strerror(errno));
  sigset_t All, Old;
  sigfillset(&All);
  ::pthread_sigmask(SIG_SETMASK, &All, &Old);
  Child C;
  C.Pid = ::clone(spawnedChild, static_cast<char *>(Stack) + StackSize,
                  CLONE_VM | CLONE_VFORK | SIGCHLD, &A);
  const int CloneErr = errno;
  ::pthread_sigmask(SIG_SETMASK, &Old, nullptr);
  ::munmap(Stack, StackSize);
  if (C.Pid < 0)
    return makeError(llvm::Twine("cannot run '") + Argv[0] + "': clone: " + strerror(CloneErr));
  if (A.Error) {
    int WS = 0;
    while (::waitpid(C.Pid, &WS, 0) < 0 && errno == EINTR) {
    }
    C.Pid = -1;
    return makeError("cannot run '" + Argv[0] + "': " + strerror(A.Error));
  }
  C.PidFd = static_cast<int>(syscall(SYS_pidfd_open, C.Pid, 0));
  if (C.PidFd < 0) {
    int E = errno;
    C.killGroup();
    C.reap();
    return makeError(llvm::Twine("pidfd_open: ") + strerror(E) +
                     (E == ENOSYS ? " (Linux 5.3 or later is needed)" : ""));
  }
  return C;
}

Child::Child(Child &&O) noexcept
    : Pid(O.Pid), PidFd(O.PidFd), Reaped(O.Reaped), Status(O.Status) {
  O.Pid = -1;
  O.PidFd = -1;
}

Child::~Child() {
  if (Pid > 0 && !Reaped) {
    killGroup();
    reap();
  }
  if (PidFd >= 0)
    ::close(PidFd);
}

void Child::killGroup(double GraceSeconds) {
  if (Pid <= 0 || Reaped)
    return;
  // SIGTERM first: a child that is itself a host (ir2vec mlgo run nested in another run)
  // then kills its own compiler, which lives in another process group, and removes its
  // FIFOs and temporary files. SIGKILL after the grace period, or at once without one.
  if (GraceSeconds > 0 && PidFd >= 0) {
    ::kill(-Pid, SIGTERM);
    pollfd P{PidFd, POLLIN, 0};
    Deadline D(GraceSeconds);
    while (true) {
      const int N = ::poll(&P, 1, D.pollTimeout());
      if (N > 0 || D.expired() || (N < 0 && errno != EINTR))
        break;
    }
  }
  ::kill(-Pid, SIGKILL);
}

ExitStatus Child::reap() {
  if (Reaped || Pid <= 0)
    return Status;
  // Stragglers the compiler started would outlive it; the group id stays reserved until the
  // leader is reaped, so this cannot hit an unrelated group.
  siginfo_t Info{};
  if (waitid(P_PID, Pid, &Info, WEXITED | WNOWAIT) == 0)
    ::kill(-Pid, SIGKILL);
  int WS = 0;
  while (waitpid(Pid, &WS, 0) < 0 && errno == EINTR) {
  }
  Reaped = true;
  if (WIFSIGNALED(WS))
    Status = {true, WTERMSIG(WS), {}};
  else
    Status = {false, WEXITSTATUS(WS), {}};
  return Status;
}

std::pair<ExitStatus, bool> Child::wait(double Seconds, int CancelFd) {
  Deadline D(Seconds);
  while (true) {
    int Timeout = D.pollTimeout();
    if (Timeout == 0) {
      killGroup();
      return {reap(), true};
    }
    pollfd P[2] = {{PidFd, POLLIN, 0}, {CancelFd, POLLIN, 0}};
    int N = ::poll(P, CancelFd >= 0 ? 2 : 1, Timeout);
    if (N < 0 && errno != EINTR) {
      // The host can no longer watch the deadline: stop the child and say why, instead of
      // reporting the kill as the child's own death by signal.
      const int E = errno;
      killGroup();
      ExitStatus S = reap();
      S.HostError = std::string("poll: ") + strerror(E);
      return {S, false};
    }
    if (N > 0 && (P[0].revents || (CancelFd >= 0 && P[1].revents))) {
      if (!P[0].revents)
        killGroup();
      return {reap(), false};
    }
  }
  killGroup();
  return {reap(), false};
}

// ---- the guardian ----------------------------------------------------------------------------

namespace {

// The guardian is forked from a process with threads: until it exits it calls only
// async-signal-safe functions (system calls), and allocates nothing.

void pauseBriefly() {
  const timespec T{0, 20 * 1000 * 1000}; // 20 ms
  ::nanosleep(&T, nullptr);
}

/// Calls F(name) for each entry of the open directory Fd but "." and "..", from its current
/// offset, until F returns false; getdents64, so nothing is allocated. Whether F was called.
template <typename Fn> bool forEachEntry(int Fd, Fn F) {
  struct Entry {
    uint64_t Ino;
    int64_t Off;
    unsigned short Len;
    unsigned char Type;
    char Name[1];
  };
  alignas(8) char Buf[4096];
  bool Any = false;
  long N;
  while ((N = ::syscall(SYS_getdents64, Fd, Buf, sizeof Buf)) > 0)
    for (long At = 0; At < N;) {
      const Entry *E = reinterpret_cast<const Entry *>(Buf + At);
      At += E->Len;
      if (E->Name[0] == '.' && (E->Name[1] == 0 || (E->Name[1] == '.' && E->Name[2] == 0)))
        continue;
      Any = true;
      if (!F(E->Name))
        return true;
    }
  return Any;
}

/// Removes Name (relative to the directory Parent) and, when it is a directory, everything
/// below it, never following symlinks. Depth bounds the recursion (a compiler could nest
/// directories without end).
void removeBelow(int Parent, const char *Name, int Depth) {
  if (::unlinkat(Parent, Name, 0) == 0 || errno == ENOENT)
    return;
  const int Fd = ::openat(Parent, Name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (Fd < 0)
    return;
  ::fchmod(Fd, 0700); // a directory the compiler made unwritable still empties
  if (Depth < 128)
    for (int Pass = 0; Pass < 64; ++Pass) { // entries removed while reading: read again
      ::lseek(Fd, 0, SEEK_SET);
      if (!forEachEntry(Fd, [&](const char *Entry) {
            removeBelow(Fd, Entry, Depth + 1);
            return true;
          }))
        break;
    }
  ::close(Fd);
  ::unlinkat(Parent, Name, AT_REMOVEDIR);
}

/// SIGTERM to the group, SIGKILL once it is gone or after 2 s.
void endGroup(pid_t Group) {
  ::kill(-Group, SIGTERM);
  for (int Wait = 0; Wait < 100 && ::kill(-Group, 0) == 0; ++Wait)
    pauseBriefly();
  ::kill(-Group, SIGKILL);
}

[[noreturn]] void guard(int In, const std::vector<std::string> &Trees,
                        const std::vector<std::string> &Files, const FileMark &Output) {
  // Out of the host's process group (a kill of it, a Ctrl-C, must not reach us), every signal
  // blocked, no descriptor but the pipe (a descriptor held here would keep a pipe of the host's
  // open: its readers would never see the end).
  ::setpgid(0, 0);
  sigset_t All;
  sigfillset(&All);
  ::sigprocmask(SIG_SETMASK, &All, nullptr);
  if (In > 0 && ::syscall(SYS_close_range, 0u, unsigned(In - 1), 0u) != 0)
    for (int Fd = 0; Fd < In; ++Fd)
      ::close(Fd);
  if (::syscall(SYS_close_range, unsigned(In + 1), ~0u, 0u) != 0)
    for (int Fd = In + 1; Fd < 4096; ++Fd)
      ::close(Fd);
  pid_t Group = 0;
  bool Done = false, Writing = false;
  unsigned char Rec[5];
  size_t Have = 0;
  while (true) {
    const ssize_t N = ::read(In, Rec + Have, Have ? sizeof Rec - Have : 1);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break; // the host is gone, or said goodbye and closed its end
    Have += size_t(N);
    if (Rec[0] == 'G' && Have < sizeof Rec)
      continue; // the group's number follows
    if (Rec[0] == 'G')
      std::memcpy(&Group, Rec + 1, sizeof Group);
    else if (Rec[0] == 'R')
      Group = 0;
    else if (Rec[0] == 'W')
      Writing = true;
    else if (Rec[0] == 'D')
      Done = true;
    Have = 0;
  }
  if (Done)
    ::_exit(0);
  // Whether the compiler is writing its output: as the host saw it, or seen here before the
  // compiler is stopped (it may be dying already of the host's death).
  Writing = Writing || (Group > 0 && Output.openIn(Group));
  if (Group > 0)
    endGroup(Group);
  for (const std::string &F : Files)
    ::unlink(F.c_str());
  if (Writing)
    Output.removeIfWritten();
  for (const std::string &T : Trees)
    for (int Try = 0; Try < 5 && ::access(T.c_str(), F_OK) == 0; ++Try) {
      if (Try)
        pauseBriefly(); // what the compiler's last moments added
      removeBelow(AT_FDCWD, T.c_str(), 0);
    }
  ::_exit(0);
}

} // namespace

FileMark FileMark::take(std::string Path) {
  FileMark M;
  M.Path = std::move(Path);
  M.Existed = ::lstat(M.Path.c_str(), &M.Before) == 0;
  return M;
}

bool FileMark::writtenSince() const {
  struct stat Now;
  if (Path.empty() || ::lstat(Path.c_str(), &Now) != 0 || !S_ISREG(Now.st_mode))
    return false;
  if (!Existed)
    return true;
  return Now.st_dev != Before.st_dev || Now.st_ino != Before.st_ino ||
         Now.st_size != Before.st_size || Now.st_ctim.tv_sec != Before.st_ctim.tv_sec ||
         Now.st_ctim.tv_nsec != Before.st_ctim.tv_nsec;
}

bool FileMark::openIn(pid_t Pid) const {
  struct stat Now;
  if (Pid <= 0 || Path.empty() || ::lstat(Path.c_str(), &Now) != 0 || !S_ISREG(Now.st_mode))
    return false;
  // "/proc/PID/fd" without the allocating formatters.
  char Dir[32] = "/proc/";
  char Digits[16];
  int N = 0;
  for (long V = Pid; V > 0 && N < 15; V /= 10)
    Digits[N++] = char('0' + V % 10);
  size_t At = 6;
  while (N > 0)
    Dir[At++] = Digits[--N];
  for (const char *T = "/fd"; *T; ++T)
    Dir[At++] = *T;
  Dir[At] = 0;
  const int D = ::open(Dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (D < 0)
    return false;
  bool Found = false;
  forEachEntry(D, [&](const char *Name) {
    struct stat S; // the descriptor's file (the link in /proc is followed)
    Found = ::fstatat(D, Name, &S, 0) == 0 && S.st_dev == Now.st_dev && S.st_ino == Now.st_ino;
    return !Found;
  });
  ::close(D);
  return Found;
}

void FileMark::removeIfWritten() const {
  if (writtenSince())
    ::unlink(Path.c_str());
}

llvm::Expected<Guardian> Guardian::start(std::vector<std::string> Trees,
                                         std::vector<std::string> Files, FileMark Output) {
  Guardian G;
  G.Trees = std::move(Trees);
  G.Files = std::move(Files);
  G.Output = std::move(Output);
  int P[2];
  if (::pipe2(P, O_CLOEXEC) != 0)
    return makeError(llvm::Twine("cannot start the session's guardian: pipe: ") + strerror(errno));
  G.Pid = ::fork();
  if (G.Pid < 0) {
    const int E = errno;
    ::close(P[0]);
    ::close(P[1]);
    return makeError(llvm::Twine("cannot start the session's guardian: fork: ") + strerror(E));
  }
  if (G.Pid == 0)
    guard(P[0], G.Trees, G.Files, G.Output);
  ::close(P[0]);
  G.Fd = P[1];
  return G;
}

Guardian::Guardian(Guardian &&O) noexcept
    : Pid(O.Pid), Fd(O.Fd), Trees(std::move(O.Trees)), Files(std::move(O.Files)),
      Output(std::move(O.Output)) {
  O.Pid = -1;
  O.Fd = -1;
}

Guardian::~Guardian() {
  if (Fd < 0)
    return;
  send('D');
  ::close(Fd);
  int WS = 0;
  while (::waitpid(Pid, &WS, 0) < 0 && errno == EINTR) {
  }
}

void Guardian::send(char Op, pid_t Group) {
  unsigned char Rec[5] = {static_cast<unsigned char>(Op)};
  std::memcpy(Rec + 1, &Group, sizeof Group);
  const size_t N = Op == 'G' ? 5 : 1;
  // Atomic (at most PIPE_BUF bytes) and never blocking in practice: the guardian reads at once.
  while (::write(Fd, Rec, N) < 0 && errno == EINTR) {
  }
}

void Guardian::watch(pid_t Group) { send('G', Group); }

void Guardian::released() { send('R'); }

void Guardian::writing() { send('W'); }

llvm::Error runGnuplot(const std::string &Gnuplot, const std::string &Script, int CancelFd) {
  llvm::Expected<Child> G = Child::spawn({Gnuplot, Script});
  if (!G)
    return makeError("cannot draw the plots: " + llvm::toString(G.takeError()) +
                     " (install Debian's gnuplot-nox)");
  auto [St, TimedOut] = G->wait(120, CancelFd);
  if (cancelled(CancelFd))
    return interruptedError("interrupted while drawing the plots");
  if (TimedOut || St.Signaled || St.Code)
    return makeError("gnuplot failed (" + St.describe() + ") on " + Script);
  return llvm::Error::success();
}

} // namespace wb::support
