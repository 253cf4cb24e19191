// Running one piece of work over many modules: how workers use LLVM contexts, ordered parallel
// execution over the inputs, a progress line, per-module diagnostics in input order, the text
// output shared by `triplets` and `embeddings`, and the outcome of a batch.
#pragma once

#include "corpus/OrderedPipeline.h"
#include "support/Diagnostics.h"
#include "support/RunSettings.h"
#include "support/Error.h"
#include "support/Progress.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <optional>
#include <string>
#include <vector>

namespace wb::corpus {

/// How a worker uses LLVM contexts. Reuse saves re-creating LLVM's uniqued types and
/// constants (parsing gets ~15% faster), replacement bounds the memory they accumulate. Reuse
/// renames identified struct types that several modules define (%struct.S.0), so work that
/// prints IR text or optimises modules must not reuse contexts.
struct ContextPolicy {
  unsigned ReuseContext = 1;      // modules per context (1 = a fresh context per module)
  bool DiscardValueNames = false; // local value names are not needed (faster parsing)
};

/// One worker's contexts under a policy (the state of an IR pipeline's worker).
class ContextSource {
public:
  explicit ContextSource(ContextPolicy P) : Policy(P) {}
  /// The context for the next module: the current one, or a fresh one when it has served
  /// Policy.ReuseContext modules.
  llvm::LLVMContext &next();
  /// Forgets the current context without destroying it: LLVM crashed while using it, and its
  /// destructor would walk the state the crash left (its memory is lost on purpose).
  void abandon();

private:
  ContextPolicy Policy;
  std::unique_ptr<llvm::LLVMContext> Ctx;
  unsigned Uses = 0;
};

/// The default time limit per module: the largest real modules take seconds.
inline constexpr double DefaultModuleSeconds = 300;

/// How the user runs a batch: workers, a progress line, where per-module messages go. (How
/// the work uses contexts is the work's own business: a ContextPolicy.)
struct BatchIO {
  support::RunSettings Run;
  /// Time limit per module (seconds; 0 = none): see TimeLimit.
  double ModuleSeconds = DefaultModuleSeconds;
};

struct BatchSummary {
  size_t Modules = 0; // modules attempted
  size_t Failed = 0;  // modules that could not be read or verified
};

/// Complete, partial (some modules failed; each was reported) or, when nothing usable came
/// out, an error (the one module's failure was reported already; for many, a summary).
llvm::Expected<support::Outcome> outcomeOf(const BatchSummary &S);

/// Default window of modules in flight for Jobs workers.
size_t defaultWindow(unsigned Jobs);

/// Runs Work, and when LLVM crashes in it (a signal such as SIGSEGV or SIGABRT, or a
/// report_fatal_error) returns what happened instead of letting the process die: LLVM 22's
/// bitcode reader and verifier crash on some malformed modules (docs/robustness.md). Built on
/// llvm::CrashRecoveryContext (a setjmp per call: nothing measurable next to parsing). What
/// Work touched is left as the crash left it: the caller abandons it.
std::optional<std::string> runRecoverable(llvm::function_ref<void()> Work);

/// A time limit for recoverable work: LLVM 22's bitcode reader spins for ever on some
/// malformed modules (docs/robustness.md), which no recovery context catches. A watchdog
/// thread interrupts a thread whose work outlives the limit with SIGABRT, which the recovery
/// context of runRecoverable catches; the work is then reported as not finished. (A thread
/// interrupted while it holds a lock, such as malloc's, may leave the run waiting on that
/// lock: no worse than the loop it was in.)
class TimeLimit {
public:
  /// Seconds <= 0: no limit (no thread).
  explicit TimeLimit(double Seconds);
  TimeLimit(const TimeLimit &) = delete;
  TimeLimit &operator=(const TimeLimit &) = delete;
  ~TimeLimit();
  /// runRecoverable(Work) within the limit: a message when Work crashed or was stopped.
  std::optional<std::string> run(llvm::function_ref<void()> Work);

private:
  struct Slot;
  void watch();
  const double Seconds;
  std::mutex Mu;
  std::condition_variable CV;
  std::vector<Slot *> Running;
  bool Stop = false;
  std::thread Watcher;
};

struct ModuleInput;

/// One module read outside a batch (the Python module's single-file calls), with a batch's
/// protections: a crash of LLVM's reader or verifier, or a read longer than Seconds, becomes an
/// error naming Path, and Ctx is then abandoned (released, never destroyed: the crash left it
/// inconsistent) and replaced by a fresh one.
llvm::Expected<ModuleInput> readModuleRecoverable(llvm::StringRef Path,
                                                  std::unique_ptr<llvm::LLVMContext> &Ctx,
                                                  double Seconds = DefaultModuleSeconds);

/// The Spread of a run of IO whose results travel with encode(const Result &, WireWriter &) and
/// decode(WireReader &, Result &) (found by argument-dependent lookup, beside Result).
template <typename Result> Spread<Result> spreadOf(const BatchIO &IO) {
  Spread<Result> S;
  S.Dist = IO.Run.Dist;
  S.Encode = [](const Result &R, support::WireWriter &W) { encode(R, W); };
  S.Decode = [](support::WireReader &In) -> llvm::Expected<Result> {
    Result R;
    decode(In, R);
    return R;
  };
  return S;
}

/// This process serves rank 0 of an MPI run: it works on what rank 0 hands out and writes no
/// output of its own.
inline bool serving(const BatchIO &IO) { return IO.Run.Dist.serving(); }

/// Runs Do on the modules Inputs[Begin, end) with IO.Run.Jobs workers (on every rank of IO.Ranks),
/// each using contexts as Policy says, and Take on each result in input order (on rank 0 only).
/// A module on which LLVM crashes, or which takes longer than IO.ModuleSeconds, gets a Result
/// whose Error names it and what happened (Result has an Error string), its context is
/// abandoned, and the run goes on.
template <typename Result>
llvm::Error runModules(const BatchIO &IO, ContextPolicy Policy,
                       const std::vector<std::string> &Inputs, size_t Begin,
                       const std::function<Result(size_t Index, llvm::LLVMContext &)> &Do,
                       const std::function<llvm::Error(size_t Index, Result &&)> &Take) {
  OrderedPipeline<Result, ContextSource> Pipe(IO.Run.Jobs, defaultWindow(IO.Run.Jobs));
  TimeLimit Limit(IO.ModuleSeconds);
  return Pipe.run(
      Begin, Inputs.size(), [Policy] { return ContextSource(Policy); },
      [&](size_t I, ContextSource &S) {
        Result R;
        llvm::LLVMContext &Ctx = S.next();
        if (std::optional<std::string> Crash = Limit.run([&] { R = Do(I, Ctx); })) {
          S.abandon();
          R = Result();
          R.Error = Inputs[I] + ": " + *Crash;
        }
        return R;
      },
      Take, spreadOf<Result>(IO));
}

/// What a worker makes of one module for text output.
struct ModuleText {
  std::string Error; // empty: processed
  std::vector<std::string> Warnings;
  std::string Text;
};
void encode(const ModuleText &T, support::WireWriter &W);
void decode(support::WireReader &In, ModuleText &T);

/// When runTextBatch precedes a module's text with "Module: <path>\n".
enum class ModuleHeaders { WhenSeveral, Always };

/// Runs Work on every input in parallel and writes the texts to OS in input order, each
/// preceded by "Module: <path>\n" when there are several inputs (or Always). Failed modules
/// are reported and skipped.
llvm::Expected<BatchSummary>
runTextBatch(const std::vector<std::string> &Inputs, llvm::raw_ostream &OS, const BatchIO &IO,
             ContextPolicy Policy,
             const std::function<ModuleText(const std::string &Path, llvm::LLVMContext &)> &Work,
             ModuleHeaders Headers = ModuleHeaders::WhenSeveral);

/// Reports one module's warnings and error, in that order, clearing the progress line first.
/// Returns true when the module failed.
bool reportModule(const BatchIO &IO, support::Progress &P, std::vector<std::string> &Warnings,
                  const std::string &Error);

} // namespace wb::corpus
