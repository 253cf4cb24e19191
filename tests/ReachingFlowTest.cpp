// Flow-aware-rd (ReachingFlow.h) against values worked out by hand with a two-dimensional
// vocabulary, against libLLVM's flow-aware kind on code without memory, calls or cycles, and
// against itself under permuted functions, blocks and queries.
//
// The vocabulary: dimension 0 holds distinct powers of two (and quarters), so a sum says which
// entries it contains; dimension 1 holds small integers that tell the types apart. Weights are
// 1, so rows enter the sums as written. Damping is ReachingFlow::Damping = 0.2.
#include "LLVMOracle.h"
#include "ir2vec/Embedder.h"
#include "ir2vec/ModuleEmbedding.h"
#include "ir2vec/ReachingFlow.h"
#include "vocab/Vocabulary.h"

#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <set>

using namespace wb;
using ir2vec::Embedder;
using ir2vec::Kind;
using ir2vec::ReachingFlow;

namespace {

const std::string HandVocab = R"({
  "Opcodes": {"Add": [1, 0], "Ret": [4, 1], "Br": [8, 0], "PHI": [16, 0], "ICmp": [32, 0],
              "Load": [64, 0], "Store": [128, 0], "Alloca": [256, 0], "Call": [2048, 1]},
  "Types": {"IntegerTy": [0, 2], "VoidTy": [0, 3], "PointerTy": [0, 5]},
  "Arguments": {"Variable": [0.5, 0], "Constant": [0.25, 0], "Pointer": [0.125, 0],
                "Function": [4096, 0], "ICMP_slt": [1024, 0]}
})";
const vocab::Weights UnitWeights{1.0f, 1.0f, 1.0f};
constexpr double D = ReachingFlow::Damping;

struct FlowFixture {
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> M;
  std::optional<vocab::Vocabulary> V;

  explicit FlowFixture(const std::string &IR, const std::string &Vocab = HandVocab) {
    llvm::SMDiagnostic Err;
    M = llvm::parseAssemblyString(IR, Err, Ctx);
    EXPECT_TRUE(M) << Err.getMessage().str();
    auto L = vocab::parseVocabularyJSON(Vocab, "hand.json", UnitWeights);
    EXPECT_TRUE(bool(L)) << llvm::toString(L.takeError());
    V.emplace(std::move(*L));
  }
  ReachingFlow flow() {
    auto F = ReachingFlow::solve(*M, *V);
    EXPECT_TRUE(bool(F)) << llvm::toString(F.takeError());
    return std::move(*F);
  }
  const llvm::Instruction &inst(const char *Fn, const char *Name) {
    for (const llvm::Instruction &I : llvm::instructions(*M->getFunction(Fn)))
      if (I.getName() == Name)
        return I;
    ADD_FAILURE() << "no instruction " << Name;
    return *llvm::instructions(*M->getFunction(Fn)).begin();
  }
  // The instruction of Fn whose printed form contains Text.
  const llvm::Instruction &find(const char *Fn, const char *Text) {
    for (const llvm::Instruction &I : llvm::instructions(*M->getFunction(Fn))) {
      std::string S;
      llvm::raw_string_ostream OS(S);
      I.print(OS);
      if (S.find(Text) != std::string::npos)
        return I;
    }
    ADD_FAILURE() << "no instruction with " << Text;
    return *llvm::instructions(*M->getFunction(Fn)).begin();
  }
};

std::vector<double> vec(const ReachingFlow &F, const llvm::Instruction &I) {
  const double *Row = F.instVector(I);
  EXPECT_TRUE(Row);
  return Row ? std::vector<double>(Row, Row + F.dimension()) : std::vector<double>();
}

std::vector<double> functionVector(const ReachingFlow &Flow, const FlowFixture &X, const char *Fn) {
  return Embedder::create(Kind::FlowAwareRD, *X.M->getFunction(Fn), *X.V, nullptr, &Flow)
      ->functionVector();
}

void expectNear(const std::vector<double> &Got, const std::vector<double> &Want) {
  ASSERT_EQ(Got.size(), Want.size());
  for (size_t K = 0; K < Got.size(); ++K)
    EXPECT_NEAR(Got[K], Want[K], 1e-12 * std::max(1.0, std::abs(Want[K]))) << "element " << K;
}

