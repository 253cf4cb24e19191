// The batch engine and its HDF5 files against libLLVM-22's own Embedder: every row of every
// table, for both kinds and all levels, must equal the vector LLVM computes with the query
// order llvm-ir2vec uses for that level, bit for bit. Also: -j1 and -j4 give byte-identical
// files, the reader round-trips, and counts x vocabulary stays within the documented
// tolerance of the exact mode.
//
// BatchFiles.*  the hand-written modules in tests/data
// BatchCorpus.* the real corpus in $WB_CORPUS_LIST (ctest label "corpus")
#include "LLVMOracle.h"
#include "ir2vec/EmbeddingBatch.h"
#include "ir2vec/FromCounts.h"
#include "corpus/Batch.h"
#include "corpus/ModuleReader.h"
#include "support/Files.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <thread>
#include <fstream>

using namespace wb;
using ir2vec::Kind;
using ir2vec::Level;

namespace {

const char *const DataFiles[] = {"phi_cycles.ll", "eh.ll",    "calls.ll",    "types.ll",
                                 "predicates.ll", "decls.ll", "debug.ll",    "probes.ll",
                                 "olddebug.ll",   "baddebug.ll", "empty.ll"};

std::vector<std::string> dataInputs() {
  std::vector<std::string> In;
  for (const char *F : DataFiles)
    In.push_back(test::testDataPath(F));
  return In;
}

std::vector<std::string> corpusInputs() {
  const char *List = std::getenv("WB_CORPUS_LIST");
  std::vector<std::string> In;
  if (!List || !*List)
    return In;
  auto Buf = llvm::MemoryBuffer::getFile(List);
  if (!Buf)
    return In;
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines)
    In.push_back(L.str());
  return In;
}

std::string tempPath(const char *Name) {
  llvm::SmallString<128> P;
  llvm::sys::fs::createUniquePath(std::string("wb-batch-%%%%%%-") + Name, P, true);
  return std::string(P);
}

struct Vocabs {
  std::string Path = test::seedVocabularyPath();
  vocab::Weights W;
  vocab::Vocabulary V;
  std::string SHA;
};

Vocabs loadSeed() {
  Vocabs X{test::seedVocabularyPath(), vocab::Weights{}, *vocab::readVocabularyJSON(test::seedVocabularyPath(), {}), *support::sha256OfFile(test::seedVocabularyPath())};
  return X;
}

ir2vec::EmbeddingJob job(const std::vector<std::string> &Inputs, const Vocabs &V, Kind K,
                         Level L, const std::string &Out, bool Text) {
  ir2vec::EmbeddingJob J;
  J.Inputs = Inputs;
  J.Vocab = &V.V;
  J.EmbeddingKind = K;
  J.Granularity = L;
  J.Output = Out;
  J.Header.EmbeddingKind = K;
  J.Header.Granularity = L;
  J.Header.Dimension = V.V.dimension();
  J.Header.W = V.W;
  J.Header.VocabSHA256 = V.SHA;
  J.Header.InstructionText = Text;
  return J;
}

corpus::BatchIO io(unsigned Jobs, Level L) {
  corpus::BatchIO IO;
  IO.Run.Jobs = Jobs;
  return IO;
}

struct Tally {
  size_t Modules = 0, Rows = 0;
  std::vector<std::string> Failures;
  void fail(const std::string &S) {
    if (Failures.size() < 20)
      Failures.push_back(S);
  }
};

llvm::ArrayRef<double> row(const std::vector<double> &V, size_t I, unsigned D) {
  return {V.data() + I * D, D};
}

