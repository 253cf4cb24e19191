// Vocabulary files, JSON and HDF5 (told apart by their first bytes, as the tool does).
#include "fuzz/FuzzFile.h"
#include "vocab/VocabularyFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const bool HDF5 = Size >= 8 && Data[0] == 0x89 && Data[1] == 'H';
  const std::string P = wb::fuzz::writeInput(Data, Size, HDF5 ? ".h5" : ".json");
  llvm::consumeError(wb::vocab::readEntityVectors(P, wb::fuzz::IsolatedSeconds).takeError());
  return 0;
}
