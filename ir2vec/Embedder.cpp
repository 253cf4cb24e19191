#include "ir2vec/Embedder.h"
#include "ir2vec/ReachingFlow.h"

#include "support/Error.h"

#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instruction.h"

#include <algorithm>
#include <cassert>

namespace wb::ir2vec {

llvm::Expected<Kind> parseKind(llvm::StringRef Name) {
  return support::parseNamed<Kind>(KindNames, Name, "embedding kind");
}

llvm::StringRef kindName(Kind K) { return support::nameOf<Kind>(KindNames, K); }

std::unique_ptr<Embedder> Embedder::create(Kind K, const llvm::Function &F,
                                           const vocab::Vocabulary &V, SymbolicMemo *Memo,
                                           const ReachingFlow *Flow) {
  assert((!Memo || &Memo->vocabulary() == &V) && "memo of another vocabulary");
  switch (K) {
  case Kind::Symbolic:
    return std::make_unique<SymbolicEmbedder>(F, V, Memo);
  case Kind::FlowAware:
    return std::make_unique<FlowAwareEmbedder>(F, V);
  case Kind::FlowAwareRD:
    assert(Flow && Flow->dimension() == V.dimension() && "flow-aware-rd needs a solved flow");
    return std::make_unique<ReachingEmbedder>(F, V, *Flow);
  }
  llvm_unreachable("unknown embedding kind");
}

Embedder::Embedder(const llvm::Function &F, const vocab::Vocabulary &V)
    : F(F), Vocab(V), Dim(V.dimension()), ArgScratch(Dim), InstScratch(Dim), BBScratch(Dim) {}

void Embedder::zero(double *Acc) const { std::fill(Acc, Acc + Dim, 0.0); }

void combineInstruction(const vocab::Vocabulary &V, const llvm::Instruction &I,
                        const double *Args, double *Out) {
  const unsigned Dim = V.dimension();
  const double *Opc = V.row(vocab::opcodeEntity(I.getOpcode()));
  const double *Ty = V.row(vocab::typeEntity(I.getType()->getTypeID()));
  for (unsigned D = 0; D < Dim; ++D)
    Out[D] = (Opc[D] + Ty[D]) + Args[D];
  if (const auto *Cmp = llvm::dyn_cast<llvm::CmpInst>(&I))
    addInto(Out, V.row(vocab::predicateEntity(Cmp->getPredicate())), Dim);
}

void Embedder::combine(const llvm::Instruction &I, const double *Args, double *Out) const {
  combineInstruction(Vocab, I, Args, Out);
}

void Embedder::instVector(const llvm::Instruction &I, llvm::MutableArrayRef<double> Out) {
  assert(Out.size() >= Dim);
  computeInst(I, Out.data());
}

void Embedder::bbVector(const llvm::BasicBlock &BB, llvm::MutableArrayRef<double> Out) {
  assert(Out.size() >= Dim);
  double *Acc = Out.data();
  zero(Acc);
  for (const llvm::Instruction &I : BB.instructionsWithoutDebug()) {
    computeInst(I, InstScratch.data());
    addRow(Acc, InstScratch.data());
  }
}

void Embedder::functionVector(llvm::MutableArrayRef<double> Out) {
  assert(Out.size() >= Dim);
  double *Acc = Out.data();
  zero(Acc);
  if (F.isDeclaration())
    return;
  // Each block is summed on its own first, then added: the same two-level rounding as LLVM.
  for (const llvm::BasicBlock *BB : llvm::depth_first(&F)) {
    bbVector(*BB, BBScratch);
    addRow(Acc, BBScratch.data());
  }
}

std::vector<double> Embedder::instVector(const llvm::Instruction &I) {
  std::vector<double> V(Dim);
  instVector(I, V);
  return V;
}
std::vector<double> Embedder::bbVector(const llvm::BasicBlock &BB) {
  std::vector<double> V(Dim);
  bbVector(BB, V);
  return V;
}
std::vector<double> Embedder::functionVector() {
  std::vector<double> V(Dim);
  functionVector(V);
  return V;
}

uint64_t SymbolicMemo::signature(const llvm::Instruction &I) {
  // opcode: 7 bits, canonical type: 4, predicate + 1: 6, operand count: 5, then 2 bits per
  // operand kind, which leaves room for 21 operands in 64 bits.
  const unsigned N = I.getNumOperands();
  if (N > 21)
    return 0;
  uint64_t Key = I.getOpcode();
  Key |= uint64_t(vocab::canonicalType(I.getType()->getTypeID())) << 7;
  if (const auto *Cmp = llvm::dyn_cast<llvm::CmpInst>(&I))
    Key |= uint64_t(Cmp->getPredicate() + 1) << 11;
  Key |= uint64_t(N) << 17;
  for (unsigned K = 0; K < N; ++K)
    Key |= uint64_t(vocab::operandKind(*I.getOperand(K))) << (22 + 2 * K);
  return Key;
}

void SymbolicEmbedder::computeInst(const llvm::Instruction &I, double *Out) {
  const uint64_t Key = Memo ? SymbolicMemo::signature(I) : 0;
  if (!Key) {
    compute(I, Out);
    return;
  }
  if (const double *Hit = Memo->find(Key)) {
    std::copy(Hit, Hit + Dim, Out);
    return;
  }
  compute(I, Out);
  Memo->insert(Key, Out);
}

void SymbolicEmbedder::compute(const llvm::Instruction &I, double *Out) {
  double *Args = ArgScratch.data();
  zero(Args);
  for (const llvm::Use &U : I.operands())
    addRow(Args, Vocab.row(vocab::operandEntity(*U.get())));
  combine(I, Args, Out);
}

FlowAwareEmbedder::FlowAwareEmbedder(const llvm::Function &F, const vocab::Vocabulary &V)
    : Embedder(F, V) {
  // One slot per instruction of F up front: the cache never reallocates in the common case.
  const size_t N = F.getInstructionCount();
  Slot.reserve(N);
  Arena.reserve(N * Dim);
}

void FlowAwareEmbedder::invalidate() {
  Slot.clear();
  Arena.clear();
}

const double *FlowAwareEmbedder::cached(const llvm::Instruction &I) const {
  auto It = Slot.find(&I);
  return It == Slot.end() ? nullptr : Arena.data() + It->second;
}

void FlowAwareEmbedder::computeInst(const llvm::Instruction &I, double *Out) {
  if (const double *Hit = cached(I)) {
    std::copy(Hit, Hit + Dim, Out);
    return;
  }
  double *Args = ArgScratch.data();
  zero(Args);
  for (const llvm::Use &U : I.operands()) {
    const double *Row = nullptr;
    if (const auto *Def = llvm::dyn_cast<llvm::Instruction>(U.get()))
      Row = cached(*Def);
    // Not an instruction, or not computed yet (PHI back edge, block not visited yet): the
    // operand-kind vector, frozen into this instruction's cached value from now on.
    addRow(Args, Row ? Row : Vocab.row(vocab::operandEntity(*U.get())));
  }
  combine(I, Args, Out);
  const size_t Offset = Arena.size();
  Arena.insert(Arena.end(), Out, Out + Dim);
  Slot.try_emplace(&I, Offset);
}

void ReachingEmbedder::computeInst(const llvm::Instruction &I, double *Out) {
  const double *Row = Flow.instVector(I);
  assert(Row && "instruction of a function the flow was not solved for");
  std::copy(Row, Row + Dim, Out);
}

} // namespace wb::ir2vec
