// Child processes for the host: spawned in their own process group (so a timeout or a crash
// can take down everything they started), with default signal dispositions and an empty
// signal mask whatever the host has set (signals ignored when the host started stay
// ignored), bound to the host's death (PR_SET_PDEATHSIG), and watched through a pidfd so that
// one poll() waits for the compiler's output, its exit and a cancellation at once. A Guardian
// cleans up after a host killed by SIGKILL.
#pragma once

#include "support/Interrupts.h"

#include "llvm/Support/Error.h"

#include <chrono>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <sys/types.h>
#include <vector>

namespace wb::support {

/// Whether X is a time limit in seconds (finite, 0 or more; 0: none): the one rule for every
/// limit a user gives (the command line's, the Python module's). A usage error names What.
llvm::Error checkSeconds(double X, const std::string &What);

/// A time to wait until, or none.
class Deadline {
public:
  /// Seconds <= 0: no deadline.
  explicit Deadline(double Seconds);
  bool expired() const { return pollTimeout() == 0; }
  /// poll()'s timeout: -1 without a deadline, else the milliseconds left, rounded up (0 once
  /// it has passed).
  int pollTimeout() const;

private:
  std::optional<std::chrono::steady_clock::time_point> At;
};

struct ExitStatus {
  bool Signaled = false;
  int Code = 0; // exit code, or the signal number when Signaled
  std::string HostError; // the host stopped the child because it failed itself (e.g. poll)
  /// As a shell reports it: the code, or 128 + signal.
  int shellStatus() const { return Signaled ? 128 + Code : Code; }
  std::string describe() const;
};

class Child {
public:
  /// Argv[0] is looked up in PATH. StdoutFd/StderrFd: -1 = inherit. The child gets SIGTERM
  /// when the thread that spawned it ends (PR_SET_PDEATHSIG; set before it runs, and it exits
  /// at once if the host is already gone), the session's Guardian SIGKILL after a grace
  /// period: a host killed by SIGKILL leaves no compiler behind.
  /// So spawn only from a thread that outlives the child (hosts reap what they spawn).
  static llvm::Expected<Child> spawn(const std::vector<std::string> &Argv, int StdoutFd = -1,
                                     int StderrFd = -1);
  Child(Child &&O) noexcept;
  Child &operator=(Child &&) = delete;
  /// Kills the whole group and reaps the child if still running.
  ~Child();

  pid_t pid() const { return Pid; }
  /// Readable when the child has exited.
  int pidFd() const { return PidFd; }
  /// Kills the child's process group (everything it started): SIGTERM, then SIGKILL once the child has exited or
  /// GraceSeconds have passed (0: SIGKILL at once).
  void killGroup(double GraceSeconds = KillGraceSeconds);
  static constexpr double KillGraceSeconds = 2.0;
  /// Waits for the exit (after pidFd() is readable this does not block); kills leftovers of
  /// the group first, while the unreaped child still reserves the group id.
  ExitStatus reap();
  /// Waits up to Seconds (0 = for ever); on timeout kills the group. Returns the status and
  /// whether it timed out.
  std::pair<ExitStatus, bool> wait(double Seconds, int CancelFd = -1);

private:
  Child() = default;
  pid_t Pid = -1;
  int PidFd = -1;
  bool Reaped = false;
  ExitStatus Status;
};

/// What a path was before another process (a compiler) ran, so that cleaning up after it
/// removes only what it wrote: a regular file (never a device, a FIFO or a symlink, seen by
/// lstat) that did not exist before or is another file now (inode, size, change time), and
/// that the compiler held open when it was stopped. A user's `-o /dev/null`, an old output
/// the compiler never touched, or one another process wrote meanwhile is left alone.
/// Only system calls: the guardian uses it after fork.
struct FileMark {
  std::string Path;
  bool Existed = false;
  struct stat Before {};
  static FileMark take(std::string Path);
  bool writtenSince() const;
  /// Removes Path when writtenSince().
  void removeIfWritten() const;
  /// Whether process Pid has Path open now (its /proc/PID/fd): that the file it names was
  /// written by that process, not by another one meanwhile. Asked before killing a compiler,
  /// whose partial output is then removed only if it was the writer.
  bool openIn(pid_t Pid) const;
};

/// Cleans up after a host that dies without doing it (SIGKILL: no handler, no destructor): a
/// process forked per session, in its own process group (a kill of the host's group or a
/// Ctrl-C does not reach it), holding the read end of a pipe whose only writer is the host.
/// When the pipe ends without the host's goodbye, the host is gone: the guardian sends the
/// compiler's process group SIGTERM (clang then removes its own temporaries), SIGKILL after a
/// grace period, removes Files (the host's temporary logs), Trees (the session's private
/// directory, with whatever the compiler made in it) and the compiler's Output if the compiler
/// was writing it (FileMark), and exits. After a clean session it exits at once; the host
/// waits for it (a few microseconds). Forked from a process with threads, it calls only
/// async-signal-safe functions.
class Guardian {
public:
  /// Trees are removed whole, Files always, Output only when the compiler wrote it (its Path
  /// empty: none).
  static llvm::Expected<Guardian> start(std::vector<std::string> Trees,
                                        std::vector<std::string> Files, FileMark Output = {});
  Guardian(Guardian &&O) noexcept;
  Guardian &operator=(Guardian &&) = delete;
  /// The session ended as it should: the guardian leaves without touching anything.
  ~Guardian();
  /// The compiler's process group, to kill should the host die.
  void watch(pid_t Group);
  /// The compiler was reaped: its group id may be reused, so it is not to be killed any more.
  void released();
  /// The compiler holds its output open: it is the writer, whose partial output goes should
  /// the host die (FileMark::openIn, asked by the host while both live).
  void writing();

private:
  Guardian() = default;
  void send(char Op, pid_t Pid = 0);
  pid_t Pid = -1;
  int Fd = -1;
  // Kept alive for the child, which reads them after the fork (copy-on-write memory).
  std::vector<std::string> Trees, Files;
  FileMark Output;
};

/// Runs Gnuplot on Script (a report's plots), for at most two minutes; an error saying which
/// package to install when it cannot start, and an interruption when CancelFd fires.
llvm::Error runGnuplot(const std::string &Gnuplot, const std::string &Script, int CancelFd);

} // namespace wb::support