// Every row of the file against libLLVM, module by module.
void compareFileWithLLVM(const std::string &File, const std::string &VocabPath, Kind K,
                         Tally &T) {
  auto R = ir2vec::EmbeddingFileReader::open(File);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const ir2vec::FileHeader &H = R->header();
  const ir2vec::LevelSet L = H.levels();
  const auto LK = K == Kind::Symbolic ? llvm::IR2VecKind::Symbolic : llvm::IR2VecKind::FlowAware;
  for (uint64_t MI = 0; MI < R->numModules(); ++MI) {
    auto Mod = R->module(MI);
    ASSERT_TRUE(bool(Mod)) << llvm::toString(Mod.takeError());
    llvm::LLVMContext Ctx;
    auto In = corpus::readModule(Mod->Path, Ctx);
    if (!In) {
      EXPECT_FALSE(Mod->Error.empty()) << Mod->Path << " failed to read but has no error row";
      llvm::consumeError(In.takeError());
      continue;
    }
    EXPECT_EQ(Mod->Error, "") << Mod->Path;
    ++T.Modules;
    llvm::ir2vec::Vocabulary LV = test::llvmVocabulary(*In->M, VocabPath, H.W);
    const ir2vec::ModuleEmbedding &E = Mod->Rows;
    const unsigned D = E.Dim;
    size_t F = 0, B = 0, I = 0;
    for (const llvm::Function &Fn : *In->M) {
      if (Fn.isDeclaration())
        continue;
      if (F >= E.FunctionNames.size() || E.FunctionNames[F] != Fn.getName()) {
        T.fail(Mod->Path + ": function rows do not follow the module at " + Fn.getName().str());
        break;
      }
      auto Check = [&](llvm::ArrayRef<double> Ours, const llvm::ir2vec::Embedding &Theirs,
                       const std::string &What) {
        ++T.Rows;
        std::string Dif = test::bitDifference(Ours, Theirs.getData());
        if (!Dif.empty())
          T.fail(Mod->Path + ": @" + Fn.getName().str() + " " + What + ": " + Dif);
      };
      Check(row(E.FunctionVectors, F, D),
            llvm::ir2vec::Embedder::create(LK, Fn, LV)->getFunctionVector(), "function");
      if (L.Blocks) {
        auto Emb = llvm::ir2vec::Embedder::create(LK, Fn, LV);
        for (const llvm::BasicBlock &BB : Fn) {
          EXPECT_EQ(E.BlockFunction[B], int64_t(F));
          EXPECT_EQ(E.BlockNames[B], BB.getName().str());
          Check(row(E.BlockVectors, B++, D), Emb->getBBVector(BB), "block " + BB.getName().str());
        }
      }
      if (L.Instructions) {
        auto Emb = llvm::ir2vec::Embedder::create(LK, Fn, LV);
        for (const llvm::Instruction &Inst : llvm::instructions(Fn)) {
          EXPECT_EQ(E.InstFunction[I], int64_t(F));
          EXPECT_EQ(E.InstOpcode[I], int64_t(Inst.getOpcode() - 1));
          if (H.InstructionText) {
            std::string S;
            llvm::raw_string_ostream OS(S);
            Inst.print(OS); // LLVM's own printer, fresh slot tracker each time
            EXPECT_EQ("  " + E.InstTexts[I], S);
          }
          Check(row(E.InstVectors, I++, D), Emb->getInstVector(Inst), "instruction");
        }
      }
      ++F;
    }
    EXPECT_EQ(F, E.FunctionNames.size()) << Mod->Path;
  }
}

void expectClean(const Tally &T, const char *What) {
  for (const std::string &F : T.Failures)
    ADD_FAILURE() << F;
  std::printf("[ batch ] %s: %zu modules, %zu rows equal to libLLVM bit for bit\n", What,
              T.Modules, T.Rows);
}

std::string slurp(const std::string &P) {
  std::ifstream In(P, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(In), {});
}

void runAndCompare(const std::vector<std::string> &Inputs, const char *What, size_t MinRows) {
  Vocabs V = loadSeed();
  size_t Total = 0;
  for (Kind K : {Kind::Symbolic, Kind::FlowAware})
    for (Level L : {Level::Func, Level::BB, Level::Inst}) {
      const std::string Out = tempPath("cmp.h5");
      auto J = job(Inputs, V, K, L, Out, /*Text=*/L == Level::Inst);
      auto Run = ir2vec::runEmbeddingsHDF5(J, io(2, L));
      ASSERT_TRUE(bool(Run)) << llvm::toString(Run.takeError());
      EXPECT_EQ(Run->Summary.Modules, Inputs.size());
      Tally T;
      compareFileWithLLVM(Out, V.Path, K, T);
      EXPECT_GT(T.Rows, 0u);
      Total += T.Rows;
      expectClean(T, (std::string(What) + " " + ir2vec::kindName(K).str() + " " +
                      ir2vec::levelName(L).str()).c_str());
      llvm::sys::fs::remove(Out);
    }
  EXPECT_GE(Total, MinRows);
}

