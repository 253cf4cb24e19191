#include "support/Progress.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

namespace wb::support {

Progress::Progress(std::string Unit, size_t Total, bool Enabled)
    : Unit(std::move(Unit)), Total(Total),
      Enabled(Enabled && llvm::sys::Process::StandardErrIsDisplayed()),
      Start(std::chrono::steady_clock::now()), LastDraw(Start) {}

Progress::~Progress() { clear(); }

void Progress::update(size_t Done, const std::string &Extra) {
  if (!Enabled)
    return;
  const auto Now = std::chrono::steady_clock::now();
  if (Done < Total && Now - LastDraw < std::chrono::milliseconds(100))
    return;
  LastDraw = Now;
  const double Secs = std::chrono::duration<double>(Now - Start).count();
  const double Rate = Secs > 0 ? Done / Secs : 0.0;
  std::string ETA = "--:--";
  if (Rate > 0) {
    const long Left = static_cast<long>((Total - Done) / Rate + 0.5);
    llvm::raw_string_ostream(ETA = "") << llvm::format("%ld:%02ld", Left / 60, Left % 60);
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
