// The resume state of an HDF5 embeddings run (OUT.resume, JSON). The fingerprint it is checked
// against is taken from the input itself, so the fuzzer gets past that check.
#include "fuzz/FuzzFile.h"
#include "ir2vec/EmbeddingBatch.h"

#include "llvm/Support/JSON.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const std::string P = wb::fuzz::writeInput(Data, Size, ".resume");
  std::string Print;
  if (auto J = llvm::json::parse(llvm::StringRef(reinterpret_cast<const char *>(Data), Size))) {
    if (const llvm::json::Object *O = J->getAsObject())
      if (auto F = O->getString("fingerprint"))
        Print = F->str();
  } else {
    llvm::consumeError(J.takeError());
  }
  llvm::consumeError(wb::ir2vec::checkResumeState(P, Print));
  return 0;
}
