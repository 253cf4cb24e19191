// Embeddings and counts files (HDF5): the header and every module.
#include "fuzz/FuzzFile.h"
#include "ir2vec/EmbeddingFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const std::string P = wb::fuzz::writeInput(Data, Size, ".h5");
  auto R = wb::ir2vec::EmbeddingFileReader::open(P, wb::fuzz::IsolatedSeconds);
  if (!R) {
    llvm::consumeError(R.takeError());
    return 0;
  }
  for (uint64_t I = 0; I < R->numModules() && I < 64; ++I)
    llvm::consumeError(R->module(I).takeError());
  return 0;
}
