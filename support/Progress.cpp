#include "support/Progress.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdlib>

namespace wb::support {

namespace {

/// Seconds between two log lines: 30, or IR2VEC_PROGRESS_SECONDS.
std::chrono::duration<double> logPeriod() {
  static const double Seconds = [] {
    if (const char *E = std::getenv("IR2VEC_PROGRESS_SECONDS"))
      if (double S = std::atof(E); S > 0)
        return S;
    return 30.0;
  }();
  return std::chrono::duration<double>(Seconds);
}

/// When the last log line was written. The log is the process's standard error, shared by the
/// stages of a long run (an ablation's explorations, trainings and evaluations, each with its own
/// Progress): a stage shorter than the period must not reset the clock, or a run made of short
/// stages would never say where it is.
std::atomic<std::chrono::steady_clock::rep> &lastLogLine() {
  static std::atomic<std::chrono::steady_clock::rep> Last{
      std::chrono::steady_clock::now().time_since_epoch().count()};
  return Last;
}

} // namespace

Progress::Progress(std::string Unit, size_t Total, bool Enabled)
    : Unit(std::move(Unit)), Total(Total), Enabled(Enabled),
      Terminal(llvm::sys::Process::StandardErrIsDisplayed()),
      Start(std::chrono::steady_clock::now()), LastDraw(Start) {}

Progress::~Progress() { clear(); }

void Progress::update(size_t Done, const std::string &Extra) {
  if (!Enabled)
    return;
  const auto Now = std::chrono::steady_clock::now();
  if (!Terminal) {
    auto &Last = lastLogLine();
    auto Prev = Last.load();
    const std::chrono::steady_clock::time_point At{std::chrono::steady_clock::duration(Prev)};
    if (Now - At < logPeriod() || !Last.compare_exchange_strong(Prev, Now.time_since_epoch().count()))
      return;
  } else if (Done < Total && Now - LastDraw < std::chrono::milliseconds(100)) {
    return;
  }
  LastDraw = Now;
  const double Secs = std::chrono::duration<double>(Now - Start).count();
  const double Rate = Secs > 0 ? Done / Secs : 0.0;
  std::string ETA = "--:--";
  if (Rate > 0) {
    const long Left = static_cast<long>((Total - Done) / Rate + 0.5);
    llvm::raw_string_ostream(ETA = "") << llvm::format("%ld:%02ld", Left / 60, Left % 60);
  }
  if (!Terminal) {
    llvm::errs() << "progress: " << Unit << " " << Done << "/" << Total << " ("
                 << (Total ? Done * 100 / Total : 100) << "%)  " << llvm::format("%.1f", Rate)
                 << "/s  ETA " << ETA << (Extra.empty() ? "" : "  ") << Extra << "\n";
    llvm::errs().flush();
    return;
  }
  llvm::errs() << "\r" << Unit << " " << Done << "/" << Total << "  "
               << llvm::format("%.1f", Rate) << "/s  ETA " << ETA << "  " << Extra << "   ";
  llvm::errs().flush();
  Drawn = true;
}

void Progress::clear() {
  if (!Drawn)
    return;
  llvm::errs() << "\r\033[K";
  llvm::errs().flush();
  Drawn = false;
}

} // namespace wb::support
