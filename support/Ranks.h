// The processes of one run that share its work: the ranks of an MPI job (cluster/ implements
// this over MPI), each running the same command with its own -j workers. Rank 0 hands out the
// items of every corpus pipeline one at a time as ranks ask for them, and consumes the results
// in input order (corpus::OrderedPipeline), so the output is the same for any number of ranks;
// the other ranks write nothing. A run without MPI has no Ranks object at all.
//
// Messages between two ranks arrive in the order they were sent. Every pipeline run has a
// sequence number, the same on every rank (every rank runs the same pipelines in the same
// order), so a message of an earlier run is never taken for one of the current run, and one of
// a later run (a rank that finished its part of a run and began the next before rank 0 did)
// waits for it (later()).
#pragma once

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <deque>
#include <iterator>
#include <optional>
#include <string>

namespace wb::support {

class Ranks {
public:
  /// The kinds of message of the pipeline protocol (corpus/OrderedPipeline.h) and of the end
  /// of a run.
  enum Tag : unsigned {
    Request = 1, // a rank asks rank 0 for an item: [run]
    Grant,       // rank 0 answers: [run, item] or [run, NoItem]
    Result,      // a rank sends an item's result: [run, item, bytes]
    Done,        // a rank has sent all its results of a run: [run]
    Share,       // rank 0's state for every rank (corpus/Share.h): [run, bytes]
    Finish,      // rank 0 is done with the whole command: the others stop and leave
  };
  static constexpr uint64_t NoItem = ~uint64_t(0);

  /// A message's bytes: received straight into memory that nothing fills first (a result can
  /// be megabytes, and zeroing them cost as much as receiving them).
  class Buffer {
  public:
    Buffer() = default;
    explicit Buffer(size_t N) : P(N ? new char[N] : nullptr), N(N) {}
    explicit Buffer(llvm::StringRef S) : Buffer(S.size()) {
      if (N)
        std::memcpy(P.get(), S.data(), N);
    }
    char *data() { return P.get(); }
    size_t size() const { return N; }
    operator llvm::StringRef() const { return {P.get(), N}; }

  private:
    std::unique_ptr<char[]> P;
    size_t N = 0;
  };

  struct Message {
    unsigned From = 0;
    unsigned Tag = 0;
    Buffer Bytes;
  };

  virtual ~Ranks() = default;
  virtual unsigned rank() const = 0;
  virtual unsigned size() const = 0;
  bool root() const { return rank() == 0; }
  /// Queues Bytes for rank To and returns at once.
  virtual void send(unsigned To, Tag T, std::string Bytes) = 0;
  /// The next message for this rank, waiting up to Wait for one; none when none came.
  virtual std::optional<Message> receive(std::chrono::microseconds Wait) = 0;

  /// The sequence number of the next pipeline run (the same on every rank). Messages kept
  /// with later() become the first that next() returns.
  uint64_t beginRun() {
    Early.insert(Early.end(), std::make_move_iterator(Later.begin()),
                 std::make_move_iterator(Later.end()));
    Later.clear();
    return ++Runs;
  }
  /// The next message: those kept for this run first, then receive(Wait).
  std::optional<Message> next(std::chrono::microseconds Wait) {
    if (Early.empty())
      return receive(Wait);
    Message M = std::move(Early.front());
    Early.pop_front();
    return M;
  }
  /// Keeps M, a message of a run this rank has not begun yet, for that run.
  void later(Message M) { Later.push_back(std::move(M)); }
  /// Rank 0 said Finish (seen by a pipeline or by finish()).
  bool finished() const { return FinishSeen; }
  void markFinished() { FinishSeen = true; }

private:
  uint64_t Runs = 0;
  bool FinishSeen = false;
  std::deque<Message> Early, Later;
};

/// Where a command's corpus work goes: the ranks of its job (none: this process alone) and the
/// workers rank 0 keeps for itself.
struct Distribution {
  Ranks *Job = nullptr;
  /// Workers of rank 0 when there are several ranks (default: the command's -j; 0: rank 0
  /// only hands out items and consumes results).
  std::optional<unsigned> RootJobs;

  /// Several ranks share the work.
  bool spread() const { return Job && Job->size() > 1; }
  /// This process works for rank 0 and writes no output of its own.
  bool serving() const { return spread() && !Job->root(); }
};

} // namespace wb::support
