// The IR2Vec paper's flow-aware encoding (kind "flow-aware-rd"): every instruction vector of a
// set of functions, solved once per module, independent of any query order.
//
// An instruction's vector is LLVM's combination (opcode + type) + args [+ predicate], where an
// operand's contribution is (docs/embeddings.md, "flow-aware-rd", gives the equations):
//   - a value defined by an instruction: that instruction's vector (as LLVM's flow-aware kind);
//   - the pointer of a load: Damping times the sum of the vectors of its reaching definitions,
//     the stores and memory-writing calls that may reach it (LLVM's MemorySSA over BasicAA,
//     TBAA and scoped no-alias metadata), plus the pointer's own contribution when some path
//     from the entry reaches the load without a write;
//   - the callee of a direct call to a defined function: Damping times its mean instruction
//     (its function vector over the n instructions it sums);
//   - anything else (constants, arguments, declarations, labels): the vocabulary's operand row.
// The dependencies form a graph; each strongly connected component with a cycle is one linear
// system x = B + W x. Inside a cycle an instruction's cyclic dependencies share the damping
// (the paper's argument weight, 0.2): Damping / m each for m of them, and a recursive call reads
// its callee's mean instruction. Every row of W then sums to at most 0.2, so every system is
// well posed, with no sign flips however many self-calls or back edges meet. Solved with
// Armadillo (LAPACK's LU) up to DenseLimit unknowns, above it by Gauss-Seidel sweeps of the
// damped iteration (a contraction) to 1e-15 relative; a system that cannot be solved is an error naming the
// function and an instruction of the cycle.
//
// Order independence: unknowns are numbered by function name, then blocks in depth-first order
// from the entry (successor order, not layout), then position; sums over reaching definitions
// follow that numbering. Permuting functions or blocks therefore leaves every reachable vector
// bit-identical; queries only read the solution.
#pragma once

#include "vocab/Vocabulary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace llvm {
class Function;
class Instruction;
class Module;
} // namespace llvm

namespace wb::ir2vec {

class ReachingFlow {
public:
  /// The weight of a dependency that closes a cycle, and of a callee's function vector: the
  /// argument weight w_a = 0.2 of the paper (and of IITH IR2Vec's solver).
  static constexpr double Damping = 0.2;
  /// Cycles with more unknowns than this are solved by the damped iteration (a contraction:
  /// see solveCycle) instead of a dense LU.
  static constexpr unsigned DenseLimit = 48;
  /// The iteration's bound; a contraction by 0.2 reaches its fixed point in about 25 sweeps.
  static constexpr unsigned MaxSweeps = 200;

  /// Solves every instruction of Roots and of the defined functions they call, directly or
  /// not. Roots must be defined functions of M.
  static llvm::Expected<ReachingFlow> solve(const llvm::Module &M, const vocab::Vocabulary &V,
                                            llvm::ArrayRef<const llvm::Function *> Roots);
  /// Every defined function of M.
  static llvm::Expected<ReachingFlow> solve(const llvm::Module &M, const vocab::Vocabulary &V);

  unsigned dimension() const { return Dim; }
  /// The solved vector of I, or nullptr when I's function was not solved.
  const double *instVector(const llvm::Instruction &I) const {
    auto It = Slot.find(&I);
    return It == Slot.end() ? nullptr : Arena.data() + It->second;
  }
  /// Number of strongly connected components with a cycle that were solved as systems.
  size_t cycles() const { return Cycles; }

private:
  unsigned Dim = 0;
  size_t Cycles = 0;
  llvm::DenseMap<const llvm::Instruction *, size_t> Slot;
  std::vector<double> Arena;
  friend class ReachingSolver;
};

} // namespace wb::ir2vec