// Counts x vocabulary against the exact mode: max |diff| / max |exact| per row <= 1e-12.
void countsWithinTolerance(const std::vector<std::string> &Inputs, Level L) {
  Vocabs V = loadSeed();
  for (Kind K : {Kind::Symbolic, Kind::FlowAware}) {
    const std::string Exact = tempPath("exact.h5"), Counts = tempPath("counts.h5"),
                      FromC = tempPath("fromcounts.h5");
    ASSERT_TRUE(bool(ir2vec::runEmbeddingsHDF5(job(Inputs, V, K, L, Exact, false), io(2, L))));
    auto CJ = job(Inputs, V, K, L, Counts, false);
    CJ.Vocab = &ir2vec::countingVocabulary();
    CJ.Header.Counts = true;
    CJ.Header.Dimension = vocab::NumEntities;
    ASSERT_TRUE(bool(ir2vec::runEmbeddingsHDF5(CJ, io(2, L))));
    auto S = ir2vec::embeddingsFromCounts(Counts, V.V, V.SHA, FromC, 0);
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    auto A = ir2vec::EmbeddingFileReader::open(Exact), B = ir2vec::EmbeddingFileReader::open(FromC);
    ASSERT_TRUE(A && B);
    EXPECT_EQ(B->header().Method, "counts");
    double Worst = 0;
    size_t Rows = 0;
    for (uint64_t M = 0; M < A->numModules(); ++M) {
      auto X = A->module(M), Y = B->module(M);
      ASSERT_TRUE(X && Y);
      for (auto [P, Q] : {std::pair{&X->Rows.FunctionVectors, &Y->Rows.FunctionVectors},
                          std::pair{&X->Rows.BlockVectors, &Y->Rows.BlockVectors},
                          std::pair{&X->Rows.InstVectors, &Y->Rows.InstVectors}}) {
        ASSERT_EQ(P->size(), Q->size());
        const unsigned D = V.V.dimension();
        for (size_t R = 0; R < P->size() / D; ++R, ++Rows) {
          double Diff = 0, Norm = 0;
          for (unsigned I = 0; I < D; ++I) {
            Diff = std::max(Diff, std::fabs((*P)[R * D + I] - (*Q)[R * D + I]));
            Norm = std::max(Norm, std::fabs((*P)[R * D + I]));
          }
          if (Norm > 0) {
            Worst = std::max(Worst, Diff / Norm);
          } else {
            EXPECT_EQ(Diff, 0.0);
          }
        }
      }
    }
    std::printf("[ counts ] %s %s: %zu rows, worst relative difference %.3g\n",
                ir2vec::kindName(K).str().c_str(), ir2vec::levelName(L).str().c_str(), Rows, Worst);
    EXPECT_GT(Rows, 0u);
    EXPECT_LE(Worst, 1e-12);
    for (const std::string &P : {Exact, Counts, FromC})
      llvm::sys::fs::remove(P);
  }
}

} // namespace

TEST(BatchFiles, HDF5RowsEqualLLVMForEveryKindAndLevel) {
  runAndCompare(dataInputs(), "data", 1000);
}

TEST(BatchFiles, CountsTimesVocabularyWithinToleranceOfExact) {
  countsWithinTolerance(dataInputs(), Level::Inst);
}

