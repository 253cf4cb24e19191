#include "mir/MirText.h"

#include "corpus/Batch.h"
#include "corpus/ModuleReader.h"
#include "support/Files.h"

#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
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

/// Work on J's input with LLVM's crashes and stack overflows (deeply nested YAML or IR overflow
/// LLVM's recursive parsers) turned into an error naming the input.
llvm::Error recoverable(const MirJob &J, llvm::function_ref<llvm::Error()> Work) {
  llvm::Error Result = llvm::Error::success();
  llvm::consumeError(std::move(Result));
  std::optional<std::string> Crash = corpus::runRecoverable([&] { Result = Work(); });
  if (Crash) {
    llvm::consumeError(std::move(Result));
    return support::fileError(J.Input.empty() ? std::string("--mtriple") : J.Input, *Crash);
  }
  return Result;
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

bool isMirFile(llvm::StringRef Path) { return Path == "-" || Path.ends_with(".mir"); }

llvm::Error forEachMachineFunction(const MirJob &J,
                                   llvm::function_ref<llvm::Error(const llvm::TargetMachine &)> OnTarget,
                                   llvm::function_ref<void(const llvm::MachineFunction &)> Each,
                                   std::vector<std::string> &Warnings) {
  if (J.Input.empty())
    return support::usageError("--mode=mir needs an input: a .mir file or an LLVM IR module");
  // --function: llvm-ir2vec's messages for a name that is not there.
  bool Seen = false;
  auto Visit = [&](const llvm::MachineFunction &MF) {
    if (J.Function && MF.getName() != *J.Function)
      return;
    Seen = true;
    Each(MF);
  };
  if (isMirFile(J.Input)) {
    auto MM = MachineModule::read(J.Input, J.Target);
    if (!MM)
      return MM.takeError();
    if (llvm::Error E = OnTarget((*MM)->target()))
      return E;
    if (J.Function) {
      auto MF = (*MM)->function(*J.Function);
      if (!MF)
        return MF.takeError();
      Each(**MF);
      return llvm::Error::success();
    }
    for (const auto &[F, MF] : (*MM)->functions())
      if (MF)
        Visit(*MF);
      else
        Warnings.push_back(("No MachineFunction for " + F->getName()).str());
    return llvm::Error::success();
  }
  if (llvm::Error E = setStopPoint(J.Stop))
    return E;
  llvm::LLVMContext Ctx;
  auto In = corpus::readModule(J.Input, Ctx);
  if (!In)
    return In.takeError();
  Warnings.insert(Warnings.end(), In->Warnings.begin(), In->Warnings.end());
  auto TM = targetFor(*In->M, J.Target);
  if (!TM)
    return support::fileError(J.Input, llvm::toString(TM.takeError()));
  if (llvm::Error E = OnTarget(**TM))
    return E;
  if (llvm::Error E = compileToMachineIR(*In->M, **TM, Visit))
    return support::fileError(J.Input, "code generation (" + J.Stop.describe() + "): " + llvm::toString(std::move(E)));
  if (J.Function && !Seen)
    return support::makeError("Function '" + *J.Function + "' not found");
  return llvm::Error::success();
}

void renderMirFunction(std::string &Out, const llvm::MachineFunction &MF, const MirVocabulary &V,
                       ir2vec::Level L, unsigned Precision, MirOddities &Odd) {
  const MirEmbedder E(MF, V);
  Out += "MIR2Vec embeddings for machine function " + MF.getName().str() + ":\n";
  switch (L) {
  case ir2vec::Level::Func:
  case ir2vec::Level::Module: // refused before (runMirEmbeddings)
    Out += "Function vector: ";
    ir2vec::formatVector(Out, E.function(Odd), Precision);
    break;
  case ir2vec::Level::BB:
    Out += "Basic block vectors:\n";
    for (const llvm::MachineBasicBlock &MBB : MF) {
      Out += "MBB " + MBB.getName().str() + ": ";
      ir2vec::formatVector(Out, E.block(MBB, Odd), Precision);
    }
    break;
  case ir2vec::Level::Inst:
    Out += "Instruction vectors:\n";
    for (const llvm::MachineBasicBlock &MBB : MF)
      for (const llvm::MachineInstr &MI : MBB) {
        llvm::raw_string_ostream OS(Out);
        OS << MI << " -> ";
        ir2vec::formatVector(Out, E.instruction(MI, Odd), Precision);
      }
    break;
  }
}

llvm::Expected<support::Outcome> runMirEntities(const MirJob &J, const support::DiagnosticHandler &Report) {
  // The layout is the target's: read the input only for its target, compile nothing.
  std::string Text;
  if (llvm::Error E = recoverable(J, [&]() -> llvm::Error {
        if (J.Input.empty()) {
          auto TM = makeTargetMachine(J.Target);
          if (!TM)
            return TM.takeError();
          renderMirEntities(Text, MirLayout::of(**TM));
        } else if (isMirFile(J.Input)) {
          auto MM = MachineModule::read(J.Input, J.Target);
          if (!MM)
            return MM.takeError();
          renderMirEntities(Text, MirLayout::of((*MM)->target()));
        } else {
          llvm::LLVMContext Ctx;
          auto In = corpus::readModule(J.Input, Ctx);
          if (!In)
            return In.takeError();
          auto TM = targetFor(*In->M, J.Target);
          if (!TM)
            return support::fileError(J.Input, llvm::toString(TM.takeError()));
          renderMirEntities(Text, MirLayout::of(**TM));
        }
        return llvm::Error::success();
      }))
    return E;
  return writeText(J, Text);
}

llvm::Expected<support::Outcome> runMirTriplets(const MirJob &J, const support::DiagnosticHandler &Report) {
  std::optional<MirLayout> Layout;
  std::vector<MirTriplet> Ts;
  unsigned MaxRelation = MirNextRelation;
  MirOddities Odd;
  std::vector<std::string> Warnings;
  if (llvm::Error E = recoverable(J, [&] {
        return forEachMachineFunction(
            J,
            [&](const llvm::TargetMachine &TM) {
              Layout = MirLayout::of(TM);
              return llvm::Error::success();
            },
            [&](const llvm::MachineFunction &MF) { functionTriplets(*Layout, MF, Ts, MaxRelation, Odd); },
            Warnings);
      }))
    return E;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << "MAX_RELATION=" << MaxRelation << '\n';
  for (const MirTriplet &T : Ts)
    OS << T.Head << '\t' << T.Tail << '\t' << T.Relation << '\n';
  report(Report, Warnings, Odd, J.Input);
  return writeText(J, Text);
}

llvm::Expected<support::Outcome> runMirEmbeddings(const MirJob &J, const support::DiagnosticHandler &Report) {
  if (J.Level == ir2vec::Level::Module)
    return support::usageError("--mode=mir: --level module is not a level of MIR2Vec (inst, bb, func)");
  if (J.VocabPath.empty())
    return support::usageError("--mode=mir: name the MIR vocabulary with --mir2vec-vocab-path "
                               "(LLVM's MIR vocabulary JSON)");
  std::optional<MirVocabulary> V;
  std::string Text;
  MirOddities Odd;
  std::vector<std::string> Warnings;
  if (llvm::Error E = recoverable(J, [&] {
        return forEachMachineFunction(
          J,
          [&](const llvm::TargetMachine &TM) -> llvm::Error {
            auto R = MirVocabulary::read(J.VocabPath, MirLayout::of(TM), J.Weights);
            if (!R)
              return R.takeError();
            V = std::move(*R);
            for (const std::string &W : V->warnings(J.VocabPath))
              Report({Diagnostic::Warning, W});
            return llvm::Error::success();
          },
          [&](const llvm::MachineFunction &MF) { renderMirFunction(Text, MF, *V, J.Level, J.Precision, Odd); },
          Warnings);
      }))
    return E;
  report(Report, Warnings, Odd, J.Input);
  return writeText(J, Text);
}

} // namespace wb::mir
