#include "mir/MirText.h"

#include "support/Files.h"

#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace wb::mir {

namespace {

using support::Diagnostic;

void report(const support::DiagnosticHandler &Report, const std::vector<std::string> &Warnings,
            const MirOddities &Odd, llvm::StringRef Input) {
  for (const std::string &W : Warnings)
    Report({Diagnostic::Warning, W});
  if (Odd.ClasslessRegisters)
    Report({Diagnostic::Warning,
            llvm::formatv("{0}: {1} register operands have no register class (llvm-ir2vec-22 crashes "
                          "on them); they count as zero vectors, as in LLVM's later fix (docs/mir2vec.md)",
                          Input, Odd.ClasslessRegisters)
                .str()});
  if (Odd.UnknownOperandKinds)
    Report({Diagnostic::Warning,
            llvm::formatv("{0}: {1} operands of a kind past LLVM 22's CommonOperands table (lane "
                          "masks; llvm-ir2vec-22 reads past its table); they count as zero vectors",
                          Input, Odd.UnknownOperandKinds)
                .str()});
}

llvm::Expected<std::unique_ptr<MachineModule>> readInput(const MirJob &J) {
  if (J.Input.empty())
    return support::usageError("--mode=mir needs a .mir file");
  return MachineModule::read(J.Input, J.Target);
}

llvm::Expected<support::Outcome> writeText(const MirJob &J, const std::string &Text) {
  return support::outcomeOf(
      support::writeFileAtomically(J.Output, [&](llvm::raw_ostream &OS) { OS << Text; }));
}

} // namespace

void renderMirEntities(std::string &Out, const MirLayout &L) {
  llvm::raw_string_ostream OS(Out);
  OS << L.size() << "\n";
  for (unsigned Id = 0; Id < L.size(); ++Id)
    OS << L.entityName(Id) << '\t' << Id << '\n';
}

void renderMirTriplets(std::string &Out, MachineModule &MM, const MirLayout &L, MirOddities &Odd,
                       std::vector<std::string> &Warnings) {
  std::vector<MirTriplet> Ts;
  unsigned MaxRelation = MirNextRelation;
  for (const auto &[F, MF] : MM.functions()) {
    if (!MF) {
      Warnings.push_back(("No MachineFunction for " + F->getName()).str());
      continue;
    }
    functionTriplets(L, *MF, Ts, MaxRelation, Odd);
  }
  llvm::raw_string_ostream OS(Out);
  OS << "MAX_RELATION=" << MaxRelation << '\n';
  for (const MirTriplet &T : Ts)
    OS << T.Head << '\t' << T.Tail << '\t' << T.Relation << '\n';
}

llvm::Error renderMirEmbeddings(std::string &Out, MachineModule &MM, const MirVocabulary &V, ir2vec::Level L,
                                unsigned Precision, const std::optional<std::string> &Function,
                                MirOddities &Odd, std::vector<std::string> &Warnings) {
  std::vector<const llvm::MachineFunction *> MFs;
  if (Function) {
    auto MF = MM.function(*Function);
    if (!MF)
      return MF.takeError();
    MFs.push_back(*MF);
  } else {
    for (const auto &[F, MF] : MM.functions()) {
      if (MF)
        MFs.push_back(MF);
      else
        Warnings.push_back(("No MachineFunction for " + F->getName()).str());
    }
  }
  for (const llvm::MachineFunction *MF : MFs) {
    const MirEmbedder E(*MF, V);
    Out += "MIR2Vec embeddings for machine function " + MF->getName().str() + ":\n";
    switch (L) {
    case ir2vec::Level::Func:
      Out += "Function vector: ";
      ir2vec::formatVector(Out, E.function(Odd), Precision);
      break;
    case ir2vec::Level::BB:
      Out += "Basic block vectors:\n";
      for (const llvm::MachineBasicBlock &MBB : *MF) {
        Out += "MBB " + MBB.getName().str() + ": ";
        ir2vec::formatVector(Out, E.block(MBB, Odd), Precision);
      }
      break;
    case ir2vec::Level::Inst:
      Out += "Instruction vectors:\n";
      for (const llvm::MachineBasicBlock &MBB : *MF)
        for (const llvm::MachineInstr &MI : MBB) {
          llvm::raw_string_ostream OS(Out);
          OS << MI << " -> ";
          ir2vec::formatVector(Out, E.instruction(MI, Odd), Precision);
        }
      break;
    case ir2vec::Level::Module:
      return support::usageError("--mode=mir: --level module is not a level of MIR2Vec (inst, bb, func)");
    }
  }
  return llvm::Error::success();
}

llvm::Expected<support::Outcome> runMirEntities(const MirJob &J, const support::DiagnosticHandler &Report) {
  std::unique_ptr<MachineModule> MM;
  std::unique_ptr<llvm::TargetMachine> TM;
  if (!J.Input.empty()) {
    auto R = readInput(J);
    if (!R)
      return R.takeError();
    MM = std::move(*R);
  } else {
    auto R = makeTargetMachine(J.Target);
    if (!R)
      return R.takeError();
    TM = std::move(*R);
  }
  std::string Text;
  const llvm::TargetMachine &Target = MM ? MM->target() : *TM;
  renderMirEntities(Text, MirLayout::of(Target));
  return writeText(J, Text);
}

llvm::Expected<support::Outcome> runMirTriplets(const MirJob &J, const support::DiagnosticHandler &Report) {
  auto MM = readInput(J);
  if (!MM)
    return MM.takeError();
  std::string Text;
  MirOddities Odd;
  std::vector<std::string> Warnings;
  renderMirTriplets(Text, **MM, MirLayout::of((*MM)->target()), Odd, Warnings);
  report(Report, Warnings, Odd, J.Input);
  return writeText(J, Text);
}

llvm::Expected<support::Outcome> runMirEmbeddings(const MirJob &J, const support::DiagnosticHandler &Report) {
  if (J.Level == ir2vec::Level::Module)
    return support::usageError("--mode=mir: --level module is not a level of MIR2Vec (inst, bb, func)");
  if (J.VocabPath.empty())
    return support::usageError("--mode=mir: name the MIR vocabulary with --mir2vec-vocab-path "
                               "(LLVM's MIR vocabulary JSON)");
  auto MM = readInput(J);
  if (!MM)
    return MM.takeError();
  auto V = MirVocabulary::read(J.VocabPath, MirLayout::of((*MM)->target()), J.Weights);
  if (!V)
    return V.takeError();
  for (const std::string &W : V->warnings(J.VocabPath))
    Report({Diagnostic::Warning, W});
  std::string Text;
  MirOddities Odd;
  std::vector<std::string> Warnings;
  if (llvm::Error E = renderMirEmbeddings(Text, **MM, *V, J.Level, J.Precision, J.Function, Odd, Warnings))
    return E;
  report(Report, Warnings, Odd, J.Input);
  return writeText(J, Text);
}

} // namespace wb::mir
