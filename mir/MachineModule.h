// Machine IR in memory: a `.mir` file parsed by LLVM's own MIR parser into its IR module, the
// target machine it names and its machine functions. Errors are values: LLVM's MIR parser
// reports through the context's diagnostic handler, whose default ends the process on an
// error; here they are collected and returned, naming the file.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Function;
class LLVMContext;
class MachineFunction;
class MachineModuleInfo;
class MCInstrInfo;
class MCRegisterInfo;
class Module;
class TargetMachine;
} // namespace llvm

namespace wb::mir {

/// What to compile for when the input does not say (a .mir file without a triple) or when there
/// is no input (`entities`): llc's -mtriple, -mcpu, -mattr. An empty triple means the input's,
/// else the host's default, as llvm-ir2vec does.
struct TargetChoice {
  std::string Triple, CPU, Features;
  /// The CPU as llc-22 reads -mcpu (codegen::getCPUStr): "native" is the host's.
  std::string llcCPU() const;
};

/// Keeps LLVM's error diagnostics as one line each, "; "-separated, instead of printing them and
/// ending the process (LLVMContext's default for DS_Error is exit(1)).
struct CollectingHandler : llvm::DiagnosticHandler {
  explicit CollectingHandler(std::string &Errors) : Errors(Errors) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo &DI) override;
  std::string &Errors;
};

/// Registers every target Debian's LLVM 22 was built with and the code generator's passes, as
/// llc does (once per process; LLVM's registries).
void initializeTargets();

/// A target machine for Triple (or the host's default when empty).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> makeTargetMachine(const TargetChoice &T);

class MachineModule {
public:
  /// Parses the MIR text of Buffer (copied); Name names it in errors.
  static llvm::Expected<std::unique_ptr<MachineModule>> parse(llvm::StringRef Buffer, llvm::StringRef Name,
                                                              const TargetChoice &T);
  /// Reads and parses a .mir file ("-" = standard input).
  static llvm::Expected<std::unique_ptr<MachineModule>> read(const std::string &Path, const TargetChoice &T);
  ~MachineModule();

  llvm::Module &module() { return *M; }
  const llvm::TargetMachine &target() const { return *TM; }
  /// The defined functions in module order, each with its machine function (null when the
  /// file has none for it).
  std::vector<std::pair<const llvm::Function *, const llvm::MachineFunction *>> functions() const;
  /// The machine function of the IR function named Name, or an error naming what is missing
  /// (llvm-ir2vec's messages: "Function 'X' not found", "No MachineFunction for X").
  llvm::Expected<const llvm::MachineFunction *> function(llvm::StringRef Name) const;

private:
  MachineModule();
  std::unique_ptr<llvm::LLVMContext> Ctx; // first: outlives everything below
  std::unique_ptr<llvm::TargetMachine> TM;
  std::unique_ptr<llvm::Module> M;
  std::unique_ptr<llvm::MachineModuleInfo> MMI;
};

} // namespace wb::mir