using Vec = std::vector<double>;

std::string readFile(const std::string &Path) {
  std::ifstream In(Path);
  return std::string(std::istreambuf_iterator<char>(In), {});
}

} // namespace

// No memory, calls or cycles: every vector is LLVM's flow-aware one. By hand first, then
// against libLLVM with a random full vocabulary.
TEST(ReachingFlowHand, StraightLineIsLLVMsFlowAware) {
  const char *IR = R"(
define i32 @s(i32 %a) {
  %x = add i32 %a, 1
  %y = add i32 %x, %a
  ret i32 %y
}
)";
  FlowFixture X(IR);
  ReachingFlow F = X.flow();
  EXPECT_EQ(vec(F, X.inst("s", "x")), (Vec{1 + 0.5 + 0.25, 2}));  // Add Int Variable Constant
  EXPECT_EQ(vec(F, X.inst("s", "y")), (Vec{1 + 1.75 + 0.5, 2 + 2})); // Add Int x Variable
  EXPECT_EQ(functionVector(F, X, "s"), (Vec{1.75 + 3.25 + 7.25, 2 + 4 + 8})); // ret: Ret Void y
  EXPECT_EQ(F.cycles(), 0u);

  const std::string Dir = ::testing::TempDir() + "rd-oracle";
  llvm::sys::fs::create_directories(Dir);
  const std::string Path = Dir + "/random.json";
  const std::string Random = readFile(test::writeFullRandomVocabulary(Path, 7, 11));
  const char *Longer = R"(
define i64 @t(i64 %a, i64 %b, double %f) {
  %x = mul i64 %a, %b
  %y = sub i64 %x, 3
  %c = icmp sgt i64 %y, %a
  %z = select i1 %c, i64 %x, i64 %y
  %g = fmul double %f, 2.0
  %h = fptosi double %g to i64
  %r = xor i64 %z, %h
  ret i64 %r
}
)";
  FlowFixture R(Longer, Random);
  ReachingFlow RF = R.flow();
  auto Theirs = test::llvmVocabulary(*R.M, Path, UnitWeights);
  const llvm::Function &T = *R.M->getFunction("t");
  auto LLVM = llvm::ir2vec::Embedder::create(llvm::IR2VecKind::FlowAware, T, Theirs);
  for (const llvm::Instruction &I : llvm::instructions(T)) {
    const llvm::ir2vec::Embedding &E = LLVM->getInstVector(I);
    EXPECT_EQ(test::bitDifference(vec(RF, I), std::vector<double>(E.begin(), E.end())), "");
  }
  const llvm::ir2vec::Embedding &E = LLVM->getFunctionVector();
  EXPECT_EQ(test::bitDifference(functionVector(RF, R, "t"), std::vector<double>(E.begin(), E.end())),
            "");
}

// A load sees the store that reaches it: its pointer operand is the store's vector.
TEST(ReachingFlowHand, StoreThenLoad) {
  FlowFixture X(R"(
define i32 @m(i32 %a) {
  %p = alloca i32
  store i32 %a, ptr %p
  %v = load i32, ptr %p
  ret i32 %v
}
)");
  ReachingFlow F = X.flow();
  const Vec P{256 + 0.25, 5};                     // Alloca Pointer-type Constant(1)
  const Vec S{128 + 0.5 + P[0], 3 + P[1]};        // Store Void Variable(a) p
  EXPECT_EQ(vec(F, X.inst("m", "p")), P);
  EXPECT_EQ(vec(F, X.find("m", "store")), S);
  // Load Int, and the store that reaches it damped as the paper damps arguments: without the
  // damping a chain of loads and stores doubled with every round (SHA-1 reached 1e39).
  expectNear(vec(F, X.inst("m", "v")), {64 + D * S[0], 2 + D * S[1]});
}

