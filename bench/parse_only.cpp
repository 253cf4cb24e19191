// The floor for batch embedding: read and parse the same inputs in one thread, nothing else.
// Each module is parsed into a fresh LLVMContext with LLVM's standard reader (parseIR, which
// also runs LLVM's debug-info upgrade) and destroyed; no verification, no embedding, no output.
//   parse_only [--verify] INPUT...   (inputs as for `ir2vec embeddings`: files, directories,
//                                     @lists, corpus_description.json)
// --verify also runs LLVM's verifier on each module (llvm::verifyModule), as the batch commands
// do by default: the floor for them with verification on.
#include "support/Inputs.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  std::vector<std::string> Args(argv + 1, argv + argc);
  const bool Verify = !Args.empty() && Args.front() == "--verify";
  if (Verify)
    Args.erase(Args.begin());
  auto Inputs = wb::support::expandInputs(Args);
  if (!Inputs) {
    llvm::errs() << "parse_only: " << llvm::toString(Inputs.takeError()) << "\n";
    return 1;
  }
  size_t Modules = 0, Failed = 0, Instructions = 0;
  for (const std::string &Path : *Inputs) {
    llvm::LLVMContext Ctx;
    llvm::SMDiagnostic Err;
    auto Buf = llvm::MemoryBuffer::getFileOrSTDIN(Path);
    std::unique_ptr<llvm::Module> M =
        Buf ? llvm::parseIR((*Buf)->getMemBufferRef(), Err, Ctx) : nullptr;
    ++Modules;
    if (!M || (Verify && llvm::verifyModule(*M, &llvm::nulls()))) {
      ++Failed;
      continue;
    }
    Instructions += M->getInstructionCount();
  }
  llvm::outs() << "parsed " << Modules - Failed << " of " << Modules << " modules, "
               << Instructions << " instructions\n";
  return Failed ? 2 : 0;
}
