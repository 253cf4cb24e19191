// Shared by the fuzz targets whose readers take a path: the input is written to a file in a
// private directory on a memory file system, read, and removed. One process, one file name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace wb::fuzz {

/// The time limit of isolated HDF5 reads under fuzzing: an input on which libhdf5 loops costs
/// this much (the tool allows support::DefaultIsolatedSeconds).
inline constexpr double IsolatedSeconds = 5;

inline const std::string &scratchRoot() {
  static const std::string Dir = [] {
    std::string D = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
                    std::string("/wb-fuzz-") + std::to_string(getpid());
    mkdir(D.c_str(), 0700);
    return D;
  }();
  return Dir;
}

inline std::string scratchFile(const char *Suffix) { return scratchRoot() + "/input" + Suffix; }

/// A directory for targets whose reader takes one (created once).
inline std::string scratchDir(const char *Name) {
  const std::string D = scratchRoot() + "/" + Name;
  mkdir(D.c_str(), 0700);
  return D;
}

inline void writeFile(const std::string &P, std::string_view Bytes) {
  if (FILE *F = std::fopen(P.c_str(), "wb")) {
    std::fwrite(Bytes.data(), 1, Bytes.size(), F);
    std::fclose(F);
  }
}

/// Writes Data to a scratch file with the given suffix and returns its path.
inline std::string writeInput(const uint8_t *Data, size_t Size, const char *Suffix) {
  const std::string P = scratchFile(Suffix);
  writeFile(P, std::string_view(reinterpret_cast<const char *>(Data), Size));
  return P;
}

} // namespace wb::fuzz
