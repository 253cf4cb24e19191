// Processes items in parallel and hands the results over in input order.
//
// Jobs workers (hosted on an llvm::StdThreadPool) each own a State made by a factory (an
// LLVMContext source for IR work, nothing for compiler processes) and claim item indices in
// order; at most Window results exist at once (claimed but not yet consumed), so memory is
// bounded by the items in flight, not by the number of inputs. The calling thread consumes
// results strictly in index order, so output is identical for any Jobs.
#pragma once

#include "llvm/Support/Error.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>

namespace wb::corpus {

/// The worker state of pipelines that need none.
struct NoState {};

template <typename Result, typename State = NoState> class OrderedPipeline {
public:
  using MakeState = std::function<State()>;
  using Work = std::function<Result(size_t Index, State &S)>;
  using Consume = std::function<llvm::Error(size_t Index, Result &&R)>;

  OrderedPipeline(unsigned Jobs, size_t Window)
      : Jobs(std::max(1u, Jobs)), Window(std::max<size_t>(Window, this->Jobs)) {}

  /// Runs Do on indices [Begin, End), each worker with its own state from Make, and Take on
  /// each result in order. Stops early and returns the first error Take returns.
  llvm::Error run(size_t Begin, size_t End, const MakeState &Make, const Work &Do,
                  const Consume &Take) {
    NextClaim = Begin;
    NextConsume = Begin;
    this->End = End;
    Stop = false;
    llvm::StdThreadPool Pool(llvm::hardware_concurrency(Jobs));
    for (unsigned W = 0; W < Jobs; ++W)
      Pool.async([this, &Make, &Do] {
        State S = Make();
        workerLoop(S, Do);
      });
    llvm::Error Err = llvm::Error::success();
    for (size_t I = Begin; I < End; ++I) {
      Result R = take(I);
      if (llvm::Error E = Take(I, std::move(R))) {
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
    Ready.clear();
    return Err;
  }

  /// The same for work that needs no per-worker state.
  llvm::Error run(size_t Begin, size_t End, const std::function<Result(size_t)> &Do,
                  const Consume &Take) {
    return run(
        Begin, End, [] { return State(); }, [&Do](size_t I, State &) { return Do(I); }, Take);
  }

private:
  void workerLoop(State &S, const Work &Do) {
    for (;;) {
      size_t I;
      {
        std::unique_lock<std::mutex> L(Mu);
        CV.wait(L, [&] { return Stop || NextClaim >= End || NextClaim < NextConsume + Window; });
        if (Stop || NextClaim >= End)
          return;
        I = NextClaim++;
      }
      Result R = Do(I, S);
      {
        std::lock_guard<std::mutex> L(Mu);
        Ready.emplace(I, std::move(R));
      }
      CV.notify_all();
    }
  }

  Result take(size_t I) {
    std::unique_lock<std::mutex> L(Mu);
    CV.wait(L, [&] { return Ready.count(I) != 0; });
    auto It = Ready.find(I);
    Result R = std::move(It->second);
    Ready.erase(It);
    NextConsume = I + 1;
    L.unlock();
    CV.notify_all();
    return R;
  }

  const unsigned Jobs;
  const size_t Window;
  std::mutex Mu;
  std::condition_variable CV;
  std::map<size_t, Result> Ready;
  size_t NextClaim = 0, NextConsume = 0, End = 0;
  bool Stop = false;
};

} // namespace wb::corpus
