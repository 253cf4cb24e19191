#include "mir/MachineModule.h"

#include "support/Error.h"
#include "support/Inputs.h"

#include "llvm/CodeGen/MIRParser/MIRParser.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/InitializePasses.h"
#include "llvm/PassRegistry.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

namespace wb::mir {

bool CollectingHandler::handleDiagnostics(const llvm::DiagnosticInfo &DI) {
  if (DI.getSeverity() != llvm::DS_Error)
    return true;
  llvm::raw_string_ostream OS(Errors);
  if (!Errors.empty())
    OS << "; ";
  llvm::DiagnosticPrinterRawOStream DP(OS);
  DI.print(DP);
  return true;
}

namespace {

/// LLVM IR given where machine IR was expected: bitcode, or text that starts with an IR
/// comment (';'; MIR's YAML comments start with '#') or an IR top-level entity.
bool looksLikeIR(llvm::StringRef B) {
  if (B.starts_with("BC\xC0\xDE") || B.starts_with("\xDE\xC0\x17\x0B"))
    return true;
  llvm::StringRef T = B.ltrim();
  for (llvm::StringRef Start : {";", "source_filename", "target ", "define ", "declare ", "@", "%", "!"})
    if (T.starts_with(Start))
      return true;
  return false;
}

} // namespace

void initializeTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmParsers();
    llvm::InitializeAllAsmPrinters();
    // The passes llc registers before it builds a pipeline: -stop-after names are looked up
    // here, and the code generator's own passes register lazily otherwise.
    llvm::PassRegistry &R = *llvm::PassRegistry::getPassRegistry();
    llvm::initializeCore(R);
    llvm::initializeCodeGen(R);
    llvm::initializeGlobalISel(R);
    llvm::initializeTarget(R);
    llvm::initializeLoopStrengthReducePass(R);
    llvm::initializeLowerIntrinsicsPass(R);
    llvm::initializePostInlineEntryExitInstrumenterPass(R);
    llvm::initializeUnreachableBlockElimLegacyPassPass(R);
    llvm::initializeConstantHoistingLegacyPassPass(R);
    llvm::initializeScalarOpts(R);
    llvm::initializeVectorization(R);
    llvm::initializeScalarizeMaskedMemIntrinLegacyPassPass(R);
    llvm::initializeExpandReductionsPass(R);
    llvm::initializeHardwareLoopsLegacyPass(R);
    llvm::initializeTransformUtils(R);
    llvm::initializeReplaceWithVeclibLegacyPass(R);
  });
}

