#include "ir2vec/ModuleEmbedding.h"
#include "ir2vec/InstructionPrinter.h"
#include "ir2vec/ReachingFlow.h"
#include "support/Error.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace wb::ir2vec {
namespace {

// Appends one row of Dim doubles and returns it for the embedder to fill.
llvm::MutableArrayRef<double> newRow(std::vector<double> &Rows, unsigned Dim) {
  Rows.resize(Rows.size() + Dim);
  return {Rows.data() + Rows.size() - Dim, Dim};
}

// Rows of the finer levels are computed once and the coarser ones derived from them where
// that is exact: a block vector is the ordered sum of its instructions' vectors as a fresh
// embedder computes them in layout order (debug intrinsics and pseudo probes, skipped by
// blocks, are void and so never operands: they cannot change other vectors); a symbolic
// function vector is the depth-first ordered sum of its reachable blocks, and so is a
// flow-aware-rd one (its vectors do not depend on queries). A flow-aware function vector
// depends on the depth-first query order and gets its own embedder.
void embedFunction(const llvm::Function &F, const vocab::Vocabulary &V, const EmbedRequest &R,
                   ModuleEmbedding &Out, InstructionPrinter &Printer, std::string &TextBuf,
                   SymbolicMemo &Memo, const ReachingFlow *Flow) {
  const int64_t FnRow = static_cast<int64_t>(Out.FunctionNames.size());
  Out.FunctionNames.push_back(F.getName().str());
  const unsigned Dim = Out.Dim;
  // Whether the function vector may be summed from block rows computed for another level.
  const bool Symbolic = R.EmbeddingKind != Kind::FlowAware;
  const bool NeedBlocks = R.Levels.Blocks || (R.Levels.Functions && Symbolic &&
                                              R.Levels.Instructions);
  // Block vectors of this function (owned by Out when requested, else scratch).
  std::vector<double> Scratch;
  std::vector<double> &Blocks = R.Levels.Blocks ? Out.BlockVectors : Scratch;
  const size_t FirstBlock = Blocks.size() / Dim;
  const int64_t FirstBlockRow = static_cast<int64_t>(Out.BlockNames.size());

  if (R.Levels.Instructions) {
    auto E = Embedder::create(R.EmbeddingKind, F, V, &Memo, Flow);
    int64_t BlockRow = FirstBlockRow;
    for (const llvm::BasicBlock &BB : F) {
      llvm::MutableArrayRef<double> BRow;
      if (NeedBlocks)
        BRow = newRow(Blocks, Dim); // zero-filled: the sum starts at +0.0 as in LLVM
      for (const llvm::Instruction &Inst : BB) {
        if (R.InstructionText) {
          TextBuf.clear();
          llvm::raw_string_ostream OS(TextBuf);
          Printer.print(OS, Inst);
          llvm::StringRef Text(TextBuf);
          Text.consume_front("  "); // AsmWriter's indentation
          Out.InstTexts.push_back(Text.str());
        }
        Out.InstOpcode.push_back(vocab::opcodeEntity(Inst.getOpcode()));
        Out.InstFunction.push_back(FnRow);
        Out.InstBlock.push_back(R.Levels.Blocks ? BlockRow : -1);
        auto Row = newRow(Out.InstVectors, Dim);
        E->instVector(Inst, Row);
        if (NeedBlocks && !Inst.isDebugOrPseudoInst())
          addInto(BRow.data(), Row.data(), Dim); // BRow lives in another vector: still valid
      }
      if (R.Levels.Blocks) {
        Out.BlockNames.push_back(BB.getName().str());
        Out.BlockFunction.push_back(FnRow);
      }
      ++BlockRow;
    }
  } else if (NeedBlocks) {
    auto E = Embedder::create(R.EmbeddingKind, F, V, &Memo, Flow);
    for (const llvm::BasicBlock &BB : F) {
      Out.BlockNames.push_back(BB.getName().str());
      Out.BlockFunction.push_back(FnRow);
      E->bbVector(BB, newRow(Blocks, Dim));
    }
  }

  if (R.Levels.Blocks && R.Levels.BlockLoopDepths && !F.empty()) {
    llvm::DominatorTree DT(const_cast<llvm::Function &>(F)); // reads the IR only
    llvm::LoopInfo LI(DT);
    for (const llvm::BasicBlock &BB : F)
      Out.BlockLoopDepth.push_back(LI.getLoopDepth(&BB));
  }
  if (!R.Levels.Functions)
    return;
  auto FRow = newRow(Out.FunctionVectors, Dim);
  if (Symbolic && NeedBlocks) {
    // Same additions, same order as Embedder::functionVector.
    llvm::DenseMap<const llvm::BasicBlock *, size_t> Index;
    size_t I = FirstBlock;
    for (const llvm::BasicBlock &BB : F)
      Index[&BB] = I++;
    for (const llvm::BasicBlock *BB : llvm::depth_first(&F))
      addInto(FRow.data(), Blocks.data() + Index[BB] * Dim, Dim);
    return;
  }
  Embedder::create(R.EmbeddingKind, F, V, &Memo, Flow)->functionVector(FRow);
}

} // namespace

