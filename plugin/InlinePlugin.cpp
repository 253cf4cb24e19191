// libir2vec-inline.so (issue 41): a workbench inliner policy inside the compiler, for builds
// without the interactive host. Loaded with `opt-22 -load-pass-plugin=` or
// `clang-22 -fpass-plugin=`, it registers LLVM 22's PluginInlineAdvisorAnalysis, so every
// inliner of the pipeline asks an MLInlineAdvisor: LLVM computes the very features it would send
// the host, and the policy (runners/Policies.h: the shipped `size` rule by default, or a
// rule/linear/mlp model file) answers in-process through runners::ModelRunner, the binding the
// host uses.
//
// Settings come from the environment, which reaches every compiler of a build unchanged
// (clang reads -mllvm options before it loads -fpass-plugin objects, so options the plugin
// registered would be refused); the table Settings below lists them. A setting that cannot be
// used is a compiler error naming it, before any decision. The shipped size rule is built into
// the runners (from its model file, at build time); model files and embeddings (HDF5,
// Armadillo) are the business of libir2vec-inline-models.so, loaded beside this object only
// when needed.
#include "features/Augment.h"
#include "features/FeatureSets.h"
#include "features/TrainingLog.h"
#include "runners/ModelRunner.h"
#include "runners/Policies.h"
#include "support/Error.h"
#include "support/Files.h"

#include "llvm-c/Core.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/IR2Vec.h"
#include "llvm/Analysis/InlineAdvisor.h"
#include "llvm/Analysis/InlineCost.h"
#include "llvm/Analysis/InlineModelFeatureMaps.h"
#include "llvm/Analysis/MLInlineAdvisor.h"
#include "llvm/Analysis/MLModelRunner.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ProfileSummaryInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/ADT/StringExtras.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace llvm;
namespace runners = wb::runners;
namespace features = wb::features;

/// The plugin's settings, as the environment gives them.
struct Settings {
  std::string Policy = "size", Model, Embeddings, Log;
};

/// One row per setting: its variable, where it goes, what it means (docs/size-policy.md).
struct SettingDef {
  const char *Variable;
  std::string Settings::*Field;
  const char *Meaning;
};
constexpr SettingDef SettingTable[] = {
    {"IR2VEC_INLINE_POLICY", &Settings::Policy,
     "a policy of `ir2vec mlgo policies` for the inliner (default: size)"},
    {"IR2VEC_INLINE_MODEL", &Settings::Model, "its model file (rule, linear, mlp)"},
    {"IR2VEC_INLINE_EMBEDDINGS", &Settings::Embeddings,
     "embedding features, as `mlgo run --embeddings`: `default` or a vocabulary file"},
    {"IR2VEC_INLINE_LOG", &Settings::Log,
     "write the decisions as `mlgo run --log` does (a directory: one log per module and "
     "process)"},
};

Settings settingsFromEnvironment() {
  Settings S;
  for (const SettingDef &D : SettingTable)
    if (const char *V = std::getenv(D.Variable); V && *V)
      S.*D.Field = V;
  return S;
}

/// A function of the companion object beside this one (dlopen: its HDF5 and Armadillo are
/// loaded only now).
template <typename Fn> Expected<Fn *> companion(const char *Symbol) {
  Dl_info Info;
  if (!::dladdr(reinterpret_cast<void *>(&companion<Fn>), &Info) || !Info.dli_fname)
    return wb::support::makeError("cannot tell where libir2vec-inline.so is");
  SmallString<256> Path(sys::path::parent_path(Info.dli_fname));
  sys::path::append(Path, "libir2vec-inline-models.so");
  void *H = ::dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H)
    return wb::support::makeError(Twine("cannot load the plugin's companion: ") + ::dlerror());
  auto *F = reinterpret_cast<Fn *>(::dlsym(H, Symbol));
  if (!F)
    return wb::support::makeError(Path + ": not the inliner plugin's companion (no " + Symbol +
                                  ")");
  return F;
}

using LoadModelFn = Expected<std::unique_ptr<runners::Policy>>(runners::Task,
                                                                const runners::PolicyOptions &);
using ResolveEmbeddingsFn = Expected<wb::ir2vec::EmbeddingChoice>(const std::string &);
using ModuleFeaturesFn = Expected<features::Augmentation>(const Module &,
                                                          const wb::ir2vec::EmbeddingChoice &);
using VocabularyPathFn = Expected<std::string>(const wb::ir2vec::EmbeddingChoice &);

