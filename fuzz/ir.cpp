// IR through the project's module reader (bitcode or text, told apart by the first bytes as
// LLVM's reader does), then embedded, as a corpus run does: behind corpus::runRecoverable,
// and a time limit, which turn LLVM's own crashes and endless loops into a failed module. Each recovered crash is LLVM's, not
// ours; its input is kept in $WB_FUZZ_RECOVERED (when set) for docs/robustness.md and tests.
#include "corpus/Batch.h"
#include "corpus/ModuleReader.h"
#include "fuzz/FuzzFile.h"
#include "ir2vec/ModuleEmbedding.h"
#include "vocab/VocabularyFile.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <sanitizer/lsan_interface.h>

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const wb::vocab::Vocabulary Vocab = [] {
    auto V = wb::vocab::parseVocabularyJSON(wb::vocab::defaultVocabularyJSON(),
                                            wb::vocab::DefaultVocabularyName, {});
    if (!V)
      std::abort();
    return std::move(*V);
  }();
  const bool Bitcode = Size >= 2 && Data[0] == 'B' && Data[1] == 'C';
  const std::string P = wb::fuzz::writeInput(Data, Size, Bitcode ? ".bc" : ".ll");
  // As a corpus run, with a shorter limit than its 300 s (libFuzzer reports 10 s as slow, and
  // its own limit is 30 s).
  static wb::corpus::TimeLimit Limit(5);
  auto Run = [&](llvm::LLVMContext &Ctx) {
    return Limit.run([&] {
      auto M = wb::corpus::readModule(P, Ctx);
      if (!M) {
        llvm::consumeError(M.takeError());
        return;
      }
      for (auto K : {wb::ir2vec::Kind::Symbolic, wb::ir2vec::Kind::FlowAware}) {
        wb::ir2vec::EmbedRequest R;
        R.EmbeddingKind = K;
        R.Levels = {true, true, true};
        (void)wb::ir2vec::embedModule(*M->M, Vocab, R);
      }
    });
  };
  // A recovered crash abandons what LLVM and our frames held (by design, corpus::runModules):
  // first with leak detection off, to learn whether LLVM crashes; when it does not, the input
  // is run again with leak detection on, so our code is checked for leaks on every input that
  // does not crash LLVM.
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  __lsan_disable();
  std::optional<std::string> Crash = Run(*Ctx);
  __lsan_enable();
  if (!Crash) {
    Ctx = std::make_unique<llvm::LLVMContext>();
    Crash = Run(*Ctx); // LLVM's loops depend on the heap: it may stop only now
    if (!Crash)
      return 0;
  }
  (void)Ctx.release(); // as a corpus run does: the crashed context is never destroyed
  if (const char *Dir = std::getenv("WB_FUZZ_RECOVERED")) {
    const uint64_t H = llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(Data, Size));
    const std::string Out = std::string(Dir) + "/" + llvm::utohexstr(H) + (Bitcode ? ".bc" : ".ll");
    wb::fuzz::writeFile(Out, std::string_view(reinterpret_cast<const char *>(Data), Size));
  }
  return 0;
}
