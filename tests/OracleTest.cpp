// Our embedders against libLLVM-22's llvm::ir2vec::Embedder: same module, same vocabulary file
// loaded by LLVM's own loader, same weights, same sequence of queries; every vector must be
// equal bit for bit. Query sequences: llvm-ir2vec's three levels, opt's print<ir2vec> order,
// reverse order and a seeded random mix (flow-aware results depend on the order).
//
// OracleFiles.*  runs over the hand-written modules in tests/data.
// OracleCorpus.* runs over the real corpus listed in $WB_CORPUS_LIST (ctest label "corpus").
#include "LLVMOracle.h"
#include "ir2vec/Embedder.h"
#include "corpus/ModuleReader.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <random>

using namespace wb;

namespace {

struct Query {
  enum Type { Inst, Block, Func } T;
  const llvm::Instruction *I = nullptr;
  const llvm::BasicBlock *B = nullptr;
};

struct Tally {
  size_t Vectors = 0, Functions = 0, Modules = 0;
  std::vector<std::string> Failures;
};

std::vector<std::vector<Query>> querySequences(const llvm::Function &F, unsigned Seed) {
  std::vector<Query> Insts, Blocks;
  for (const llvm::BasicBlock &BB : F) {
    Blocks.push_back({Query::Block, nullptr, &BB});
    for (const llvm::Instruction &I : BB)
      Insts.push_back({Query::Inst, &I, nullptr});
  }
  std::vector<std::vector<Query>> Seqs;
  Seqs.push_back({{Query::Func}});                    // llvm-ir2vec --level=func
  Seqs.push_back(Blocks);                             // --level=bb
  Seqs.push_back(Insts);                              // --level=inst
  std::vector<Query> Printer{{Query::Func}};          // opt print<ir2vec>
  Printer.insert(Printer.end(), Blocks.begin(), Blocks.end());
  Printer.insert(Printer.end(), Insts.begin(), Insts.end());
  Seqs.push_back(Printer);
  Seqs.push_back(std::vector<Query>(Insts.rbegin(), Insts.rend()));
  std::vector<Query> All = Printer;                   // a random mix, with repeats
  std::mt19937 Rng(Seed);
  std::vector<Query> Mix;
  for (size_t K = 0; K < All.size() + 4; ++K)
    Mix.push_back(All[std::uniform_int_distribution<size_t>(0, All.size() - 1)(Rng)]);
  Mix.push_back({Query::Func});
  Seqs.push_back(Mix);
  return Seqs;
}

std::string describe(const Query &Q) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  switch (Q.T) {
  case Query::Func: OS << "function"; break;
  case Query::Block: OS << "block '" << Q.B->getName() << "'"; break;
  case Query::Inst: OS << "instruction"; Q.I->print(OS); break;
  }
  return S;
}

void compareModule(const std::string &Path, const std::string &VocabPath, vocab::Weights W,
                   Tally &T) {
  llvm::LLVMContext Ctx;
  auto In = corpus::readModule(Path, Ctx);
  if (!In) {
    T.Failures.push_back(Path + ": " + llvm::toString(In.takeError()));
    return;
  }
  llvm::Module &M = *In->M;
  llvm::ir2vec::Vocabulary Theirs = test::llvmVocabulary(M, VocabPath, W);
  auto Ours = vocab::readVocabularyJSON(VocabPath, W);
  if (!Theirs.isValid() || !Ours) {
    T.Failures.push_back(VocabPath + ": vocabulary failed to load");
    if (!Ours)
      llvm::consumeError(Ours.takeError());
    return;
  }
  ++T.Modules;
  std::vector<double> Buf(Ours->dimension());
  unsigned Seed = 0;
  for (const llvm::Function &F : M) {
    ++T.Functions;
    for (auto K : {ir2vec::Kind::Symbolic, ir2vec::Kind::FlowAware}) {
      const auto LK = K == ir2vec::Kind::Symbolic ? llvm::IR2VecKind::Symbolic
                                                  : llvm::IR2VecKind::FlowAware;
      for (const std::vector<Query> &Seq : querySequences(F, ++Seed)) {
        auto Mine = ir2vec::Embedder::create(K, F, *Ours);
        auto Ref = llvm::ir2vec::Embedder::create(LK, F, Theirs);
        for (const Query &Q : Seq) {
          llvm::ir2vec::Embedding E;
          switch (Q.T) {
          case Query::Func: Mine->functionVector(Buf); E = Ref->getFunctionVector(); break;
          case Query::Block: Mine->bbVector(*Q.B, Buf); E = Ref->getBBVector(*Q.B); break;
          case Query::Inst: Mine->instVector(*Q.I, Buf); E = Ref->getInstVector(*Q.I); break;
          }
          ++T.Vectors;
          std::string D = test::bitDifference(Buf, E.getData());
          if (!D.empty() && T.Failures.size() < 20)
            T.Failures.push_back(Path + ": @" + F.getName().str() + " " +
                                 ir2vec::kindName(K).str() + " " + describe(Q) + ": " + D);
        }
      }
    }
  }
}

