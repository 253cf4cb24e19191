// Test oracle for MIR2Vec: libLLVM-22's own mir2vec::MIRVocabulary and SymbolicMIREmbedder on
// one machine function of a .mir file, printed in llvm-ir2vec's MIR text layout (docs/mir2vec.md)
// with any number of decimals. Written from the format description; the vectors are LLVM's.
//
//   mir_oracle VOCAB FILE FUNCTION LEVEL(func|bb|inst) PRECISION [OPC COMMON REG]
//
// LEVEL may be a comma list ("func,bb,inst"): each function's text at each level in turn.
// FUNCTION "*": every machine function of the file in module order, each computed in a child
// process (fork) so that a crash of LLVM's on one function is reported as the line
// "LLVM CRASHED ON <name>" and the others are still computed.
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
#include "llvm/ADT/StringExtras.h"
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
#include <map>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;

static void printVec(std::string &Out, const ir2vec::Embedding &E, int Precision) {
  Out += " [";
  for (double X : E) {
    char B[512];
    std::snprintf(B, sizeof B, " %.*f ", Precision, X);
    Out += B;
  }
  Out += "]\n";
}

using Sections = std::map<std::string, ir2vec::Embedding>[4];

/// One machine function's text, computed by libLLVM (a vocabulary made with its own register
/// info).
static int embedFunction(MachineFunction &MF, Sections &S, const std::string &Levels, int Precision,
                         std::string &Out) {
  const TargetSubtargetInfo &ST = MF.getSubtarget();
  auto V = mir2vec::MIRVocabulary::create(std::move(S[0]), std::move(S[1]), std::move(S[2]),
                                          std::move(S[3]), *ST.getInstrInfo(), *ST.getRegisterInfo(),
                                          MF.getRegInfo());
  if (!V) {
    errs() << toString(V.takeError()) << "\n";
    return 1;
  }
  auto Emb = mir2vec::SymbolicMIREmbedder::create(MF, *V);
  for (llvm::StringRef Level : llvm::split(Levels, ',')) {
  Out += "MIR2Vec embeddings for machine function " + MF.getName().str() + ":\n";
  if (Level == "func") {
    Out += "Function vector: ";
    printVec(Out, Emb->getMFunctionVector(), Precision);
  } else if (Level == "bb") {
    Out += "Basic block vectors:\n";
    for (const MachineBasicBlock &MBB : MF) {
      Out += "MBB " + MBB.getName().str() + ": ";
      printVec(Out, Emb->getMBBVector(MBB), Precision);
    }
  } else {
    Out += "Instruction vectors:\n";
    for (const MachineBasicBlock &MBB : MF)
      for (const MachineInstr &MI : MBB) {
        raw_string_ostream OS(Out);
        OS << MI << " -> ";
        printVec(Out, Emb->getMInstVector(MI), Precision);
      }
  }
  }
  return 0;
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
  auto Buf = MemoryBuffer::getFile(argv[1], /*IsText=*/true);
  if (!Buf)
    return 1;
  Expected<json::Value> J = json::parse((*Buf)->getBuffer());
  if (!J) {
    errs() << toString(J.takeError()) << "\n";
    return 1;
  }
  Sections Sections;
  const char *Names[4] = {"Opcodes", "CommonOperands", "PhysicalRegisters", "VirtualRegisters"};
  for (int I = 0; I < 4; ++I) {
    unsigned Dim = 0;
    if (Error E = ir2vec::VocabStorage::parseVocabSection(Names[I], *J, Sections[I], Dim)) {
      errs() << toString(std::move(E)) << "\n";
      return 1;
    }
  }
  if (std::string(argv[3]) != "*") {
    Function *F = M->getFunction(argv[3]);
    MachineFunction *MF = F ? MMI.getMachineFunction(*F) : nullptr;
    if (!MF) {
      std::fprintf(stderr, "no machine function %s\n", argv[3]);
      return 1;
    }
    std::string Out;
    const int RC = embedFunction(*MF, Sections, Level, Precision, Out);
    std::fputs(Out.c_str(), stdout);
    return RC;
  }
  for (Function &F : *M) {
    MachineFunction *MF = MMI.getMachineFunction(F);
    if (!MF)
      continue;
    std::fflush(stdout);
    int Pipe[2];
    if (pipe(Pipe) != 0)
      return 1;
    const pid_t Child = fork();
    if (Child == 0) {
      close(Pipe[0]);
      std::string Out;
      const int RC = embedFunction(*MF, Sections, Level, Precision, Out);
      for (size_t At = 0; At < Out.size();) {
        const ssize_t N = write(Pipe[1], Out.data() + At, Out.size() - At);
        if (N <= 0)
          _exit(1);
        At += size_t(N);
      }
      _exit(RC);
    }
    close(Pipe[1]);
    std::string Got;
    char B[65536];
    for (ssize_t N; (N = read(Pipe[0], B, sizeof B)) > 0;)
      Got.append(B, size_t(N));
    close(Pipe[0]);
    int Status = 0;
    waitpid(Child, &Status, 0);
    if (WIFEXITED(Status) && WEXITSTATUS(Status) == 0)
      std::fputs(Got.c_str(), stdout);
    else
      std::printf("LLVM CRASHED ON %s\n", MF->getName().str().c_str());
  }
  return 0;
}
