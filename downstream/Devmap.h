// The heterogeneous device-mapping dataset (Grewe et al., CGO 2013, as DeepTune, NCC and the
// IR2Vec paper use it): per platform a CSV of (kernel, data set) rows with Grewe's static
// features, the run's transfer size and work-group size, the faster device and both runtimes;
// and the kernels' LLVM IR in kernels_ir/. Layout: docs/downstream.md.
//
// Readers never trust the files: every row is checked (numbers, labels, the kernel's IR file)
// and an error names the file and the line.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <string>
#include <vector>

namespace wb::downstream {

/// Grewe et al.'s static features, in the CSVs' column order.
inline constexpr std::array<const char *, 6> GreweColumns = {"comp",      "rational", "mem",
                                                             "localmem", "coalesced", "atomic"};

struct DevmapRow {
  std::string Benchmark, Dataset; // the kernel ("suite-version-program-kernel") and data set
  std::array<double, 6> Grewe{};
  double Transfer = 0, WorkGroupSize = 0;
  bool GPU = false; // the oracle: the faster device
  double CpuSeconds = 0, GpuSeconds = 0;
  std::string Source; // the kernel's OpenCL source (identifiers renamed)
  unsigned Line = 0;  // where the row starts in its CSV (1 = the header)
};

struct DevmapPlatform {
  std::string Name; // cgo17-NAME.csv
  std::string CSV;  // its path
  std::vector<DevmapRow> Rows;
};

struct DevmapData {
  std::string Dir;
  std::vector<DevmapPlatform> Platforms; // by name
};

/// Reads DIR/cgo17-*.csv (at least one) and checks that every row's kernel has its IR in
/// DIR/kernels_ir. Limits: rows of at most 1 MiB, files of at most 256 MiB.
llvm::Expected<DevmapData> readDevmap(const std::string &Dir);

/// DIR/kernels_ir/BENCHMARK.ll for the "default" data set, BENCHMARK_DATASET.ll otherwise.
std::string kernelFile(const std::string &Dir, const DevmapRow &R);

/// The benchmark suite of a kernel: its name up to the first dash-separated part that starts
/// with a digit (the suite's version), e.g. "rodinia-3.1" of "rodinia-3.1-lavaMD-kernel";
/// the whole name when no part does.
std::string suiteOf(llvm::StringRef Benchmark);

/// One CSV record's fields (RFC 4180: quoted fields may hold commas, quotes doubled and line
/// breaks), or an error naming Path and the line where the record starts. Exposed for tests.
llvm::Expected<std::vector<std::vector<std::string>>>
parseCSV(llvm::StringRef Text, llvm::StringRef Path, std::vector<unsigned> &Lines);

} // namespace wb::downstream
