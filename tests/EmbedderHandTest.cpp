// Embeddings worked out by hand with tiny vocabularies where only one section (or a few
// power-of-two entries) is non-zero, so every expected number is exact.
#include "ir2vec/Embedder.h"
#include "vocab/Vocabulary.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

using namespace wb;
using ir2vec::Embedder;
using ir2vec::Kind;

namespace {

// The function used by most tests below.
constexpr const char *LoopIR = R"(
define i32 @g(i32 %n) {
entry:
  %x = add i32 %n, 1
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %next = add i32 %i, %x
  %c = icmp slt i32 %next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret i32 %next
dead:
  ret i32 0
}
declare void @decl(i32)
)";

struct Fixture {
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> M;
  std::optional<vocab::Vocabulary> V;

  Fixture(const char *IR, const std::string &VocabJSON, vocab::Weights W) {
    llvm::SMDiagnostic Err;
    M = llvm::parseAssemblyString(IR, Err, Ctx);
    EXPECT_TRUE(M) << Err.getMessage().str();
    auto L = vocab::parseVocabularyJSON(VocabJSON, "hand.json", W);
    EXPECT_TRUE(bool(L)) << llvm::toString(L.takeError());
    V.emplace(std::move(*L));
  }
  const llvm::Function &fn(const char *Name) { return *M->getFunction(Name); }
  const llvm::BasicBlock &block(const char *F, const char *Name) {
    for (const llvm::BasicBlock &BB : fn(F))
      if (BB.getName() == Name)
        return BB;
    ADD_FAILURE() << "no block " << Name;
    return fn(F).front();
  }
  const llvm::Instruction &inst(const char *F, const char *Name) {
    for (const llvm::Instruction &I : llvm::instructions(fn(F)))
      if (I.getName() == Name)
        return I;
    ADD_FAILURE() << "no instruction " << Name;
    return *llvm::instructions(fn(F)).begin();
  }
};

// One-dimensional power-of-two vocabulary: sums of distinct entries stay exact and readable.
const std::string Pow2Vocab = R"({
  "Opcodes": {"Add": [1], "Mul": [2], "Ret": [4], "Br": [8], "PHI": [16], "ICmp": [32],
              "Call": [2048]},
  "Types": {"IntegerTy": [64], "VoidTy": [128]},
  "Arguments": {"Variable": [256], "Constant": [512], "ICMP_slt": [1024]}
})";
const vocab::Weights Unit{1.0f, 1.0f, 1.0f};

} // namespace

TEST(EmbedderHand, OpcodesOnlyCountsOpcodes) {
  // Only "Opcodes" is non-zero: a function vector is a weighted opcode histogram.
  Fixture X(LoopIR, R"({"Opcodes": {"Add": [1, 0], "PHI": [0, 1], "Ret": [10, 10]},
                        "Types": {"VoidTy": [0, 0]}, "Arguments": {"Variable": [0, 0]}})",
            vocab::Weights{});
  auto E = Embedder::create(Kind::Symbolic, X.fn("g"), *X.V);
  // Reachable: 2 x Add, 1 x PHI, 1 x Ret, 2 x Br (zero) -> [2 + 10, 1 + 10]. The unreachable
  // block's Ret is excluded from the function vector.
  EXPECT_EQ(E->functionVector(), (std::vector<double>{12.0, 11.0}));
  EXPECT_EQ(E->bbVector(X.block("g", "dead")), (std::vector<double>{10.0, 10.0}));
}

TEST(EmbedderHand, TypesOnlyCountsResultTypesAtHalfWeight) {
  Fixture X(LoopIR, R"({"Opcodes": {"Add": [0, 0]}, "Types": {"IntegerTy": [1, 0],
                        "VoidTy": [0, 1]}, "Arguments": {"Variable": [0, 0]}})",
            vocab::Weights{});
  auto E = Embedder::create(Kind::Symbolic, X.fn("g"), *X.V);
  // Results of type integer: x, i, next, c (i1) -> 4 x 0.5. Void: br, br, ret -> 3 x 0.5.
  EXPECT_EQ(E->functionVector(), (std::vector<double>{2.0, 1.5}));
}

