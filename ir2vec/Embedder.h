// IR2Vec embedders with the exact semantics of LLVM 22.1.8's ir2vec::Embedder.
//
// One embedder serves one function and, like LLVM's, answers three queries: an instruction,
// a basic block, the function. Results are written into caller-provided buffers of
// dimension() doubles; the hot path allocates nothing per instruction (scratch buffers live in
// the embedder, the flow-aware cache is one contiguous arena).
//
// Arithmetic follows LLVM operation for operation, so results are bit-identical:
//   inst  = ((opcode + type) + args) [+ predicate]     args = ((0 + a1) + a2) + ...
//   block = (0 + inst1) + inst2 + ...                   (non-debug, non-pseudo instructions)
//   func  = (0 + block1) + block2 + ...                 (depth-first pre-order from entry;
//                                                        unreachable blocks excluded)
// Flow-aware replaces an operand's kind vector by the cached embedding of its defining
// instruction when (and only when) that instruction was already computed by this embedder;
// results therefore depend on the order of queries, exactly as in LLVM (llvm#159171).
// Flow-aware-rd (the IR2Vec paper's encoding, ReachingFlow.h) reads vectors solved once for the
// module: no query order, memory through reaching definitions, callees' function vectors.
#pragma once

#include "support/Names.h"
#include "vocab/Vocabulary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace llvm {
class BasicBlock;
class Function;
class Instruction;
} // namespace llvm

namespace wb::ir2vec {

class ReachingFlow;

enum class Kind { Symbolic, FlowAware, FlowAwareRD };
/// The spellings of llvm-ir2vec's --ir2vec-kind, and the workbench's third kind.
inline constexpr support::Named<Kind> KindNames[] = {{Kind::Symbolic, "symbolic"},
                                                    {Kind::FlowAware, "flow-aware"},
                                                    {Kind::FlowAwareRD, "flow-aware-rd"}};

/// Whether vectors of kind K come from a ReachingFlow solved for the module.
inline bool needsReachingFlow(Kind K) { return K == Kind::FlowAwareRD; }

/// "symbolic", "flow-aware" or "flow-aware-rd".
llvm::Expected<Kind> parseKind(llvm::StringRef Name);
llvm::StringRef kindName(Kind K);

/// Acc[0..Dim) += Row[0..Dim): element-wise double addition, the only arithmetic exact
/// embeddings use, so every sum in the engine goes through it.
inline void addInto(double *Acc, const double *Row, unsigned Dim) {
  for (unsigned D = 0; D < Dim; ++D)
    Acc[D] += Row[D];
}

/// Out = (opcode + type) + Args, then + predicate for compares: an instruction's vector from
/// the sum of its operands' contributions, as LLVM combines it (every kind shares it).
void combineInstruction(const vocab::Vocabulary &V, const llvm::Instruction &I,
                        const double *Args, double *Out);

/// Symbolic instruction vectors by signature (opcode, result type, operand kinds, predicate),
/// shared by the symbolic embedders of one module: a symbolic vector depends on nothing else,
/// so a remembered vector is the very value a fresh computation would give, bit for bit.
class SymbolicMemo {
public:
  explicit SymbolicMemo(const vocab::Vocabulary &V) : Vocab(V) {}
  const vocab::Vocabulary &vocabulary() const { return Vocab; }
  /// 0 when the instruction has too many operands to be keyed (then it is not memoised).
  static uint64_t signature(const llvm::Instruction &I);
  const double *find(uint64_t Key) const {
    auto It = Index.find(Key);
    return It == Index.end() ? nullptr : Rows.data() + It->second;
  }
  void insert(uint64_t Key, const double *Row) {
    Index.try_emplace(Key, Rows.size());
    Rows.insert(Rows.end(), Row, Row + Vocab.dimension());
  }

private:
  const vocab::Vocabulary &Vocab;
  llvm::DenseMap<uint64_t, size_t> Index;
  std::vector<double> Rows;
};

class Embedder {
public:
  virtual ~Embedder() = default;
  /// Memo (optional, symbolic only) must be built on the same vocabulary; Flow (flow-aware-rd
  /// only, required there) must have been solved for F on the same vocabulary.
  static std::unique_ptr<Embedder> create(Kind K, const llvm::Function &F,
                                          const vocab::Vocabulary &V,
                                          SymbolicMemo *Memo = nullptr,
                                          const ReachingFlow *Flow = nullptr);

  unsigned dimension() const { return Dim; }
  const llvm::Function &function() const { return F; }

  /// Each query overwrites Out[0 .. dimension()).
  void instVector(const llvm::Instruction &I, llvm::MutableArrayRef<double> Out);
  void bbVector(const llvm::BasicBlock &BB, llvm::MutableArrayRef<double> Out);
  void functionVector(llvm::MutableArrayRef<double> Out);

  /// Convenience forms that allocate the result.
  std::vector<double> instVector(const llvm::Instruction &I);
  std::vector<double> bbVector(const llvm::BasicBlock &BB);
  std::vector<double> functionVector();

  /// Forgets cached instruction embeddings (flow-aware); a no-op for symbolic.
  virtual void invalidate() {}

protected:
  Embedder(const llvm::Function &F, const vocab::Vocabulary &V);
  /// Computes (or fetches) one instruction embedding into Out.
  virtual void computeInst(const llvm::Instruction &I, double *Out) = 0;
  /// Out = (opcode + type) + Args, then + predicate for compares.
  void combine(const llvm::Instruction &I, const double *Args, double *Out) const;
  void addRow(double *Acc, const double *Row) const { addInto(Acc, Row, Dim); }
  void zero(double *Acc) const;

  const llvm::Function &F;
  const vocab::Vocabulary &Vocab;
  const unsigned Dim;
  // Scratch buffers: operand sum, one instruction, one block.
  std::vector<double> ArgScratch, InstScratch, BBScratch;
};

class SymbolicEmbedder final : public Embedder {
public:
  SymbolicEmbedder(const llvm::Function &F, const vocab::Vocabulary &V,
                   SymbolicMemo *Memo = nullptr)
      : Embedder(F, V), Memo(Memo) {}

private:
  void computeInst(const llvm::Instruction &I, double *Out) override;
  void compute(const llvm::Instruction &I, double *Out);
  SymbolicMemo *Memo;
};

class FlowAwareEmbedder final : public Embedder {
public:
  FlowAwareEmbedder(const llvm::Function &F, const vocab::Vocabulary &V);
  void invalidate() override;

private:
  void computeInst(const llvm::Instruction &I, double *Out) override;
  const double *cached(const llvm::Instruction &I) const;

  // Instruction -> offset of its embedding in Arena.
  llvm::DenseMap<const llvm::Instruction *, size_t> Slot;
  std::vector<double> Arena;
};

/// Reads the solved vectors: every query gives the same answer in any order.
class ReachingEmbedder final : public Embedder {
public:
  ReachingEmbedder(const llvm::Function &F, const vocab::Vocabulary &V, const ReachingFlow &Flow)
      : Embedder(F, V), Flow(Flow) {}

private:
  void computeInst(const llvm::Instruction &I, double *Out) override;
  const ReachingFlow &Flow;
};

} // namespace wb::ir2vec
