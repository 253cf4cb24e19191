#include "ir2vec/ReachingFlow.h"

#include "ir2vec/Embedder.h"
#include "support/Error.h"

#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/ADT/GraphTraits.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/BasicAliasAnalysis.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/Analysis/MemorySSA.h"
#include "llvm/Analysis/ScopedNoAliasAA.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TypeBasedAliasAnalysis.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <armadillo>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

namespace wb::ir2vec {
namespace {

// One part of an operand's contribution: a vocabulary row, or Weight times a node's vector.
struct Part {
  const double *Row = nullptr;
  int32_t Node = -1;
  double Weight = 1.0;
};

// An unknown: an instruction's vector, or (I == nullptr) the function vector of Fn. Its
// groups (an operand of I, or a block of Fn) are DepGraph::Groups[FirstGroup .. EndGroup).
struct Node {
  const llvm::Instruction *I = nullptr;
  const llvm::Function *Fn = nullptr;
  uint32_t FirstGroup = 0, EndGroup = 0;
  const Node *const *DepBegin = nullptr, *const *DepEnd = nullptr; // for the SCC walk
};

// All parts of all nodes in one array, groups as offsets into it, dependencies as one list:
// a module has a node per instruction, and per-node vectors cost more than the embedding.
// A root node leads to every unknown, in canonical order, so that one scc_iterator walk covers
// them all and emits each component after the components it depends on.
struct DepGraph {
  std::vector<Node> Nodes;
  std::vector<Part> Parts;
  std::vector<uint32_t> GroupStart{0}; // group g is Parts[GroupStart[g] .. GroupStart[g + 1])
  std::vector<const Node *> DepList, RootDeps;
  Node Root;
  void closeGroup() { GroupStart.push_back(static_cast<uint32_t>(Parts.size())); }
  uint32_t groupCount() const { return static_cast<uint32_t>(GroupStart.size() - 1); }
  llvm::ArrayRef<Part> group(uint32_t G) const {
    return llvm::ArrayRef<Part>(Parts).slice(GroupStart[G], GroupStart[G + 1] - GroupStart[G]);
  }
  llvm::ArrayRef<Part> parts(const Node &N) const {
    return llvm::ArrayRef<Part>(Parts).slice(GroupStart[N.FirstGroup],
                                             GroupStart[N.EndGroup] - GroupStart[N.FirstGroup]);
  }
};

} // namespace
} // namespace wb::ir2vec

template <> struct llvm::GraphTraits<const wb::ir2vec::DepGraph *> {
  using NodeRef = const wb::ir2vec::Node *;
  using ChildIteratorType = const NodeRef *;
  static NodeRef getEntryNode(const wb::ir2vec::DepGraph *G) { return &G->Root; }
  static ChildIteratorType child_begin(NodeRef N) { return N->DepBegin; }
  static ChildIteratorType child_end(NodeRef N) { return N->DepEnd; }
};

namespace wb::ir2vec {

class ReachingSolver {
public:
  ReachingSolver(const llvm::Module &M, const vocab::Vocabulary &V)
      : M(M), V(V), Dim(V.dimension()), TLII(M.getTargetTriple()) {}
  llvm::Expected<ReachingFlow> run(llvm::ArrayRef<const llvm::Function *> Roots);

private:
  void number(const std::vector<const llvm::Function *> &Fns);
  void describe(const llvm::Function &F);
  void describeFunctionVector(const llvm::Function &F);
  // MSSA and BAA null: every load reads the entry's memory.
  void describeInst(const llvm::Instruction &I, const llvm::MemorySSA *MSSA,
                    llvm::BatchAAResults *BAA, Node &N);
  // The writes that may reach load L (node ids, sorted) and whether the entry's memory does.
  void reachingWrites(const llvm::LoadInst &L, const llvm::MemorySSA &MSSA,
                      llvm::BatchAAResults &BAA, std::vector<int32_t> &Writes, bool &Entry);
  Part operandPart(const llvm::Use &U) const;
  void computeAcyclic(const Node &N, double *Out);
  llvm::Error solveCycle(const std::vector<const Node *> &SCC);
  int32_t id(const Node *N) const { return static_cast<int32_t>(N - G.Nodes.data()); }
  double *x(int32_t Node) { return X.data() + size_t(Node) * Dim; }