TEST(EmbedderHand, ArgumentsOnlyCountOperandKindsAndPredicates) {
  Fixture X(LoopIR, R"({"Opcodes": {"Add": [0, 0, 0]}, "Types": {"VoidTy": [0, 0, 0]},
                        "Arguments": {"Variable": [1, 0, 0], "Constant": [0, 1, 0],
                                      "ICMP_slt": [0, 0, 1]}})",
            vocab::Weights{1.0f, 0.5f, 0.25f});
  auto E = Embedder::create(Kind::Symbolic, X.fn("g"), *X.V);
  // Operands of reachable code: x(n, 1) br(label) i(0, next) next(i, x) c(next, n)
  // br(c, exit, loop) ret(next): Variables 1+1+1+2+2+3+1 = 11, Constants 1+1 = 2; one slt.
  // Times the argument weight 0.25: [2.75, 0.5, 0.25].
  EXPECT_EQ(E->functionVector(), (std::vector<double>{2.75, 0.5, 0.25}));
  // Blocks are labels, hence Variables: br i1 %c, label %loop, label %exit -> 3 x 0.25.
  EXPECT_EQ(E->instVector(*X.fn("g").getEntryBlock().getNextNode()->getTerminator()),
            (std::vector<double>{0.75, 0.0, 0.0}));
}

TEST(EmbedderHand, DefaultArgumentWeightIsTheFloatPointTwoWidened) {
  Fixture X(LoopIR, R"({"Opcodes": {"Add": [0]}, "Types": {"VoidTy": [0]},
                        "Arguments": {"Constant": [1]}})",
            vocab::Weights{});
  auto E = Embedder::create(Kind::Symbolic, X.fn("g"), *X.V);
  // "ret i32 0" in the dead block: one Constant operand times (double)0.2f.
  EXPECT_EQ(E->bbVector(X.block("g", "dead"))[0], 0.20000000298023224);
}

TEST(EmbedderHand, SymbolicInstructionBlockAndFunctionVectors) {
  Fixture X(LoopIR, Pow2Vocab, Unit);
  auto E = Embedder::create(Kind::Symbolic, X.fn("g"), *X.V);
  // x    = Add 1 + Int 64 + Var 256 + Const 512                  =  833
  // br   = Br 8 + Void 128 + Var(label) 256                      =  392
  // i    = PHI 16 + Int 64 + Const 512 + Var 256                  =  848
  // next = Add 1 + Int 64 + Var 256 + Var 256                     =  577
  // c    = ICmp 32 + Int 64 + Var 256 + Var 256 + ICMP_slt 1024   = 1632
  // br   = Br 8 + Void 128 + 3 x Var 256                          =  904
  // ret  = Ret 4 + Void 128 + Var 256                             =  388
  EXPECT_EQ(E->instVector(X.inst("g", "x"))[0], 833.0);
  EXPECT_EQ(E->instVector(X.inst("g", "i"))[0], 848.0);
  EXPECT_EQ(E->instVector(X.inst("g", "c"))[0], 1632.0);
  EXPECT_EQ(E->bbVector(X.block("g", "entry"))[0], 833.0 + 392.0);
  EXPECT_EQ(E->bbVector(X.block("g", "loop"))[0], 848.0 + 577.0 + 1632.0 + 904.0);
  EXPECT_EQ(E->functionVector()[0], 5574.0);
  // Symbolic has no cache: asking again, in any order, gives the same.
  EXPECT_EQ(E->instVector(X.inst("g", "next"))[0], 577.0);
  EXPECT_EQ(E->functionVector()[0], 5574.0);
}