// Two stores on two paths reach one load: their damped sum. With a store on one path only, the
// memory the function started with reaches too, through the pointer's own vector (undamped,
// as LLVM's flow-aware kind adds a pointer operand).
TEST(ReachingFlowHand, TwoStoresReachOneLoad) {
  FlowFixture X(R"(
define i32 @two(i1 %c, i32 %a) {
entry:
  %p = alloca i32
  br i1 %c, label %t, label %f
t:
  store i32 1, ptr %p
  br label %j
f:
  store i32 %a, ptr %p
  br label %j
j:
  %v = load i32, ptr %p
  ret i32 %v
}
define i32 @one(i1 %c, i32 %a) {
entry:
  %p = alloca i32
  br i1 %c, label %t, label %j
t:
  store i32 %a, ptr %p
  br label %j
j:
  %v = load i32, ptr %p
  ret i32 %v
}
)");
  ReachingFlow F = X.flow();
  const Vec P{256.25, 5};
  const Vec S1{128 + 0.25 + P[0], 3 + P[1]}, S2{128 + 0.5 + P[0], 3 + P[1]};
  EXPECT_EQ(vec(F, X.find("two", "store i32 1")), S1);
  EXPECT_EQ(vec(F, X.find("two", "store i32 %a")), S2);
  expectNear(vec(F, X.inst("two", "v")), {64 + D * (S1[0] + S2[0]), 2 + D * (S1[1] + S2[1])});
  // @one: the entry's memory (the alloca's vector) and the store, summed in canonical order.
  expectNear(vec(F, X.inst("one", "v")), {64 + (P[0] + D * S2[0]), 2 + (P[1] + D * S2[1])});
}

// A loop-carried phi: {i, next} is a cycle, solved with its edges damped:
//   i    = PHI + Int + Constant(0) + 0.2 next = a + 0.2 next,  a = (16.25, 2)
//   next = Add + Int + 0.2 i + Constant(1)    = b + 0.2 i,     b = (1.25, 2)
//   i = (a + 0.2 b) / (1 - 0.04) = (16.5, 2.4) / 0.96 = (17.1875, 2.5), next = (4.6875, 2.5)
// Edges leaving the cycle are not damped: c and ret use next at weight 1.
TEST(ReachingFlowHand, LoopCarriedPhiIsTheSolvedFixedPoint) {
  FlowFixture X(R"(
define i32 @loop(i32 %n) {
entry:
  br label %l
l:
  %i = phi i32 [ 0, %entry ], [ %next, %l ]
  %next = add i32 %i, 1
  %c = icmp slt i32 %next, %n
  br i1 %c, label %l, label %e
e:
  ret i32 %next
}
)");
  ReachingFlow F = X.flow();
  EXPECT_EQ(F.cycles(), 1u);
  expectNear(vec(F, X.inst("loop", "i")), {17.1875, 2.5});
  expectNear(vec(F, X.inst("loop", "next")), {4.6875, 2.5});
  expectNear(vec(F, X.inst("loop", "c")), {32 + 4.6875 + 0.5 + 1024, 2 + 2.5});
  expectNear(vec(F, X.find("loop", "ret")), {4 + 4.6875, 1 + 3 + 2.5});
}

// A call to a defined function adds 0.2 times the callee's mean instruction, F / n (after its
// arguments, in operand order; n = 2 here); a declaration is the Function operand row, as in
// LLVM. With F itself, a chain of calls multiplied by 0.2 n at every level.
TEST(ReachingFlowHand, CallsToADefinitionAndADeclaration) {
  FlowFixture X(R"(
define i32 @callee(i32 %a) {
  %x = add i32 %a, 1
  ret i32 %x
}
declare i32 @ext(i32)
define i32 @caller(i32 %a) {
  %r = call i32 @callee(i32 %a)
  %s = call i32 @ext(i32 %r)
  ret i32 %s
}
)");
  ReachingFlow F = X.flow();
  const Vec Callee{1.75 + (4 + 1.75), 2 + (1 + 3 + 2)}; // x + ret
  EXPECT_EQ(functionVector(F, X, "callee"), Callee);
  const Vec R{2048 + (0.5 + D / 2 * Callee[0]), (1 + 2) + D / 2 * Callee[1]};
  expectNear(vec(F, X.inst("caller", "r")), R);
  expectNear(vec(F, X.inst("caller", "s")), {2048 + (R[0] + 4096), 3 + R[1]});
}

