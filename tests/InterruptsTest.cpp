// support/Interrupts: what a process that took its interrupts does with SIGINT, SIGTERM and
// SIGHUP. Each case runs in a death-test child (signal masks and dispositions are the
// process's), and the parent looks at what the child left on disk.
#include "support/Files.h"
#include "support/Interrupts.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace {

using namespace wb::support;

std::vector<std::string> entries(const std::string &Dir) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC; I.increment(EC))
    Names.push_back(llvm::sys::path::filename(I->path()).str());
  std::sort(Names.begin(), Names.end());
  return Names;
}

struct Scratch {
  std::string Dir;
  Scratch() {
    llvm::SmallString<128> P;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("interrupts-test", P));
    Dir = P.str().str();
  }
  ~Scratch() {
    for (const std::string &N : entries(Dir))
      llvm::sys::fs::remove(Dir + "/" + N);
    llvm::sys::fs::remove(Dir);
  }
};

// Sends Sig twice, as an impatient Ctrl-C, and waits to be ended by it.
[[noreturn]] void interruptTwiceAndWait(int Sig) {
  ::kill(::getpid(), Sig);
  ::kill(::getpid(), Sig);
  for (int I = 0; I < 500; ++I)
    ::usleep(10000);
  std::_Exit(3); // not ended by the signal within 5 s
}

// Without a run that stops by itself, the watcher removes every pending output and the process
// ends by the signal; an output committed before stays, complete.
void pendingOutputsGo(const std::string &Dir, int Sig) {
  if (llvm::Error E = takeInterrupts())
    std::_Exit(4);
  auto Done = AtomicOutput::create(Dir + "/done.txt");
  auto Pending = AtomicOutput::create(Dir + "/pending.txt");
  OutputGroup Group;
  auto Grouped = Group.add(Dir + "/grouped.h5");
  if (!Done || !Pending || !Grouped)
    std::_Exit(5);
  if (int Fd = ::creat(Grouped->c_str(), 0644); Fd >= 0)
    ::close(Fd);
  Done->os() << "complete\n";
  Pending->os() << "half";
  Pending->os().flush();
  if (llvm::Error E = Done->commit())
    std::_Exit(6);
  interruptTwiceAndWait(Sig);
}

TEST(Interrupts, PendingOutputsAreRemovedAndTheProcessEndsByTheSignal) {
  for (int Sig : {SIGINT, SIGTERM, SIGHUP}) {
    Scratch S;
    EXPECT_EXIT(pendingOutputsGo(S.Dir, Sig), ::testing::KilledBySignal(Sig), "")
        << strsignal(Sig);
    EXPECT_EQ(entries(S.Dir), std::vector<std::string>{"done.txt"}) << strsignal(Sig);
  }
}

bool becomesCancelled(int Fd) {
  pollfd P{Fd, POLLIN, 0};
  return ::poll(&P, 1, 5000) == 1 && cancelled(Fd);
}

// A run that stops by itself holds a cancellation descriptor: the first signal makes it
// readable, the second changes nothing (the run's own cleanup is not cut short), and a run
// that subscribes afterwards is cancelled at once.
void stopsByItself() {
  if (llvm::Error E = takeInterrupts())
    std::_Exit(4);
  auto Fd = cancellationFd();
  if (!Fd)
    std::_Exit(5);
  if (cancelled(*Fd))
    std::_Exit(6); // readable before any signal
  ::kill(::getpid(), SIGINT);
  if (!becomesCancelled(*Fd))
    std::_Exit(7);
  ::kill(::getpid(), SIGINT);
  ::kill(::getpid(), SIGTERM);
  ::usleep(200000); // the process must survive these
  releaseCancellationFd(*Fd);
  auto Later = cancellationFd();
  if (!Later || !cancelled(*Later))
    std::_Exit(8);
  releaseCancellationFd(*Later);
  std::_Exit(0);
}

TEST(Interrupts, ARunThatStopsByItselfIsToldOnceAndNotKilled) {
  EXPECT_EXIT(stopsByItself(), ::testing::ExitedWithCode(0), "");
}

} // namespace
