#include "mir/MachineCompile.h"

#include "support/Error.h"

#include "llvm/Analysis/RuntimeLibcallInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/CodeGen/TargetPassConfig.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/PassRegistry.h"
#include "llvm/PassInfo.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Target/TargetMachine.h"

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

namespace {
// LLVM's stop options are process-wide (cl::opt), so what they hold is too: the one record of
// the point they were set to, beside them, so that workers asking for the same point find it
// set and a worker asking for another is refused instead of changing it under the others.
struct StopState {
  std::mutex Lock;
  std::optional<std::string> Current;
};
StopState &stopState() {
  static StopState S;
  return S;
}

llvm::Error setStopPointLocked(const StopPoint &P, StopState &S) {
  initializeTargets();
  // TargetPassConfig ends the process (report_fatal_error) on a pass name it cannot find:
  // look it up first. "NAME,N" is the N-th instance of the pass, as in llc.
  const llvm::StringRef Name = llvm::StringRef(P.Pass).split(',').first;
  if (Name.empty() || !llvm::PassRegistry::getPassRegistry()->getPassInfo(Name))
    return support::usageError("'" + P.Pass + "' is not a pass of LLVM's code generator (llc-22 " +
                               P.describe() + " would refuse it too)");
  auto Opts = llvm::cl::getRegisteredOptions(); // a map of pointers to the options themselves
  for (llvm::StringRef Name : {"stop-after", "stop-before", "start-after", "start-before"})
    if (auto It = Opts.find(Name); It != Opts.end())
      It->second->reset();
  if (auto It = Opts.find(P.After ? "stop-after" : "stop-before"); It != Opts.end())
    It->second->addOccurrence(0, It->first, P.Pass);
  S.Current = P.describe();
  return llvm::Error::success();
}
} // namespace

llvm::Error setStopPoint(const StopPoint &P) {
  StopState &S = stopState();
  std::lock_guard<std::mutex> G(S.Lock);
  return setStopPointLocked(P, S);
}

llvm::Error shareStopPoint(const StopPoint &P) {
  StopState &S = stopState();
  std::lock_guard<std::mutex> G(S.Lock);
  if (S.Current == P.describe())
    return llvm::Error::success();
  if (S.Current)
    return support::makeError("code generation in this process already stops at " + *S.Current +
                              "; it cannot also stop at " + P.describe());
  return setStopPointLocked(P, S);
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetFor(llvm::Module &M, const TargetChoice &T) {
  TargetChoice C = T;
  if (C.Triple.empty())
    C.Triple = M.getTargetTriple().str();
  auto TM = makeTargetMachine(C);
  if (!TM)
    return TM.takeError();
  // llc replaces the module's data layout with the target's.
  M.setDataLayout((*TM)->createDataLayout());
  return TM;
}

llvm::Error compileToMachineIR(llvm::Module &M, llvm::TargetMachine &TM,
                               llvm::function_ref<void(const llvm::MachineFunction &)> Each) {
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