void expectNoFailures(const Tally &T) {
  for (const std::string &F : T.Failures)
    ADD_FAILURE() << F;
  std::printf("[ oracle ] %zu modules, %zu functions, %zu vectors compared bit for bit\n",
              T.Modules, T.Functions, T.Vectors);
}

const char *const DataFiles[] = {"phi_cycles.ll", "eh.ll",    "calls.ll",   "types.ll",
                                 "predicates.ll", "decls.ll", "debug.ll",   "probes.ll",
                                 "olddebug.ll",   "baddebug.ll", "empty.ll"};

struct VocabCase {
  std::string Name;
  vocab::Weights W;
};

class OracleFiles : public ::testing::TestWithParam<VocabCase> {
protected:
  std::string vocabPath() {
    if (GetParam().Name == "seed")
      return test::seedVocabularyPath();
    // A vocabulary with all 110 keys, so predicates and every type contribute.
    llvm::SmallString<128> P;
    EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("oracle-full", "json", P));
    Temp = std::string(P);
    return test::writeFullRandomVocabulary(Temp, 11, 2024);
  }
  void TearDown() override {
    if (!Temp.empty())
      llvm::sys::fs::remove(Temp);
  }
  std::string Temp;
};

} // namespace

TEST_P(OracleFiles, EveryVectorOfEveryQueryOrderMatchesLLVM) {
  Tally T;
  const std::string V = vocabPath();
  for (const char *F : DataFiles)
    compareModule(test::testDataPath(F), V, GetParam().W, T);
  EXPECT_EQ(T.Modules, std::size(DataFiles));
  EXPECT_GT(T.Vectors, 1000u);
  expectNoFailures(T);
}

INSTANTIATE_TEST_SUITE_P(
    Vocabularies, OracleFiles,
    ::testing::Values(VocabCase{"seed", {1.0f, 0.5f, 0.2f}}, VocabCase{"seed", {0.3f, 1.7f, 0.9f}},
                      VocabCase{"full", {1.0f, 0.5f, 0.2f}},
                      VocabCase{"full", {-1.25f, 0.1f, 2.2f}}),
    [](const auto &Info) {
      return Info.param.Name + "_" + std::to_string(Info.index);
    });

TEST(OracleCorpus, EveryModuleOfTheCorpusMatchesLLVM) {
  const char *List = std::getenv("WB_CORPUS_LIST");
  ASSERT_TRUE(List && *List) << "WB_CORPUS_LIST must name the corpus list (built by the "
                                "corpus fixture from ../shared/corpus/build-corpus.sh)";
  auto Buf = llvm::MemoryBuffer::getFile(List);
  ASSERT_TRUE(bool(Buf)) << List;
  llvm::SmallVector<llvm::StringRef> Paths;
  (*Buf)->getBuffer().split(Paths, '\n', -1, false);
  ASSERT_GT(Paths.size(), 60u) << "corpus unexpectedly small";

  llvm::SmallString<128> Full;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("oracle-corpus", "json", Full));
  test::writeFullRandomVocabulary(std::string(Full), 9, 99);
  Tally T;
  for (llvm::StringRef P : Paths) {
    compareModule(P.str(), test::seedVocabularyPath(), vocab::Weights{}, T);
    compareModule(P.str(), std::string(Full), vocab::Weights{0.9f, 0.4f, 0.3f}, T);
  }
  llvm::sys::fs::remove(Full);
  EXPECT_EQ(T.Modules, 2 * Paths.size());
  expectNoFailures(T);
}
