// Model files (HDF5, docs/formats/mlgo-model.md).
#include "fuzz/FuzzFile.h"
#include "runners/Models.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const std::string P = wb::fuzz::writeInput(Data, Size, ".h5");
  llvm::consumeError(wb::runners::readModelFile(P, wb::fuzz::IsolatedSeconds).takeError());
  return 0;
}
