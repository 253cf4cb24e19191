// Knowledge-graph triplets for vocabulary training, as llvm-ir2vec (LLVM 22) emits them.
//
// For each defined function (module order), blocks in layout order (unreachable ones too),
// non-debug instructions in order:
//   (previous opcode, opcode, Next)  when the function already had an instruction
//   (opcode, canonical type, Type)
//   (opcode, operand kind, Arg0 + i) for the i-th operand
// The Next chain crosses blocks and restarts per function. Compare predicates are not
// emitted (LLVM 22 behaviour).
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

struct Triplet {
  EntityId Head;
  EntityId Tail;
  uint32_t Relation;
  bool operator==(const Triplet &O) const {
    return Head == O.Head && Tail == O.Tail && Relation == O.Relation;
  }
};

struct TripletList {
  std::vector<Triplet> Triplets;
  /// The largest relation id in use, at least NextRelation (llvm-ir2vec's MAX_RELATION).
  uint32_t MaxRelation = NextRelation;
};

/// Appends the triplets of one function (nothing for a declaration).
void appendTriplets(const llvm::Function &F, TripletList &Out);
TripletList collectTriplets(const llvm::Module &M);

/// llvm-ir2vec's `triplets` text: "MAX_RELATION=<n>" then "head\ttail\trelation" lines.
void writeTripletsText(llvm::raw_ostream &OS, const TripletList &T);
/// llvm-ir2vec's `entities` text: the entity count, then "name\tid" in layout order.
void writeEntitiesText(llvm::raw_ostream &OS);

} // namespace wb::vocab
