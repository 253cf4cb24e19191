// TensorSpec JSON.
#include "features/TensorSpec.h"

#include "llvm/Support/JSON.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto V = llvm::json::parse(llvm::StringRef(reinterpret_cast<const char *>(Data), Size));
  if (!V) {
    llvm::consumeError(V.takeError());
    return 0;
  }
  auto S = wb::features::tensorSpecFromJSON(*V, "fuzz");
  if (S)
    (void)S->byteSize();
  else
    llvm::consumeError(S.takeError());
  return 0;
}
