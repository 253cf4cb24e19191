// Rank 0's state on every rank of a run (support/Ranks.h): what the other ranks cannot work out
// themselves because it depends on results only rank 0 consumed. Evolution strategies
// (mlgo/pipelines/FineTune.h) share each step's fitness this way, so that every rank moves the policy
// the same way and compiles the same candidates in the next step's pipeline.
//
// Every rank calls share() at the same point of the command (as with pipelines, the run's
// sequence number is the same on every rank). Rank 0 sends its bytes to every other rank and
// returns them; another rank waits for them. Messages from rank 0 arrive in the order it sent
// them, so a late answer to an earlier pipeline run may come first: it is dropped.
#pragma once

#include "support/Ranks.h"
#include "support/Wire.h"
#include "support/Interrupts.h"

#include "llvm/Support/Error.h"

#include <chrono>
#include <string>

namespace wb::corpus {

/// Bytes, rank 0's, on every rank of Dist (this process alone: Bytes). An error on a rank other
/// than 0 when rank 0 ended the command first (its Finish), or CancelFd became readable.
inline llvm::Expected<std::string> share(const support::Distribution &Dist, std::string Bytes,
                                         int CancelFd = -1) {
  if (!Dist.spread())
    return Bytes;
  support::Ranks &R = *Dist.Job;
  const uint64_t Run = R.beginRun();
  if (R.root()) {
    for (unsigned To = 1; To < R.size(); ++To) {
      support::WireWriter W;
      W.num<uint64_t>(Run);
      W.bytes(Bytes);
      R.send(To, support::Ranks::Share, W.take());
    }
    return Bytes;
  }
  for (;;) {
    if (R.finished())
      return llvm::createStringError(std::errc::operation_canceled,
                                     "rank 0 ended the run before sharing its state");
    if (support::cancelled(CancelFd))
      return llvm::createStringError(std::errc::operation_canceled, "interrupted");
    std::optional<support::Ranks::Message> M = R.next(std::chrono::milliseconds(2));
    if (!M)
      continue;
    if (M->Tag == support::Ranks::Finish) {
      R.markFinished();
      continue;
    }
    if (M->Tag != support::Ranks::Share)
      continue; // a late answer to an earlier pipeline run
    support::WireReader In(M->Bytes);
    const uint64_t Of = In.num<uint64_t>();
    if (Of > Run) {
      R.later(std::move(*M)); // cannot happen (one share per call on every rank); kept safe
      continue;
    }
    if (Of < Run)
      continue;
    std::string Out = In.bytes();
    if (!In.ok())
      return llvm::createStringError(std::errc::bad_message, "a malformed message from rank 0");
    return Out;
  }
}

} // namespace wb::corpus
