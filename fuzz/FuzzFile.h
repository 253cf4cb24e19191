// Shared by the fuzz targets whose readers take a path: the input is written to a file in a
// private directory on a memory file system, read, and removed. One process, one file name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace wb::fuzz {

inline std::string scratchFile(const char *Suffix) {
  static const std::string Dir = [] {
    std::string D = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
                    std::string("/wb-fuzz-") + std::to_string(getpid());
    mkdir(D.c_str(), 0700);
    return D;
  }();
  return Dir + "/input" + Suffix;
}

/// Writes Data to a scratch file with the given suffix and returns its path.
inline std::string writeInput(const uint8_t *Data, size_t Size, const char *Suffix) {
  const std::string P = scratchFile(Suffix);
  if (FILE *F = std::fopen(P.c_str(), "wb")) {
    std::fwrite(Data, 1, Size, F);
    std::fclose(F);
  }
  return P;
}

} // namespace wb::fuzz
