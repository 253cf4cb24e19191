#include "ir2vec/TextFormat.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <charconv>

namespace wb::ir2vec {

llvm::Expected<Level> parseLevel(llvm::StringRef Name) {
  if (Name == "inst")
    return Level::Inst;
  if (Name == "bb")
    return Level::BB;
  if (Name == "func")
    return Level::Func;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown level '" + Name.str() +
                                     "' (expected 'inst', 'bb' or 'func')");
}

llvm::StringRef levelName(Level L) {
  switch (L) {
  case Level::Inst: return "inst";
  case Level::BB: return "bb";
  case Level::Func: return "func";
  }
  return "";
}

void formatFixed(std::string &Out, double X, unsigned Precision) {
  // std::to_chars with a precision prints the exact binary value rounded half-to-even, which
  // is what glibc's printf("%.*f") prints, at a fraction of the cost (tested against snprintf).
  char Buf[512];
  auto R = std::to_chars(Buf, Buf + sizeof Buf, X, std::chars_format::fixed,
                         static_cast<int>(std::min(Precision, MaxPrecision)));
  Out.append(Buf, R.ptr);
}

void printVector(llvm::raw_ostream &OS, llvm::ArrayRef<double> V, unsigned Precision) {
  std::string Line = " [";
  Line.reserve(V.size() * (Precision + 6) + 4);
  for (double X : V) {
    Line += ' ';
    formatFixed(Line, X, Precision);
    Line += ' ';
  }
  Line += "]\n";
  OS << Line;
}

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

namespace {

void writeFunction(llvm::raw_ostream &OS, const llvm::Function &F, const vocab::Vocabulary &V,
                   const TextOptions &Opts, std::vector<double> &Buf,
                   InstructionPrinter &Printer) {
  if (F.isDeclaration()) {
    if (Opts.FunctionName)
      OS << "Function " << F.getName() << " is a declaration, skipping.\n";
    return;
  }
  auto E = Embedder::create(Opts.EmbeddingKind, F, V);
  OS << "Function: " << F.getName() << "\n";
  switch (Opts.Granularity) {
  case Level::Func:
    E->functionVector(Buf);
    printVector(OS, Buf, Opts.Precision);
    break;
  case Level::BB:
    for (const llvm::BasicBlock &BB : F) {
      OS << BB.getName() << ":";
      E->bbVector(BB, Buf);
      printVector(OS, Buf, Opts.Precision);
    }
    break;
  case Level::Inst:
    for (const llvm::BasicBlock &BB : F)
      for (const llvm::Instruction &I : BB) {
        Printer.print(OS, I);
        E->instVector(I, Buf);
        printVector(OS, Buf, Opts.Precision);
      }
    break;
  }
}

} // namespace

llvm::Error writeEmbeddingsText(llvm::raw_ostream &OS, const llvm::Module &M,
                                const vocab::Vocabulary &V, const TextOptions &Opts) {
  std::vector<double> Buf(V.dimension());
  InstructionPrinter Printer;
  if (Opts.FunctionName) {
    const llvm::Function *F = M.getFunction(*Opts.FunctionName);
    if (!F)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "function '" + *Opts.FunctionName + "' not found in '" +
                                         M.getModuleIdentifier() + "'");
    writeFunction(OS, *F, V, Opts, Buf, Printer);
    return llvm::Error::success();
  }
  for (const llvm::Function &F : M)
    writeFunction(OS, F, V, Opts, Buf, Printer);
  return llvm::Error::success();
}

} // namespace wb::ir2vec
