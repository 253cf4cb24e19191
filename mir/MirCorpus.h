// Machine IR as rows, one input at a time: the ir2vec::ModuleSource of `ir2vec embeddings
// --mode=mir` (and of the Python module's mode="mir"). Through it a machine-level run has
// everything an LLVM IR run has: many inputs, @lists and corpus descriptions, -j, the HDF5 file
// (mode "mir", docs/formats/embeddings-hdf5.md), --resume, MPI ranks.
//
// A run embeds for one target (its vocabulary is laid out for that target's opcodes and
// register classes) and stops code generation at one point: the target is --mtriple's, else
// the first readable input's; an input of another target fails with a message naming both. Inputs are
// .mir files, or LLVM IR modules taken through llc-22's code generation in-process
// (mir/MachineCompile.h).
#pragma once

#include "ir2vec/EmbeddingBatch.h"
#include "mir/MachineCompile.h"
#include "mir/Mir2Vec.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Target;
} // namespace llvm

namespace wb::mir {

/// Whether an input is machine IR (a .mir file, or standard input as llvm-ir2vec reads it)
/// rather than an LLVM IR module.
bool isMirFile(llvm::StringRef Path);

/// Calls OnTarget with the target machine of the input at Path (before any function), then
/// Each on every machine function in module order: those of a .mir file, or those llc's code
/// generation makes of an IR module (read in Ctx) as L says.
/// Defined functions of a .mir file without a machine function go to Warnings. Stdin: the text
/// of standard input when it was read already (Path "-"; it cannot be read twice).
llvm::Error visitMachineFunctions(const std::string &Path, llvm::LLVMContext &Ctx, const Lowering &L,
                                  llvm::function_ref<llvm::Error(const llvm::TargetMachine &)> OnTarget,
                                  llvm::function_ref<void(const llvm::MachineFunction &)> Each,
                                  std::vector<std::string> &Warnings,
                                  const std::optional<std::string> &Stdin = std::nullopt);

/// The warnings that say how many operands LLVM 22 could not have embedded (MirOddities).
std::vector<std::string> oddityWarnings(const MirOddities &Odd, llvm::StringRef Input);

/// Appends MF's rows at Levels to E (E.Dim = V.Dim): its name, and its function vector,
/// block vectors and instruction vectors (every instruction, debug ones with a zero vector, as
/// llvm-ir2vec prints them; Text: each as LLVM prints it, without the final newline).
void appendMachineFunction(ir2vec::ModuleEmbedding &E, const llvm::MachineFunction &MF,
                           const MirVocabulary &V, const ir2vec::LevelSet &Levels, bool Text,
                           MirOddities &Odd);

/// What a machine-level run is asked for: how its IR inputs are lowered, and the vocabulary.
struct MirRunOptions : Lowering {
  std::string VocabPath;
  /// How the caller spells the vocabulary's option, for messages (Python: its argument).
  std::string VocabOption = "--mir2vec-vocab-path";
  MirWeights Weights;
};

/// A corpus run's target machine: O.Target's triple when given, else that of the first of
/// Inputs that can be read (each read for its target only; Stdin: standard input's text for
/// "-"). Checks the stop point names a pass.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
runTarget(const MirRunOptions &O, const std::vector<std::string> &Inputs,
          const std::optional<std::string> &Stdin);

/// Standard input's text when Inputs read it ("-"), which cannot be read twice.
llvm::Expected<std::optional<std::string>> bufferStdin(const std::vector<std::string> &Inputs);

/// An input of another target than the run's: the error saying so.
llvm::Error checkRunTarget(const llvm::TargetMachine &TM, const llvm::Target *RunTarget,
                           const std::string &RunTriple, const std::string &Path);

/// The MIR vocabulary for TM's target: VocabPath's, or the default when VocabPath is "" (a usage
/// error for a target the default does not cover, telling to name one with Option).
llvm::Expected<MirVocabulary> runVocabulary(const llvm::TargetMachine &TM, const std::string &VocabPath,
                                            MirWeights W, llvm::StringRef Option);
/// The symbolic function vectors (E.FunctionNames, E.FunctionVectors, E.Dim) of the machine
/// functions llc-22 -O2 makes of the IR module at Path up to Stage, for T (llc's -mtriple, -mcpu,
/// -mattr; an empty triple = the module's),
/// with VocabPath's MIR vocabulary or the default (""). LLVM's crashes are recovered into an
/// error naming Path.
llvm::Expected<ir2vec::ModuleEmbedding> machineFunctionVectors(const std::string &Path, MirStage Stage,
                                                              const TargetChoice &T,
                                                              const std::string &VocabPath = "");
/// One run's target, stop point and vocabulary, and the source that embeds its inputs.
class MirSource {
public:
  /// Checks the stop point, decides the target (O.Target's triple, else FirstInput's) and reads
  /// the vocabulary laid out for it (its warnings go to Report).
  static llvm::Expected<std::unique_ptr<MirSource>> create(const MirRunOptions &O,
                                                           const std::vector<std::string> &Inputs,
                                                           const support::DiagnosticHandler &Report);
  const ir2vec::ModuleSource &source() const { return Source; }
  const MirVocabulary &vocabulary() const { return Vocab; }
  /// The target triple the run embeds for.
  const std::string &triple() const { return Triple; }
  /// The HDF5 header of a run at level L: mode, target, stage, entity names, dimension,
  /// weights and the vocabulary file's SHA-256.
  ir2vec::FileHeader header(ir2vec::Level L) const;

private:
  MirSource() = default;
  ir2vec::EmbeddedModule embed(const std::string &Path, llvm::LLVMContext &Ctx,
                               const ir2vec::LevelSet &Levels, bool Text,
                               const std::optional<std::string> &Function) const;
  MirRunOptions Options;
  MirVocabulary Vocab;
  std::string Triple, VocabSHA256;
  std::optional<std::string> Stdin; // standard input's text, when an input is "-"
  const llvm::Target *RunTarget = nullptr;
  ir2vec::ModuleSource Source;
};

} // namespace wb::mir
