#include "mir/MirCorpus.h"

#include "corpus/Batch.h"
#include "corpus/ModuleReader.h"
#include "support/Files.h"
#include "support/Inputs.h"

#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace wb::mir {

bool isMirFile(llvm::StringRef Path) { return Path == "-" || Path.ends_with(".mir"); }

llvm::Error visitMachineFunctions(const std::string &Path, llvm::LLVMContext &Ctx, const Lowering &L,
                                  llvm::function_ref<llvm::Error(const llvm::TargetMachine &)> OnTarget,
                                  llvm::function_ref<void(const llvm::MachineFunction &)> Each,
                                  std::vector<std::string> &Warnings,
                                  const std::optional<std::string> &Stdin) {
  if (isMirFile(Path)) {
    // Machine IR is past the optimiser: running on without it would give vectors the user did
    // not ask for (issue 37's hostile try: --opt-level O2 on a .mir was silently ignored).
    if (L.Opt)
      return support::fileError(Path, "machine IR is already optimised: --opt-level " +
                                          corpus::optLevelName(*L.Opt) +
                                          " runs LLVM's pipeline on LLVM IR inputs only");
    auto MM = Path == "-" && Stdin ? MachineModule::parse(*Stdin, Path, L.Target)
                                   : MachineModule::read(Path, L.Target);
    if (!MM)
      return MM.takeError();
    if (llvm::Error E = OnTarget((*MM)->target()))
      return E;
    for (const auto &[F, MF] : (*MM)->functions())
      if (MF)
        Each(*MF);
      else
        Warnings.push_back(("No MachineFunction for " + F->getName()).str());
    return llvm::Error::success();
  }
  auto In = corpus::readModule(Path, Ctx);
  if (!In)
    return In.takeError();
  Warnings.insert(Warnings.end(), In->Warnings.begin(), In->Warnings.end());
  auto TM = targetFor(*In->M, L.Target);
  if (!TM)
    return support::fileError(Path, llvm::toString(TM.takeError()));
  if (llvm::Error E = OnTarget(**TM))
    return E;
  if (L.Opt)
    if (llvm::Error E = corpus::runDefaultPipeline(*In->M, *L.Opt))
      return support::fileError(Path, "opt -" + corpus::optLevelName(*L.Opt) + ": " +
                                          llvm::toString(std::move(E)));
  if (llvm::Error E = compileToMachineIR(*In->M, **TM, L.Stop, Each))
    return support::fileError(Path, "code generation: " + llvm::toString(std::move(E)));
  return llvm::Error::success();
}

std::vector<std::string> oddityWarnings(const MirOddities &Odd, llvm::StringRef Input) {
  std::vector<std::string> W;
  if (Odd.ClasslessRegisters)
    W.push_back(llvm::formatv("{0}: {1} register operands have no register class (llvm-ir2vec-22 "
                              "crashes on them); they count as zero vectors, as in LLVM's later fix "
                              "(docs/mir2vec.md)",
                              Input, Odd.ClasslessRegisters)
                    .str());
  if (Odd.UnknownOperandKinds)
    W.push_back(llvm::formatv("{0}: {1} operands of a kind past LLVM 22's CommonOperands table (lane "
                              "masks; llvm-ir2vec-22 reads past its table); they count as zero vectors",
                              Input, Odd.UnknownOperandKinds)
                    .str());
  return W;
}

void appendMachineFunction(ir2vec::ModuleEmbedding &E, const llvm::MachineFunction &MF,
                           const MirVocabulary &V, const ir2vec::LevelSet &Levels, bool Text,
                           MirOddities &Odd) {
  const MirEmbedder Embedder(MF, V);
  // Each operand counted once, whatever the levels (every level met it again: an HDF5 file at
  // instruction level said three times as many).
  Odd += Embedder.oddities();
  MirOddities Again;
  const int64_t F = static_cast<int64_t>(E.FunctionNames.size());
  E.FunctionNames.push_back(MF.getName().str());
  auto Append = [](std::vector<double> &Rows, const std::vector<double> &Row) {
    Rows.insert(Rows.end(), Row.begin(), Row.end());
  };
  if (Levels.Functions)
    Append(E.FunctionVectors, Embedder.function(Again));
  for (const llvm::MachineBasicBlock &MBB : MF) {
    const int64_t Block = Levels.Blocks ? static_cast<int64_t>(E.BlockNames.size()) : -1;
    if (Levels.Blocks) {
      E.BlockNames.push_back(MBB.getName().str());
      E.BlockFunction.push_back(F);
      Append(E.BlockVectors, Embedder.block(MBB, Again));
    }
    if (!Levels.Instructions)
      continue;
    for (const llvm::MachineInstr &MI : MBB) {
      if (Text) {
        std::string S;
        llvm::raw_string_ostream(S) << MI;
        if (llvm::StringRef(S).ends_with("\n"))
          S.pop_back();
        E.InstTexts.push_back(std::move(S));
      }
      E.InstOpcode.push_back(V.Layout.opcodeEntity(MI.getOpcode()));
      E.InstFunction.push_back(F);
      E.InstBlock.push_back(Block);
      Append(E.InstVectors, Embedder.instruction(MI, Again));
    }
  }
}

