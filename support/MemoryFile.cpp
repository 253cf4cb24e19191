#include "support/MemoryFile.h"

#include "support/Error.h"

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace wb::support {

llvm::Expected<MemoryFile> MemoryFile::create(llvm::StringRef Name, llvm::StringRef Bytes,
                                              Readers Who) {
  // Without MFD_CLOEXEC the descriptor survives exec in every child this process starts (the
  // compilers of a session find it under the same number).
  const int Fd = ::memfd_create(Name.str().c_str(), Who == Readers::Children ? 0 : MFD_CLOEXEC);
  if (Fd < 0)
    return makeError(llvm::Twine("memfd_create: ") + std::strerror(errno));
  MemoryFile F(Fd);
  for (size_t Done = 0; Done < Bytes.size();) {
    const ssize_t N = ::write(Fd, Bytes.data() + Done, Bytes.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return makeError(llvm::Twine("writing an in-memory file: ") + std::strerror(errno));
    Done += size_t(N);
  }
  return F;
}

MemoryFile &MemoryFile::operator=(MemoryFile &&O) noexcept {
  if (this != &O) {
    if (Fd >= 0)
      ::close(Fd);
    Fd = O.Fd;
    O.Fd = -1;
  }
  return *this;
}

MemoryFile::~MemoryFile() {
  if (Fd >= 0)
    ::close(Fd);
}

std::string MemoryFile::path() const { return "/proc/self/fd/" + std::to_string(Fd); }

} // namespace wb::support