std::vector<double> moduleVector(const std::vector<double> &FunctionVectors, unsigned Dim) {
  std::vector<double> Sum(Dim, 0.0);
  for (size_t Row = 0; Dim && Row < FunctionVectors.size() / Dim; ++Row)
    addInto(Sum.data(), FunctionVectors.data() + Row * Dim, Dim);
  return Sum;
}

std::vector<double> failedModuleVector(unsigned Dim) {
  return std::vector<double>(Dim, std::numeric_limits<double>::quiet_NaN());
}

llvm::Expected<ModuleEmbedding> embedModule(const llvm::Module &M, const vocab::Vocabulary &V,
                                            const EmbedRequest &R) {
  ModuleEmbedding Out;
  Out.Dim = V.dimension();
  if (R.Levels.Instructions && !R.FunctionName) {
    const size_t N = M.getInstructionCount();
    Out.InstVectors.reserve(N * Out.Dim);
    Out.InstTexts.reserve(R.InstructionText ? N : 0);
    Out.InstOpcode.reserve(N);
    Out.InstFunction.reserve(N);
    Out.InstBlock.reserve(N);
  }
  InstructionPrinter Printer;
  std::string TextBuf;
  SymbolicMemo Memo(V);
  std::optional<ReachingFlow> Flow;
  const llvm::Function *Selected =
      R.FunctionName ? M.getFunction(*R.FunctionName) : nullptr;
  if (needsReachingFlow(R.EmbeddingKind) && (!R.FunctionName || (Selected && !Selected->isDeclaration()))) {
    auto Solved = R.FunctionName ? ReachingFlow::solve(M, V, {Selected}) : ReachingFlow::solve(M, V);
    if (!Solved)
      return Solved.takeError();
    Flow.emplace(std::move(*Solved));
  }
  const ReachingFlow *FlowPtr = Flow ? &*Flow : nullptr;
  if (R.FunctionName) {
    const llvm::Function *F = Selected;
    if (!F)
      Out.SelectedNotFound = true;
    else if (F->isDeclaration())
      Out.SelectedDeclaration = true;
    else
      embedFunction(*F, V, R, Out, Printer, TextBuf, Memo, FlowPtr);
  } else {
    for (const llvm::Function &F : M)
      if (!F.isDeclaration())
        embedFunction(F, V, R, Out, Printer, TextBuf, Memo, FlowPtr);
  }
  if (R.Levels.Functions)
    Out.ModuleVector = moduleVector(Out.FunctionVectors, Out.Dim);
  // The solver refuses an instruction vector that overflows; a sum of finite ones (a block, a
  // function, the module) can overflow too, and this kind promises no infinities. LLVM's kinds
  // are left as LLVM computes them.
  if (Flow) {
    // Level, rows, and the function row of each (none for the module).
    struct LevelRows {
      const char *Level;
      const std::vector<double> &Rows;
      const std::vector<int64_t> *FunctionOf;
    };
    std::vector<int64_t> Identity(Out.FunctionNames.size());
    std::iota(Identity.begin(), Identity.end(), 0);
    for (const LevelRows &L : {LevelRows{"an instruction", Out.InstVectors, &Out.InstFunction},
                               LevelRows{"a block", Out.BlockVectors, &Out.BlockFunction},
                               LevelRows{"the function", Out.FunctionVectors, &Identity},
                               LevelRows{"the module", Out.ModuleVector, nullptr}}) {
      auto Bad = std::find_if(L.Rows.begin(), L.Rows.end(), [](double X) { return !std::isfinite(X); });
      if (Bad == L.Rows.end())
        continue;
      const size_t Row = size_t(Bad - L.Rows.begin()) / Out.Dim;
      const std::string Where =
          L.FunctionOf ? " of function '" + Out.FunctionNames[size_t((*L.FunctionOf)[Row])] + "'" : "";
      return support::makeError(llvm::Twine("the flow-aware-rd vector of ") + L.Level + Where +
                                " overflows a double (a sum of finite vectors): it has none");
    }
  }
  return Out;
}

} // namespace wb::ir2vec