/// The policy the settings name, as the host makes it (the shipped size rule is built into the
/// runners; model files are read by the companion).
Expected<std::unique_ptr<runners::Policy>> makePolicy(const Settings &S) {
  runners::PolicyOptions O;
  O.Name = S.Policy;
  O.ModelPath = S.Model;
  O.LoadModel = [](runners::Task T, const runners::PolicyOptions &O)
      -> Expected<std::unique_ptr<runners::Policy>> {
    Expected<LoadModelFn *> Load = companion<LoadModelFn>("ir2vecInlineLoadModel");
    if (!Load)
      return Load.takeError();
    return (*Load)(T, O);
  };
  // The runners' messages in the plugin's terms: its settings are environment variables.
  O.Say = {"IR2VEC_INLINE_POLICY", "IR2VEC_INLINE_MODEL", nullptr,
           "the plugin has no setting for one", '='};
  if (Error E = runners::checkPolicyOptions(runners::Task::Inline, O))
    return E;
  return runners::makePolicy(runners::Task::Inline, O);
}

/// Sets an LLVM option the compiler's command line did not set (false: it did, with another
/// value).
bool setOption(StringRef Name, StringRef Value) {
  cl::Option *O = cl::getRegisteredOptions().lookup(Name);
  if (!O)
    return true;
  if (O->getNumOccurrences())
    return false;
  O->addOccurrence(0, Name, Value);
  return true;
}

/// The LLVM options every host session of the inliner gives the compiler (features::TaskInfo's
/// SessionFlags: LLVM's advisor otherwise stops asking once the module has doubled), set here
/// the same way: an option the compiler's command line set keeps its value.
void applySessionFlags() {
  for (const char *Flag : features::taskInfo(runners::Task::Inline).SessionFlags) {
    auto [Name, Value] = StringRef(Flag).drop_while([](char C) { return C == '-'; }).split('=');
    setOption(Name, Value);
  }
}

/// LLVM's spec as the workbench's: the same fields, and the same types by the same names
/// (features::TensorType follows LLVM's list).
Expected<features::TensorSpec> workbenchSpec(const TensorSpec &S) {
  features::TensorSpec W;
  W.Name = S.name();
  W.Port = S.port();
  W.Shape = S.shape();
  switch (S.type()) {
#define WB_SAME_TYPE(C, E)                                                                       \
  case llvm::TensorType::E:                                                                      \
    W.Type = features::TensorType::E;                                                            \
    return W;
    SUPPORTED_TENSOR_TYPES(WB_SAME_TYPE)
#undef WB_SAME_TYPE
  default:
    return wb::support::makeError("the compiler's feature '" + S.name() +
                                  "' has a type the workbench does not know");
  }
}

/// The decisions of this compiler process as the host logs them (features::Log: the compiler's
/// features, the workbench's extras, the decision), written whole, atomically, each time an
/// advisor is done: a log on disk always holds every decision made so far, never part of one.
struct DecisionLog {
  std::string Path;
  features::Log L;

  Error write() const {
    return wb::support::writeFileAtomicallyChecked(
        Path, [&](raw_ostream &OS) { return features::writeLog(OS, L); });
  }
};

/// The log's file for module M: the setting itself (one compiler process: clang runs one per
/// source file), or in a directory one file per module and process, `ID.PID.log`: the module's
/// identifier (clang's source path) without its root, `.` and `..` parts, '/' as '_' (an
/// out-of-tree build's `../src/a.c` is `src_a.c`, not a hidden file); the process, because
/// builds compile a source more than once (libtool's PIC and non-PIC objects).
std::string logPathFor(const Settings &S, const Module &M) {
  if (!sys::fs::is_directory(S.Log))
    return S.Log;
  std::string Name;
  StringRef Id = sys::path::relative_path(M.getModuleIdentifier());
  for (auto I = sys::path::begin(Id), E = sys::path::end(Id); I != E; ++I)
    if (*I != "." && *I != "..")
      Name += (Name.empty() ? "" : "_") + I->str();
  if (Name.empty())
    Name = "module";
  // A file name has at most 255 bytes: a long path keeps its end (the file's own name) after a
  // hash of the whole, so that two long paths with the same end do not meet.
  constexpr size_t Keep = 200;
  if (Name.size() > Keep)
    Name = utohexstr(xxh3_64bits(Name)) + "_" + Name.substr(Name.size() - Keep);
  SmallString<256> P(S.Log);
  sys::path::append(P, Name + "." + Twine(sys::Process::getProcessId()) + ".log");
  return std::string(P);
}

