// How the workbench takes SIGINT, SIGTERM and SIGHUP: never in a signal handler.
//
// The tool's main calls takeInterrupts() first, before any thread exists: the three signals are
// blocked in every thread, and one watcher thread waits for them (sigwaitinfo). What it does
// with a signal depends on the run:
//  * runs that stop by themselves (compilers to kill, FIFOs to remove) hold a cancellation
//    descriptor (withCancellation); the first signal makes every such descriptor readable and
//    the run returns "interrupted" (exit 130) after its own cleanup. Later signals change
//    nothing: the run is already stopping, and a second Ctrl-C must not cut its cleanup short.
//  * every other run (embeddings, triplets, vocab train...) ends at once: the watcher removes
//    every pending output (support/Files: no temporary can be created or committed meanwhile)
//    and the process ends by the same signal, as a shell expects (130 for SIGINT). A second
//    signal waits, blocked, until the process is gone.
// LLVM's own handler did the second job before, but in a signal handler that unregisters
// itself first: a second SIGINT during its cleanup killed the process with OUT.tmp-* left.
//
// Signal masks and dispositions belong to the process, so this state is process-wide.
#pragma once

#include "llvm/Support/Error.h"

namespace wb::support {

/// Blocks SIGINT, SIGTERM and SIGHUP in this thread (and so in every thread started from now
/// on), makes SIGPIPE harmless (a peer that dies while we write gives EPIPE), and starts the
/// watcher. Idempotent. Call it in main before anything starts a thread.
llvm::Error takeInterrupts();

/// A descriptor that becomes readable (and stays so) once an interrupt arrives, for a run that
/// stops by itself; starts the watcher if main did not (then only this thread and the threads
/// it starts have the signals blocked). Release it with releaseCancellationFd.
llvm::Expected<int> cancellationFd();
void releaseCancellationFd(int Fd);
/// Whether the cancellation descriptor (-1: none) has seen an interrupt.
bool cancelled(int CancelFd);
/// Whether an interrupt has gone to the runs that stop by themselves (they are stopping): for
/// a wait that holds no descriptor of its own, such as opening an output FIFO.
bool interruptReceived();

/// Runs Body(Fd) with a cancellation descriptor, released when Body returns; Body returns an
/// llvm::Expected.
template <typename F> auto withCancellation(F &&Body) -> decltype(Body(0)) {
  llvm::Expected<int> Fd = cancellationFd();
  if (!Fd)
    return Fd.takeError();
  auto Result = Body(*Fd);
  releaseCancellationFd(*Fd);
  return Result;
}

/// In a child process forked from a process that took its interrupts (runIsolated): default
/// dispositions and an unblocked mask for the interrupt signals, so that a Ctrl-C to the
/// process group ends it too. A signal the process was started with ignored stays ignored.
void restoreInterruptsInChild();

/// Whether Sig was ignored when the process started (`nohup` ignores SIGHUP, a shell ignores
/// SIGINT for a background job): such a signal stays ignored here and in the compilers the
/// host starts, as Unix programs leave it. Recorded before main (LLVM's InitLLVM installs its
/// own handlers over it).
bool ignoredAtStart(int Sig);

} // namespace wb::support
