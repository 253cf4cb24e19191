// Processes items in parallel and hands the results over in input order, in this process or
// spread over the ranks of an MPI job (support/Ranks.h).
//
// Jobs workers (hosted on an llvm::StdThreadPool) each own a State made by a factory (an
// LLVMContext source for IR work, nothing for compiler processes) and claim item indices in
// order; at most Window results exist at once (claimed but not yet consumed), so memory is
// bounded by the items in flight, not by the number of inputs. The calling thread consumes
// results strictly in index order, so output is identical for any Jobs.
//
// With several ranks (Spread::Ranks), every rank runs Jobs workers ("nesting": one rank per
// node, threads and compiler processes inside). Rank 0's workers claim items as above; a
// thread of rank 0 answers the other ranks' requests with the next item (modules differ in
// cost by orders of magnitude, so items are handed out one at a time, as ranks ask, never in
// fixed shares) and receives their encoded results. The window spans all ranks, so rank 0
// holds a bounded number of results; it consumes them in input order, so the output is the
// same for any number of ranks and any Jobs. The other ranks keep one to MaxAhead items beyond
// their idle workers in hand or asked for, by the items' measured cost (the request's round
// trip overlaps the work), compute, encode, send, and consume nothing: run() returns on them
// when rank 0 has no item left.
#pragma once

#include "support/Ranks.h"
#include "support/Wire.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace wb::corpus {

/// The worker state of pipelines that need none.
struct NoState {};

/// How a pipeline spreads over the ranks of a run, and what rank 0 does around the work. All
/// members are optional; a default Spread is a run in this process alone.
template <typename Result> struct Spread {
  /// The ranks of the run and rank 0's workers (no ranks, or one: this process alone).
  support::Distribution Dist;
  /// How a result travels to rank 0 (needed with several ranks).
  std::function<void(const Result &, support::WireWriter &)> Encode;
  std::function<llvm::Expected<Result>(support::WireReader &)> Decode;
  /// Rank 0: a result already at hand (the part of an interrupted run): nobody works on it.
  std::function<std::optional<Result>(size_t)> Cached;
  /// Rank 0: every computed result as it arrives, in any order, before it is consumed (to
  /// keep it for --resume).
  std::function<void(size_t, Result &)> Settle;

  bool spread() const { return Dist.spread(); }
  bool serving() const { return Dist.serving(); }
};

