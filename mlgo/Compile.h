// One compilation of one module, as every MLGO pipeline measures it: the -Oz pipeline (plainly,
// or under the interactive host with a policy), then llc to a native object whose .text and
// .text.* bytes are read with LLVM's Object library. ml-compiler-opt's reward compares these
// sizes (features/Dataset.h, sizeReward).
#pragma once

#include "features/TrainingLog.h"
#include "runners/InteractiveHost.h"
#include "support/Files.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb::mlgo {

/// The compilers and how they are run.
struct Toolchain {
  std::string Opt = "opt-22", Llc = "llc-22";
  std::vector<std::string> OptArgs = {"-passes=default<Oz>"};
  std::vector<std::string> LlcArgs = {"-O2"};
  double TimeoutSeconds = 0; // per compiler run; 0 = none
  int CancelFd = -1;         // readable = stop
};

/// Bytes in the object's sections named .text or .text.*.
llvm::Expected<int64_t> textSize(llvm::StringRef Path);

struct Compiled {
  int64_t TextSize = -1;
  features::Log SessionLog; // under the host: features, extras and the decision per answer
};

/// Compiles Module in Dir (files named after Tag) and measures the object's .text. With Host,
/// opt runs under the interactive host with Host's session settings (its Command is set here).
/// A compiler that fails, times out or is cancelled is an error with the end of its messages.
llvm::Expected<Compiled> compileModule(const std::string &Module, const Toolchain &T,
                                       const runners::SessionConfig *Host,
                                       const support::TempDir &Dir, llvm::StringRef Tag);

/// The decisions of a session log of task T: the value of the advice column, in order.
std::vector<int64_t> decisionsOf(runners::Task T, const features::Log &SessionLog);

} // namespace wb::mlgo