std::string TargetChoice::llcCPU() const {
  return CPU == "native" ? llvm::sys::getHostCPUName().str() : CPU;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> makeTargetMachine(const TargetChoice &T) {
  initializeTargets();
  llvm::Triple TT(T.Triple.empty() ? llvm::sys::getDefaultTargetTriple() : T.Triple);
  std::string Error;
  const llvm::Target *Target = llvm::TargetRegistry::lookupTarget(TT, Error);
  if (!Target)
    return support::makeError("target '" + TT.str() + "': " + Error);
  TargetChoice C = T;
  C.CPU = C.llcCPU();
  // An unknown CPU or feature is refused here, once: LLVM warns and ignores it every time it
  // makes a subtarget (six warnings for one run), and llc-22 goes on the same way.
  if (!C.CPU.empty() || !C.Features.empty()) {
    std::unique_ptr<llvm::MCSubtargetInfo> STI(Target->createMCSubtargetInfo(TT, "", ""));
    if (STI && !C.CPU.empty() && !STI->isCPUStringValid(C.CPU))
      return support::usageError("target '" + TT.str() + "' has no CPU '" + C.CPU +
                                 "' (llc-22 -mtriple=" + TT.str() + " -mcpu=help lists them)");
    llvm::SmallVector<llvm::StringRef, 8> Features;
    llvm::StringRef(C.Features).split(Features, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef F : Features) {
      const llvm::StringRef Name = F.trim().drop_while([](char C) { return C == '+' || C == '-'; });
      if (STI && !llvm::any_of(STI->getAllProcessorFeatures(),
                               [&](const llvm::SubtargetFeatureKV &K) { return Name == K.Key; }))
        return support::usageError("target '" + TT.str() + "' has no feature '" + Name +
                                   "' (llc-22 -mtriple=" + TT.str() + " -mattr=help lists them)");
    }
  }
  std::unique_ptr<llvm::TargetMachine> TM(Target->createTargetMachine(
      TT, C.CPU, C.Features, llvm::TargetOptions(), std::nullopt));
  if (!TM)
    return support::makeError("target '" + TT.str() + "': no target machine for it");
  return TM;
}

MachineModule::MachineModule() = default;
MachineModule::~MachineModule() = default;

llvm::Expected<std::unique_ptr<MachineModule>> MachineModule::parse(llvm::StringRef Buffer, llvm::StringRef Name,
                                                                    const TargetChoice &T) {
  initializeTargets();
  std::unique_ptr<MachineModule> MM(new MachineModule());
  MM->Ctx = std::make_unique<llvm::LLVMContext>();
  std::string Errors;
  MM->Ctx->setDiagnosticHandler(std::make_unique<CollectingHandler>(Errors));
  auto Failed = [&](llvm::StringRef What) {
    // LLVM IR where machine IR was expected: standard input and files named .mir are read as
    // machine IR (as llvm-ir2vec reads them); IR modules go by their own names.
    const char *IRHint = Name == "-" ? " (this is LLVM IR: --mode=mir reads standard input as "
                                       "machine IR, as llvm-ir2vec does; name the IR module "
                                       "(.ll, .bc) to have it compiled)"
                                     : " (this is LLVM IR: --mode=mir reads .mir files as machine "
                                       "IR; give the IR module a .ll or .bc name to have it "
                                       "compiled)";
    // The parser's messages quote the input, which may be binary.
    return support::fileError(Name, What + (looksLikeIR(Buffer) ? IRHint : "") +
                                        (Errors.empty() ? std::string()
                                                        : ": " + support::printableText(
                                                                     Errors.size() > 400
                                                                         ? Errors.substr(0, 400) + "..."
                                                                         : Errors)));
  };
  std::unique_ptr<llvm::MIRParser> Parser =
      llvm::createMIRParser(llvm::MemoryBuffer::getMemBufferCopy(Buffer, Name), *MM->Ctx);
  if (!Parser)
    return Failed("not a MIR file");
  // The target comes from the embedded IR's triple (the host's when it has none), as
  // llvm-ir2vec's; --mtriple replaces it.
  std::optional<llvm::Error> TargetError;
  auto SetLayout = [&](llvm::StringRef Triple, llvm::StringRef) -> std::optional<std::string> {
    TargetChoice C = T;
    if (C.Triple.empty())
      C.Triple = Triple.str();
    auto TM = makeTargetMachine(C);
    if (!TM) {
      TargetError = TM.takeError();
      return std::nullopt;
    }
    MM->TM = std::move(*TM);
    return MM->TM->createDataLayout().getStringRepresentation();
  };
  MM->M = Parser->parseIRModule(SetLayout);
  if (TargetError)
    return support::fileError(Name, llvm::toString(std::move(*TargetError)));
  if (!MM->M)
    return Failed("cannot parse the IR module of the MIR file");
  if (!MM->TM) {
    TargetChoice C = T;
    if (C.Triple.empty())
      C.Triple = MM->M->getTargetTriple().str();
    auto TM = makeTargetMachine(C);
    if (!TM)
      return support::fileError(Name, llvm::toString(TM.takeError()));
    MM->TM = std::move(*TM);
  }
  MM->MMI = std::make_unique<llvm::MachineModuleInfo>(MM->TM.get());
  if (Parser->parseMachineFunctions(*MM->M, *MM->MMI) || !Errors.empty())
    return Failed("cannot parse the machine functions");
  return MM;
}

llvm::Expected<std::unique_ptr<MachineModule>> MachineModule::read(const std::string &Path,
                                                                   const TargetChoice &T) {
  auto Buf = support::readInput(Path, /*IsText=*/true);
  if (!Buf)
    return support::fileError(Path, "cannot read: " + support::readErrorMessage(Buf.getError()));
  return parse((*Buf)->getBuffer(), Path == "-" ? "<stdin>" : Path, T);
}

std::vector<std::pair<const llvm::Function *, const llvm::MachineFunction *>> MachineModule::functions() const {
  std::vector<std::pair<const llvm::Function *, const llvm::MachineFunction *>> Out;
  for (const llvm::Function &F : M->getFunctionDefs())
    Out.emplace_back(&F, MMI->getMachineFunction(F));
  return Out;
}

llvm::Expected<const llvm::MachineFunction *> MachineModule::function(llvm::StringRef Name) const {
  const llvm::Function *F = M->getFunction(Name);
  if (!F)
    return support::makeError("Function '" + Name + "' not found");
  const llvm::MachineFunction *MF = MMI->getMachineFunction(*F);
  if (!MF)
    return support::makeError("No MachineFunction for " + Name);
  return MF;
}

} // namespace wb::mir
