// Corpus descriptions (ml-compiler-opt's corpus_description.json) and @ lists.
#include "fuzz/FuzzFile.h"
#include "support/Inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const std::string P = wb::fuzz::writeInput(Data, Size, ".json");
  auto D = wb::support::readCorpusDescription(P);
  if (!D)
    llvm::consumeError(D.takeError());
  auto L = wb::support::expandInputs({"@" + P});
  if (!L)
    llvm::consumeError(L.takeError());
  return 0;
}
