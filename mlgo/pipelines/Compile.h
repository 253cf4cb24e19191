// One compilation of one module, as every MLGO pipeline measures it, plainly or under the
// interactive host with a policy: with the command line the corpus recorded for the module
// (`clang-22 -cc1 ARGS -x ir MODULE.bc -o X.o`, corpus/Commands.h), or, for IR-only corpora,
// the fixed -Oz pipeline (`opt-22 -passes=default<Oz>` then `llc-22 -O2`). The object's
// .text and .text.* bytes are read with LLVM's Object library; ml-compiler-opt's reward
// compares these sizes (features/Dataset.h, sizeReward).
#pragma once

#include "corpus/Commands.h"
#include "features/Augment.h"
#include "features/TrainingLog.h"
#include "runners/InteractiveHost.h"
#include "support/Files.h"
#include "support/Names.h"
#include "support/RunSettings.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wb::mlgo {

/// Which command compiles a module: auto = its recorded command line when the corpus has one,
/// else the fixed pipeline; recorded = its recorded command line, or an error; pipeline =
/// always the fixed pipeline (recorded command lines ignored).
enum class CompileMode { Auto, Recorded, Pipeline };
inline constexpr support::Named<CompileMode> CompileModeNames[] = {
    {CompileMode::Auto, "auto"}, {CompileMode::Recorded, "recorded"},
    {CompileMode::Pipeline, "pipeline"}};

/// The compilers and how they are run.
struct Toolchain {
  std::string Opt = "opt-22", Llc = "llc-22", Clang = "clang-22";
  std::vector<std::string> OptArgs = {"-passes=default<Oz>"};
  std::vector<std::string> LlcArgs = {"-O2"};
  CompileMode Mode = CompileMode::Auto;
  /// The corpus's recorded command lines (readRecordedCommands of the inputs).
  std::shared_ptr<const corpus::RecordedCommands> Recorded;
  double TimeoutSeconds = 0; // per compiler run; 0 = none

  /// The recorded arguments Module is compiled with; nullptr = the fixed pipeline. An error
  /// when Mode is Recorded and the corpus recorded none for Module.
  llvm::Expected<const std::vector<std::string> *> recordedCommand(const std::string &Module) const;
  /// The commands as run, with MODULE and OUT for the files ("opt-22 ... MODULE -o X.bc;
  /// llc-22 ... -filetype=obj X.bc -o OUT", or "clang-22 ARGS -x ir MODULE -o OUT").
  std::string describe(const std::string &Module = "MODULE") const;
  /// The fixed pipeline's two commands as every report records them, without files:
  /// "opt-22 -passes=default<Oz>" and "llc-22 -O2 -filetype=obj".
  std::string optCommand() const;
  std::string llcCommand() const;
  /// Everything that decides the objects (tools, arguments, mode, every recorded command).
  std::string fingerprint() const;
};

/// The compilers and how a run goes: every compilation of a pipeline or a study is made with
/// one, and every config over the host is one plus its own settings. Under MPI (Run.Dist),
/// rank 0 keeps the measurements and writes the outputs.
struct CompileSetup {
  Toolchain Tools;
  support::RunSettings Run;
};

/// Reads the recorded command lines of the inputs (corpus descriptions among them) into T.
/// The corpus descriptions among input arguments (files, directories holding one), as given
/// (the modules' paths are relative to the same directory): where a later run finds the
/// modules' recorded command lines.
std::vector<std::string> corpusDescriptions(const std::vector<std::string> &InputArgs);

llvm::Error loadRecordedCommands(Toolchain &T, const std::vector<std::string> &InputArgs);

/// The warning when no module gave a decision: why that happens and what to do.
std::string noDecisionsWarning(const Toolchain &T);

/// Bytes in the object's sections named .text or .text.*.
llvm::Expected<int64_t> textSize(llvm::StringRef Path);

struct Compiled {
  int64_t TextSize = -1;
  features::Log SessionLog; // under the host: features, extras and the decision per answer
  /// With Remarks: what the greedy allocator inserted, per function (features/RegallocScore.h).
  std::vector<features::FunctionRegalloc> Regalloc;
};

/// How specs, reports and models spell a policy's embeddings: "none", or the choice's spelling
/// ("default", "counts", the vocabulary file).
inline std::string embeddingSpelling(const ir2vec::EmbeddingChoice &E) {
  return E ? E.spelling() : std::string("none");
}

/// The --embeddings augmenter of a session compileModule runs: the workbench's features of
/// the IR the host's compiler reads. For the inliner that is Module, opt's input; for register
/// allocation it is llc's input, the module as opt left it (or Module, for a recorded command
/// line), so that the machine IR embedded before the allocator is the machine IR the
/// allocator sees.
features::Augmenter sessionAugmenter(runners::Task T, const ir2vec::EmbeddingChoice &E,
                                     const std::string &Module);

/// Compiles Module in Dir (files named after Tag) and measures the object's .text. With Host,
/// the step that runs Host's advisor (the inliner: opt; register allocation: llc; a recorded
/// command: clang) runs under the interactive host with Host's session settings (its Command is
/// set here). With Remarks, the register allocator's remarks are read (under the host: Host
/// must have Costs and ReadRemarks).
/// A compiler that fails, times out or is cancelled (CancelFd readable) is an error with the
/// end of its messages.
/// With Optimized (the fixed pipeline only, ignored with a recorded command line): the module
/// as optimizeModule left it; only llc runs.
llvm::Expected<Compiled> compileModule(const std::string &Module, const Toolchain &T,
                                       const runners::SessionConfig *Host,
                                       const support::TempDir &Dir, llvm::StringRef Tag,
                                       int CancelFd, bool Remarks = false,
                                       const std::string *Optimized = nullptr);

/// The fixed pipeline's opt step alone (no host): Module optimised into Dir as Tag.bc, its path.
/// For runs that compile one module many times with policies that act only in llc (register
/// allocation): opt's output does not depend on them.
llvm::Expected<std::string> optimizeModule(const std::string &Module, const Toolchain &T,
                                           const support::TempDir &Dir, llvm::StringRef Tag,
                                           int CancelFd);

/// The decisions of a session log of task T: the value of the advice column, in order.
std::vector<int64_t> decisionsOf(runners::Task T, const features::Log &SessionLog);

} // namespace wb::mlgo
