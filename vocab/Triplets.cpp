#include "vocab/Triplets.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

#include <algorithm>

namespace wb::vocab {

void appendTriplets(const llvm::Function &F, TripletList &Out) {
  bool HasPrev = false;
  EntityId Prev = 0;
  for (const llvm::BasicBlock &BB : F) {
    for (const llvm::Instruction &I : BB.instructionsWithoutDebug()) {
      const EntityId Opc = opcodeEntity(I.getOpcode());
      if (HasPrev)
        Out.Triplets.push_back({Prev, Opc, NextRelation});
      Out.Triplets.push_back({Opc, typeEntity(I.getType()->getTypeID()), TypeRelation});
      uint32_t Arg = 0;
      for (const llvm::Use &U : I.operands())
        Out.Triplets.push_back({Opc, operandEntity(*U.get()), Arg0Relation + Arg++});
      if (Arg > 0)
        Out.MaxRelation = std::max(Out.MaxRelation, Arg0Relation + Arg - 1);
      Prev = Opc;
      HasPrev = true;
    }
  }
}

TripletList collectTriplets(const llvm::Module &M) {
  TripletList Out;
  for (const llvm::Function &F : M)
    if (!F.isDeclaration())
      appendTriplets(F, Out);
  return Out;
}

void writeTripletsText(llvm::raw_ostream &OS, const TripletList &T) {
  OS << "MAX_RELATION=" << T.MaxRelation << '\n';
  for (const Triplet &X : T.Triplets)
    OS << X.Head << '\t' << X.Tail << '\t' << X.Relation << '\n';
}

void writeEntitiesText(llvm::raw_ostream &OS) {
  OS << NumEntities << '\n';
  for (EntityId Id = 0; Id < NumEntities; ++Id) {
    std::string_view Name = entityName(Id);
    OS.write(Name.data(), Name.size());
    OS << '\t' << Id << '\n';
  }
}

} // namespace wb::vocab
