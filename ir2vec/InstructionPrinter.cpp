#include "ir2vec/InstructionPrinter.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"

namespace wb::ir2vec {
namespace {
// The rule Value::print uses (AsmWriter.cpp, isReferencingMDNode) to pick a slot tracker
// that numbers all of the module's metadata up front.
bool referencesMDNode(const llvm::Instruction &I) {
  if (const auto *CI = llvm::dyn_cast<llvm::CallInst>(&I))
    if (const llvm::Function *Callee = CI->getCalledFunction())
      if (Callee->isIntrinsic())
        for (const llvm::Use &Op : I.operands())
          if (const auto *MV = llvm::dyn_cast_or_null<llvm::MetadataAsValue>(Op.get()))
            if (llvm::isa<llvm::MDNode>(MV->getMetadata()))
              return true;
  return false;
}
} // namespace

void InstructionPrinter::print(llvm::raw_ostream &OS, const llvm::Instruction &I) {
  const llvm::Function *F = I.getFunction();
  if (F != Current) {
    // Function-local metadata and call attribute groups get numbered per function in a
    // fresh tracker; a tracker reused across functions would number them differently.
    Trackers[0].reset();
    Trackers[1].reset();
    Current = F;
  }
  const bool AllMetadata = referencesMDNode(I);
  auto &T = Trackers[AllMetadata];
  if (!T)
    T = std::make_unique<llvm::ModuleSlotTracker>(I.getModule(), AllMetadata);
  I.print(OS, *T);
}

} // namespace wb::ir2vec
