#include "mlgo/SpecReader.h"

#include "support/Files.h"
#include "support/Inputs.h"
#include "support/JSON.h"

namespace wb::mlgo {

llvm::Expected<llvm::json::Value> SpecReader::load(llvm::StringRef What) {
  auto Buf = support::readInput(Path, /*IsText=*/true);
  if (!Buf)
    return support::fileError(Path, "cannot read " + What + ": " +
                                        support::readErrorMessage(Buf.getError()));
  if ((*Buf)->getBufferSize() > support::MaxJSONBytes) // refused before its bytes are read
    return support::fileError(Path, "invalid JSON: " + llvm::Twine((*Buf)->getBufferSize()) +
                                        " bytes: more than the " + llvm::Twine(support::MaxJSONBytes >> 20) +
                                        " MiB any JSON the workbench reads may hold");
  SHA256 = support::sha256Hex((*Buf)->getBuffer());
  auto J = support::parseJSON((*Buf)->getBuffer());
  if (!J)
    return support::fileError(Path, "invalid JSON: " + llvm::toString(J.takeError()));
  if (!J->getAsObject())
    return support::fileError(Path, "expected a JSON object");
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

llvm::Error SpecReader::folds(const llvm::json::Object &O, unsigned &Out) const {
  if (llvm::Error E = integer(O, "folds", "spec", Out))
    return E;
  if (Out == 1)
    return error("folds", "one fold leaves nothing to train on: 0 (one per package) or at "
                          "least 2");
  return llvm::Error::success();
}

} // namespace wb::mlgo