template <typename Result, typename State = NoState> class OrderedPipeline {
public:
  using MakeState = std::function<State()>;
  using Work = std::function<Result(size_t Index, State &S)>;
  using Consume = std::function<llvm::Error(size_t Index, Result &&R)>;

  OrderedPipeline(unsigned Jobs, size_t Window)
      : Jobs(std::max(1u, Jobs)), Window(std::max<size_t>(Window, this->Jobs)) {}

  /// Runs Do on indices [Begin, End), each worker with its own state from Make, and Take on
  /// each result in order. Stops early and returns the first error Take returns. On a rank
  /// other than 0 (Sp.serving()), works on the items rank 0 hands out and never calls Take.
  llvm::Error run(size_t Begin, size_t End, const MakeState &Make, const Work &Do,
                  const Consume &Take, const Spread<Result> &Sp = {}) {
    if (Sp.serving())
      return serve(Make, Do, Sp);
    NextClaim = Begin;
    NextConsume = Begin;
    this->End = End;
    Stop = false;
    Failure.reset();
    const unsigned Local = Sp.spread() ? Sp.Dist.RootJobs.value_or(Jobs) : Jobs;
    // With ranks, the window grows with the ranks' workers and the items each other rank keeps
    // in hand (Jobs + MaxAhead, the same -j on every rank). Without the other ranks' items it
    // filled while the consumer waited for the oldest of them (on the shared corpus ten times,
    // 2 ranks with a worker each: 3.3 s against 2.3 s with them; twice as many: no faster).
    Span = Sp.spread() ? Window * Sp.Dist.Job->size() +
                             (Sp.Dist.Job->size() - 1) * (Jobs + MaxAhead)
                       : Window;
    std::optional<std::thread> Dealer;
    if (Sp.spread()) {
      const uint64_t Run = Sp.Dist.Job->beginRun();
      Dealer.emplace([this, &Sp, Run] { deal(Sp, Run); });
    }
    llvm::StdThreadPool Pool(llvm::hardware_concurrency(std::max(1u, Local)));
    for (unsigned W = 0; W < Local; ++W)
      Pool.async([this, &Make, &Do, &Sp] {
        State S = Make();
        workerLoop(S, Do, Sp);
      });
    llvm::Error Err = llvm::Error::success();
    for (size_t I = Begin; I < End; ++I) {
      std::optional<Result> R = take(I);
      if (!R) {
        Err = llvm::createStringError(std::errc::io_error, "%s", Failure->c_str());
        break;
      }
      if (llvm::Error E = Take(I, std::move(*R))) {
        Err = std::move(E);
        break;
      }
    }
    {
      std::lock_guard<std::mutex> L(Mu);
      Stop = true;
    }
    CV.notify_all();
    Pool.wait();
    if (Dealer)
      Dealer->join(); // after every other rank has said it is done with this run
    Ready.clear();
    return Err;
  }

  /// The same for work that needs no per-worker state.
  llvm::Error run(size_t Begin, size_t End, const std::function<Result(size_t)> &Do,
                  const Consume &Take, const Spread<Result> &Sp = {}) {
    return run(
        Begin, End, [] { return State(); }, [&Do](size_t I, State &) { return Do(I); }, Take,
        Sp);
  }

private:
  /// Rank 0's own item I: a cached result, or the work and its settlement.
  static Result produce(size_t I, State &S, const Work &Do, const Spread<Result> &Sp) {
    if (Sp.Cached)
      if (std::optional<Result> R = Sp.Cached(I))
        return std::move(*R);
    Result R = Do(I, S);
    if (Sp.Settle)
      Sp.Settle(I, R);
    return R;
  }

  /// The next index for a worker of rank 0 (or for another rank), within the window.
  std::optional<size_t> claim(bool Wait) {
    std::unique_lock<std::mutex> L(Mu);
    auto Open = [&] { return Stop || NextClaim >= End || NextClaim < NextConsume + Span; };
    if (Wait)
      CV.wait(L, Open);
    else if (!Open())
      return std::nullopt;
    if (Stop || NextClaim >= End)
      return End; // nothing left
    return NextClaim++;
  }

  void put(size_t I, Result &&R) {
    bool Awaited;
    {
      std::lock_guard<std::mutex> L(Mu);
      if (!Stop)
        Ready.emplace(I, std::move(R));
      Awaited = I == NextConsume; // only the consumer waits for a result, and only for this one
    }
    if (Awaited)
      CV.notify_all();
  }

  void workerLoop(State &S, const Work &Do, const Spread<Result> &Sp) {
    for (;;) {
      const size_t I = *claim(/*Wait=*/true);
      if (I >= End)
        return;
      put(I, produce(I, S, Do, Sp));
    }
  }

  std::optional<Result> take(size_t I) {
    std::unique_lock<std::mutex> L(Mu);
    CV.wait(L, [&] { return Ready.count(I) != 0 || Failure; });
    auto It = Ready.find(I);
    if (It == Ready.end())
      return std::nullopt;
    Result R = std::move(It->second);
    Ready.erase(It);
    NextConsume = I + 1;
    L.unlock();
    CV.notify_all();
    return R;
  }

  /// A message's first fields: the run, and the item where there is one.
  static std::string header(uint64_t Run, std::optional<uint64_t> Item = std::nullopt) {
    support::WireWriter W;
    W.num<uint64_t>(Run);
    if (Item)
      W.num<uint64_t>(*Item);
    return W.take();
  }

  /// Rank 0's dealer: answers requests, receives results, until every other rank is done.
  void deal(const Spread<Result> &Sp, uint64_t Run) {
    support::Ranks &R = *Sp.Dist.Job;
    std::deque<unsigned> Asking; // ranks waiting for an item, in the order they asked
    unsigned Working = R.size() - 1;
    while (Working > 0) {
      std::optional<support::Ranks::Message> M = R.next(std::chrono::microseconds(0));
      if (!M) {
        // Nothing came: nap. A rank waiting for the window to open is answered as soon as the
        // consumer opens it (its notification wakes this thread only then: waking on every
        // result would cost a context switch each for nothing).
        if (Asking.empty()) {
          std::this_thread::sleep_for(DealerNap);
        } else {
          std::unique_lock<std::mutex> L(Mu);
          CV.wait_for(L, DealerNap, [&] { return NextClaim < NextConsume + Span || Stop; });
        }
      } else {
        support::WireReader In(M->Bytes);
        const uint64_t Of = In.num<uint64_t>();
        if (Of > Run) // a rank that is done with this run asks for the next one already
          R.later(std::move(*M));
        if (Of != Run)
          continue; // or a late request of an earlier run
        switch (M->Tag) {
        case support::Ranks::Request:
          Asking.push_back(M->From);
          break;
        case support::Ranks::Done:
          --Working;
          break;
        case support::Ranks::Result: {
          const uint64_t I = In.num<uint64_t>();
          llvm::Expected<Result> X = Sp.Decode(In);
          llvm::Error E = X ? In.finish("a result from rank " + std::to_string(M->From))
                            : X.takeError();
          if (E || I >= End) {
            fail(E ? llvm::toString(std::move(E))
                   : "rank " + std::to_string(M->From) + " sent a result for item " +
                         std::to_string(I) + ", which it was not given");
            break;
          }
          if (Sp.Settle)
            Sp.Settle(I, *X);
          put(I, std::move(*X));
          break;
        }
        default:
          break;
        }
      }
      // Hand out items while the window has room (also when it just opened).
      while (!Asking.empty()) {
        std::optional<size_t> I = claim(/*Wait=*/false);
        if (!I)
          break; // the window is full: the consumer will open it
        if (*I >= End) {
          R.send(Asking.front(), support::Ranks::Grant, header(Run, support::Ranks::NoItem));
          Asking.pop_front();
          continue;
        }
        if (Sp.Cached)
          if (std::optional<Result> C = Sp.Cached(*I)) {
            put(*I, std::move(*C)); // and the same rank gets the next item
            continue;
          }
        R.send(Asking.front(), support::Ranks::Grant, header(Run, *I));
        Asking.pop_front();
      }
    }
  }

  void fail(std::string Why) {
    {
      std::lock_guard<std::mutex> L(Mu);
      if (!Failure)
        Failure = std::move(Why);
    }
    CV.notify_all();
  }

  /// A rank other than 0: asks for items, works on them with Jobs workers, sends the results.
  /// The workers send their requests and results themselves; this thread only takes rank 0's
  /// answers in (waking at most every DealerNap: the items a rank keeps in hand cover it).
  llvm::Error serve(const MakeState &Make, const Work &Do, const Spread<Result> &Sp) {
    support::Ranks &R = *Sp.Dist.Job;
    const uint64_t Run = R.beginRun();
    if (R.finished())
      return llvm::Error::success(); // rank 0 has left the command: nothing to serve
    std::mutex M;
    std::condition_variable Changed;
    std::deque<size_t> Queue;          // items given, not yet taken by a worker
    unsigned Idle = 0, Running = Jobs; // workers waiting for an item; workers not finished
    bool NoMore = false;               // rank 0 has no item left (or said Finish)
    size_t Asked = 0;                  // requests not answered yet
    double ItemSeconds = 0;            // a moving average of the work on one item
    // Under M: requests to send now, so that every idle worker and enough more items to
    // cover a round trip to rank 0 are in hand or asked for. Items that take long need one
    // (more would be work other ranks could have done at the end of the run: exploring a
    // module takes seconds); items of a few milliseconds need up to MaxAhead.
    auto Ask = [&] {
      const size_t Ahead =
          ItemSeconds <= 0 ? 1
                           : 1 + size_t(std::min<double>(MaxAhead - 1, AheadSeconds / ItemSeconds));
      const size_t Want = NoMore ? 0 : size_t(Idle) + Ahead;
      const size_t N = Want > Queue.size() + Asked ? Want - Queue.size() - Asked : 0;
      Asked += N;
      return N;
    };
    auto Request = [&](size_t N) { // under M too (the transport has its own lock)
      for (size_t K = 0; K < N; ++K)
        R.send(0, support::Ranks::Request, header(Run));
    };
    llvm::StdThreadPool Pool(llvm::hardware_concurrency(Jobs));
    for (unsigned W = 0; W < Jobs; ++W)
      Pool.async([&] {
        State S = Make();
        for (;;) {
          size_t I;
          {
            std::unique_lock<std::mutex> L(M);
            ++Idle;
            Request(Ask());
            Changed.wait(L, [&] { return !Queue.empty() || NoMore; });
            --Idle;
            if (Queue.empty())
              break;
            I = Queue.front();
            Queue.pop_front();
            Request(Ask());
          }
          const auto Start = std::chrono::steady_clock::now();
          Result X = Do(I, S);
          const double Took =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
          {
            std::lock_guard<std::mutex> L(M);
            ItemSeconds = ItemSeconds <= 0 ? Took : 0.8 * ItemSeconds + 0.2 * Took;
          }
          support::WireWriter Out;
          Out.num<uint64_t>(Run);
          Out.num<uint64_t>(I);
          Sp.Encode(X, Out);
          R.send(0, support::Ranks::Result, Out.take());
        }
        std::lock_guard<std::mutex> L(M);
        --Running;
        Changed.notify_all();
      });
    for (;;) {
      std::optional<support::Ranks::Message> Msg = R.next(std::chrono::microseconds(0));
      if (!Msg) {
        std::unique_lock<std::mutex> L(M);
        if (Running == 0)
          break;
        // Sleep a quarter of the work in hand (a grant asked for now is not needed sooner),
        // between Nap and DealerNap: every wake-up takes the core from a worker.
        const auto InHand = std::chrono::duration<double>(double(Queue.size()) * ItemSeconds / 4);
        const auto Sleep = std::clamp(std::chrono::duration_cast<std::chrono::microseconds>(InHand),
                                      Nap, DealerNap);
        Changed.wait_for(L, Sleep, [&] { return Running == 0; });
        continue;
      }
      if (Msg->Tag == support::Ranks::Finish) {
        R.markFinished(); // rank 0 is gone from this run: stop after the current items
        std::lock_guard<std::mutex> L(M);
        NoMore = true;
        Changed.notify_all();
        continue;
      }
      support::WireReader In(Msg->Bytes);
      if (Msg->Tag != support::Ranks::Grant || In.num<uint64_t>() != Run)
        continue; // a late answer to an earlier run
      const uint64_t I = In.num<uint64_t>();
      std::lock_guard<std::mutex> L(M);
      --Asked;
      if (I == support::Ranks::NoItem)
        NoMore = true;
      else
        Queue.push_back(I);
      Changed.notify_all();
    }
    Pool.wait();
    if (!R.finished())
      R.send(0, support::Ranks::Done, header(Run));
    return llvm::Error::success();
  }

  /// How long a thread waiting for messages sleeps between looks at the least (Open MPI's
  /// blocking waits would spin on a core the workers need); the items ranks keep in hand
  /// cover it.
  static constexpr std::chrono::microseconds Nap{500};
  /// Items a rank other than 0 keeps in hand (or asked for) beyond its idle workers, at most;
  /// and the work they cover: the round trip to rank 0 (the dealer's and the receiver's naps
  /// and the scheduler's delays) with room to spare.
  static constexpr size_t MaxAhead = 64;
  static constexpr double AheadSeconds = 0.02;
  /// How long rank 0's dealer sleeps when nothing came, and the longest sleep of another
  /// rank's receiver: well under AheadSeconds, so a rank asking for more still has work. Each
  /// wake-up takes a core from a worker: waking every 500 µs on both ranks of a two-core
  /// machine made the workers 12 % slower (perf sched: 4,000 wake-ups a second per rank).
  static constexpr std::chrono::microseconds DealerNap{2000};

  const unsigned Jobs;
  const size_t Window;
  size_t Span = 0; // the window over all ranks
  std::mutex Mu;
  std::condition_variable CV;
  std::map<size_t, Result> Ready;
  size_t NextClaim = 0, NextConsume = 0, End = 0;
  bool Stop = false;
  std::optional<std::string> Failure;
};

} // namespace wb::corpus