/// An MLModelRunner over a workbench policy: the advisor fills one buffer per feature, evaluate
/// hands their bytes and the workbench's extras (the observation the host would have received)
/// to the policy.
class PolicyRunner : public MLModelRunner {
public:
  PolicyRunner(LLVMContext &Ctx, const std::vector<TensorSpec> &Inputs,
               features::Augmentation Extras, DecisionLog *Log)
      : MLModelRunner(Ctx, MLModelRunner::Kind::Release, Inputs.size()),
        ExtraBytes(Extras.Bytes ? Extras.Bytes("") : ""), ExtraSpecs(std::move(Extras.Specs)),
        Log(Log) {
    Buffers.reserve(Inputs.size());
    for (size_t I = 0; I < Inputs.size(); ++I) {
      Buffers.emplace_back(Inputs[I].getTotalTensorBufferSize(), '\0');
      setUpBufferForTensor(I, Inputs[I], Buffers.back().data());
      if (Inputs[I].name() == DefaultDecisionName)
        DefaultAt = int(I);
    }
  }

  ~PolicyRunner() override {
    if (Log)
      if (Error E = Log->write())
        Ctx.diagnose(DiagnosticInfoGeneric("ir2vec-inline: IR2VEC_INLINE_LOG=" + Log->Path +
                                           ": " + toString(std::move(E))));
  }

  /// Binds the policy to the features (an error names a feature it needs that is not sent).
  Error bind(std::unique_ptr<runners::Policy> P, const std::vector<TensorSpec> &Inputs) {
    std::vector<features::TensorSpec> Available;
    for (const TensorSpec &S : Inputs) {
      Expected<features::TensorSpec> W = workbenchSpec(S);
      if (!W)
        return W.takeError();
      Available.push_back(std::move(*W));
    }
    Available.insert(Available.end(), ExtraSpecs.begin(), ExtraSpecs.end());
    Expected<features::TensorSpec> Advice = workbenchSpec(InlineDecisionSpec);
    if (!Advice)
      return Advice.takeError();
    Expected<runners::ModelRunner> R =
        runners::ModelRunner::create(std::move(P), runners::Task::Inline, Available, *Advice, {});
    if (!R)
      return R.takeError();
    Runner.emplace(std::move(*R));
    if (Log) {
      // As the host logs it: the first advisor's features (every advisor of the process has
      // the same), and a context "" per advisor (each opens a channel, whose stream starts so).
      if (Log->L.Header.Features.empty()) {
        Log->L.Header.Features = Available;
        Log->L.Header.Features.push_back(*Advice);
      }
      Log->L.Contexts.push_back("");
      Log->L.ContextAt.push_back(Log->L.Observations.size());
    }
    return Error::success();
  }

  /// Where the heuristic's decision goes (-1: the advisor was given no such input).
  int DefaultAt = -1;
  int64_t *defaultDecision() { return reinterpret_cast<int64_t *>(Buffers[DefaultAt].data()); }

private:
  void *evaluateUntyped() override {
    if (!Runner) { // not bound: the error is reported; the heuristic decides meanwhile
      Answer.assign(reinterpret_cast<const char *>(defaultDecision()), sizeof(int64_t));
      return Answer.data();
    }
    Payload.clear();
    for (const std::string &B : Buffers)
      Payload += B;
    Payload += ExtraBytes;
    Expected<std::string> A = Runner->evaluate(Payload);
    if (!A) {
      Ctx.diagnose(DiagnosticInfoGeneric("ir2vec-inline: " + toString(A.takeError())));
      Answer.assign(reinterpret_cast<const char *>(defaultDecision()), sizeof(int64_t));
    } else {
      Answer = std::move(*A);
    }
    if (Log)
      Log->L.Observations.push_back(
          {"", int64_t(Log->L.Observations.size()), Payload + Answer, std::nullopt});
    return Answer.data();
  }

  std::vector<std::string> Buffers;
  std::string ExtraBytes;
  std::vector<features::TensorSpec> ExtraSpecs;
  DecisionLog *Log;
  std::string Payload, Answer;
  std::optional<runners::ModelRunner> Runner;
};

