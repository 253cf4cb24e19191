// Processes modules in parallel and hands the results over in input order.
//
// Jobs workers (hosted on an llvm::StdThreadPool) each own an LLVMContext and claim module
// indices in order; at most Window results exist at once (claimed but not yet consumed), so
// memory is bounded by the modules in flight, not by the number of inputs. The calling thread
// consumes results strictly in index order, so output is identical for any Jobs.
//
// A worker context is reused for up to Policy.ReuseContext modules and then replaced: reuse
// saves re-creating LLVM's uniqued types and constants (parsing gets ~15% faster), replacing
// bounds the memory they accumulate. Reuse renames identified struct types that several
// modules define (%struct.S.0), so callers that print IR text must not reuse contexts.
#pragma once

#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace wb::vocab {

struct ContextPolicy {
  unsigned ReuseContext = 1;     // modules per context (1 = a fresh context per module)
  bool DiscardValueNames = false; // local value names are not needed (faster parsing)
};

template <typename Result> class OrderedPipeline {
public:
  using Work = std::function<Result(size_t Index, llvm::LLVMContext &Ctx)>;
  using Consume = std::function<llvm::Error(size_t Index, Result &&R)>;

  OrderedPipeline(unsigned Jobs, size_t Window, ContextPolicy Policy)
      : Jobs(std::max(1u, Jobs)), Window(std::max<size_t>(Window, this->Jobs)), Policy(Policy) {}

  /// Runs Do on indices [Begin, End) and Consume on each result in order. Stops early and
  /// returns the first error Consume returns.
  llvm::Error run(size_t Begin, size_t End, const Work &Do, const Consume &Take) {
    NextClaim = Begin;
    NextConsume = Begin;
    this->End = End;
    Stop = false;
    llvm::StdThreadPool Pool(llvm::hardware_concurrency(Jobs));
    for (unsigned W = 0; W < Jobs; ++W)
      Pool.async([this, &Do] { workerLoop(Do); });
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

private:
  void workerLoop(const Work &Do) {
    std::unique_ptr<llvm::LLVMContext> Ctx;
    unsigned Uses = 0;
    for (;;) {
      size_t I;
      {
        std::unique_lock<std::mutex> L(Mu);
        CV.wait(L, [&] { return Stop || NextClaim >= End || NextClaim < NextConsume + Window; });
        if (Stop || NextClaim >= End)
          return;
        I = NextClaim++;
      }
      if (!Ctx || Uses >= Policy.ReuseContext) {
        Ctx.reset(); // free the old context before building the next one
        Ctx = std::make_unique<llvm::LLVMContext>();
        Ctx->setDiscardValueNames(Policy.DiscardValueNames);
        Uses = 0;
      }
      ++Uses;
      Result R = Do(I, *Ctx);
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
  const ContextPolicy Policy;
  std::mutex Mu;
  std::condition_variable CV;
  std::map<size_t, Result> Ready;
  size_t NextClaim = 0, NextConsume = 0, End = 0;
  bool Stop = false;
};

} // namespace wb::vocab
