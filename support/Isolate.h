// A process boundary for libraries that may crash or hang on hostile input (issue 12): libhdf5
// 1.10 (Debian 12) dies in H5HG_read or loops in H5C_protect on crafted variable-length
// strings, before any value reaches our checks. The work runs in a forked child, which hands
// back bytes through a pipe; a crash or hang of the child becomes an error naming the file.
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <shared_mutex>
#include <string>
#include <vector>

namespace wb::support {

/// Runs Work in a child process and returns the bytes it returned, or an error: Work's own
/// (its message), or File with what happened to the child (killed by a signal, a non-zero
/// exit, no answer within Seconds). Only for work that needs no other thread of this process
/// (fork copies one thread); the child's stderr is ours, so sanitizer reports stay visible.
/// libhdf5 keeps global state and a global lock: no other thread may be inside it when this
/// forks, or the child inherits the lock held by a thread it does not have and waits forever
/// (seen: a model read on one benchmark worker while another forked; the child timed out after
/// 600 s). So the fork waits until no ForkGuard is held, and a thread that reads HDF5
/// itself while workers may fork holds one (runners' model reads).
llvm::Expected<std::string> runIsolated(llvm::StringRef File, double Seconds,
                                        llvm::function_ref<llvm::Expected<std::string>()> Work);

/// Held by a thread inside a library with global locks (HDF5) while other threads may fork for
/// isolated work (above): runIsolated forks only when no such guard is held. Inside the
/// isolated child (one thread; its copy of the lock stays taken) it holds nothing.
class ForkGuard {
public:
  ForkGuard();

private:
  std::shared_lock<std::shared_mutex> L;
};

/// How long an isolated read of a file may take before it counts as a library loop (a
/// vocabulary or model reads in well under a second, a counts file of a whole corpus in
/// seconds). Fuzz targets pass less.
inline constexpr double DefaultIsolatedSeconds = 600;
/// The same bound for work that reads a whole file of Bytes (copying a partial HDF5 output to
/// resume it): 30 s plus a second per 10 MB, ten times what a slow disk needs, so that a
/// damaged file the library loops on is given up in seconds, not in DefaultIsolatedSeconds.
inline double isolatedSecondsFor(uint64_t Bytes) { return 30.0 + double(Bytes) / 10e6; }
/// isolatedSecondsFor the size of File (0 when it cannot be told): the bound for reads of
/// small files a compiler waits on (model files, vocabularies), where the library's loop on a
/// damaged file must not hold a build for DefaultIsolatedSeconds.
double isolatedSecondsForFile(llvm::StringRef File);
/// A caller's "no bound given": the reader takes isolatedSecondsForFile.
inline constexpr double BoundBySize = -1;

/// Runs Check (a read of File as the caller will then do it) in a child process; success means
/// the caller may read File in this process. For readers whose results are not worth framing
/// (model files, streamed embeddings files): the file is read twice, and a file changed
/// between the two reads is not covered.
llvm::Error checkIsolated(llvm::StringRef File, double Seconds,
                          llvm::function_ref<llvm::Error()> Check);

/// Little-endian framing for what isolated work returns.
void putU64(std::string &Out, uint64_t V);
void putString(std::string &Out, llvm::StringRef S);
void putDoubles(std::string &Out, const std::vector<double> &V);
/// Readers of the framing; false when In ends early (the child's output is ours, but a
/// truncated pipe must not read past it).
bool getU64(llvm::StringRef &In, uint64_t &V);
bool getString(llvm::StringRef &In, std::string &S);
bool getDoubles(llvm::StringRef &In, std::vector<double> &V);

} // namespace wb::support
