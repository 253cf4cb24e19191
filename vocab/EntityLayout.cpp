#include "vocab/EntityLayout.h"

#include "llvm/IR/Constant.h"
#include "llvm/IR/Function.h"

#include <cassert>

namespace wb::vocab {

OperandKind operandKind(const llvm::Value &V) {
  if (llvm::isa<llvm::Function>(V))
    return OperandKind::Function;
  if (V.getType()->isPointerTy())
    return OperandKind::Pointer;
  if (llvm::isa<llvm::Constant>(V))
    return OperandKind::Constant;
  return OperandKind::Variable;
}

Section sectionOf(EntityId Id) {
  assert(Id < NumEntities && "entity id out of range");
  if (Id < TypeBase)
    return Section::Opcodes;
  if (Id < OperandKindBase)
    return Section::Types;
  if (Id < PredicateBase)
    return Section::OperandKinds;
  return Section::Predicates;
}

std::string_view entityName(EntityId Id) {
  switch (sectionOf(Id)) {
  case Section::Opcodes: return detail::OpcodeTable[Id - OpcodeBase].Name;
  case Section::Types: return CanonicalTypeNames[Id - TypeBase];
  case Section::OperandKinds: return OperandKindNames[Id - OperandKindBase];
  case Section::Predicates: return PredicateNames[Id - PredicateBase];
  }
  return {};
}

std::string_view jsonSectionOf(EntityId Id) {
  switch (sectionOf(Id)) {
  case Section::Opcodes: return "Opcodes";
  case Section::Types: return "Types";
  case Section::OperandKinds:
  case Section::Predicates: return "Arguments";
  }
  return {};
}

} // namespace wb::vocab
