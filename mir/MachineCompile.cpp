#include "mir/MachineCompile.h"

#include "support/Error.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Analysis/RuntimeLibcallInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/CodeGen/TargetPassConfig.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/PassRegistry.h"
#include "llvm/PassInfo.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Target/TargetMachine.h"

#include <condition_variable>
#include <mutex>
#include <optional>

namespace wb::mir {

namespace {

/// The last pass of our pipeline: hands each machine function to the caller while it is
/// still alive (llc's pipeline would print it, then free it).
class EachFunction : public llvm::MachineFunctionPass {
public:
  static char ID;
  explicit EachFunction(llvm::function_ref<void(const llvm::MachineFunction &)> Each)
      : MachineFunctionPass(ID), Each(Each) {}
  bool runOnMachineFunction(llvm::MachineFunction &MF) override {
    // Blocks numbered in layout order, as in the .mir file llc writes (its printer renumbers
    // them; instruction selection leaves gaps): instructions print the same "%bb.N" here.
    MF.RenumberBlocks();
    Each(MF);
    return false;
  }
  void getAnalysisUsage(llvm::AnalysisUsage &AU) const override {
    AU.setPreservesAll();
    MachineFunctionPass::getAnalysisUsage(AU);
  }
  llvm::StringRef getPassName() const override { return "ir2vec: each machine function"; }

private:
  llvm::function_ref<void(const llvm::MachineFunction &)> Each;
};
char EachFunction::ID = 0;

} // namespace

StopPoint stopPointOf(MirStage S) {
  for (const MirStageInfo &I : MirStages)
    if (I.S == S)
      return {I.Pass, I.After};
  return {};
}

llvm::Expected<StopPoint> parseMirStage(llvm::StringRef Name) {
  std::string Names;
  for (const MirStageInfo &I : MirStages) {
    if (Name == I.Name)
      return StopPoint{I.Pass, I.After};
    Names += (Names.empty() ? "" : ", ") + std::string(I.Name);
  }
  return support::usageError("unknown stage '" + Name + "' (expected " + Names + ")");
}

llvm::Error checkStopPoint(const StopPoint &P) {
  initializeTargets();
  // TargetPassConfig ends the process (report_fatal_error) on a pass name it cannot find:
  // look it up first. "NAME,N" is the N-th instance of the pass, as in llc.
  const llvm::StringRef Name = llvm::StringRef(P.Pass).split(',').first;
  if (Name.empty() || !llvm::PassRegistry::getPassRegistry()->getPassInfo(Name))
    return support::usageError("'" + P.Pass + "' is not a pass of LLVM's code generator (llc-22 " +
                               P.describe() + " would refuse it too)");
  return llvm::Error::success();
}

namespace {
// LLVM's stop options are process-wide (cl::opt), read when a code generation pipeline is
// built. Each compilation holds the point it needs while it runs: compilations at the same
// point share it, one at another point waits until they are done. Nothing outlives a
// compilation, so callers in any thread (a Python thread per stage, a session's workers) can
// never get another caller's point, and a caller never holds it across calls (no deadlock
// between a paused generator and a later call in the same thread).
class StopPoints {
public:
  static StopPoints &process() {
    static StopPoints S;
    return S;
  }
  void acquire(const StopPoint &P) {
    const std::string Want = P.describe();
    std::unique_lock<std::mutex> G(Lock);
    Free.wait(G, [&] { return Users == 0 || Current == Want; });
    if (Current != Want) {
      auto Opts = llvm::cl::getRegisteredOptions(); // a map of pointers to the options themselves
      for (llvm::StringRef Name : {"stop-after", "stop-before", "start-after", "start-before"})
        if (auto It = Opts.find(Name); It != Opts.end())
          It->second->reset();
      if (auto It = Opts.find(P.After ? "stop-after" : "stop-before"); It != Opts.end())
        It->second->addOccurrence(0, It->first, P.Pass);
      Current = Want;
    }
    ++Users;
  }
  void release() {
    std::lock_guard<std::mutex> G(Lock);
    if (--Users == 0)
      Free.notify_all();
  }

private:
  std::mutex Lock;
  std::condition_variable Free;
  std::string Current;
  unsigned Users = 0;
};
} // namespace

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetFor(llvm::Module &M, const TargetChoice &T) {
  TargetChoice C = T;
  if (C.Triple.empty())
    C.Triple = M.getTargetTriple().str();
  auto TM = makeTargetMachine(C);
  if (!TM)
    return TM.takeError();
  // llc replaces the module's data layout with the target's.
  M.setDataLayout((*TM)->createDataLayout());
  // Code generation reads each function's own target-cpu and target-features: llc's -mcpu and
  // -mattr reach a function only through them (codegen::setFunctionAttributes, called by
  // llc-22 before its pipeline: the CPU where a function names none, the features appended to
  // a function's own). Without this, -mattr=+avx2 changed nothing on clang's IR, whose
  // functions all name their features.
  const std::string CPU = T.llcCPU();
  for (llvm::Function &F : M) {
    if (!CPU.empty() && !F.hasFnAttribute("target-cpu"))
      F.addFnAttr("target-cpu", CPU);
    if (!T.Features.empty()) {
      const llvm::StringRef Old = F.getFnAttribute("target-features").getValueAsString();
      F.addFnAttr("target-features", Old.empty() ? T.Features : (Old + "," + T.Features).str());
    }
  }
  return TM;
}

llvm::Error compileToMachineIR(llvm::Module &M, llvm::TargetMachine &TM, const StopPoint &Stop,
                               llvm::function_ref<void(const llvm::MachineFunction &)> Each) {
  if (llvm::Error E = checkStopPoint(Stop))
    return E;
  StopPoints &Points = StopPoints::process();
  Points.acquire(Stop);
  llvm::scope_exit Release([&] { Points.release(); });
  std::string Errors;
  llvm::LLVMContext &Ctx = M.getContext();
  auto Old = Ctx.getDiagnosticHandler();
  Ctx.setDiagnosticHandler(std::make_unique<CollectingHandler>(Errors));
  llvm::legacy::PassManager PM;
  // llc-22's analyses: the library functions and the runtime library calls the target has
  // (without the latter, memset and memcpy are lowered to loops before instruction selection).
  const llvm::TargetOptions &Options = TM.Options;
  llvm::TargetLibraryInfoImpl TLII(M.getTargetTriple(), Options.VecLib);
  PM.add(new llvm::TargetLibraryInfoWrapperPass(TLII));
  PM.add(new llvm::RuntimeLibraryInfoWrapper(M.getTargetTriple(), Options.ExceptionModel,
                                             Options.FloatABIType, Options.EABIVersion,
                                             Options.MCOptions.ABIName, Options.VecLib));
  // llc's pipeline as CodeGenTargetMachineImpl::addPassesToEmitFile builds it, up to the stop
  // point, without the printer and the pass that frees machine functions.
  auto *MMIWP = new llvm::MachineModuleInfoWrapperPass(&TM);
  llvm::TargetPassConfig *PassConfig = TM.createPassConfig(PM);
  PM.add(PassConfig);
  PM.add(MMIWP);
  llvm::Error Result = llvm::Error::success();
  if (PassConfig->addISelPasses()) {
    Result = support::makeError("the target has no instruction selector for this module");
  } else {
    PassConfig->addMachinePasses();
    PassConfig->setInitialized();
    PM.add(new EachFunction(Each));
    PM.run(M);
    if (!Errors.empty())
      Result = support::makeError(Errors);
  }
  Ctx.setDiagnosticHandler(std::move(Old));
  return Result;
}

} // namespace wb::mir
