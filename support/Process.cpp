#include "support/Process.h"

#include "support/Error.h"

#include <cerrno>
#include <cstring>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace wb::support {

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

llvm::Expected<Child> Child::spawn(const std::vector<std::string> &Argv, int StdoutFd,
                                   int StderrFd) {
  if (Argv.empty())
    return makeError("no command given");
  posix_spawnattr_t A;
  posix_spawn_file_actions_t FA;
  posix_spawnattr_init(&A);
  posix_spawn_file_actions_init(&FA);
  sigset_t Empty, Defaults;
  sigemptyset(&Empty);
  sigemptyset(&Defaults);
  for (int S : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGXFSZ})
    sigaddset(&Defaults, S);
  posix_spawnattr_setsigmask(&A, &Empty);
  posix_spawnattr_setsigdefault(&A, &Defaults);
  posix_spawnattr_setpgroup(&A, 0);
  posix_spawnattr_setflags(&A, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                   POSIX_SPAWN_SETSIGDEF);
  if (StdoutFd >= 0)
    posix_spawn_file_actions_adddup2(&FA, StdoutFd, 1);
  if (StderrFd >= 0)
    posix_spawn_file_actions_adddup2(&FA, StderrFd, 2);
  std::vector<char *> Args;
  for (const std::string &S : Argv)
    Args.push_back(const_cast<char *>(S.c_str()));
  Args.push_back(nullptr);
  Child C;
  int Err = posix_spawnp(&C.Pid, Args[0], &FA, &A, Args.data(), environ);
  posix_spawnattr_destroy(&A);
  posix_spawn_file_actions_destroy(&FA);
  if (Err)
    return makeError("cannot run '" + Argv[0] + "': " + strerror(Err));
  C.PidFd = static_cast<int>(syscall(SYS_pidfd_open, C.Pid, 0));
  if (C.PidFd < 0) {
    int E = errno;
    C.killGroup();
    C.reap();
    return makeError(llvm::Twine("pidfd_open: ") + strerror(E) + " (Linux 5.3 or later is needed)");
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

} // namespace wb::support
