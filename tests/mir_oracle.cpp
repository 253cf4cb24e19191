// Test oracle for MIR2Vec: libLLVM-22's own mir2vec::MIRVocabulary and SymbolicMIREmbedder on
// one machine function of a .mir file, printed in llvm-ir2vec's MIR text layout (docs/mir2vec.md)
// with any number of decimals. Written from the format description; the vectors are LLVM's.
//
//   mir_oracle VOCAB FILE FUNCTION LEVEL(func|bb|inst) PRECISION [OPC COMMON REG]
//
// Unlike llvm-ir2vec-22, which builds one vocabulary with the first machine function's register
// info and looks every function's virtual registers up there, the vocabulary here is made with
// FUNCTION's own (MIRVocabulary::create takes the MachineRegisterInfo it reads virtual register
// classes from). LLVM crashes on registers without a class: the test runs one function per
// process and reads a crash as "LLVM cannot embed this function".
#include "llvm/Analysis/IR2Vec.h"
#include "llvm/CodeGen/MIR2Vec.h"
#include "llvm/CodeGen/MIRParser/MIRParser.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace llvm;

static void printVec(const ir2vec::Embedding &E, int Precision) {
  std::printf(" [");
  for (double X : E)
    std::printf(" %.*f ", Precision, X);
  std::printf("]\n");
}

int main(int argc, char **argv) {
  if (argc != 6 && argc != 9) {
    std::fprintf(stderr, "usage: mir_oracle VOCAB FILE FUNCTION LEVEL PRECISION [OPC COMMON REG]\n");
    return 2;
  }
  const std::string Level = argv[4];
  const int Precision = std::atoi(argv[5]);
  if (argc == 9) {
    mir2vec::OpcWeight = float(std::strtod(argv[6], nullptr));
    mir2vec::CommonOperandWeight = float(std::strtod(argv[7], nullptr));
    mir2vec::RegOperandWeight = float(std::strtod(argv[8], nullptr));
  }
  InitializeAllTargetInfos();
  InitializeAllTargets();
  InitializeAllTargetMCs();
  InitializeAllAsmParsers();
  InitializeAllAsmPrinters();

  LLVMContext Ctx;
  SMDiagnostic Err;
  auto MIR = createMIRParserFromFile(argv[2], Err, Ctx);
  if (!MIR) {
    Err.print(argv[0], errs());
    return 1;
  }
  std::unique_ptr<TargetMachine> TM;
  auto SetDL = [&](StringRef Triple, StringRef) -> std::optional<std::string> {
    llvm::Triple TT(Triple.empty() ? sys::getDefaultTargetTriple() : Triple.str());
    std::string E;
    const Target *T = TargetRegistry::lookupTarget(TT, E);
    if (!T) {
      errs() << E << "\n";
      std::exit(1);
    }
    TM.reset(T->createTargetMachine(TT, "", "", TargetOptions(), std::nullopt));
    return TM->createDataLayout().getStringRepresentation();
  };
  std::unique_ptr<Module> M = MIR->parseIRModule(SetDL);
  if (!M || !TM)
    return 1;
  MachineModuleInfo MMI(TM.get());
  if (MIR->parseMachineFunctions(*M, MMI))
    return 1;
  Function *F = M->getFunction(argv[3]);
  MachineFunction *MF = F ? MMI.getMachineFunction(*F) : nullptr;
  if (!MF) {
    std::fprintf(stderr, "no machine function %s\n", argv[3]);
    return 1;
  }

  auto Buf = MemoryBuffer::getFile(argv[1], /*IsText=*/true);
  if (!Buf)
    return 1;
  Expected<json::Value> J = json::parse((*Buf)->getBuffer());
  if (!J) {
    errs() << toString(J.takeError()) << "\n";
    return 1;
  }
  std::map<std::string, ir2vec::Embedding> Sections[4];
  const char *Names[4] = {"Opcodes", "CommonOperands", "PhysicalRegisters", "VirtualRegisters"};
  for (int I = 0; I < 4; ++I) {
    unsigned Dim = 0;
    if (Error E = ir2vec::VocabStorage::parseVocabSection(Names[I], *J, Sections[I], Dim)) {
      errs() << toString(std::move(E)) << "\n";
      return 1;
    }
  }
  const TargetSubtargetInfo &ST = MF->getSubtarget();
  auto V = mir2vec::MIRVocabulary::create(std::move(Sections[0]), std::move(Sections[1]),
                                          std::move(Sections[2]), std::move(Sections[3]),
                                          *ST.getInstrInfo(), *ST.getRegisterInfo(), MF->getRegInfo());
  if (!V) {
    errs() << toString(V.takeError()) << "\n";
    return 1;
  }
  auto Emb = mir2vec::SymbolicMIREmbedder::create(*MF, *V);
  std::printf("MIR2Vec embeddings for machine function %s:\n", MF->getName().str().c_str());
  std::fflush(stdout);
  if (Level == "func") {
    std::printf("Function vector: ");
    printVec(Emb->getMFunctionVector(), Precision);
  } else if (Level == "bb") {
    std::printf("Basic block vectors:\n");
    for (const MachineBasicBlock &MBB : *MF) {
      std::printf("MBB %s: ", MBB.getName().str().c_str());
      printVec(Emb->getMBBVector(MBB), Precision);
    }
  } else {
    std::printf("Instruction vectors:\n");
    for (const MachineBasicBlock &MBB : *MF)
      for (const MachineInstr &MI : MBB) {
        std::string S;
        raw_string_ostream OS(S);
        OS << MI << " -> ";
        std::fputs(S.c_str(), stdout);
        printVec(Emb->getMInstVector(MI), Precision);
      }
  }
  return 0;
}
