// What recovering from LLVM's crashes costs a corpus run (issue 12): every module is read
// (corpus::readModule: parse + verify) twice per round, once directly and once inside
// corpus::runRecoverable, alternating which goes first, in the same process; and the bare cost
// of one runRecoverable call around nothing.
//   recovery_cost ROUNDS INPUT...   (inputs as for `ir2vec embeddings`)
#include "corpus/Batch.h"
#include "corpus/ModuleReader.h"
#include "support/Inputs.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>

namespace {
using Clock = std::chrono::steady_clock;
double seconds(Clock::duration D) { return std::chrono::duration<double>(D).count(); }
} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    llvm::errs() << "usage: recovery_cost ROUNDS INPUT...\n";
    return 1;
  }
  const int Rounds = std::atoi(argv[1]);
  auto Inputs = wb::support::expandInputs(std::vector<std::string>(argv + 2, argv + argc));
  if (!Inputs) {
    llvm::errs() << "recovery_cost: " << llvm::toString(Inputs.takeError()) << "\n";
    return 1;
  }
  auto Read = [](const std::string &Path) {
    llvm::LLVMContext Ctx;
    auto M = wb::corpus::readModule(Path, Ctx);
    if (!M)
      llvm::consumeError(M.takeError());
  };
  Clock::duration Direct{}, Recovered{};
  for (int R = 0; R < Rounds; ++R)
    for (size_t I = 0; I < Inputs->size(); ++I) {
      const std::string &P = (*Inputs)[I];
      for (int Turn = 0; Turn < 2; ++Turn) {
        const bool Safe = (Turn + I + R) % 2;
        auto T0 = Clock::now();
        if (Safe) {
          if (auto Crash = wb::corpus::runRecoverable([&] { Read(P); }))
            llvm::errs() << P << ": " << *Crash << "\n";
        } else {
          Read(P);
        }
        (Safe ? Recovered : Direct) += Clock::now() - T0;
      }
    }
  const int Calls = 1000000;
  auto T0 = Clock::now();
  for (int I = 0; I < Calls; ++I)
    (void)wb::corpus::runRecoverable([] {});
  const double PerCall = seconds(Clock::now() - T0) / Calls;
  llvm::outs() << llvm::formatv(
      "{0} modules x {1} rounds: direct {2:f3} s, recoverable {3:f3} s, ratio {4:f4}; "
      "one empty runRecoverable call {5:f1} ns ({6:f5} % of the mean module read)\n",
      Inputs->size(), Rounds, seconds(Direct), seconds(Recovered),
      seconds(Recovered) / seconds(Direct), PerCall * 1e9,
      100 * PerCall / (seconds(Direct) / (Inputs->size() * Rounds)));
  return 0;
}