TEST(BatchFiles, CountsOfAHandCheckedFunction) {
  // ret i32 0 in a function of its own: Ret, VoidTy and one Constant operand, once each.
  const std::string IR = tempPath("one.ll"), Out = tempPath("one.h5");
  std::ofstream(IR) << "define i32 @f() {\n  ret i32 0\n}\n";
  Vocabs V = loadSeed();
  auto J = job({IR}, V, Kind::Symbolic, Level::Func, Out, false);
  J.Vocab = &ir2vec::countingVocabulary();
  J.Header.Counts = true;
  J.Header.Dimension = vocab::NumEntities;
  ASSERT_TRUE(bool(ir2vec::runEmbeddingsHDF5(J, io(1, Level::Func))));
  auto R = ir2vec::EmbeddingFileReader::open(Out);
  ASSERT_TRUE(bool(R));
  auto M = R->module(0);
  ASSERT_TRUE(bool(M));
  std::vector<double> Expected(vocab::NumEntities, 0.0);
  Expected[0] = 1;  // Ret
  Expected[69] = 1; // VoidTy
  Expected[82] = 1; // Constant
  EXPECT_EQ(M->Rows.FunctionVectors, Expected);
  llvm::sys::fs::remove(IR);
  llvm::sys::fs::remove(Out);
}

TEST(BatchFiles, OneAndFourJobsWriteByteIdenticalFiles) {
  Vocabs V = loadSeed();
  std::vector<std::string> Inputs;
  for (int Rep = 0; Rep < 6; ++Rep)
    for (const std::string &P : dataInputs())
      Inputs.push_back(P);
  for (Level L : {Level::Func, Level::Inst}) {
    const std::string A = tempPath("j1.h5"), B = tempPath("j4.h5");
    ASSERT_TRUE(bool(ir2vec::runEmbeddingsHDF5(job(Inputs, V, Kind::FlowAware, L, A, true), io(1, L))));
    ASSERT_TRUE(bool(ir2vec::runEmbeddingsHDF5(job(Inputs, V, Kind::FlowAware, L, B, true), io(4, L))));
    const std::string X = slurp(A), Y = slurp(B);
    EXPECT_GT(X.size(), 1000u);
    EXPECT_TRUE(X == Y) << "files differ for level " << ir2vec::levelName(L).str();
    llvm::sys::fs::remove(A);
    llvm::sys::fs::remove(B);
  }
}

TEST(BatchFiles, FailedModulesAreRecordedAndTheRestKept) {
  const std::string Bad = tempPath("bad.bc"), Out = tempPath("bad.h5");
  std::ofstream(Bad) << "BC\xc0\xde garbage";
  std::vector<std::string> Inputs = dataInputs();
  Inputs.insert(Inputs.begin() + 3, Bad);
  Inputs.push_back("/nonexistent/missing.bc");
  Vocabs V = loadSeed();
  auto Run = ir2vec::runEmbeddingsHDF5(job(Inputs, V, Kind::Symbolic, Level::BB, Out, false),
                                       io(2, Level::BB));
  ASSERT_TRUE(bool(Run));
  EXPECT_EQ(Run->Summary.Modules, Inputs.size());
  EXPECT_EQ(Run->Summary.Failed, 2u);
  auto R = ir2vec::EmbeddingFileReader::open(Out);
  ASSERT_TRUE(bool(R));
  ASSERT_EQ(R->numModules(), Inputs.size());
  for (uint64_t M = 0; M < R->numModules(); ++M) {
    auto Mod = R->module(M);
    ASSERT_TRUE(bool(Mod));
    EXPECT_EQ(Mod->Path, Inputs[M]);
    const bool ShouldFail = Inputs[M] == Bad || Inputs[M] == "/nonexistent/missing.bc";
    EXPECT_EQ(Mod->Error.empty(), !ShouldFail) << Mod->Path << ": " << Mod->Error;
    if (ShouldFail) {
      EXPECT_TRUE(Mod->Rows.FunctionNames.empty());
    }
  }
  Tally T;
  compareFileWithLLVM(Out, V.Path, Kind::Symbolic, T);
  EXPECT_EQ(T.Modules, dataInputs().size());
  expectClean(T, "with bad modules");
  llvm::sys::fs::remove(Bad);
  llvm::sys::fs::remove(Out);
}