/// The heuristic's decision for CB, as LLVM's advisors compute the `inlining_default` feature
/// (InlineAdvisor.cpp's getDefaultInlineAdvice, which LLVM does not export).
bool heuristicInlines(CallBase &CB, FunctionAnalysisManager &FAM, const InlineParams &Params) {
  Function &Caller = *CB.getCaller();
  ProfileSummaryInfo *PSI = FAM.getResult<ModuleAnalysisManagerFunctionProxy>(Caller)
                                .getCachedResult<ProfileSummaryAnalysis>(*CB.getModule());
  auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(Caller);
  auto GetAC = [&](Function &F) -> AssumptionCache & { return FAM.getResult<AssumptionAnalysis>(F); };
  auto GetBFI = [&](Function &F) -> BlockFrequencyInfo & {
    return FAM.getResult<BlockFrequencyAnalysis>(F);
  };
  auto GetTLI = [&](Function &F) -> const TargetLibraryInfo & {
    return FAM.getResult<TargetLibraryAnalysis>(F);
  };
  Function &Callee = *CB.getCalledFunction();
  auto &CalleeTTI = FAM.getResult<TargetIRAnalysis>(Callee);
  auto GetInlineCost = [&](CallBase &Call) {
    const bool Remarks =
        Callee.getContext().getDiagHandlerPtr()->isMissedOptRemarkEnabled("inline");
    return getInlineCost(Call, Params, CalleeTTI, GetAC, GetTLI, GetBFI, PSI,
                         Remarks ? &ORE : nullptr);
  };
  return shouldInline(CB, CalleeTTI, GetInlineCost, ORE, Params.EnableDeferral.value_or(false))
      .has_value();
}

/// LLVM's ML advisor, with the heuristic's decision written where the policy reads it before
/// each question (LLVM's advisor sends it only over the interactive channel).
class PolicyAdvisor : public MLInlineAdvisor {
public:
  using MLInlineAdvisor::MLInlineAdvisor;

protected:
  std::unique_ptr<MLInlineAdvice> getAdviceFromModel(CallBase &CB,
                                                     OptimizationRemarkEmitter &ORE) override {
    auto &R = static_cast<PolicyRunner &>(*ModelRunner);
    *R.defaultDecision() = GetDefaultAdvice(CB);
    return MLInlineAdvisor::getAdviceFromModel(CB, ORE);
  }
};

/// What the plugin keeps for the compiler process: LLVM calls the plugin through plain
/// functions (the registration callback, the advisor factory), so this state is the one
/// place they share. clang and opt run one pipeline per process; a process that runs several
/// (one after another: LLVM's pipelines are not run concurrently in one process by clang, opt
/// or the linkers' LTO backends that load pass plugins) gets a fresh start for each.
struct Process {
  Settings S = settingsFromEnvironment();
  /// The pipeline's module analysis manager: MLInlineAdvisor needs it, and LLVM hands the
  /// advisor factory only the function analysis manager.
  ModuleAnalysisManager *MAM = nullptr;
  /// The workbench's embedding features of the module as the pipeline began (the host embeds
  /// the file the compiler reads), when they were computed then.
  const Module *Embedded = nullptr;
  std::optional<features::Augmentation> Extras;
  std::optional<DecisionLog> Log;
  /// The embeddings the settings name, resolved once per process (the file read once).
  wb::ir2vec::EmbeddingChoice Embeddings;
  /// The JSON vocabulary LLVM reads (-ir2vec-vocab-path), set once per process: "" until then.
  /// An anonymous in-memory file (memfd, read through /proc/self/fd): nothing to remove, and
  /// nothing left behind by a compiler that is killed.
  std::string VocabularyFile;
};
Process &process() {
  static Process P;
  return P;
}

/// The embeddings the settings name, resolved by the companion on first use.
Expected<const wb::ir2vec::EmbeddingChoice *> embeddings(Process &P) {
  if (!P.Embeddings) {
    Expected<ResolveEmbeddingsFn *> F =
        companion<ResolveEmbeddingsFn>("ir2vecInlineResolveEmbeddings");
    if (!F)
      return F.takeError();
    Expected<wb::ir2vec::EmbeddingChoice> E = (*F)(P.S.Embeddings);
    if (!E)
      return E.takeError();
    P.Embeddings = std::move(*E);
  }
  return &P.Embeddings;
}

/// The workbench's features of M (its module_embedding) with the chosen embeddings.
Expected<features::Augmentation> moduleFeatures(const Module &M, Process &P) {
  Expected<const wb::ir2vec::EmbeddingChoice *> E = embeddings(P);
  if (!E)
    return E.takeError();
  Expected<ModuleFeaturesFn *> F = companion<ModuleFeaturesFn>("ir2vecInlineModuleFeatures");
  if (!F)
    return F.takeError();
  return (*F)(M, **E);
}

