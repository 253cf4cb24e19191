// LLVM IR taken to machine IR in-process: llc-22's code generation pipeline, stopped where the
// user names (after instruction selection, before or after register allocation, or any pass
// llc's -stop-after/-stop-before take), each machine function handed to a callback before the
// pipeline frees it. No .mir file is written or parsed.
#pragma once

#include "mir/MachineModule.h"
#include "support/Names.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <string>

namespace llvm {
class MachineFunction;
class Module;
class TargetMachine;
} // namespace llvm

namespace wb::mir {

/// Where code generation stops, as llc's -stop-after=PASS or -stop-before=PASS.
struct StopPoint {
  std::string Pass;
  bool After = true;
  std::string describe() const { return (After ? "-stop-after=" : "-stop-before=") + Pass; }
};

/// The named stages (--mir-stage); one table drives the names and their passes.
enum class MirStage { ISel, PreRA, PostRA };
struct MirStageInfo {
  MirStage S;
  const char *Name;
  const char *Pass;
  bool After;
};
inline constexpr MirStageInfo MirStages[] = {
    {MirStage::ISel, "isel", "finalize-isel", true},      // after instruction selection
    {MirStage::PreRA, "pre-ra", "greedy", false},         // right before the greedy allocator
    {MirStage::PostRA, "post-ra", "virtregrewriter", true}, // registers assigned and rewritten
};
StopPoint stopPointOf(MirStage S);
/// The stop point of a stage's name (--mir-stage), or a usage error listing the names.
llvm::Expected<StopPoint> parseMirStage(llvm::StringRef Name);

/// Sets LLVM's -stop-after/-stop-before for this process. They are LLVM's own options, read by
/// every code generation pipeline the process builds: a run sets them once, before its workers
/// start, and every module of the run stops at the same point. A name that is not a pass of
/// LLVM's is a usage error here (LLVM would end the process when it builds the pipeline).
llvm::Error setStopPoint(const StopPoint &P);
/// The same for workers that start their own pipelines (the register-allocation features of
/// every MLGO session): the first caller sets P, later callers asking for P find it set, and one
/// asking for another point while P is set is refused (changing it would change the point of
/// pipelines already running).
llvm::Error shareStopPoint(const StopPoint &P);

/// The target machine llc-22 would make for M (its triple, or T's when given; T's CPU and
/// features), and M's data layout set to the target's, as llc does.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetFor(llvm::Module &M, const TargetChoice &T);

/// Runs llc-22's -O2 code generation on M up to the stop point set, calling Each on every
/// machine function in module order. Errors: a pass name the pipeline does not have, LLVM's
/// diagnostics (collected, not printed).
llvm::Error compileToMachineIR(llvm::Module &M, llvm::TargetMachine &TM,
                               llvm::function_ref<void(const llvm::MachineFunction &)> Each);

} // namespace wb::mir
