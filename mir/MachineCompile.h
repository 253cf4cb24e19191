// LLVM IR taken to machine IR in-process: llc-22's code generation pipeline, stopped where the
// user names (after instruction selection, before or after register allocation, or any pass
// llc's -stop-after/-stop-before take), each machine function handed to a callback before the
// pipeline frees it. No .mir file is written or parsed.
#pragma once

#include "corpus/OptPipeline.h"
#include "mir/MachineModule.h"
#include "support/Names.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
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

/// How an LLVM IR input becomes machine IR: LLVM's default<O?> pipeline first (none: the
/// module as it is), then llc-22 -O2's code generation for Target up to Stop. A .mir input is
/// read for Target only.
struct Lowering {
  TargetChoice Target;
  std::optional<corpus::OptLevel> Opt;
  StopPoint Stop = stopPointOf(MirStage::PostRA);
};

/// A usage error when P names no pass of LLVM's code generator (LLVM would end the process
/// when it builds the pipeline).
llvm::Error checkStopPoint(const StopPoint &P);

/// The target machine llc-22 would make for M (its triple, or T's when given; T's CPU and
/// features), and M's data layout set to the target's, as llc does.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetFor(llvm::Module &M, const TargetChoice &T);

/// Runs llc-22's -O2 code generation on M up to Stop, calling Each on every machine function in
/// module order. LLVM's stop options are process-wide: compilations at one point run together,
/// one at another point waits for them (any thread may call this with any point). Errors: a
/// pass name the pipeline does not have, LLVM's diagnostics (collected, not printed).
llvm::Error compileToMachineIR(llvm::Module &M, llvm::TargetMachine &TM, const StopPoint &Stop,
                               llvm::function_ref<void(const llvm::MachineFunction &)> Each);

} // namespace wb::mir