// Recursion is a cycle through the function vector F = r + ret (n = 2 instructions). Inside a
// cycle a recursive call reads the callee's mean instruction, F / n, damped:
//   r   = Call + Int + Variable + 0.2 F / 2 = cr + 0.1 F,   cr = (2048.5, 3)
//   ret = Ret + Void + 0.2 r               = cret + 0.2 r,  cret = (4, 4)   (r is in the cycle)
//   F = 1.2 r + cret, so r = (cr + 0.1 cret) / (1 - 0.1 * 1.2)
TEST(ReachingFlowHand, RecursionIsSolvedAsACycle) {
  FlowFixture X(R"(
define i32 @rec(i32 %n) {
  %r = call i32 @rec(i32 %n)
  ret i32 %r
}
)");
  ReachingFlow F = X.flow();
  const Vec Cr{2048.5, 3}, Cret{4, 4};
  const double H = D / 2, G = 1 - H * (1 + D);
  const Vec R{(Cr[0] + H * Cret[0]) / G, (Cr[1] + H * Cret[1]) / G};
  expectNear(vec(F, X.inst("rec", "r")), R);
  expectNear(vec(F, X.find("rec", "ret")), {Cret[0] + D * R[0], Cret[1] + D * R[1]});
  // The function vector is the sum of the solved instruction vectors.
  expectNear(functionVector(F, X, "rec"),
             {R[0] + Cret[0] + D * R[0], R[1] + Cret[1] + D * R[1]});
}

// Five self-calls (the case that flipped signs when each call added 0.2 F): each call reads
// 0.2 F / 6 (n = 6: five calls and ret), so F = 5 r + ret, ret = cret + 0.2 r5 and
//   r = cr + (0.2 / 6)(5 r + cret + 0.2 r)  =>  r = (cr + cret / 30) / (1 - 0.2 * 5.2 / 6) > 0.
TEST(ReachingFlowHand, ManySelfCallsStayWellPosed) {
  FlowFixture X(R"(
define i32 @five(i32 %n) {
  %r1 = call i32 @five(i32 %n)
  %r2 = call i32 @five(i32 %n)
  %r3 = call i32 @five(i32 %n)
  %r4 = call i32 @five(i32 %n)
  %r5 = call i32 @five(i32 %n)
  ret i32 %r5
}
)");
  ReachingFlow F = X.flow();
  const Vec Cr{2048.5, 3}, Cret{4, 4};
  const double G = 1 - D * (5 + D) / 6;
  const Vec R{(Cr[0] + D / 6 * Cret[0]) / G, (Cr[1] + D / 6 * Cret[1]) / G};
  for (const char *Name : {"r1", "r2", "r3", "r4", "r5"})
    expectNear(vec(F, X.inst("five", Name)), R);
  expectNear(vec(F, X.find("five", "ret")), {Cret[0] + D * R[0], Cret[1] + D * R[1]});
}

// A phi fed back by itself on five edges shares the damping among them (0.2 / 5 each):
// p = PHI + Int + Constant(0) + 0.2 p = (16.25, 2) / 0.8 = (20.3125, 2.5). Summed undamped
// per edge, 1 - 5 * 0.2 = 0 would have had no solution.
TEST(ReachingFlowHand, FiveBackEdgesShareTheDamping) {
  FlowFixture X(R"(
define i32 @sing(i32 %n) {
entry:
  br label %l
l:
  %p = phi i32 [ 0, %entry ], [ %p, %l ], [ %p, %l ], [ %p, %l ], [ %p, %l ], [ %p, %l ]
  switch i32 %n, label %e [ i32 1, label %l
                            i32 2, label %l
                            i32 3, label %l
                            i32 4, label %l
                            i32 5, label %l ]
e:
  ret i32 %p
}
)");
  ReachingFlow F = X.flow();
  expectNear(vec(F, X.inst("sing", "p")), {20.3125, 2.5});
}

