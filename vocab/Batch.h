// Running one piece of work over many modules: ordered parallel execution (OrderedPipeline),
// a progress line, per-module diagnostics in input order, and the text output shared by
// `triplets` and `embeddings`.
#pragma once

#include "vocab/OrderedPipeline.h"
#include "vocab/Progress.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>
#include <vector>

namespace wb::vocab {

struct Diagnostic {
  bool IsError;
  std::string Message; // "path: what happened"
};

struct BatchIO {
  unsigned Jobs = 1;
  ContextPolicy Policy;
  bool ShowProgress = false;
  std::function<void(const Diagnostic &)> Report = [](const Diagnostic &) {};
};

struct BatchSummary {
  size_t Modules = 0; // modules attempted
  size_t Failed = 0;  // modules that could not be read or verified
};

/// What a worker makes of one module for text output.
struct ModuleText {
  std::string Error; // empty: processed
  std::vector<std::string> Warnings;
  std::string Text;
};

/// Runs Work on every input in parallel and writes the texts to OS in input order, each
/// preceded by "Module: <path>\n" when there are several inputs. Failed modules are
/// reported and skipped.
llvm::Expected<BatchSummary>
runTextBatch(const std::vector<std::string> &Inputs, llvm::raw_ostream &OS, const BatchIO &IO,
             const std::function<ModuleText(const std::string &Path, llvm::LLVMContext &)> &Work);

/// Reports one module's warnings and error, in that order, clearing the progress line first.
/// Returns true when the module failed.
bool reportModule(const BatchIO &IO, Progress &P, std::vector<std::string> &Warnings,
                  const std::string &Error);

/// Default window of modules in flight for Jobs workers.
size_t defaultWindow(unsigned Jobs);

} // namespace wb::vocab
