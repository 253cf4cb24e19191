// Prints instructions exactly as Instruction::print(OS) does, without rebuilding a slot
// tracker for the whole module on every call (which makes printing every instruction of a
// module quadratic). Instruction::print numbers metadata differently depending on whether the
// instruction is an intrinsic call with an MDNode argument, and its trackers are fresh per
// call; we keep one tracker of each flavour per function, which gives identical text (checked
// against llvm-ir2vec on every test and corpus module).
#pragma once

#include "llvm/IR/ModuleSlotTracker.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace llvm {
class Function;
class Instruction;
} // namespace llvm

namespace wb::ir2vec {

class InstructionPrinter {
public:
  void print(llvm::raw_ostream &OS, const llvm::Instruction &I);

private:
  const llvm::Function *Current = nullptr;
  std::unique_ptr<llvm::ModuleSlotTracker> Trackers[2];
};

} // namespace wb::ir2vec
