// Knowledge-graph triplets for vocabulary training, as llvm-ir2vec (LLVM 22) emits them.
//
// For each defined function (module order), blocks in layout order (unreachable ones too),
// non-debug instructions in order:
//   (previous opcode, opcode, Next)  when the function already had an instruction
//   (opcode, canonical type, Type)
//   (opcode, operand kind, Arg0 + i) for the i-th operand
// The Next chain crosses blocks and restarts per function. Compare predicates are not
// emitted (LLVM 22 behaviour).
//
// Extension (opt-in, TripletOptions::Extended; not in LLVM): two more relations so that
// entities no LLVM-22 triplet mentions can be trained.
//   (icmp/fcmp opcode, predicate, Predicate)     the compare's predicate
//   (opcode, canonical type of operand i, OperandType)
//                                                 every operand's type; a call's callee
//                                                 operand has the call's function type
//                                                 (FunctionTy), as in typed-pointer IR
// They carry placeholder ids while modules are collected and are numbered right after the
// largest Arg relation of the whole output (finalRelation).
#pragma once

#include "vocab/EntityLayout.h"

#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace wb::vocab {

/// Relation ids; Arg0 + i is the i-th operand.
enum Relation : uint32_t { TypeRelation = 0, NextRelation = 1, Arg0Relation = 2 };
/// Placeholder ids of the extended relations (see finalRelation).
inline constexpr uint32_t PredicatePlaceholder = 0xFFFFFF00u;
inline constexpr uint32_t OperandTypePlaceholder = 0xFFFFFF01u;
inline constexpr unsigned NumExtendedRelations = 2;

/// The id a relation gets in output whose largest Arg relation is MaxRelation: LLVM's
/// relations keep theirs, the extended ones follow MaxRelation.
inline uint32_t finalRelation(uint32_t R, uint32_t MaxRelation) {
  return R >= PredicatePlaceholder ? MaxRelation + 1 + (R - PredicatePlaceholder) : R;
}
/// Relation names as generateTriplets.py writes them to relation2id.txt: Type, Next,
/// Arg0..Arg(MaxRelation-2), then the extended ones when present.
std::string relationName(uint32_t FinalId, uint32_t MaxRelation);

struct TripletOptions {
  bool Extended = false;
};

struct Triplet {
  EntityId Head;
  EntityId Tail;
  uint32_t Relation;
  bool operator==(const Triplet &O) const {
    return Head == O.Head && Tail == O.Tail && Relation == O.Relation;
  }
};

/// A triplet packed into one integer whose order is (head, tail, relation) order; the
/// relation keeps all 32 bits (placeholder ids included).
inline uint64_t tripletKey(const Triplet &T) {
  return (uint64_t(T.Head) << 48) | (uint64_t(T.Tail) << 32) | T.Relation;
}
inline Triplet tripletOfKey(uint64_t K) {
  return {EntityId(K >> 48), EntityId((K >> 32) & 0xFFFF), uint32_t(K)};
}

struct TripletList {
  std::vector<Triplet> Triplets;
  /// The largest LLVM relation id in use, at least NextRelation (llvm-ir2vec's MAX_RELATION
  /// without the extension).
  uint32_t MaxRelation = NextRelation;
  bool Extended = false;
};

/// Appends the triplets of one function (nothing for a declaration).
void appendTriplets(const llvm::Function &F, TripletList &Out, TripletOptions Opts = {});
TripletList collectTriplets(const llvm::Module &M, TripletOptions Opts = {});

/// llvm-ir2vec's `triplets` text: "MAX_RELATION=<n>" then "head\ttail\trelation" lines.
/// With extended relations, MAX_RELATION counts them too.
void writeTripletsText(llvm::raw_ostream &OS, const TripletList &T);
/// llvm-ir2vec's `entities` text: the entity count, then "name\tid" in layout order.
void writeEntitiesText(llvm::raw_ostream &OS);

} // namespace wb::vocab