/// Switches on LLVM's callee/caller_embedding with the chosen vocabulary, as the host does
/// (both options; LLVM 22 reads the vocabulary from -ir2vec-vocab-path), and has LLVM read it
/// now: the advisor uses the embeddings when the vocabulary analysis is cached.
Error loadCompilerVocabulary(Module &M, ModuleAnalysisManager &MAM, Process &P) {
  if (P.VocabularyFile.empty()) {
    Expected<const wb::ir2vec::EmbeddingChoice *> E = embeddings(P);
    if (!E)
      return E.takeError();
    Expected<VocabularyPathFn *> F = companion<VocabularyPathFn>("ir2vecInlineVocabularyPath");
    if (!F)
      return F.takeError();
    Expected<std::string> File = (*F)(**E);
    if (!File)
      return File.takeError();
    if (!setOption("ml-inliner-ir2vec-vocab-file", *File) || !setOption("ir2vec-vocab-path", *File))
      return wb::support::makeError(
          "the compiler's command line sets -ir2vec-vocab-path or -ml-inliner-ir2vec-vocab-file "
          "too: name the vocabulary once");
    P.VocabularyFile = *File;
  }
  MAM.getResult<IR2VecVocabAnalysis>(M);
  return Error::success();
}

/// Everything an advisor needs before its first decision; an error names the setting.
Expected<std::unique_ptr<runners::Policy>> prepare(Module &M, Process &P,
                                                   features::Augmentation &Extras) {
  Expected<std::unique_ptr<runners::Policy>> Policy = makePolicy(P.S);
  if (!Policy)
    return Policy.takeError(); // the runners name the policy or the file
  if (!P.S.Embeddings.empty()) {
    auto Named = [&](Error E) {
      return wb::support::prefixError("IR2VEC_INLINE_EMBEDDINGS=" + P.S.Embeddings, std::move(E));
    };
    // The workbench's features first: they read the vocabulary, and say what is wrong with it
    // in the setting's terms.
    if (P.Embedded == &M && P.Extras) {
      Extras = *P.Extras;
    } else {
      Expected<features::Augmentation> A = moduleFeatures(M, P);
      if (!A)
        return Named(A.takeError());
      Extras = std::move(*A);
    }
    if (Error E = loadCompilerVocabulary(M, *P.MAM, P))
      return Named(std::move(E));
  }
  // One log per file: the decisions of every advisor of the process go to the same log, as the
  // host's channel takes every compiler of a command; in a directory, each module has its own.
  if (!P.S.Log.empty()) {
    std::string Path = logPathFor(P.S, M);
    // Said before the work rather than after it: the log is written when the inliner is done.
    StringRef Dir = sys::path::parent_path(Path);
    if (Dir.empty())
      Dir = ".";
    if (!sys::fs::is_directory(Dir))
      return wb::support::makeError("IR2VEC_INLINE_LOG=" + P.S.Log + ": no directory " + Dir);
    if (::access(Dir.str().c_str(), W_OK) != 0)
      return wb::support::makeError("IR2VEC_INLINE_LOG=" + P.S.Log + ": cannot write in " + Dir +
                                    ": " + std::strerror(errno));
    if (!P.Log || P.Log->Path != Path)
      P.Log = DecisionLog{Path, {}};
  }
  return Policy;
}

InlineAdvisor *makeAdvisor(Module &M, FunctionAnalysisManager &FAM, InlineParams Params,
                           InlineContext IC) {
  Process &P = process();
  features::Augmentation Extras;
  Expected<std::unique_ptr<runners::Policy>> Policy = prepare(M, P, Extras);
  if (!Policy) {
    M.getContext().diagnose(
        DiagnosticInfoGeneric("ir2vec-inline: " + toString(Policy.takeError())));
    return nullptr;
  }
  auto Shared = std::make_shared<std::unique_ptr<runners::Policy>>(std::move(*Policy));
  DecisionLog *Log = P.Log ? &*P.Log : nullptr;
  return new PolicyAdvisor(
      M, *P.MAM,
      [&M, Shared, Extras, Log](const std::vector<TensorSpec> &Features)
          -> std::unique_ptr<MLModelRunner> {
        std::vector<TensorSpec> Inputs = Features;
        if (!llvm::any_of(Inputs, [](const TensorSpec &S) { return S.name() == DefaultDecisionName; }))
          Inputs.push_back(DefaultDecisionSpec);
        auto R = std::make_unique<PolicyRunner>(M.getContext(), Inputs, Extras, Log);
        if (Error E = R->bind(std::move(*Shared), Inputs))
          M.getContext().diagnose(DiagnosticInfoGeneric("ir2vec-inline: " + toString(std::move(E))));
        return R;
      },
      [&FAM, Params](CallBase &CB) { return heuristicInlines(CB, FAM, Params); });
}

