#include "corpus/OptPipeline.h"

#include "support/Error.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <array>
#include <memory>
#include <mutex>

namespace wb::corpus {
namespace {

struct LevelName {
  OptLevel Level;
  llvm::StringRef Name;
};
constexpr std::array<LevelName, 6> Levels = {{{OptLevel::O0, "O0"},
                                              {OptLevel::O1, "O1"},
                                              {OptLevel::O2, "O2"},
                                              {OptLevel::O3, "O3"},
                                              {OptLevel::Os, "Os"},
                                              {OptLevel::Oz, "Oz"}}};

llvm::OptimizationLevel passBuilderLevel(OptLevel L) {
  switch (L) {
  case OptLevel::O0: return llvm::OptimizationLevel::O0;
  case OptLevel::O1: return llvm::OptimizationLevel::O1;
  case OptLevel::O2: return llvm::OptimizationLevel::O2;
  case OptLevel::O3: return llvm::OptimizationLevel::O3;
  case OptLevel::Os: return llvm::OptimizationLevel::Os;
  case OptLevel::Oz: return llvm::OptimizationLevel::Oz;
  }
  return llvm::OptimizationLevel::O0;
}

// Target registration is process-wide and idempotent, but not thread-safe on first use.
void initialiseTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
  });
}

// The code generation level opt-22 gives its TargetMachine for -O<x> (opt.cpp,
// GetCodeGenOptLevel): -Os and -Oz leave it at None. Some cost models read it, so the
// pipelines only decide as opt's do with the same value.
llvm::CodeGenOptLevel codeGenLevel(OptLevel L) {
  switch (L) {
  case OptLevel::O1: return llvm::CodeGenOptLevel::Less;
  case OptLevel::O2: return llvm::CodeGenOptLevel::Default;
  case OptLevel::O3: return llvm::CodeGenOptLevel::Aggressive;
  case OptLevel::O0:
  case OptLevel::Os:
  case OptLevel::Oz: return llvm::CodeGenOptLevel::None;
  }
  return llvm::CodeGenOptLevel::None;
}

} // namespace

llvm::Expected<OptLevel> parseOptLevel(llvm::StringRef Text) {
  for (const LevelName &L : Levels)
    if (Text == L.Name || Text == L.Name.drop_front())
      return L.Level;
  return support::makeError("unknown optimisation level '" + Text +
                            "' (expected O0, O1, O2, O3, Os or Oz)");
}

llvm::Expected<std::vector<OptLevel>> parseOptLevels(llvm::StringRef CommaList) {
  std::vector<OptLevel> Out;
  llvm::SmallVector<llvm::StringRef, 6> Parts;
  CommaList.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef P : Parts) {
    auto L = parseOptLevel(P.trim());
    if (!L)
      return L.takeError();
    if (std::find(Out.begin(), Out.end(), *L) == Out.end())
      Out.push_back(*L);
  }
  if (Out.empty())
    return support::makeError("no optimisation levels in '" + CommaList + "'");
  return Out;
}

llvm::StringRef optLevelName(OptLevel L) { return Levels[static_cast<size_t>(L)].Name; }

llvm::Expected<std::optional<OptLevel>> parseOptChoice(llvm::StringRef Text) {
  if (Text == NoOptLevel)
    return std::nullopt;
  auto L = parseOptLevel(Text);
  if (!L)
    return support::makeError("unknown optimisation level '" + Text +
                              "' (expected none, O0, O1, O2, O3, Os or Oz)");
  return std::optional<OptLevel>(*L);
}

std::string optChoiceName(const std::optional<OptLevel> &L) {
  return L ? optLevelName(*L).str() : std::string(NoOptLevel);
}

llvm::Error runDefaultPipeline(llvm::Module &M, OptLevel L) {
  initialiseTargets();
  // opt creates a TargetMachine for the module's triple (CPU and features come from the
  // functions' attributes), so the cost models see the real target.
  std::unique_ptr<llvm::TargetMachine> TM;
  if (!M.getTargetTriple().empty()) {
    std::string Err;
    const llvm::Target *T = llvm::TargetRegistry::lookupTarget(M.getTargetTriple(), Err);
    if (!T)
      return support::makeError("no target for triple '" + M.getTargetTriple().str() +
                                "': " + Err);
    TM.reset(T->createTargetMachine(M.getTargetTriple(), "", "", llvm::TargetOptions(),
                                    std::nullopt, std::nullopt, codeGenLevel(L)));
  }
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  const llvm::OptimizationLevel Level = passBuilderLevel(L);
  // opt (and clang) vectorise loops and straight-line code only at -O2, -O3 and -Os; the
  // PassBuilder's own defaults would vectorise loops at -O1 and -Oz and never run SLP.
  llvm::PipelineTuningOptions PTO;
  PTO.LoopVectorization = PTO.SLPVectorization =
      Level.getSpeedupLevel() > 1 && Level.getSizeLevel() < 2;
  // opt registers the standard instrumentations, among them the one that skips every pass on
  // optnone functions (all of clang -O0's output): without it they were optimised, unlike opt's
  // (issue 37's hostile try).
  llvm::PassInstrumentationCallbacks PIC;
  llvm::StandardInstrumentations SI(M.getContext(), /*DebugLogging=*/false);
  SI.registerCallbacks(PIC, &MAM);
  llvm::PassBuilder PB(TM.get(), PTO, std::nullopt, &PIC);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  llvm::ModulePassManager MPM = Level == llvm::OptimizationLevel::O0
                                    ? PB.buildO0DefaultPipeline(Level)
                                    : PB.buildPerModuleDefaultPipeline(Level);
  MPM.run(M, MAM);
  return llvm::Error::success();
}

} // namespace wb::corpus
