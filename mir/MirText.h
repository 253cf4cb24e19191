// llvm-ir2vec 22's MIR mode (`--mode=mir`) for one .mir file, or for one LLVM IR module taken
// to machine IR in-process (mir/MachineCompile.h): `entities`, `triplets` and `embeddings` in
// its text formats, byte for byte where llvm-ir2vec-22 works (docs/mir2vec.md lists where it
// does not and what is done instead):
//
//   entities    "<count>\n" then "<name>\t<id>\n" per entity of the target's layout
//   triplets    "MAX_RELATION=<n>\n" then "<head>\t<tail>\t<relation>\n"
//   embeddings  per machine function "MIR2Vec embeddings for machine function <name>:\n", then
//               func: "Function vector: " + vector
//               bb:   "Basic block vectors:\n", per block "MBB <name>: " + vector
//               inst: "Instruction vectors:\n", per instruction as LLVM prints it (debug
//                     instructions too, with a zero vector), then " -> " + vector
// A vector is ir2vec's text vector (" [ x  y ]\n", --precision digits, 2 as LLVM).
#pragma once

#include "ir2vec/TextFormat.h"
#include "mir/MachineCompile.h"
#include "mir/Mir2Vec.h"
#include "mir/MachineModule.h"
#include "support/Diagnostics.h"
#include "support/Error.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>

namespace wb::mir {

struct MirJob {
  std::string Input;        // a .mir file ("-" = standard input; "" = none, for entities), or
                            // an LLVM IR module (.ll, .bc), compiled up to Stop
  std::string Output = "-";
  TargetChoice Target;
  StopPoint Stop = stopPointOf(MirStage::PostRA);
  // embeddings only
  std::string VocabPath;
  MirWeights Weights;
  ir2vec::Level Level = ir2vec::Level::Func;
  unsigned Precision = 2;
  std::optional<std::string> Function;
};

/// `entities --mode=mir`: the layout of the input's target, or of --mtriple's (the host's by
/// default) without an input, where llvm-ir2vec-22 needs a .mir file.
llvm::Expected<support::Outcome> runMirEntities(const MirJob &J, const support::DiagnosticHandler &Report);
/// `triplets --mode=mir`.
llvm::Expected<support::Outcome> runMirTriplets(const MirJob &J, const support::DiagnosticHandler &Report);
/// `embeddings --mode=mir`: needs a vocabulary (--mir2vec-vocab-path), as LLVM's.
llvm::Expected<support::Outcome> runMirEmbeddings(const MirJob &J, const support::DiagnosticHandler &Report);

/// Whether an input is machine IR (a .mir file, or standard input as llvm-ir2vec reads it)
/// rather than an LLVM IR module.
bool isMirFile(llvm::StringRef Path);

/// Calls OnTarget with the input's target machine (before any function), then Each on every
/// machine function in module order: those of a .mir file, or those llc's code generation
/// makes of an IR module up to J.Stop (setStopPoint first). Functions without a machine
/// function go to Warnings.
llvm::Error forEachMachineFunction(const MirJob &J,
                                   llvm::function_ref<llvm::Error(const llvm::TargetMachine &)> OnTarget,
                                   llvm::function_ref<void(const llvm::MachineFunction &)> Each,
                                   std::vector<std::string> &Warnings);

/// The renderers of one machine function.
void renderMirFunction(std::string &Out, const llvm::MachineFunction &MF, const MirVocabulary &V,
                       ir2vec::Level L, unsigned Precision, MirOddities &Odd);
void renderMirEntities(std::string &Out, const MirLayout &L);

} // namespace wb::mir
