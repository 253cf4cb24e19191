// Test oracle: prints libLLVM-22's own IR2Vec embeddings in llvm-ir2vec's text layout, with
// any number of decimals. Written from the format description (docs/ and the spec), using
// LLVM's Embedder, LLVM's loader and Instruction::print, so the CLI's --precision output can
// be compared with LLVM's exact doubles.
//
//   oracle_print VOCAB KIND(symbolic|flow-aware) LEVEL(func|bb|inst|module) PRECISION|hex FILE
// "hex" prints every number exactly, with C's %a. LEVEL may list levels ("module,func,bb"):
// each level's text then follows a line "Level: NAME", from one parse of the file (a corpus
// test reads every level of every module). LEVEL module (the workbench's, which LLVM 22
// lacks) prints "Module:" and the sum of LLVM's function vectors, added in module order with
// LLVM's own Embedding::operator+= to a zero vector, as docs/formats/embeddings-hdf5.md
// defines the module row.
#include "LLVMOracle.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

static void printVec(const llvm::ir2vec::Embedding &E, int Precision) {
  std::printf(" [");
  for (double X : E)
    if (Precision < 0)
      std::printf(" %a ", X);
    else
      std::printf(" %.*f ", Precision, X);
  std::printf("]\n");
}

/// One level's text of M, as llvm-ir2vec lays it out (module: the workbench's module row).
static void printLevel(const llvm::Module &M, const llvm::ir2vec::Vocabulary &V, llvm::IR2VecKind K,
                       llvm::StringRef Level, int Precision) {
  if (Level == "module") {
    llvm::ir2vec::Embedding Sum(V.getDimension(), 0.0);
    for (const llvm::Function &F : M)
      if (!F.isDeclaration())
        Sum += llvm::ir2vec::Embedder::create(K, F, V)->getFunctionVector();
    std::printf("Module:\n");
    printVec(Sum, Precision);
    return;
  }
  for (const llvm::Function &F : M) {
    if (F.isDeclaration())
      continue;
    auto E = llvm::ir2vec::Embedder::create(K, F, V);
    std::printf("Function: %s\n", F.getName().str().c_str());
    if (Level == "func") {
      printVec(E->getFunctionVector(), Precision);
    } else if (Level == "bb") {
      for (const llvm::BasicBlock &BB : F) {
        std::printf("%s:", BB.getName().str().c_str());
        printVec(E->getBBVector(BB), Precision);
      }
    } else {
      for (const llvm::BasicBlock &BB : F)
        for (const llvm::Instruction &I : BB) {
          std::string S;
          llvm::raw_string_ostream OS(S);
          I.print(OS);
          std::fwrite(S.data(), 1, S.size(), stdout);
          printVec(E->getInstVector(I), Precision);
        }
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: oracle_print VOCAB KIND LEVEL[,LEVEL...] PRECISION FILE\n");
    return 2;
  }
  const std::string Kind = argv[2];
  llvm::SmallVector<llvm::StringRef> Levels;
  llvm::StringRef(argv[3]).split(Levels, ',');
  const int Precision = std::string(argv[4]) == "hex" ? -1 : std::atoi(argv[4]);
  llvm::LLVMContext Ctx;
  llvm::SMDiagnostic Err;
  auto M = llvm::parseIRFile(argv[5], Err, Ctx);
  if (!M) {
    Err.print(argv[0], llvm::errs());
    return 1;
  }
  auto V = wb::test::llvmVocabulary(*M, argv[1], wb::vocab::Weights{});
  const auto K = Kind == "flow-aware" ? llvm::IR2VecKind::FlowAware : llvm::IR2VecKind::Symbolic;
  for (llvm::StringRef Level : Levels) {
    if (Levels.size() > 1)
      std::printf("Level: %s\n", Level.str().c_str());
    printLevel(*M, V, K, Level, Precision);
  }
  return 0;
}
