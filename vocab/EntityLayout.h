// The LLVM 22 IR2Vec entity layout: which vocabulary row every IR entity maps to.
//
//   +----------------+-----------+-------+----------------------------------------------+
//   | section        | rows      | count | source of the names                          |
//   +----------------+-----------+-------+----------------------------------------------+
//   | Opcodes        |   0 ..  67|   68  | llvm/IR/Instruction.def (row = opcode - 1)   |
//   | Canonical types|  68 ..  79|   12  | CanonicalType below (TypeID -> canonical)    |
//   | Operand kinds  |  80 ..  83|    4  | OperandKind below                            |
//   | Predicates     |  84 .. 109|   26  | FCMP_* (0..15) then ICMP_* (32..41), dense   |
//   +----------------+-----------+-------+----------------------------------------------+
//
// The opcode rows are generated from the Instruction.def of the LLVM we are compiled against,
// so the layout follows that LLVM; the static_asserts below fail the build if LLVM's enums no
// longer fit the table. The order is the one `llvm-ir2vec entities` prints.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Type.h"

#include <array>
#include <cstdint>
#include <string_view>

namespace llvm {
class Instruction;
class Value;
} // namespace llvm

namespace wb::vocab {

using EntityId = uint32_t;

namespace detail {
struct OpcodeName {
  unsigned Opcode;
  std::string_view Name;
};
inline constexpr OpcodeName OpcodeTable[] = {
#define HANDLE_INST(N, OPC, CLASS) {N, #OPC},
#include "llvm/IR/Instruction.def"
};
#define LAST_OTHER_INST(NUM) inline constexpr unsigned LastOpcode = NUM;
#include "llvm/IR/Instruction.def"

constexpr bool opcodesAreDense() {
  for (unsigned I = 0; I < std::size(OpcodeTable); ++I)
    if (OpcodeTable[I].Opcode != I + 1)
      return false;
  return true;
}
} // namespace detail

/// The four sections of the layout, in row order.
enum class Section : uint8_t { Opcodes, Types, OperandKinds, Predicates };

/// Canonical types, in vocabulary order. Names are the vocabulary keys.
enum class CanonicalType : uint8_t {
  FloatTy, VoidTy, LabelTy, MetadataTy, VectorTy, TokenTy,
  IntegerTy, FunctionTy, PointerTy, StructTy, ArrayTy, UnknownTy,
};
/// Operand kinds, in vocabulary order.
enum class OperandKind : uint8_t { Function, Pointer, Constant, Variable };

inline constexpr unsigned NumOpcodes = detail::LastOpcode;
inline constexpr unsigned NumTypes = 12;
inline constexpr unsigned NumOperandKinds = 4;
inline constexpr unsigned NumFCmpPredicates =
    llvm::CmpInst::LAST_FCMP_PREDICATE - llvm::CmpInst::FIRST_FCMP_PREDICATE + 1;
inline constexpr unsigned NumICmpPredicates =
    llvm::CmpInst::LAST_ICMP_PREDICATE - llvm::CmpInst::FIRST_ICMP_PREDICATE + 1;
inline constexpr unsigned NumPredicates = NumFCmpPredicates + NumICmpPredicates;

inline constexpr EntityId OpcodeBase = 0;
inline constexpr EntityId TypeBase = OpcodeBase + NumOpcodes;
inline constexpr EntityId OperandKindBase = TypeBase + NumTypes;
inline constexpr EntityId PredicateBase = OperandKindBase + NumOperandKinds;
inline constexpr EntityId NumEntities = PredicateBase + NumPredicates;

static_assert(std::size(detail::OpcodeTable) == NumOpcodes,
              "Instruction.def lists a different number of opcodes than LAST_OTHER_INST");
static_assert(detail::opcodesAreDense(), "Instruction.def opcodes must be 1..N without gaps");
static_assert(static_cast<unsigned>(CanonicalType::UnknownTy) + 1 == NumTypes);
static_assert(static_cast<unsigned>(OperandKind::Variable) + 1 == NumOperandKinds);
static_assert(NumFCmpPredicates == 16 && NumICmpPredicates == 10,
              "CmpInst predicates changed: update PredicateNames");
// LLVM 22's canonical layout has 110 entities; a different LLVM may legitimately differ, but
// then every shipped vocabulary and test expectation must be revisited, so stop the build.
static_assert(NumEntities == 110, "LLVM 22 IR2Vec layout has 110 entities");

inline constexpr std::array<std::string_view, NumTypes> CanonicalTypeNames = {
    "FloatTy",   "VoidTy",    "LabelTy",    "MetadataTy", "VectorTy", "TokenTy",
    "IntegerTy", "FunctionTy", "PointerTy", "StructTy",   "ArrayTy",  "UnknownTy"};
inline constexpr std::array<std::string_view, NumOperandKinds> OperandKindNames = {
    "Function", "Pointer", "Constant", "Variable"};
// Key text is "FCMP_"/"ICMP_" + CmpInst::getPredicateName(P); a unit test checks each name
// against LLVM so this list cannot drift.
inline constexpr std::array<std::string_view, NumPredicates> PredicateNames = {
    "FCMP_false", "FCMP_oeq", "FCMP_ogt", "FCMP_oge", "FCMP_olt", "FCMP_ole", "FCMP_one",
    "FCMP_ord",   "FCMP_uno", "FCMP_ueq", "FCMP_ugt", "FCMP_uge", "FCMP_ult", "FCMP_ule",
    "FCMP_une",   "FCMP_true", "ICMP_eq", "ICMP_ne",  "ICMP_ugt", "ICMP_uge", "ICMP_ult",
    "ICMP_ule",   "ICMP_sgt", "ICMP_sge", "ICMP_slt", "ICMP_sle"};

/// Canonicalisation of LLVM type IDs. A switch without default: -Werror=switch makes a new
/// TypeID in a future LLVM a build error instead of a silent UnknownTy.
constexpr CanonicalType canonicalType(llvm::Type::TypeID Id) {
  using T = llvm::Type;
  switch (Id) {
  case T::HalfTyID: case T::BFloatTyID: case T::FloatTyID: case T::DoubleTyID:
  case T::X86_FP80TyID: case T::FP128TyID: case T::PPC_FP128TyID:
    return CanonicalType::FloatTy;
  case T::VoidTyID: return CanonicalType::VoidTy;
  case T::LabelTyID: return CanonicalType::LabelTy;
  case T::MetadataTyID: return CanonicalType::MetadataTy;
  case T::X86_AMXTyID: return CanonicalType::VectorTy; // as LLVM 22 (older releases: Unknown)
  case T::TokenTyID: return CanonicalType::TokenTy;
  case T::IntegerTyID: return CanonicalType::IntegerTy;
  case T::FunctionTyID: return CanonicalType::FunctionTy;
  case T::PointerTyID: case T::TypedPointerTyID: return CanonicalType::PointerTy;
  case T::StructTyID: return CanonicalType::StructTy;
  case T::ArrayTyID: return CanonicalType::ArrayTy;
  case T::FixedVectorTyID: case T::ScalableVectorTyID: return CanonicalType::VectorTy;
  case T::TargetExtTyID: return CanonicalType::UnknownTy;
  }
  return CanonicalType::UnknownTy;
}

constexpr EntityId opcodeEntity(unsigned Opcode) { return OpcodeBase + Opcode - 1; }
constexpr EntityId typeEntity(CanonicalType T) { return TypeBase + static_cast<EntityId>(T); }
constexpr EntityId typeEntity(llvm::Type::TypeID Id) { return typeEntity(canonicalType(Id)); }
constexpr EntityId operandKindEntity(OperandKind K) {
  return OperandKindBase + static_cast<EntityId>(K);
}
/// Dense predicate row: FCmp predicates 0..15 keep their value, ICmp 32..41 follow them.
constexpr EntityId predicateEntity(llvm::CmpInst::Predicate P) {
  return PredicateBase + (P <= llvm::CmpInst::LAST_FCMP_PREDICATE
                              ? static_cast<unsigned>(P) - llvm::CmpInst::FIRST_FCMP_PREDICATE
                              : NumFCmpPredicates + static_cast<unsigned>(P) -
                                    llvm::CmpInst::FIRST_ICMP_PREDICATE);
}

/// LLVM 22's operand classification (first match wins): functions, then anything of pointer
/// type, then other constants; everything else (instructions, arguments, basic blocks,
/// metadata-as-value, ...) is a variable.
OperandKind operandKind(const llvm::Value &V);
inline EntityId operandEntity(const llvm::Value &V) { return operandKindEntity(operandKind(V)); }

Section sectionOf(EntityId Id);
/// The vocabulary key / entity name of a row, e.g. "Add", "IntegerTy", "ICMP_eq".
std::string_view entityName(EntityId Id);
/// The JSON section of LLVM's vocabulary format holding this entity's key. Predicates live
/// in "Arguments" together with the operand kinds (LLVM 22 has no predicate section).
std::string_view jsonSectionOf(EntityId Id);

} // namespace wb::vocab