// A cycle of 300 unknowns (above ReachingFlow::DenseLimit: the damped iteration): every
// equation, written out by hand, holds for the solved vectors.
//   p  = PHI + Int + Constant(0) + 0.2 v298     v0 = Add + Int + 0.2 p + Constant(1)
//   vk = Add + Int + 0.2 v(k-1) + Constant(1)   (each has one edge inside the cycle)
TEST(ReachingFlowHand, LargeCycleSatisfiesItsEquations) {
  std::string IR = "define i32 @big(i32 %n) {\nentry:\n  br label %l\nl:\n"
                   "  %p = phi i32 [ 0, %entry ], [ %v298, %l ]\n  %v0 = add i32 %p, 1\n";
  for (int K = 1; K < 299; ++K)
    IR += "  %v" + std::to_string(K) + " = add i32 %v" + std::to_string(K - 1) + ", 1\n";
  IR += "  %c = icmp slt i32 %v298, %n\n  br i1 %c, label %l, label %e\ne:\n  ret i32 %v298\n}\n";
  FlowFixture X(IR);
  ReachingFlow F = X.flow();
  const Vec P = vec(F, X.inst("big", "p"));
  static_assert(ReachingFlow::DenseLimit < 300, "the cycle must take the iteration");
  expectNear(P, {16.25 + D * vec(F, X.inst("big", "v298"))[0], 2 + D * vec(F, X.inst("big", "v298"))[1]});
  Vec Prev = P;
  for (int K = 0; K < 299; ++K) {
    const Vec V = vec(F, X.inst("big", ("v" + std::to_string(K)).c_str()));
    expectNear(V, {1.25 + D * Prev[0], 2 + D * Prev[1]});
    Prev = V;
  }
  EXPECT_GT(P[0], 16.25); // the damped iteration's limit: positive contributions only
}

namespace {

// Every instruction vector of the reachable blocks, keyed by function, block and position.
using Table = std::map<std::tuple<std::string, std::string, unsigned>, Vec>;

Table table(const llvm::Module &M, const vocab::Vocabulary &V) {
  auto Flow = ReachingFlow::solve(M, V);
  EXPECT_TRUE(bool(Flow)) << llvm::toString(Flow.takeError());
  Table T;
  for (const llvm::Function &F : M) {
    if (F.isDeclaration())
      continue;
    auto E = Embedder::create(Kind::FlowAwareRD, F, V, nullptr, &*Flow);
    // Queries in a shuffled order: answers must not depend on it.
    std::vector<const llvm::Instruction *> Insts;
    for (const llvm::Instruction &I : llvm::instructions(F))
      Insts.push_back(&I);
    std::shuffle(Insts.begin(), Insts.end(), std::mt19937(7));
    for (const llvm::Instruction *I : Insts) {
      unsigned Pos = 0;
      for (const llvm::Instruction &J : *I->getParent()) {
        if (&J == I)
          break;
        ++Pos;
      }
      T[{F.getName().str(), I->getParent()->getName().str(), Pos}] = E->instVector(*I);
    }
    T[{F.getName().str(), "<function>", 0}] = E->functionVector();
  }
  return T;
}

void permute(llvm::Module &M, unsigned Seed) {
  std::mt19937 Rng(Seed);
  std::vector<llvm::Function *> Fns;
  for (llvm::Function &F : M)
    Fns.push_back(&F);
  std::shuffle(Fns.begin(), Fns.end(), Rng);
  for (llvm::Function *F : Fns) {
    F->removeFromParent();
    M.getFunctionList().push_back(F);
    if (F->isDeclaration())
      continue;
    std::vector<llvm::BasicBlock *> Rest;
    for (llvm::BasicBlock &BB : *F)
      if (&BB != &F->getEntryBlock())
        Rest.push_back(&BB);
    std::shuffle(Rest.begin(), Rest.end(), Rng);
    for (llvm::BasicBlock *BB : Rest)
      BB->moveAfter(&F->back());
  }
}

} // namespace