/// The module's embedding features as the pipeline begins, before any pass changed it: what
/// the host computes from the file the compiler reads.
struct EmbedAtStart : PassInfoMixin<EmbedAtStart> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    Process &P = process();
    Expected<features::Augmentation> A = moduleFeatures(M, P);
    if (!A) { // reported when the advisor is made, which tries again
      consumeError(A.takeError());
      return PreservedAnalyses::all();
    }
    P.Embedded = &M;
    P.Extras = std::move(*A);
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

/// The optimisation level as the compiler's option spells it.
std::string levelName(OptimizationLevel L) {
  if (L.getSizeLevel() == 1)
    return "Os";
  if (L.getSizeLevel() == 2)
    return "Oz";
  return "O" + std::to_string(L.getSpeedupLevel());
}

/// What the host says of the level, said as the pipeline begins: at -O0 no inliner asks, and a
/// policy chosen at some levels is warned about at the others.
struct CheckLevel : PassInfoMixin<CheckLevel> {
  std::string Level;
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    const std::string &Policy = process().S.Policy;
    std::optional<std::string> W =
        Level == "O0" ? std::optional<std::string>("at -O0 no inliner runs: policy '" + Policy +
                                                   "' decides nothing")
                      : runners::unmeasuredLevelWarning(Policy, Level);
    if (W)
      M.getContext().diagnose(DiagnosticInfoGeneric("ir2vec-inline: " + *W, DS_Warning));
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

/// The LLVM that runs this process, when it is another than the one the plugin was built for
/// (LLVMGetVersion as the process resolves it, against the plugin's own: a compiler of another
/// LLVM finds its own first). A compiler that does not export LLVM's symbols cannot be told.
std::optional<std::string> foreignLLVM() {
  using GetVersionFn = void(unsigned *, unsigned *, unsigned *);
  auto *Theirs = reinterpret_cast<GetVersionFn *>(::dlsym(RTLD_DEFAULT, "LLVMGetVersion"));
  if (!Theirs || Theirs == &LLVMGetVersion)
    return std::nullopt;
  unsigned Major = 0, Minor = 0, Patch = 0;
  Theirs(&Major, &Minor, &Patch);
  if (Major == LLVM_VERSION_MAJOR && Minor == LLVM_VERSION_MINOR)
    return std::nullopt;
  return (Twine(Major) + "." + Twine(Minor) + "." + Twine(Patch)).str();
}

void registerCallbacks(PassBuilder &PB) {
  applySessionFlags();
  // A new pipeline, for a new module (clang runs one per source file of a command, in one
  // process): what was embedded belongs to the previous one.
  process().Embedded = nullptr;
  process().Extras.reset();
  PB.registerAnalysisRegistrationCallback([](ModuleAnalysisManager &MAM) {
    process().MAM = &MAM;
    MAM.registerPass([] { return PluginInlineAdvisorAnalysis(makeAdvisor); });
  });
  PB.registerPipelineStartEPCallback([](ModulePassManager &MPM, OptimizationLevel L) {
    MPM.addPass(CheckLevel{{}, levelName(L)});
    if (!process().S.Embeddings.empty())
      MPM.addPass(EmbedAtStart());
  });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK ::llvm::PassPluginLibraryInfo llvmGetPassPluginInfo() {
  // Loaded into another LLVM, the plugin's classes would not be the compiler's: it answers with
  // an API version no LLVM accepts, so that the compiler refuses it with LLVM's own message,
  // after this one says why.
  if (std::optional<std::string> Other = foreignLLVM()) {
    llvm::errs() << "ir2vec-inline: libir2vec-inline.so was built for LLVM " << LLVM_VERSION_MAJOR
                 << "." << LLVM_VERSION_MINOR << "; this compiler runs LLVM " << *Other
                 << ": rebuild the plugin against it\n";
    return {0, "ir2vec-inline", WB_VERSION, nullptr};
  }
  return {LLVM_PLUGIN_API_VERSION, "ir2vec-inline", WB_VERSION, registerCallbacks};
}
