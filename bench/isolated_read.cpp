// What reading an embeddings or counts file behind the process boundary costs (issue 12):
// EmbeddingFileReader::open (a complete read in a child first) against openTrusted (none),
// each followed by reading every module, alternating which goes first, in the same process.
//   isolated_read ROUNDS FILE.h5
#include "ir2vec/EmbeddingFile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: isolated_read ROUNDS FILE.h5\n";
    return 1;
  }
  using Clock = std::chrono::steady_clock;
  const int Rounds = std::atoi(argv[1]);
  const std::string Path = argv[2];
  double T[2] = {0, 0};
  uint64_t Modules = 0;
  for (int R = 0; R < Rounds; ++R)
    for (int Turn = 0; Turn < 2; ++Turn) {
      const bool Isolated = (R + Turn) % 2;
      auto T0 = Clock::now();
      auto F = Isolated ? wb::ir2vec::EmbeddingFileReader::open(Path)
                        : wb::ir2vec::EmbeddingFileReader::openTrusted(Path);
      if (!F) {
        llvm::errs() << llvm::toString(F.takeError()) << "\n";
        return 1;
      }
      Modules = F->numModules();
      for (uint64_t I = 0; I < Modules; ++I)
        if (auto M = F->module(I); !M) {
          llvm::errs() << llvm::toString(M.takeError()) << "\n";
          return 1;
        }
      T[Isolated] += std::chrono::duration<double>(Clock::now() - T0).count();
    }
  llvm::outs() << llvm::formatv("{0}: {1} modules x {2} rounds: trusted {3:f3} s, isolated {4:f3} "
                                "s, ratio {5:f3}\n",
                                Path, Modules, Rounds, T[0], T[1], T[1] / T[0]);
  return 0;
}
