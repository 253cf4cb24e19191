// How a pipeline runs, as opposed to what it computes: its workers, the progress line, the
// ranks of an MPI run, where its diagnostics go and the descriptor that tells it to stop. One
// value, built once by a driver (tools/ir2vec/Command.cpp for the command line, python/ for the
// module) and held by every pipeline's config, so that no pipeline copies the fields again.
#pragma once

#include "support/Diagnostics.h"
#include "support/Interrupts.h"
#include "support/Ranks.h"

namespace wb::support {

struct RunSettings {
  unsigned Jobs = 1;
  /// A progress line on the terminal (the driver decides: a terminal, and not --quiet).
  bool ShowProgress = false;
  /// The ranks of an MPI run (support/Ranks.h), or none: this process alone. Every rank runs
  /// Jobs workers; rank 0 also consumes the results and writes the outputs.
  Distribution Dist;
  DiagnosticHandler Report = [](const Diagnostic &) {};
  /// Readable = stop (support::withCancellation); -1: never.
  int CancelFd = -1;

  bool cancelled() const { return support::cancelled(CancelFd); }
};

} // namespace wb::support
