#include "support/Inputs.h"

#include "support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace wb::support {
namespace {

llvm::Error expandDirectory(llvm::StringRef Dir, std::vector<std::string> &Out) {
  std::vector<std::string> Found;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef P = It->path();
    llvm::StringRef Ext = llvm::sys::path::extension(P);
    if ((Ext == ".bc" || Ext == ".ll") && It->type() != llvm::sys::fs::file_type::directory_file)
      Found.push_back(P.str());
  }
  if (EC)
    return fileError(Dir, "cannot list directory: " + EC.message());
  std::sort(Found.begin(), Found.end());
  if (Found.empty())
    return fileError(Dir, "directory holds no .bc or .ll files");
  Out.insert(Out.end(), Found.begin(), Found.end());
  return llvm::Error::success();
}

llvm::Error expandList(llvm::StringRef ListPath, std::vector<std::string> &Out) {
  auto Buf = llvm::MemoryBuffer::getFile(ListPath, /*IsText=*/true);
  if (!Buf)
    return fileError(ListPath, "cannot read input list: " + Buf.getError().message());
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    L = L.trim();
    if (!L.empty() && !L.starts_with("#"))
      Out.push_back(L.str());
  }
  return llvm::Error::success();
}

llvm::Error expandCorpus(llvm::StringRef Desc, std::vector<std::string> &Out) {
  llvm::Expected<CorpusDescription> D = readCorpusDescription(Desc);
  if (!D)
    return D.takeError();
  for (size_t I = 0; I < D->Modules.size(); ++I)
    Out.push_back(D->stem(I) + ".bc");
  return llvm::Error::success();
}

} // namespace

std::string CorpusDescription::stem(size_t I) const {
  llvm::SmallString<256> P(llvm::sys::path::parent_path(Path));
  llvm::sys::path::append(P, Modules[I]);
  return std::string(P);
}

llvm::Expected<CorpusDescription> readCorpusDescription(llvm::StringRef Desc) {
  auto Buf = llvm::MemoryBuffer::getFile(Desc, /*IsText=*/true);
  if (!Buf)
    return fileError(Desc, "cannot read corpus description: " + Buf.getError().message());
  auto J = llvm::json::parse((*Buf)->getBuffer());
  if (!J)
    return fileError(Desc, "invalid JSON: " + llvm::toString(J.takeError()));
  const llvm::json::Object *Root = J->getAsObject();
  const llvm::json::Array *Modules = Root ? Root->getArray("modules") : nullptr;
  if (!Modules)
    return fileError(Desc, "expected an object with a \"modules\" array (ml-compiler-opt corpus "
                      "description)");
  CorpusDescription D;
  D.Path = Desc.str();
  for (size_t I = 0; I < Modules->size(); ++I) {
    std::optional<llvm::StringRef> M = (*Modules)[I].getAsString();
    if (!M)
      return fileError(Desc, "\"modules\"[" + llvm::Twine(I) + "] is not a string");
    D.Modules.push_back(M->str());
  }
  if (const llvm::json::Value *T = Root->get("has_thinlto")) {
    std::optional<bool> B = T->getAsBoolean();
    if (!B)
      return fileError(Desc, "\"has_thinlto\" is not true or false");
    D.HasThinLTO = *B;
  }
  if (const llvm::json::Value *O = Root->get("global_command_override")) {
    const llvm::json::Array *A = O->getAsArray();
    if (!A)
      return fileError(Desc, "\"global_command_override\" is not an array of strings");
    std::vector<std::string> Args;
    for (const llvm::json::Value &V : *A) {
      std::optional<llvm::StringRef> S = V.getAsString();
      if (!S)
        return fileError(Desc, "\"global_command_override\" is not an array of strings");
      Args.push_back(S->str());
    }
    D.GlobalCommandOverride = std::move(Args);
  }
  return D;
}

// IR never starts with '{' (text IR starts with a comment, a directive or a definition;
// bitcode with its magic number), a JSON object always does: the first bytes decide, whatever
// the file is called.
bool isCorpusDescription(llvm::StringRef Path) {
  if (llvm::sys::path::filename(Path) == "corpus_description.json")
    return true;
  if (!llvm::sys::fs::is_regular_file(Path))
    return false;
  auto Head = llvm::MemoryBuffer::getFileSlice(Path, 256, 0);
  if (!Head)
    return false;
  return (*Head)->getBuffer().ltrim().starts_with("{");
}

llvm::Expected<std::vector<std::string>> expandInputs(const std::vector<std::string> &Args) {
  std::vector<std::string> Out;
  for (const std::string &A : Args) {
    llvm::Error E = llvm::Error::success();
    if (A.size() > 1 && A[0] == '@')
      E = expandList(llvm::StringRef(A).drop_front(), Out);
    else if (isCorpusDescription(A))
      E = expandCorpus(A, Out);
    else if (A != "-" && llvm::sys::fs::is_directory(A))
      E = expandDirectory(A, Out);
    else
      Out.push_back(A); // a file; whether it can be read is the module's own outcome
    if (E)
      return E;
  }
  return Out;
}

llvm::Expected<std::vector<std::string>>
expandInputsOrStdin(const std::vector<std::string> &Args) {
  auto In = expandInputs(Args.empty() ? std::vector<std::string>{"-"} : Args);
  if (In && In->empty())
    return makeError("no input modules");
  return In;
}

} // namespace wb::support