TEST(EmbedderHand, FlowAwareFunctionQueryUsesDefinitionsInDFSOrder) {
  Fixture X(LoopIR, Pow2Vocab, Unit);
  auto E = Embedder::create(Kind::FlowAware, X.fn("g"), *X.V);
  // DFS: entry, loop, exit. Operands already computed contribute their embedding:
  // x    = 833 (no instruction operands)
  // br   = 392
  // i    = 16 + 64 + Const 512 + Var 256 (%next not computed yet: back edge) = 848
  // next = 1 + 64 + i 848 + x 833                                         = 1746
  // c    = 32 + 64 + next 1746 + Var(n) 256 + ICMP_slt 1024                = 3122
  // br   = 8 + 128 + c 3122 + 2 x Var(label) 256                           = 3770
  // ret  = 4 + 128 + next 1746                                             = 1878
  EXPECT_EQ(E->functionVector()[0], 833.0 + 392 + 848 + 1746 + 3122 + 3770 + 1878);
  // Cached now: the instruction query returns the frozen value.
  EXPECT_EQ(E->instVector(X.inst("g", "c"))[0], 3122.0);
  // After invalidation, a lone query on c sees no computed operands: symbolic value.
  E->invalidate();
  EXPECT_EQ(E->instVector(X.inst("g", "c"))[0], 1632.0);
}

TEST(EmbedderHand, FlowAwareDependsOnQueryOrder) {
  Fixture X(LoopIR, Pow2Vocab, Unit);
  auto E = Embedder::create(Kind::FlowAware, X.fn("g"), *X.V);
  // Instructions queried last-to-first: ret, br, c, next, i, br, x. At each query the operands
  // defined earlier in the function are not computed yet, so each gets its symbolic value ...
  // except the PHI %i: its back-edge operand %next was computed just before it:
  //   i = PHI 16 + Int 64 + Const 512 + next 577 = 1169 (instead of 848).
  std::vector<const llvm::Instruction *> Insts;
  for (const llvm::Instruction &I : llvm::instructions(X.fn("g")))
    Insts.push_back(&I);
  for (auto It = Insts.rbegin(); It != Insts.rend(); ++It)
    E->instVector(**It);
  EXPECT_EQ(E->instVector(X.inst("g", "i"))[0], 1169.0);
  // The function query now reuses those frozen values: 5574 - 848 + 1169.
  EXPECT_EQ(E->functionVector()[0], 5895.0);
}

TEST(EmbedderHand, PseudoProbesAreInInstructionButNotBlockVectors) {
  Fixture X(R"(
    declare void @llvm.pseudoprobe(i64, i64, i32, i64)
    define void @p() {
      call void @llvm.pseudoprobe(i64 1, i64 1, i32 0, i64 -1)
      ret void
    })",
            Pow2Vocab, Unit);
  auto E = Embedder::create(Kind::Symbolic, X.fn("p"), *X.V);
  const llvm::Instruction &Probe = X.fn("p").front().front();
  // Call 2048 + Void 128 + 4 x Constant 512 + Function 0 (not in this vocabulary) = 4224.
  EXPECT_EQ(E->instVector(Probe)[0], 4224.0);
  // The block sums instructionsWithoutDebug(): only ret void = 4 + 128.
  EXPECT_EQ(E->bbVector(X.fn("p").front())[0], 132.0);
}

TEST(EmbedderHand, DeclarationsHaveZeroFunctionVectors) {
  Fixture X(LoopIR, Pow2Vocab, Unit);
  auto E = Embedder::create(Kind::FlowAware, X.fn("decl"), *X.V);
  EXPECT_EQ(E->functionVector(), std::vector<double>{0.0});
}

TEST(EmbedderHand, KindNamesRoundTrip) {
  EXPECT_EQ(*ir2vec::parseKind("symbolic"), Kind::Symbolic);
  EXPECT_EQ(*ir2vec::parseKind("flow-aware"), Kind::FlowAware);
  auto Bad = ir2vec::parseKind("flowaware");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("flowaware"), std::string::npos);
}
