#include "mlgo/pipelines/Measure.h"

#include "corpus/OrderedPipeline.h"
#include "features/Augment.h"
#include "features/Dataset.h"
#include "features/RegallocScore.h"
#include "runners/Models.h"
#include "support/Files.h"
#include "support/Process.h"
#include "support/Progress.h"
#include "support/Wire.h"

#include <functional>

namespace wb::mlgo {

using support::Diagnostic;

namespace {

// A module's measurement as it travels from a rank to rank 0 of an MPI run.
void encodeMeasured(const EvalModule &M, support::WireWriter &W) {
  W.bytes(M.Error);
  W.num<double>(M.Baseline);
  W.num<double>(M.Policy);
  W.num<uint64_t>(M.Decisions);
}

llvm::Expected<EvalModule> decodeMeasured(support::WireReader &In) {
  EvalModule M;
  M.Error = In.bytes();
  M.Baseline = In.num<double>();
  M.Policy = In.num<double>();
  M.Decisions = size_t(In.num<uint64_t>());
  return M;
}

/// Runs Measure on every module with C.Run.Jobs workers (on every rank of C.Run.Dist), reporting
/// failures in input order. A pass measures some fields (the baseline, or the policy's size and
/// decisions); rank 0 keeps what it knew of the others (another rank knows only the paths).
void measureAll(std::vector<EvalModule> &Modules, const CompileSetup &C, const char *What,
                const std::function<void(EvalModule &, const support::TempDir &)> &Measure) {
  support::Progress P(What, Modules.size(), C.Run.ShowProgress);
  corpus::OrderedPipeline<EvalModule> Pipe(C.Run.Jobs, 2 * C.Run.Jobs);
  corpus::Spread<EvalModule> Sp;
  Sp.Dist = C.Run.Dist;
  Sp.Encode = encodeMeasured;
  Sp.Decode = decodeMeasured;
  // A module that failed already is not measured again (rank 0 alone knows it failed).
  Sp.Cached = [&](size_t I) -> std::optional<EvalModule> {
    if (Modules[I].Error.empty())
      return std::nullopt;
    return Modules[I];
  };
  size_t Done = 0;
  llvm::Error E = Pipe.run(
      0, Modules.size(),
      [&](size_t I) {
        EvalModule M = Modules[I];
        llvm::Expected<support::TempDir> D = support::TempDir::create("ir2vec-eval");
        if (!D)
          M.Error = llvm::toString(D.takeError());
        else
          Measure(M, *D);
        return M;
      },
      [&](size_t I, EvalModule &&M) -> llvm::Error {
        EvalModule &Into = Modules[I];
        if (!M.Error.empty() && Into.Error.empty()) {
          P.clear();
          C.Run.Report({Diagnostic::Error, support::aboutFile(Into.Path, M.Error)});
          Into.Error = M.Error;
        }
        if (M.Baseline >= 0)
          Into.Baseline = M.Baseline;
        if (M.Policy >= 0) {
          Into.Policy = M.Policy;
          Into.Decisions = M.Decisions;
        }
        P.update(++Done);
        return llvm::Error::success();
      },
      Sp);
  llvm::consumeError(std::move(E)); // the consumer never fails
}

} // namespace

/// The measure of a compilation: its .text, or (register allocation) its static cost.
static double measureOf(runners::Task T, const Compiled &R) {
  return T == runners::Task::Inline ? double(R.TextSize) : features::totalCost({}, R.Regalloc);
}

std::vector<EvalModule> measureBaselines(const std::vector<std::string> &Paths,
                                         const CompileSetup &C, runners::Task T) {
  std::vector<EvalModule> Modules;
  for (const std::string &P : Paths)
    Modules.push_back({P, "", -1, -1, 0, ""});
  measureAll(Modules, C, "baseline", [&](EvalModule &M, const support::TempDir &D) {
    llvm::Expected<Compiled> R = compileModule(M.Path, C.Tools, nullptr, D, "oz", C.Run.CancelFd,
                                               T != runners::Task::Inline);
    if (!R)
      M.Error = llvm::toString(R.takeError());
    else
      M.Baseline = measureOf(T, *R);
  });
  return Modules;
}

void measurePolicy(std::vector<EvalModule> &Modules, const runners::SessionConfig &Session,
                   const ir2vec::EmbeddingChoice &Embeddings, const CompileSetup &C) {
  // The one read of the model file, before the workers start (the loader caches it): a read
  // is isolated in a forked child, and a fork while other threads allocate can leave the child
  // waiting for a lock no thread of it will release (AddressSanitizer's allocator: the
  // benchmark test hung there).
  if (!Session.MakePolicy && Session.Policy.LoadModel &&
      !runners::modelFileOf(Session.Policy).empty())
    if (auto P = runners::makePolicy(Session.T, Session.Policy); !P) {
      const std::string Why = llvm::toString(P.takeError());
      C.Run.Report({Diagnostic::Error, Why});
      for (EvalModule &M : Modules)
        if (M.Error.empty())
          M.Error = Why;
      return;
    }
  measureAll(Modules, C, "modules", [&](EvalModule &M, const support::TempDir &D) {
    runners::SessionConfig S = Session;
    if (Embeddings)
      S.Augment = sessionAugmenter(S.T, Embeddings, M.Path);
    const bool Costs = S.T != runners::Task::Inline;
    if (Costs) {
      S.Costs = features::RegallocWeights{};
      S.ReadRemarks = features::readRegallocRemarks;
    }
    llvm::Expected<Compiled> R =
        compileModule(M.Path, C.Tools, &S, D, "policy", C.Run.CancelFd, Costs);
    if (!R) {
      M.Error = llvm::toString(R.takeError());
      return;
    }
    M.Policy = measureOf(S.T, *R);
    M.Decisions = R->SessionLog.Observations.size();
  });
}

} // namespace wb::mlgo
