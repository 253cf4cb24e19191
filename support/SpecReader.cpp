#include "support/SpecReader.h"

#include "support/Files.h"
#include "support/Inputs.h"
#include "support/JSON.h"

namespace wb::support {

llvm::Expected<llvm::json::Value> SpecReader::load(llvm::StringRef What) {
  auto Buf = readInput(Path, /*IsText=*/true);
  if (!Buf)
    return fileError(Path, "cannot read " + What + ": " +
                                        readErrorMessage(Buf.getError()));
  if ((*Buf)->getBufferSize() > MaxJSONBytes) // refused before its bytes are read
    return fileError(Path, "invalid JSON: " + llvm::Twine((*Buf)->getBufferSize()) +
                                        " bytes: more than the " + llvm::Twine(MaxJSONBytes >> 20) +
                                        " MiB any JSON the workbench reads may hold");
  SHA256 = sha256Hex((*Buf)->getBuffer());
  auto J = parseJSON((*Buf)->getBuffer());
  if (!J)
    return fileError(Path, "invalid JSON: " + llvm::toString(J.takeError()));
  if (!J->getAsObject())
    return fileError(Path, "expected a JSON object");
  return J;
}

llvm::Error SpecReader::corpus(const llvm::json::Object &O, std::vector<std::string> &Out) const {
  if (llvm::Error E = strings(O.get("corpus"), "corpus", Out))
    return E;
  if (Out.empty())
    return error("corpus", "name the corpus (files, directories, @lists, corpus descriptions)");
  for (std::string &C : Out)
    C = llvm::StringRef(C).starts_with("@") ? "@" + resolve(C.substr(1)) : resolve(C);
  return llvm::Error::success();
}

llvm::Error SpecReader::objects(
    const llvm::json::Object &O, llvm::StringRef Key, llvm::StringRef What,
    llvm::function_ref<llvm::Error(const llvm::json::Object &, const std::string &)> Each) const {
  const llvm::json::Array *A = O.getArray(Key);
  if (!A || A->empty())
    return error(Key, "expected a non-empty array of " + What);
  for (size_t I = 0; I < A->size(); ++I) {
    const std::string Where = Key.str() + "[" + std::to_string(I) + "]";
    const llvm::json::Object *E = (*A)[I].getAsObject();
    if (!E)
      return error(Where, "expected an object");
    if (llvm::Error Err = Each(*E, Where))
      return Err;
  }
  return llvm::Error::success();
}

} // namespace wb::support
