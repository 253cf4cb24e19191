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
  for (const std::string &W : oddityWarnings(Odd, Input))
    Report({Diagnostic::Warning, W});
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
        if (J.Input.empty())
          return support::usageError("--mode=mir needs an input: a .mir file or an LLVM IR module");
        if (!isMirFile(J.Input))
          if (llvm::Error E = checkStopPoint(J.Stop))
            return E;
        llvm::LLVMContext Ctx;
        return visitMachineFunctions(
            J.Input, Ctx, J,
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

} // namespace wb::mir