// Functions and blocks in other orders, queries in another order: the same vectors, bit for
// bit, on real code with loops through memory, calls that write memory and recursion. Blocks
// unreachable from the entry have no layout-independent numbering (ReachingFlow.h): their
// vectors are compared to 1e-12 relative.
TEST(ReachingFlowPermutation, OrdersDoNotChangeVectors) {
  for (const char *File : {"../rd/rd_mix_O0.ll", "../rd/rd_mix_O2.ll", "phi_cycles.ll", "calls.ll"}) {
    SCOPED_TRACE(File);
    const std::string Path = test::testDataPath(File);
    auto Load = [&](llvm::LLVMContext &Ctx) {
      llvm::SMDiagnostic Err;
      auto M = llvm::parseAssemblyFile(Path, Err, Ctx);
      EXPECT_TRUE(M) << Err.getMessage().str();
      // Names from the original layout, so that blocks can be matched after permuting.
      for (llvm::Function &F : *M) {
        unsigned K = 0;
        for (llvm::BasicBlock &BB : F)
          BB.setName("b" + llvm::Twine(K++));
      }
      return M;
    };
    const std::string VocabPath = ::testing::TempDir() + "rd-permutation.json";
    auto L = vocab::parseVocabularyJSON(readFile(test::writeFullRandomVocabulary(VocabPath, 75, 5)),
                                        "random.json", vocab::Weights{});
    ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
    llvm::LLVMContext Ctx;
    auto M = Load(Ctx);
    const Table Base = table(*M, *L);
    std::set<std::pair<std::string, std::string>> Live;
    for (const llvm::Function &F : *M)
      if (!F.isDeclaration())
        for (const llvm::BasicBlock *BB : llvm::depth_first(&F))
          Live.insert({F.getName().str(), BB->getName().str()});
    ASSERT_FALSE(Base.empty());
    for (unsigned Seed : {1u, 2u, 3u}) {
      llvm::LLVMContext Ctx2;
      auto P = Load(Ctx2);
      permute(*P, Seed);
      const Table Other = table(*P, *L);
      ASSERT_EQ(Other.size(), Base.size());
      size_t Exact = 0;
      for (const auto &[Key, Want] : Base) {
        auto It = Other.find(Key);
        ASSERT_NE(It, Other.end());
        const bool Reachable = Live.count({std::get<0>(Key), std::get<1>(Key)}) ||
                               std::get<1>(Key) == "<function>";
        if (Reachable) {
          ++Exact;
          EXPECT_EQ(test::bitDifference(It->second, Want), "")
              << std::get<0>(Key) << " " << std::get<1>(Key) << " #" << std::get<2>(Key);
        } else { // unreachable blocks are numbered in layout order: equal up to the solve's rounding
          expectNear(It->second, Want);
        }
      }
      EXPECT_GT(Exact, Base.size() / 2);
    }
  }
}

// One function selected (llvm-ir2vec's --function): the flow is solved for it and its callees
// only, and its vectors are the whole module's, bit for bit (callers cannot change a callee).
TEST(ReachingFlowPermutation, SelectedFunctionEqualsTheWholeModule) {
  llvm::LLVMContext Ctx;
  llvm::SMDiagnostic Err;
  auto M = llvm::parseAssemblyFile(test::testDataPath("../rd/rd_mix_O0.ll"), Err, Ctx);
  ASSERT_TRUE(M) << Err.getMessage().str();
  const std::string VocabPath = ::testing::TempDir() + "rd-selected.json";
  auto L = vocab::parseVocabularyJSON(readFile(test::writeFullRandomVocabulary(VocabPath, 9, 3)),
                                      "random.json", vocab::Weights{});
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  ir2vec::EmbedRequest All;
  All.EmbeddingKind = Kind::FlowAwareRD;
  All.Levels = {true, true, true};
  All.InstructionText = false;
  auto Whole = ir2vec::embedModule(*M, *L, All);
  ASSERT_TRUE(bool(Whole)) << llvm::toString(Whole.takeError());
  size_t Compared = 0;
  for (const char *Fn : {"run", "fib", "is_odd", "sum"}) {
    ir2vec::EmbedRequest One = All;
    One.FunctionName = Fn;
    auto Sel = ir2vec::embedModule(*M, *L, One);
    ASSERT_TRUE(bool(Sel)) << llvm::toString(Sel.takeError());
    const auto &N = Whole->FunctionNames;
    const size_t Row = std::find(N.begin(), N.end(), Fn) - N.begin();
    ASSERT_LT(Row, N.size());
    const unsigned Dim = Whole->Dim;
    EXPECT_EQ(test::bitDifference(Sel->FunctionVectors,
                                  {Whole->FunctionVectors.data() + Row * Dim, Dim}), "") << Fn;
    std::vector<double> Insts;
    for (size_t K = 0; K < Whole->InstFunction.size(); ++K)
      if (size_t(Whole->InstFunction[K]) == Row)
        Insts.insert(Insts.end(), Whole->InstVectors.begin() + K * Dim,
                     Whole->InstVectors.begin() + (K + 1) * Dim);
    EXPECT_EQ(test::bitDifference(Sel->InstVectors, Insts), "") << Fn;
    Compared += Insts.size() / Dim;
  }
  EXPECT_GT(Compared, 40u);
}

