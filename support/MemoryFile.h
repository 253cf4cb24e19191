// A file that lives in memory only (memfd): for text a program this process runs, or a library
// inside it, reads by path (LLVM's -ir2vec-vocab-path). Nothing is written to a file system,
// so nothing is left behind by a process that is killed, and no directory must be writable.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace wb::support {

class MemoryFile {
public:
  /// Who opens the file by its path: this process alone, or also the programs it runs (their
  /// processes inherit the descriptor and open it as theirs: no access to this process's
  /// /proc entry is needed).
  enum class Readers { ThisProcess, Children };

  /// A file named Name (for /proc listings) holding Bytes.
  static llvm::Expected<MemoryFile> create(llvm::StringRef Name, llvm::StringRef Bytes,
                                           Readers Who);
  MemoryFile(MemoryFile &&O) noexcept : Fd(O.Fd) { O.Fd = -1; }
  MemoryFile &operator=(MemoryFile &&O) noexcept;
  MemoryFile(const MemoryFile &) = delete;
  MemoryFile &operator=(const MemoryFile &) = delete;
  ~MemoryFile();

  /// The path that opens the file, in this process and in the processes it starts with
  /// Readers::Children: /proc/self/fd/N (each open has its own offset).
  std::string path() const;

private:
  explicit MemoryFile(int Fd) : Fd(Fd) {}
  int Fd = -1;
};

} // namespace wb::support
