// A progress line for long runs: "modules 120/273  45.2/s  ETA 0:03" on standard error,
// redrawn at most ten times a second on a terminal. When standard error is not a terminal (a
// log, CI) a plain line "progress: modules 120/273 (44%)  45.2/s  ETA 0:03" is written at most
// every 30 seconds (IR2VEC_PROGRESS_SECONDS sets another period), as build tools do. Silent
// when disabled (--quiet).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace wb::support {

class Progress {
public:
  Progress(std::string Unit, size_t Total, bool Enabled);
  ~Progress();
  /// Extra is appended to the line (e.g. the current loss).
  void update(size_t Done, const std::string &Extra = "");
  /// Clears the line (call before printing other messages, and at the end).
  void clear();

private:
  std::string Unit;
  size_t Total;
  bool Enabled;
  bool Terminal; // else a log: a plain line now and then
  bool Drawn = false;
  std::chrono::steady_clock::time_point Start, LastDraw;
};

} // namespace wb::support