// The per-module time limit (issue 12): LLVM's reader loops for ever on some malformed bitcode,
// but only in some heap states, so the mechanism is tested with work that loops by itself.
TEST(BatchFiles, TimeLimitStopsLoopingWorkAndLetsTheRestFinish) {
  corpus::TimeLimit Limit(0.5);
  std::atomic<bool> Spin{true};
  std::optional<std::string> Stopped, Quick;
  std::thread Looping([&] {
    Stopped = Limit.run([&] {
      while (Spin.load(std::memory_order_relaxed)) {
      }
    });
  });
  for (int I = 0; I < 20; ++I)
    Quick = Quick ? Quick : Limit.run([] {});
  Looping.join();
  EXPECT_FALSE(Quick) << *Quick;
  ASSERT_TRUE(Stopped);
  EXPECT_NE(Stopped->find("did not finish with it within 0.5"), std::string::npos) << *Stopped;
  // The thread is usable again after it was stopped, and work within the limit is untouched.
  EXPECT_FALSE(Limit.run([] { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }));
  // A crash inside the limit is still the crash.
  auto Crash = Limit.run([] { std::raise(SIGSEGV); });
  ASSERT_TRUE(Crash);
  EXPECT_NE(Crash->find("signal 11"), std::string::npos) << *Crash;
}

TEST(BatchCorpus, HDF5RowsEqualLLVMOnTheCorpus) {
  auto In = corpusInputs();
  ASSERT_GT(In.size(), 60u) << "WB_CORPUS_LIST must name the corpus list";
  runAndCompare(In, "corpus", 100000);
}

TEST(BatchCorpus, CountsWithinToleranceOnTheCorpus) {
  auto In = corpusInputs();
  ASSERT_GT(In.size(), 60u) << "WB_CORPUS_LIST must name the corpus list";
  countsWithinTolerance(In, Level::Inst);
}

// The embedding layer states what cannot be embedded together once; each front end names the
// settings its own way (the command line's options, the Python module's keywords).
TEST(BatchFiles, SelectionRulesSpeakEachFrontEndsTerms) {
  auto Python = [](ir2vec::JobSetting S, llvm::StringRef V) -> std::string {
    switch (S) {
    case ir2vec::JobSetting::Function: return "function=";
    case ir2vec::JobSetting::Level: return ("level='" + V + "'").str();
    case ir2vec::JobSetting::InstructionText: return "instruction_text";
    case ir2vec::JobSetting::Counts: return "counts";
    case ir2vec::JobSetting::Mode: return ("mode='" + V + "'").str();
    case ir2vec::JobSetting::Kind: return ("kind='" + V + "'").str();
    }
    return "";
  };
  auto Message = [](llvm::Error E) { return E ? llvm::toString(std::move(E)) : std::string(); };
  using ir2vec::IRMode;
  ir2vec::EmbeddingJob J;
  EXPECT_EQ(Message(J.validateSelection(ir2vec::commandLineSpelling, IRMode::MIR)), "");
  J.Granularity = ir2vec::Level::Module;
  J.FunctionName = "f";
  EXPECT_EQ(Message(J.validateSelection(ir2vec::commandLineSpelling, IRMode::LLVM)),
            "--function selects a function: it does not go with --level module");
  EXPECT_EQ(Message(J.validateSelection(Python, IRMode::LLVM)),
            "function= selects a function: it does not go with level='module'");
  J = {};
  J.Header.InstructionText = true;
  EXPECT_EQ(Message(J.validateSelection(Python, IRMode::LLVM)),
            "instruction_text applies to level='inst'");
  J.Granularity = ir2vec::Level::Inst;
  EXPECT_EQ(Message(J.validateSelection(Python, IRMode::LLVM)), "");
  // The command line also needs HDF5 output for it: the text format prints instructions.
  EXPECT_EQ(Message(J.validate()), "--inst-text applies to --format hdf5 (the text format "
                                   "always prints instructions)");
  J = {};
  J.Header.Counts = true;
  EXPECT_EQ(Message(J.validateSelection(ir2vec::commandLineSpelling, IRMode::MIR)),
            "--counts counts LLVM IR's entities: it does not go with --mode=mir");
  J = {};
  J.EmbeddingKind = Kind::FlowAware;
  EXPECT_EQ(Message(J.validateSelection(Python, IRMode::MIR)),
            "mode='mir' embeddings are symbolic (MIR2Vec's only kind), not kind='flow-aware'");
  EXPECT_EQ(Message(J.validateSelection(Python, IRMode::LLVM)), "");
}