llvm::Expected<std::optional<std::string>> bufferStdin(const std::vector<std::string> &Inputs) {
  if (!llvm::is_contained(Inputs, "-"))
    return std::nullopt;
  auto Buf = support::readInput("-", /*IsText=*/true);
  if (!Buf)
    return support::fileError("-", "cannot read standard input: " +
                                        support::readErrorMessage(Buf.getError()));
  return std::optional<std::string>((*Buf)->getBuffer().str());
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
runTarget(const MirRunOptions &O, const std::vector<std::string> &Inputs,
          const std::optional<std::string> &Stdin) {
  if (llvm::Error E = checkStopPoint(O.Stop))
    return E;
  if (!O.Target.Triple.empty())
    return makeTargetMachine(O.Target);
  // The first input that names a target: a broken one before it is the run's to report (it
  // fails when embedded, and the run goes on), not a reason to embed nothing.
  std::optional<std::string> FirstWhy;
  for (const std::string &Input : Inputs) {
    std::unique_ptr<llvm::TargetMachine> TM;
    llvm::Error Found = llvm::Error::success();
    llvm::consumeError(std::move(Found));
    std::optional<std::string> Crash = corpus::runRecoverable([&] {
      llvm::LLVMContext Ctx;
      std::vector<std::string> Ignored;
      Found = visitMachineFunctions(
          Input, Ctx, O,
          [&](const llvm::TargetMachine &T) -> llvm::Error {
            auto M = makeTargetMachine({T.getTargetTriple().str(), O.Target.CPU, O.Target.Features});
            if (!M)
              return M.takeError();
            TM = std::move(*M);
            // Only the target was wanted: stop before any code is generated.
            return support::makeError("target found");
          },
          [](const llvm::MachineFunction &) {}, Ignored, Stdin);
      if (TM)
        llvm::consumeError(std::move(Found));
    });
    if (TM)
      return TM;
    std::string Why = Crash ? llvm::toString(support::fileError(Input, *Crash))
                            : llvm::toString(std::move(Found));
    if (!FirstWhy)
      FirstWhy = Why;
  }
  // One input: its own error is the run's. Several: none could be read as far as its target.
  if (Inputs.size() == 1)
    return support::makeError(FirstWhy.value_or("no input"));
  return support::makeError("cannot tell the target of the run: none of its " +
                            std::to_string(Inputs.size()) + " inputs could be read (the first: " +
                            FirstWhy.value_or("none") + ")");
}

llvm::Error checkRunTarget(const llvm::TargetMachine &TM, const llvm::Target *RunTarget,
                           const std::string &RunTriple, const std::string &Path) {
  if (&TM.getTarget() == RunTarget)
    return llvm::Error::success();
  return support::fileError(Path, "its target is " + TM.getTargetTriple().str() +
                                      "; this run is for " + RunTriple +
                                      " (the first readable input's target, or --mtriple's): one target per "
                                      "run, as the vocabulary is laid out for it");
}

llvm::Expected<MirVocabulary> runVocabulary(const llvm::TargetMachine &TM, const std::string &VocabPath,
                                            MirWeights W, llvm::StringRef Option) {
  if (!VocabPath.empty())
    return MirVocabulary::read(VocabPath, MirLayout::of(TM), W);
  // The default covers only the entities its corpus showed: its missing keys are by design
  // (docs/mir2vec.md), not worth a warning on every run.
  if (!hasDefaultMirVocabulary(TM))
    return support::usageError("there is no default MIR vocabulary for " + TM.getTargetTriple().str() +
                               " (the default is x86-64's): name one with " + Option);
  return MirVocabulary::parse(defaultMirVocabularyJSON(), DefaultMirVocabularyName, MirLayout::of(TM), W);
}

llvm::Expected<ir2vec::ModuleEmbedding> machineFunctionVectors(const std::string &Path, MirStage Stage,
                                                              const TargetChoice &T,
                                                              const std::string &VocabPath) {
  ir2vec::ModuleEmbedding E;
  MirVocabulary V;
  MirOddities Odd;
  std::vector<std::string> Ignored; // the reader's notes; a session has nowhere to show them
  // A context per call, as code generation changes the module; LLVM's reader and code
  // generator crash on some inputs: recovered, the caller goes on.
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  llvm::Error Err = llvm::Error::success();
  llvm::consumeError(std::move(Err));
  std::optional<std::string> Crash = corpus::runRecoverable([&] {
    Err = visitMachineFunctions(
        Path, *Ctx, Lowering{T, std::nullopt, stopPointOf(Stage)},
        [&](const llvm::TargetMachine &TM) -> llvm::Error {
          auto R = runVocabulary(TM, VocabPath, MirWeights{}, "a MIR vocabulary");
          if (!R)
            return support::fileError(Path, llvm::toString(R.takeError()));
          V = std::move(*R);
          E.Dim = V.Dim;
          return llvm::Error::success();
        },
        [&](const llvm::MachineFunction &MF) {
          appendMachineFunction(E, MF, V, ir2vec::LevelSet{true, false, false}, false, Odd);
        },
        Ignored);
  });
  if (Crash) {
    (void)Ctx.release(); // as the crash left it: never destroyed (corpus::ContextSource)
    llvm::consumeError(std::move(Err));
    return support::fileError(Path, *Crash);
  }
  if (Err)
    return Err;
  return E;
}

llvm::Expected<std::unique_ptr<MirSource>> MirSource::create(const MirRunOptions &O,
                                                             const std::vector<std::string> &Inputs,
                                                             const support::DiagnosticHandler &Report) {
  std::unique_ptr<MirSource> S(new MirSource());
  S->Options = O;
  auto In = bufferStdin(Inputs);
  if (!In)
    return In.takeError();
  S->Stdin = std::move(*In);
  auto TM = runTarget(O, Inputs, S->Stdin);
  if (!TM)
    return TM.takeError();
  S->Triple = (*TM)->getTargetTriple().str();
  S->RunTarget = &(*TM)->getTarget();
  auto V = runVocabulary(**TM, O.VocabPath, O.Weights, O.VocabOption);
  if (!V)
    return V.takeError();
  S->Vocab = std::move(*V);
  if (O.VocabPath.empty()) {
    S->VocabSHA256 = support::sha256Hex(defaultMirVocabularyJSON());
  } else {
    for (const std::string &W : S->Vocab.warnings(O.VocabPath))
      Report({support::Diagnostic::Warning, W});
    auto Sum = support::sha256OfFile(O.VocabPath);
    if (!Sum)
      return Sum.takeError();
    S->VocabSHA256 = *Sum;
  }
  S->Source.Mode = ir2vec::IRMode::MIR;
  // Code generation changes the module and block names are printed: a fresh context per
  // module, names kept.
  S->Source.Policy = corpus::ContextPolicy{1, false};
  const MirSource *Self = S.get();
  S->Source.Embed = [Self](const std::string &Path, llvm::LLVMContext &Ctx, const ir2vec::LevelSet &L,
                           bool Text, const std::optional<std::string> &Function) {
    return Self->embed(Path, Ctx, L, Text, Function);
  };
  return S;
}

ir2vec::EmbeddedModule MirSource::embed(const std::string &Path, llvm::LLVMContext &Ctx,
                                        const ir2vec::LevelSet &Levels, bool Text,
                                        const std::optional<std::string> &Function) const {
  ir2vec::EmbeddedModule O;
  ir2vec::ModuleEmbedding &E = O.E;
  E.Dim = Vocab.Dim;
  MirOddities Odd;
  bool Seen = false;
  llvm::Error Err = visitMachineFunctions(
      Path, Ctx, Options,
      [&](const llvm::TargetMachine &TM) { return checkRunTarget(TM, RunTarget, Triple, Path); },
      [&](const llvm::MachineFunction &MF) {
        if (Function && MF.getName() != *Function)
          return;
        Seen = true;
        appendMachineFunction(E, MF, Vocab, Levels, Text, Odd);
      },
      O.Warnings, Stdin);
  if (Err) {
    O.Error = llvm::toString(std::move(Err));
    O.E = ir2vec::ModuleEmbedding();
    return O;
  }
  if (Levels.Functions)
    E.ModuleVector = ir2vec::moduleVector(E.FunctionVectors, E.Dim);
  E.SelectedNotFound = Function && !Seen;
  // Registers without a class are in every x86 call and floating-point function: counting them
  // as zero vectors is LLVM's own later behaviour (docs/mir2vec.md), not worth a warning per
  // module. Operands past LLVM's table are rare and still said.
  Odd.ClasslessRegisters = 0;
  for (std::string &W : oddityWarnings(Odd, Path))
    O.Warnings.push_back(std::move(W));
  return O;
}

ir2vec::FileHeader MirSource::header(ir2vec::Level L) const {
  ir2vec::FileHeader H;
  H.Mode = ir2vec::IRMode::MIR;
  H.Target = Triple;
  H.CPU = Options.Target.CPU;
  H.Features = Options.Target.Features;
  H.Opt = Options.Opt;
  H.Stage = Options.Stop.describe();
  H.Granularity = L;
  H.Dimension = Vocab.Dim;
  H.W = vocab::Weights{Options.Weights.Opcode, Options.Weights.CommonOperand, Options.Weights.Register};
  H.VocabSHA256 = VocabSHA256;
  for (unsigned Id = 0; Id < Vocab.Layout.size(); ++Id)
    H.EntityNames.push_back(Vocab.Layout.entityName(Id));
  return H;
}

} // namespace wb::mir
