#include "vocab/Triplets.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"

#include <algorithm>

namespace wb::vocab {

namespace {

// The type an operand has for the OperandType relation.
EntityId operandTypeEntity(const llvm::Instruction &I, const llvm::Use &U) {
  if (const auto *CB = llvm::dyn_cast<llvm::CallBase>(&I); CB && CB->isCallee(&U))
    return typeEntity(CanonicalType::FunctionTy);
  return typeEntity(U.get()->getType()->getTypeID());
}

} // namespace

std::string relationName(uint32_t FinalId, uint32_t MaxRelation) {
  if (FinalId == TypeRelation)
    return "Type";
  if (FinalId == NextRelation)
    return "Next";
  if (FinalId <= MaxRelation)
    return "Arg" + std::to_string(FinalId - Arg0Relation);
  return FinalId == MaxRelation + 1 ? "Predicate" : "OperandType";
}

void appendTriplets(const llvm::Function &F, TripletList &Out, TripletOptions Opts) {
  Out.Extended |= Opts.Extended;
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
      if (Opts.Extended) {
        if (const auto *Cmp = llvm::dyn_cast<llvm::CmpInst>(&I))
          Out.Triplets.push_back({Opc, predicateEntity(Cmp->getPredicate()), PredicatePlaceholder});
        for (const llvm::Use &U : I.operands())
          Out.Triplets.push_back({Opc, operandTypeEntity(I, U), OperandTypePlaceholder});
      }
      Prev = Opc;
      HasPrev = true;
    }
  }
}

TripletList collectTriplets(const llvm::Module &M, TripletOptions Opts) {
  TripletList Out;
  Out.Extended = Opts.Extended;
  for (const llvm::Function &F : M)
    if (!F.isDeclaration())
      appendTriplets(F, Out, Opts);
  return Out;
}

void writeTripletsText(llvm::raw_ostream &OS, const TripletList &T) {
  OS << "MAX_RELATION=" << T.MaxRelation + (T.Extended ? NumExtendedRelations : 0) << '\n';
  for (const Triplet &X : T.Triplets)
    OS << X.Head << '\t' << X.Tail << '\t' << finalRelation(X.Relation, T.MaxRelation) << '\n';
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
