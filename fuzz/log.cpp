// Training logs through the incremental parser, fed in chunks whose sizes come from the input
// (the first byte seeds them), as a compiler's stream arrives; then the header checks of the
// host for each task.
#include "features/FeatureSets.h"
#include "features/TrainingLog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  unsigned Seed = Data[0];
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data + 1), Size - 1);
  wb::features::LogParser P("fuzz");
  size_t Pos = 0;
  while (true) {
    if (Pos < Bytes.size()) {
      Seed = Seed * 1103515245u + 12345u;
      const size_t Chunk = 1 + (Seed >> 16) % 97;
      P.feed(Bytes.substr(Pos, Chunk));
      Pos += Chunk;
    }
    auto E = P.next();
    if (!E) {
      llvm::consumeError(E.takeError());
      return 0;
    }
    if (!*E && Pos >= Bytes.size())
      break;
    if (*E && (*E)->K == wb::features::LogEvent::Header)
      for (auto T : {wb::features::Task::Inline, wb::features::Task::Evict, wb::features::Task::Priority}) {
        auto U = wb::features::checkHeader(T, P.header().Features, P.header().Advice);
        if (!U)
          llvm::consumeError(U.takeError());
      }
  }
  llvm::consumeError(P.finish());
  return 0;
}