  const llvm::Module &M;
  const vocab::Vocabulary &V;
  const unsigned Dim;
  const llvm::TargetLibraryInfoImpl TLII; // the module's library functions, built once
  DepGraph G;
  llvm::DenseMap<const llvm::Instruction *, int32_t> InstId;
  llvm::DenseMap<const llvm::Function *, int32_t> FnId;
  // Instructions a function vector sums (reachable blocks, no debug intrinsics): a call reads
  // its callee's mean instruction, F / n.
  llvm::DenseMap<const llvm::Function *, size_t> FnSize;
  std::vector<double> X; // Nodes x Dim, row-major
  std::vector<double> ArgScratch, GroupScratch;
  size_t Cycles = 0;
};

// An unknown as an error message names it: the instruction as LLVM prints it.
static std::string describeNode(const Node &N) {
  std::string Where;
  llvm::raw_string_ostream OS(Where);
  if (N.I)
    N.I->print(OS);
  else
    OS << "the function vector";
  return llvm::StringRef(Where).trim().str();
}

// Blocks in depth-first order from the entry (successor order, so independent of layout),
// then the unreachable ones in layout order.
static std::vector<const llvm::BasicBlock *> canonicalBlocks(const llvm::Function &F) {
  std::vector<const llvm::BasicBlock *> Order;
  llvm::SmallPtrSet<const llvm::BasicBlock *, 32> Seen;
  for (const llvm::BasicBlock *BB : llvm::depth_first(&F)) {
    Order.push_back(BB);
    Seen.insert(BB);
  }
  for (const llvm::BasicBlock &BB : F)
    if (!Seen.count(&BB))
      Order.push_back(&BB);
  return Order;
}

void ReachingSolver::number(const std::vector<const llvm::Function *> &Fns) {
  size_t Count = 0;
  for (const llvm::Function *F : Fns)
    Count += F->getInstructionCount() + 1;
  G.Nodes.reserve(Count); // Deps point into Nodes: it must never reallocate
  for (const llvm::Function *F : Fns) {
    for (const llvm::BasicBlock *BB : canonicalBlocks(*F))
      for (const llvm::Instruction &I : *BB) {
        InstId[&I] = static_cast<int32_t>(G.Nodes.size());
        G.Nodes.push_back(Node{&I, F});
      }
    FnId[F] = static_cast<int32_t>(G.Nodes.size());
    G.Nodes.push_back(Node{nullptr, F});
    size_t Summed = 0;
    for (const llvm::BasicBlock *BB : llvm::depth_first(F))
      Summed += size_t(std::distance(BB->instructionsWithoutDebug().begin(),
                                     BB->instructionsWithoutDebug().end()));
    FnSize[F] = Summed;
  }
}

Part ReachingSolver::operandPart(const llvm::Use &U) const {
  const llvm::Value *Op = U.get();
  if (const auto *Def = llvm::dyn_cast<llvm::Instruction>(Op))
    return Part{nullptr, InstId.lookup(Def), 1.0};
  const auto *Call = llvm::dyn_cast<llvm::CallBase>(U.getUser());
  if (Call && Call->isCallee(&U))
    if (const auto *Callee = llvm::dyn_cast<llvm::Function>(Op))
      if (!Callee->isDeclaration())
        return Part{nullptr, FnId.lookup(Callee),
                    ReachingFlow::Damping / double(std::max<size_t>(FnSize.lookup(Callee), 1))};
  return Part{V.row(vocab::operandEntity(*Op)), -1, 1.0};
}

void ReachingSolver::reachingWrites(const llvm::LoadInst &L, const llvm::MemorySSA &MSSA,
                                    llvm::BatchAAResults &BAA, std::vector<int32_t> &Writes,
                                    bool &Entry) {
  Writes.clear();
  Entry = false;
  llvm::MemoryAccess *Start = MSSA.getMemoryAccess(&L);
  if (!Start) { // no access: memory the analyses know to be constant
    Entry = true;
    return;
  }
  llvm::MemorySSAWalker *W = const_cast<llvm::MemorySSA &>(MSSA).getWalker();
  const llvm::MemoryLocation Loc = llvm::MemoryLocation::get(&L);
  llvm::SmallVector<llvm::MemoryAccess *, 8> Work{W->getClobberingMemoryAccess(Start, BAA)};
  llvm::SmallPtrSet<llvm::MemoryAccess *, 16> Seen;
  while (!Work.empty()) {
    llvm::MemoryAccess *A = Work.pop_back_val();
    if (!Seen.insert(A).second)
      continue;
    if (MSSA.isLiveOnEntryDef(A)) {
      Entry = true;
    } else if (auto *D = llvm::dyn_cast<llvm::MemoryDef>(A)) {
      Writes.push_back(InstId.lookup(D->getMemoryInst()));
    } else if (auto *P = llvm::dyn_cast<llvm::MemoryPhi>(A)) {
      // A merge of memory states: on each incoming path, the nearest write that may clobber
      // the loaded location (the walker skips the writes that cannot).
      for (llvm::Use &In : P->incoming_values())
        Work.push_back(
            W->getClobberingMemoryAccess(llvm::cast<llvm::MemoryAccess>(In.get()), Loc, BAA));
    }
  }
  std::sort(Writes.begin(), Writes.end());
  Writes.erase(std::unique(Writes.begin(), Writes.end()), Writes.end());
}

void ReachingSolver::describeInst(const llvm::Instruction &I, const llvm::MemorySSA *MSSA,
                                  llvm::BatchAAResults *BAA, Node &N) {
  const auto *Load = llvm::dyn_cast<llvm::LoadInst>(&I);
  std::vector<int32_t> Writes;
  N.FirstGroup = G.groupCount();
  for (const llvm::Use &U : I.operands()) {
    Part P = operandPart(U);
    bool Entry = true;
    if (Load && MSSA && U.getOperandNo() == llvm::LoadInst::getPointerOperandIndex())
      reachingWrites(*Load, *MSSA, *BAA, Writes, Entry);
    else
      Writes.clear();
    if (Entry)
      G.Parts.push_back(P);
    for (int32_t W : Writes)
      G.Parts.push_back(Part{nullptr, W, ReachingFlow::Damping});
    G.closeGroup();
  }
  N.EndGroup = G.groupCount();
}

void ReachingSolver::describe(const llvm::Function &F) {
  // Without loads, or without anything that may write memory (MemorySSA's definitions are
  // such instructions, ordered loads included), every load reads the entry's memory: the
  // analyses, half of this kind's cost, are skipped.
  bool Loads = false, Writes = false;
  for (const llvm::BasicBlock &BB : F)
    for (const llvm::Instruction &I : BB) {
      Loads |= llvm::isa<llvm::LoadInst>(I);
      Writes |= I.mayWriteToMemory();
    }
  if (!Loads || !Writes) {
    for (const llvm::BasicBlock &BB : F)
      for (const llvm::Instruction &I : BB)
        describeInst(I, nullptr, nullptr, G.Nodes[InstId.lookup(&I)]);
    describeFunctionVector(F);
    return;
  }
  // The analyses MemorySSA asks about aliasing: the function-level ones of opt's pipelines.
  auto &Fn = const_cast<llvm::Function &>(F); // MemorySSA reads the IR only
  llvm::DominatorTree DT(Fn);
  llvm::AssumptionCache AC(Fn);
  llvm::TargetLibraryInfo TLI(TLII, &F);
  llvm::BasicAAResult Basic(M.getDataLayout(), F, TLI, AC, &DT);
  llvm::TypeBasedAAResult TBAA(/*UsingTypeSanitizer=*/false);
  llvm::ScopedNoAliasAAResult Scoped;
  llvm::AAResults AA(TLI);
  AA.addAAResult(Basic);
  AA.addAAResult(TBAA);
  AA.addAAResult(Scoped);
  llvm::MemorySSA MSSA(Fn, &AA, &DT);
  // The IR does not change: alias answers are cached across loads. On the heap: GCC 12 under
  // the sanitizers warns (maybe-uninitialized) inside LLVM's SmallDenseMap for a stack copy.
  auto BAA = std::make_unique<llvm::BatchAAResults>(AA);

  for (const llvm::BasicBlock &BB : F)
    for (const llvm::Instruction &I : BB)
      describeInst(I, &MSSA, BAA.get(), G.Nodes[InstId.lookup(&I)]);
  describeFunctionVector(F);
}

void ReachingSolver::describeFunctionVector(const llvm::Function &F) {
  // The function vector, as Embedder::functionVector sums it: reachable blocks depth first.
  Node &FN = G.Nodes[FnId.lookup(&F)];
  FN.FirstGroup = G.groupCount();
  for (const llvm::BasicBlock *BB : llvm::depth_first(&F)) {
    for (const llvm::Instruction &I : BB->instructionsWithoutDebug())
      G.Parts.push_back(Part{nullptr, InstId.lookup(&I), 1.0});
    G.closeGroup();
  }
  FN.EndGroup = G.groupCount();
}

void ReachingSolver::computeAcyclic(const Node &N, double *Out) {
  std::fill(Out, Out + Dim, 0.0);
  double *Group = GroupScratch.data();
  double *Args = N.I ? ArgScratch.data() : Out;
  std::fill(Args, Args + Dim, 0.0);
  for (uint32_t K = N.FirstGroup; K < N.EndGroup; ++K) {
    llvm::ArrayRef<Part> Grp = G.group(K);
    const bool Single = N.I && Grp.size() == 1;
    // An operand with one part is added as LLVM adds it; a block or a set of reaching
    // definitions is summed on its own first (as LLVM sums a block), then added.
    double *Acc = Single ? Args : Group;
    if (!Single)
      std::fill(Group, Group + Dim, 0.0);
    for (const Part &Pt : Grp) {
      const double *Row = Pt.Row ? Pt.Row : x(Pt.Node);
      if (Pt.Weight == 1.0)
        addInto(Acc, Row, Dim);
      else
        for (unsigned D = 0; D < Dim; ++D)
          Acc[D] += Pt.Weight * Row[D];
    }
    if (!Single)
      addInto(Args, Group, Dim);
  }
  if (!N.I)
    return;
  combineInstruction(V, *N.I, Args, Out);
}

llvm::Error ReachingSolver::solveCycle(const std::vector<const Node *> &SCC) {
  ++Cycles;
  std::vector<int32_t> Members;
  for (const Node *N : SCC)
    Members.push_back(id(N));
  std::sort(Members.begin(), Members.end()); // canonical: the solve is layout-independent
  llvm::DenseMap<int32_t, uint32_t> Local;
  for (size_t K = 0; K < Members.size(); ++K)
    Local[Members[K]] = K;
  const uint32_t Rows = Members.size();
  // x = B + W x. B: what is known (rows, vectors outside the cycle). W, the edges inside it:
  // a function vector is the exact sum of its instructions (weight 1); an instruction's edges
  // into the cycle share the damping, Damping / m each for m such edges, and a recursive
  // call's edge reads its callee's mean instruction (F / n for n instructions). Every
  // instruction row of W, with F substituted, then sums to at most Damping: the system is
  // always well posed (spectral radius <= 0.2) and its solution is the limit of x <- B + W x.
  std::vector<double> B(size_t(Rows) * Dim, 0.0); // row-major, as the iteration reads it
  std::vector<std::vector<std::pair<uint32_t, double>>> W(Rows);
  std::vector<uint32_t> Cols;
  std::vector<bool> FnRow(Rows, false);
  for (uint32_t K = 0; K < Rows; ++K) {
    const Node &N = G.Nodes[Members[K]];
    FnRow[K] = !N.I;
    double *BK = B.data() + size_t(K) * Dim;
    auto AddRow = [&](const double *Row, double Weight) {
      for (unsigned D = 0; D < Dim; ++D)
        BK[D] += Weight * Row[D];
    };
    if (N.I) { // the instruction's own rows: its combination with no operands
      std::fill(ArgScratch.begin(), ArgScratch.end(), 0.0);
      combineInstruction(V, *N.I, ArgScratch.data(), GroupScratch.data());
      AddRow(GroupScratch.data(), 1.0);
    }
    Cols.clear(); // the edges into the cycle, by column; a repeated column counts twice
    for (const Part &Pt : G.parts(N)) {
      auto In = Pt.Row ? Local.end() : Local.find(Pt.Node);
      if (In == Local.end())
        AddRow(Pt.Row ? Pt.Row : x(Pt.Node), Pt.Row ? 1.0 : Pt.Weight);
      else
        Cols.push_back(In->second);
    }
    std::sort(Cols.begin(), Cols.end());
    const size_t Inside = Cols.size();
    for (size_t At = 0; At < Inside;) {
      const uint32_t Col = Cols[At];
      size_t Count = 0;
      for (; At < Inside && Cols[At] == Col; ++At)
        ++Count;
      double Weight = 1.0; // a function vector's own sum
      if (N.I) {
        Weight = ReachingFlow::Damping * double(Count) / double(Inside);
        if (const Node &To = G.Nodes[Members[Col]]; !To.I)
          Weight /= std::max<size_t>(G.parts(To).size(), 1);
      }
      W[K].push_back({Col, Weight});
    }
  }
  arma::mat Sol;
  bool Solved;
  if (Rows <= ReachingFlow::DenseLimit) {
    // LAPACK's LU, refusing a system whose reciprocal condition number is below machine
    // epsilon (solve_opts::no_approx) rather than approximating: a guard, W keeps it far away.
    arma::mat A(Rows, Rows, arma::fill::eye);
    for (uint32_t K = 0; K < Rows; ++K)
      for (const auto &[Col, Weight] : W[K])
        A(K, Col) -= Weight;
    arma::mat BM(Rows, Dim);
    for (uint32_t K = 0; K < Rows; ++K)
      for (unsigned D = 0; D < Dim; ++D)
        BM(K, D) = B[size_t(K) * Dim + D];
    Solved = arma::solve(Sol, A, BM, arma::solve_opts::no_approx);
  } else {
    // Large cycles (real code has them with 100,000 unknowns and dense function-vector rows,
    // where a sparse LU fills in): Gauss-Seidel sweeps in canonical order, function vectors
    // first (their rows are sums, not contractions), each row a vectorisable axpy over
    // row-major vectors. The instruction rows contract by 0.2 at least, so stopping when no
    // element moves by more than 1e-15 of the largest leaves at most 0.25e-15 to the fixed point.
    std::vector<uint32_t> Order;
    for (int Pass = 0; Pass < 2; ++Pass)
      for (uint32_t K = 0; K < Rows; ++K)
        if (FnRow[K] == (Pass == 0))
          Order.push_back(K);
    std::vector<double> S = B, Acc(Dim);
    Solved = false;
    for (unsigned Sweep = 0; Sweep < ReachingFlow::MaxSweeps && !Solved; ++Sweep) {
      double Moved = 0, Largest = 1;
      for (uint32_t K : Order) {
        std::copy_n(B.data() + size_t(K) * Dim, Dim, Acc.data());
        for (const auto &[Col, Weight] : W[K]) {
          const double *Row = S.data() + size_t(Col) * Dim;
          for (unsigned D = 0; D < Dim; ++D)
            Acc[D] += Weight * Row[D];
        }
        double *Mine = S.data() + size_t(K) * Dim;
        for (unsigned D = 0; D < Dim; ++D) {
          Moved = std::max(Moved, std::abs(Acc[D] - Mine[D]));
          Largest = std::max(Largest, std::abs(Acc[D]));
          Mine[D] = Acc[D];
        }
      }
      Solved = Moved <= 1e-15 * Largest;
    }
    Sol.set_size(Rows, Dim);
    for (uint32_t K = 0; K < Rows; ++K)
      for (unsigned D = 0; D < Dim; ++D)
        Sol(K, D) = S[size_t(K) * Dim + D];
  }
  if (!Solved || !Sol.is_finite()) {
    const Node &First = G.Nodes[Members.front()];
    return support::makeError("function '" + First.Fn->getName() + "': the dependency cycle of " +
                              llvm::Twine(Rows) + " unknowns through '" + describeNode(First) +
                              "' could not be solved: it has no flow-aware-rd vector");
  }
  for (uint32_t K = 0; K < Rows; ++K)
    for (unsigned D = 0; D < Dim; ++D)
      x(Members[K])[D] = Sol(K, D);
  return llvm::Error::success();
}

llvm::Expected<ReachingFlow> ReachingSolver::run(llvm::ArrayRef<const llvm::Function *> Roots) {
  // The roots and every defined function they reach through direct calls.
  std::vector<const llvm::Function *> Fns;
  llvm::SmallPtrSet<const llvm::Function *, 32> Seen;
  for (const llvm::Function *F : Roots)
    if (Seen.insert(F).second)
      Fns.push_back(F);
  for (size_t K = 0; K < Fns.size(); ++K)
    for (const llvm::BasicBlock &BB : *Fns[K])
      for (const llvm::Instruction &I : BB)
        if (const auto *Call = llvm::dyn_cast<llvm::CallBase>(&I))
          if (const llvm::Function *Callee = Call->getCalledFunction())
            if (!Callee->isDeclaration() && Seen.insert(Callee).second)
              Fns.push_back(Callee);
  // Canonical order: by name, so that permuting a module's functions changes nothing.
  llvm::DenseMap<const llvm::Function *, size_t> ModulePos;
  for (const llvm::Function &F : M)
    ModulePos[&F] = ModulePos.size();
  std::sort(Fns.begin(), Fns.end(), [&](const llvm::Function *A, const llvm::Function *B) {
    if (A->getName() != B->getName())
      return A->getName() < B->getName();
    return ModulePos.lookup(A) < ModulePos.lookup(B);
  });

  number(Fns);
  for (const llvm::Function *F : Fns)
    describe(*F);
  std::vector<std::pair<size_t, size_t>> DepRange(G.Nodes.size());
  for (size_t K = 0; K < G.Nodes.size(); ++K) {
    DepRange[K].first = G.DepList.size();
    for (const Part &Pt : G.parts(G.Nodes[K]))
      if (!Pt.Row)
        G.DepList.push_back(&G.Nodes[Pt.Node]);
    DepRange[K].second = G.DepList.size();
    G.RootDeps.push_back(&G.Nodes[K]);
  }
  for (size_t K = 0; K < G.Nodes.size(); ++K) // the list is final: pointers into it hold
    G.Nodes[K].DepBegin = G.DepList.data() + DepRange[K].first,
    G.Nodes[K].DepEnd = G.DepList.data() + DepRange[K].second;
  G.Root.DepBegin = G.RootDeps.data();
  G.Root.DepEnd = G.RootDeps.data() + G.RootDeps.size();

  X.assign(G.Nodes.size() * size_t(Dim), 0.0);
  ArgScratch.assign(Dim, 0.0);
  GroupScratch.assign(Dim, 0.0);
  for (auto It = llvm::scc_begin(static_cast<const DepGraph *>(&G)); !It.isAtEnd(); ++It) {
    const std::vector<const Node *> &SCC = *It;
    if (SCC.size() == 1 && SCC.front() == &G.Root)
      continue;
    if (!It.hasCycle()) {
      computeAcyclic(*SCC.front(), x(id(SCC.front())));
      continue;
    }
    if (llvm::Error E = solveCycle(SCC))
      return E;
  }

  // A vector that overflowed is an error, never a silent infinity: straight-line code doubles
  // along a chain of instructions that use a value twice, as in LLVM's flow-aware kind.
  for (size_t K = 0; K < G.Nodes.size(); ++K)
    if (!std::all_of(x(int32_t(K)), x(int32_t(K)) + Dim, [](double V) { return std::isfinite(V); })) {
      const Node &N = G.Nodes[K];
      return support::makeError("function '" + N.Fn->getName() + "': the vector of '" +
                                describeNode(N) +
                                "' overflows a double: it has no flow-aware-rd vector");
    }

  ReachingFlow Flow;
  Flow.Dim = Dim;
  Flow.Cycles = Cycles;
  Flow.Slot.reserve(InstId.size());
  for (const auto &[I, Id] : InstId)
    Flow.Slot[I] = size_t(Id) * Dim;
  Flow.Arena = std::move(X);
  return Flow;
}

llvm::Expected<ReachingFlow> ReachingFlow::solve(const llvm::Module &M,
                                                const vocab::Vocabulary &V,
                                                llvm::ArrayRef<const llvm::Function *> Roots) {
  return ReachingSolver(M, V).run(Roots);
}

llvm::Expected<ReachingFlow> ReachingFlow::solve(const llvm::Module &M,
                                                const vocab::Vocabulary &V) {
  std::vector<const llvm::Function *> Roots;
  for (const llvm::Function &F : M)
    if (!F.isDeclaration())
      Roots.push_back(&F);
  return solve(M, V, Roots);
}

} // namespace wb::ir2vec
