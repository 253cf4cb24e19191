#include "support/Inputs.h"

#include "support/JSON.h"

#include "llvm/ADT/STLExtras.h"

#include "support/Error.h"
#include "support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace wb::support {
namespace {

/// The walk of one directory input: real directories and files each once.
struct DirectoryWalk {
  const DiagnosticHandler &Report;
  llvm::ArrayRef<llvm::StringRef> Extensions;
  std::set<std::pair<uint64_t, uint64_t>> Dirs, Files; // (device, inode) seen
  std::vector<std::string> Found;
  size_t Twice = 0;

  void warn(const std::string &Message) {
    if (Report)
      Report({Diagnostic::Warning, Message});
  }

  std::error_code walk(const std::string &Dir) {
    std::error_code EC;
    std::vector<std::string> Entries;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
      Entries.push_back(It->path());
    if (EC)
      return EC;
    std::sort(Entries.begin(), Entries.end());
    for (const std::string &P : Entries) {
      struct stat St, Link;
      if (::stat(P.c_str(), &St) != 0) {
        if (::lstat(P.c_str(), &Link) == 0 && S_ISLNK(Link.st_mode) && wanted(P))
          warn(P + ": a symlink to nothing (" + std::strerror(errno) + "); skipped");
        continue;
      }
      const std::pair<uint64_t, uint64_t> Id{uint64_t(St.st_dev), uint64_t(St.st_ino)};
      if (S_ISDIR(St.st_mode)) {
        if (!Dirs.insert(Id).second) {
          warn(P + ": leads to a directory already walked (a symlink loop, or a second path "
                   "to it); not followed");
          continue;
        }
        if (std::error_code Sub = walk(P))
          warn(P + ": cannot list directory: " + Sub.message() + "; skipped");
        continue;
      }
      if (!wanted(P))
        continue;
      if (!S_ISREG(St.st_mode)) {
        warn(P + ": not a regular file (a device, a FIFO or a socket, or a link to one); "
                 "skipped");
        continue;
      }
      if (!Files.insert(Id).second) {
        ++Twice;
        continue;
      }
      Found.push_back(P);
    }
    return {};
  }

  bool wanted(llvm::StringRef P) const {
    return llvm::is_contained(Extensions, llvm::sys::path::extension(P));
  }
};

/// The modules of an expansion, and each one's name in its corpus ("" when it has none).
struct Expansion {
  std::vector<std::string> Paths, Names;
  void add(std::string Path, std::string Name) {
    Paths.push_back(std::move(Path));
    Names.push_back(std::move(Name));
  }
};

llvm::Error expandDirectory(llvm::StringRef Dir, Expansion &Out, const DiagnosticHandler &Report,
                            llvm::ArrayRef<llvm::StringRef> Extensions) {
  auto Found = findFiles(Dir, Extensions, Report);
  if (!Found)
    return Found.takeError();
  if (Found->empty()) {
    std::string Names;
    for (size_t I = 0; I < Extensions.size(); ++I)
      Names += (I == 0 ? "" : I + 1 == Extensions.size() ? " or " : ", ") + Extensions[I].str();
    // A build directory: its objects hold the modules when built with embedded bitcode.
    auto Objects = findFiles(Dir, {".o"}, nullptr);
    const bool HasObjects = Objects && !Objects->empty();
    if (!Objects)
      llvm::consumeError(Objects.takeError());
    return fileError(Dir, "directory holds no " + Names + " files" +
                              (HasObjects ? std::string(" but objects (.o): if they were built with "
                                                        "-Xclang -fembed-bitcode=all, `ir2vec corpus "
                                                        "extract -o DIR " + Dir.str() +
                                                        "` makes a corpus of their modules")
                                          : std::string()));
  }
  for (std::string &F : *Found) {
    llvm::StringRef Rel(F);
    if (Rel.consume_front(Dir))
      Rel = Rel.ltrim('/');
    std::string Name = Rel.str();
    Out.add(std::move(F), std::move(Name));
  }
  return llvm::Error::success();
}

llvm::Error expandCorpus(llvm::StringRef Desc, Expansion &Out);

/// One input argument that is not a list: a corpus description, a directory or a file.
llvm::Error expandOne(const std::string &A, Expansion &Out, const DiagnosticHandler &Report,
                      llvm::ArrayRef<llvm::StringRef> Extensions) {
  if (std::optional<std::string> Desc = corpusDescriptionOf(A))
    return expandCorpus(*Desc, Out);
  if (A != "-" && llvm::sys::fs::is_directory(A))
    return expandDirectory(A, Out, Report, Extensions);
  Out.add(A, ""); // a file; whether it can be read is the module's own outcome
  return llvm::Error::success();
}

/// Each line of a list is what an argument may be (a module, a directory, a corpus
/// description), but another list: a line starting with '@' names a file.
llvm::Error expandList(llvm::StringRef ListPath, Expansion &Out, const DiagnosticHandler &Report,
                       llvm::ArrayRef<llvm::StringRef> Extensions) {
  auto Buf = readInput(ListPath, /*IsText=*/true);
  if (!Buf)
    return fileError(ListPath, "cannot read input list: " + readErrorMessage(Buf.getError()));
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    L = L.trim();
    if (L.empty() || L.starts_with("#"))
      continue;
    if (llvm::Error E = expandOne(L.str(), Out, Report, Extensions))
      return E;
  }
  return llvm::Error::success();
}