// A chain that uses each value twice doubles at every step (as LLVM's flow-aware kind does):
// 1,100 steps overflow a double, and the kind says so instead of giving infinities.
TEST(ReachingFlowHand, OverflowIsAnError) {
  std::string IR = "define i32 @dbl(i32 %x0) {\n";
  for (int K = 1; K <= 1100; ++K)
    IR += "  %x" + std::to_string(K) + " = add i32 %x" + std::to_string(K - 1) + ", %x" +
          std::to_string(K - 1) + "\n";
  IR += "  ret i32 %x1100\n}\n";
  FlowFixture X(IR);
  auto F = ReachingFlow::solve(*X.M, *X.V);
  ASSERT_FALSE(bool(F));
  const std::string Message = llvm::toString(F.takeError());
  EXPECT_NE(Message.find("function 'dbl'"), std::string::npos) << Message;
  EXPECT_NE(Message.find("overflows a double"), std::string::npos) << Message;
}

// Sums of finite vectors can overflow too: with two functions of n doubling steps each, some n
// leaves every instruction and function finite (the solver accepts them) but not their module
// vector; the same chain in a block unreachable from the entry overflows that block's sum.
// Both are errors naming the level, for the first n where the solver itself still succeeds.
TEST(ReachingFlowHand, OverflowingSumsAreErrors) {
  auto Chain = [](const std::string &Fn, const std::string &Entry, int N) {
    std::string IR = "define i32 @" + Fn + "(i32 %x0) {\n" + Entry;
    for (int K = 1; K <= N; ++K)
      IR += "  %x" + std::to_string(K) + " = add i32 %x" + std::to_string(K - 1) + ", %x" +
            std::to_string(K - 1) + "\n";
    return IR + "  ret i32 %x" + std::to_string(N) + "\n}\n";
  };
  // The error for each n: "" when it succeeds.
  auto Errors = [&](auto Make, ir2vec::EmbedRequest R) {
    std::vector<std::string> Out;
    for (int N = 1000; N <= 1030; ++N) {
      FlowFixture X(Make(N));
      auto E = ir2vec::embedModule(*X.M, *X.V, R);
      Out.push_back(E ? std::string() : llvm::toString(E.takeError()));
    }
    return Out;
  };
  ir2vec::EmbedRequest R;
  R.EmbeddingKind = Kind::FlowAwareRD;
  auto Module = Errors([&](int N) { return Chain("a", "", N) + Chain("b", "", N); }, R);
  auto Found = std::find_if(Module.begin(), Module.end(), [](const std::string &M) { return !M.empty(); });
  ASSERT_NE(Found, Module.end());
  EXPECT_NE(Found->find("the flow-aware-rd vector of the module overflows"), std::string::npos) << *Found;
  R.Levels.Blocks = true;
  auto Block = Errors([&](int N) { return Chain("d", "entry:\n  ret i32 0\ndead:\n", N); }, R);
  Found = std::find_if(Block.begin(), Block.end(), [](const std::string &M) { return !M.empty(); });
  ASSERT_NE(Found, Block.end());
  EXPECT_NE(Found->find("of a block of function 'd' overflows"), std::string::npos) << *Found;
}