llvm::Error expandCorpus(llvm::StringRef Desc, Expansion &Out) {
  llvm::Expected<CorpusDescription> D = readCorpusDescription(Desc);
  if (!D)
    return D.takeError();
  for (size_t I = 0; I < D->Modules.size(); ++I)
    Out.add(D->stem(I) + ".bc", D->Modules[I]);
  return llvm::Error::success();
}

} // namespace

std::string CorpusDescription::stem(size_t I) const {
  llvm::SmallString<256> P(llvm::sys::path::parent_path(Path));
  llvm::sys::path::append(P, Modules[I]);
  return std::string(P);
}

llvm::Expected<CorpusDescription> readCorpusDescription(llvm::StringRef Desc) {
  auto Buf = readInput(Desc, /*IsText=*/true);
  if (!Buf)
    return fileError(Desc, "cannot read corpus description: " + readErrorMessage(Buf.getError()));
  auto J = support::parseJSON((*Buf)->getBuffer());
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

bool isJSONInput(llvm::StringRef Path, llvm::StringRef Conventional, char Opener, size_t HeadBytes) {
  if (llvm::sys::path::filename(Path) == Conventional)
    return true;
  if (!llvm::sys::fs::is_regular_file(Path))
    return false;
  auto Head = llvm::MemoryBuffer::getFileSlice(Path, HeadBytes, 0);
  return Head && (*Head)->getBuffer().ltrim().starts_with(Opener);
}

bool isCorpusDescription(llvm::StringRef Path) {
  return isJSONInput(Path, "corpus_description.json", '{', 256);
}

std::optional<std::string> corpusDescriptionOf(llvm::StringRef Arg) {
  if (Arg.empty() || Arg[0] == '@' || Arg == "-")
    return std::nullopt;
  if (llvm::sys::fs::is_directory(Arg)) {
    std::string Desc = pathIn(Arg, "corpus_description.json");
    if (llvm::sys::fs::is_regular_file(Desc))
      return Desc;
    return std::nullopt;
  }
  if (isCorpusDescription(Arg))
    return Arg.str();
  return std::nullopt;
}

llvm::Expected<std::vector<std::string>> expandInputs(const std::vector<std::string> &Args,
                                                      const DiagnosticHandler &Report,
                                                      std::vector<std::string> *Names,
                                                      llvm::ArrayRef<llvm::StringRef> Extensions) {
  Expansion Out;
  for (const std::string &A : Args) {
    llvm::Error E = llvm::Error::success();
    if (A.size() > 1 && A[0] == '@')
      E = expandList(llvm::StringRef(A).drop_front(), Out, Report, Extensions);
    else
      E = expandOne(A, Out, Report, Extensions);
    if (E)
      return E;
  }
  // Standard input can be read once: a second '-' would be an empty module.
  if (llvm::count(Out.Paths, "-") > 1)
    return usageError("standard input ('-') is named more than once among the inputs");
  if (Names)
    *Names = std::move(Out.Names);
  return std::move(Out.Paths);
}

llvm::Expected<std::vector<std::string>>
expandInputsOrStdin(const std::vector<std::string> &Args, const DiagnosticHandler &Report,
                    llvm::ArrayRef<llvm::StringRef> Extensions) {
  auto In = expandInputs(Args.empty() ? std::vector<std::string>{"-"} : Args, Report, nullptr,
                         Extensions);
  if (In && In->empty())
    return makeError("no input modules");
  return In;
}

llvm::Expected<std::vector<std::string>> findFiles(llvm::StringRef Dir,
                                                   llvm::ArrayRef<llvm::StringRef> Extensions,
                                                   const DiagnosticHandler &Report) {
  DirectoryWalk W{Report, Extensions, {}, {}, {}, 0};
  struct stat St;
  if (::stat(Dir.str().c_str(), &St) == 0)
    W.Dirs.insert({uint64_t(St.st_dev), uint64_t(St.st_ino)});
  if (std::error_code EC = W.walk(Dir.str()))
    return fileError(Dir, "cannot list directory: " + EC.message());
  if (W.Twice)
    W.warn(Dir.str() + ": " + std::to_string(W.Twice) +
           (W.Twice == 1 ? " file reached through a second path (a symlink) was taken once"
                         : " files reached through a second path (a symlink) were taken once"));
  std::sort(W.Found.begin(), W.Found.end());
  return std::move(W.Found);
}

std::string commonDirectory(const std::vector<std::string> &Dirs) {
  if (Dirs.empty())
    return "";
  std::string Root = Dirs.front();
  while (Root.size() > 1 && Root.back() == '/')
    Root.pop_back();
  auto Holds = [&](llvm::StringRef D) {
    return D == Root || D.starts_with(Root == "/" ? Root : Root + "/");
  };
  for (const std::string &D : Dirs)
    while (!Root.empty() && !Holds(D))
      Root = llvm::sys::path::parent_path(Root).str();
  return Root;
}

namespace {

/// A MemoryBuffer that owns a malloc'd block (LLVM's own buffers copy what they are given).
class MallocBuffer : public llvm::MemoryBuffer {
public:
  MallocBuffer(char *Data, size_t Size, std::string Name) : Data(Data), Name(std::move(Name)) {
    init(Data, Data + Size, /*RequiresNullTerminator=*/true);
  }
  ~MallocBuffer() override { std::free(Data); }
  llvm::StringRef getBufferIdentifier() const override { return Name; }
  BufferKind getBufferKind() const override { return MemoryBuffer_Malloc; }

private:
  char *Data;
  std::string Name;
};

/// The bytes of a stream as they arrive, in one block that realloc grows (by half again, up to
/// Ceiling, at least by what is asked), with room for the null terminator MemoryBuffer promises.
class StreamBuffer {
public:
  explicit StreamBuffer(size_t Ceiling) : Ceiling(Ceiling) {}
  ~StreamBuffer() { std::free(Data); }
  bool reserveMore(size_t N) {
    if (Capacity - Size > N)
      return true;
    const size_t Want = std::max(Size + N + 1, std::min(Capacity + Capacity / 2, Ceiling));
    char *P = static_cast<char *>(std::realloc(Data, Want));
    if (!P)
      return false;
    Data = P;
    Capacity = Want;
    return true;
  }
  char *end() { return Data + Size; }
  size_t room() const { return Capacity - Size - 1; }
  void grow(size_t N) { Size += N; }
  size_t size() const { return Size; }
  std::unique_ptr<llvm::MemoryBuffer> release(llvm::StringRef Name) {
    if (!reserveMore(0))
      return llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(Data, Size), Name);
    Data[Size] = '\0';
    auto B = std::make_unique<MallocBuffer>(Data, Size, Name.str());
    Data = nullptr;
    return B;
  }

private:
  char *Data = nullptr;
  size_t Size = 0, Capacity = 0, Ceiling;
};

} // namespace

llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> readInput(llvm::StringRef Path, bool IsText) {
  const bool Stdin = Path == "-";
  struct stat St;
  if (Stdin ? ::fstat(0, &St) != 0 : ::stat(Path.str().c_str(), &St) != 0)
    return std::error_code(errno, std::generic_category());
  if (S_ISDIR(St.st_mode))
    return std::make_error_code(std::errc::is_a_directory);
  if (S_ISREG(St.st_mode))
    return Stdin ? llvm::MemoryBuffer::getSTDIN() : llvm::MemoryBuffer::getFile(Path, IsText);
  // A stream: read in chunks up to the bound (and one byte more, to tell "exactly the bound"),
  // into one block grown by realloc (large blocks are remapped, not copied: the peak stays near
  // the bytes read, where a doubling string and a final copy took three times the bound).
  const int Fd = Stdin ? 0 : ::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return std::error_code(errno, std::generic_category());
  StreamBuffer Bytes(MaxStreamedInput + (size_t(1) << 16) + 2);
  std::error_code EC;
  while (true) {
    if (!Bytes.reserveMore(size_t(1) << 16)) {
      EC = std::make_error_code(std::errc::not_enough_memory);
      break;
    }
    const ssize_t N = ::read(Fd, Bytes.end(), Bytes.room());
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      EC = std::error_code(errno, std::generic_category());
      break;
    }
    if (N == 0)
      break;
    Bytes.grow(size_t(N));
    if (Bytes.size() > MaxStreamedInput) {
      EC = std::make_error_code(std::errc::file_too_large);
      break;
    }
  }
  if (!Stdin)
    ::close(Fd);
  if (EC)
    return EC;
  return Bytes.release(Path);
}

std::string readErrorMessage(std::error_code EC) {
  if (EC == std::errc::file_too_large)
    return "it is not a regular file and gave more than " +
           std::to_string(MaxStreamedInput >> 20) +
           " MiB without ending (a device such as /dev/zero?); refused";
  if (EC == std::errc::is_a_directory)
    return "it is a directory";
  return EC.message();
}

std::string fileStamp(llvm::StringRef Path) {
  struct stat St;
  if (Path == "-" || ::stat(Path.str().c_str(), &St) != 0)
    return "";
  return llvm::formatv("{0}:{1}:{2}:{3}.{4}", uint64_t(St.st_dev), uint64_t(St.st_ino),
                       int64_t(St.st_size), int64_t(St.st_mtim.tv_sec), int64_t(St.st_mtim.tv_nsec))
      .str();
}

} // namespace wb::support
