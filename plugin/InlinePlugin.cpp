// libir2vec-inline.so (issue 41): a workbench inliner policy inside the compiler, for builds
// without the interactive host. Loaded with `opt-22 -load-pass-plugin=` or
// `clang-22 -fpass-plugin=`, it registers LLVM 22's PluginInlineAdvisorAnalysis, so every
// inliner of the pipeline asks an MLInlineAdvisor: LLVM computes the very features it would send
// the host, and the policy (runners/Policies.h: the shipped `size` rule by default, or a
// rule/linear/mlp model file) answers in-process through runners::ModelRunner, the binding the
// host uses.
//
// Settings come from the environment, which reaches every compiler of a build unchanged:
//   IR2VEC_INLINE_POLICY  a policy of `ir2vec mlgo policies` for the inliner (default: size)
//   IR2VEC_INLINE_MODEL   its model file (rule, linear, mlp)
// A policy or model that cannot be made is a compiler error naming it, before any decision.
// The shipped size rule is built in (ShippedSizeRule.cpp, from its model file); other model
// files are read by libir2vec-inline-models.so, loaded beside this object when one is named.
#include "features/FeatureSets.h"
#include "runners/ModelRunner.h"
#include "runners/Policies.h"
#include "support/Error.h"

#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/InlineAdvisor.h"
#include "llvm/Analysis/InlineCost.h"
#include "llvm/Analysis/InlineModelFeatureMaps.h"
#include "llvm/Analysis/MLInlineAdvisor.h"
#include "llvm/Analysis/MLModelRunner.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ProfileSummaryInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <string>
#include <vector>

namespace wb::plugin {
extern const char ShippedSizeRule[];
} // namespace wb::plugin

namespace {

using namespace llvm;
namespace runners = wb::runners;
namespace features = wb::features;

/// PolicyOptions::LoadModel through the companion object beside this one (dlopen: its HDF5
/// and Armadillo are loaded only now).
Expected<std::unique_ptr<runners::Policy>> loadWithCompanion(runners::Task T,
                                                             const runners::PolicyOptions &O) {
  Dl_info Info;
  if (!::dladdr(reinterpret_cast<void *>(&loadWithCompanion), &Info) || !Info.dli_fname)
    return wb::support::makeError("cannot tell where libir2vec-inline.so is");
  SmallString<256> Path(sys::path::parent_path(Info.dli_fname));
  sys::path::append(Path, "libir2vec-inline-models.so");
  void *H = ::dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H)
    return wb::support::makeError(Twine("cannot load the model reader: ") + ::dlerror());
  using LoadFn = Expected<std::unique_ptr<runners::Policy>> (*)(runners::Task,
                                                                const runners::PolicyOptions &);
  auto Load = reinterpret_cast<LoadFn>(::dlsym(H, "ir2vecInlineLoadModel"));
  if (!Load)
    return wb::support::makeError(Path + ": not the inliner plugin's model reader");
  return Load(T, O);
}

/// The policy the environment names: the shipped size rule as built in when no model file is
/// named, anything else as the host makes it.
Expected<std::unique_ptr<runners::Policy>> policyFromEnvironment(std::string &Name) {
  runners::PolicyOptions O;
  const char *Policy = std::getenv("IR2VEC_INLINE_POLICY");
  const char *Model = std::getenv("IR2VEC_INLINE_MODEL");
  O.Name = Name = Policy && *Policy ? Policy : "size";
  O.ModelPath = Model ? Model : "";
  O.LoadModel = loadWithCompanion;
  if (O.Name == "size" && O.ModelPath.empty()) {
    Expected<json::Value> J = json::parse(wb::plugin::ShippedSizeRule);
    if (!J)
      return J.takeError();
    Expected<runners::InlineRule> R = runners::InlineRule::fromJSON(*J);
    if (!R)
      return R.takeError();
    return runners::makeRulePolicy(*R);
  }
  return runners::makePolicy(runners::Task::Inline, O);
}

/// The LLVM options every host session of the inliner gives the compiler (features::TaskInfo's
/// SessionFlags: LLVM's advisor otherwise stops asking once the module has doubled), set here
/// the same way: an option the compiler's command line set keeps its value.
void applySessionFlags() {
  auto Registered = cl::getRegisteredOptions();
  for (const char *Flag : features::taskInfo(runners::Task::Inline).SessionFlags) {
    auto [Name, Value] = StringRef(Flag).drop_while([](char C) { return C == '-'; }).split('=');
    cl::Option *O = Registered.lookup(Name);
    if (O && !O->getNumOccurrences())
      O->addOccurrence(0, Name, Value);
  }
}

/// LLVM's spec as the workbench's (the same JSON form: features::tensorSpecFromJSON reads what
/// TensorSpec::toJSON writes).
Expected<features::TensorSpec> workbenchSpec(const TensorSpec &S) {
  std::string Text;
  raw_string_ostream OS(Text);
  {
    json::OStream J(OS);
    S.toJSON(J);
  }
  Expected<json::Value> V = json::parse(Text);
  if (!V)
    return V.takeError();
  return features::tensorSpecFromJSON(*V, S.name());
}

/// An MLModelRunner over a workbench policy: the advisor fills one buffer per feature, evaluate
/// hands their bytes (the observation the host would have received) to the policy.
class PolicyRunner : public MLModelRunner {
public:
  PolicyRunner(LLVMContext &Ctx, const std::vector<TensorSpec> &Inputs)
      : MLModelRunner(Ctx, MLModelRunner::Kind::Release, Inputs.size()) {
    Buffers.reserve(Inputs.size());
    for (size_t I = 0; I < Inputs.size(); ++I) {
      Buffers.emplace_back(Inputs[I].getTotalTensorBufferSize(), '\0');
      setUpBufferForTensor(I, Inputs[I], Buffers.back().data());
      if (Inputs[I].name() == DefaultDecisionName)
        DefaultAt = int(I);
    }
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
    Expected<features::TensorSpec> Advice = workbenchSpec(InlineDecisionSpec);
    if (!Advice)
      return Advice.takeError();
    Expected<runners::ModelRunner> R =
        runners::ModelRunner::create(std::move(P), runners::Task::Inline, Available, *Advice, {});
    if (!R)
      return R.takeError();
    Runner.emplace(std::move(*R));
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
    Expected<std::string> A = Runner->evaluate(Payload);
    if (!A) {
      Ctx.diagnose(DiagnosticInfoGeneric("ir2vec-inline: " + toString(A.takeError())));
      Answer.assign(reinterpret_cast<const char *>(defaultDecision()), sizeof(int64_t));
    } else {
      Answer = std::move(*A);
    }
    return Answer.data();
  }

  std::vector<std::string> Buffers;
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

/// The module analysis manager of the pipeline: MLInlineAdvisor needs it, and LLVM hands the
/// advisor factory (a plain function) only the function analysis manager. One pipeline per
/// compiler process is how clang and opt run.
ModuleAnalysisManager *PipelineMAM = nullptr;

InlineAdvisor *makeAdvisor(Module &M, FunctionAnalysisManager &FAM, InlineParams Params,
                           InlineContext IC) {
  // The policy first: a name or model that cannot be made stops the compiler, named.
  std::string Name;
  Expected<std::unique_ptr<runners::Policy>> P = policyFromEnvironment(Name);
  if (!P) {
    M.getContext().diagnose(DiagnosticInfoGeneric("ir2vec-inline: policy '" + Name +
                                                  "': " + toString(P.takeError())));
    return nullptr;
  }
  auto Policy = std::make_shared<std::unique_ptr<runners::Policy>>(std::move(*P));
  return new PolicyAdvisor(
      M, *PipelineMAM,
      [&M, Policy](const std::vector<TensorSpec> &Features) -> std::unique_ptr<MLModelRunner> {
        std::vector<TensorSpec> Inputs = Features;
        if (!llvm::any_of(Inputs, [](const TensorSpec &S) { return S.name() == DefaultDecisionName; }))
          Inputs.push_back(DefaultDecisionSpec);
        auto R = std::make_unique<PolicyRunner>(M.getContext(), Inputs);
        if (Error E = R->bind(std::move(*Policy), Inputs))
          M.getContext().diagnose(DiagnosticInfoGeneric("ir2vec-inline: " + toString(std::move(E))));
        return R;
      },
      [&FAM, Params](CallBase &CB) { return heuristicInlines(CB, FAM, Params); });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK ::llvm::PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ir2vec-inline", WB_VERSION, [](PassBuilder &PB) {
            applySessionFlags();
            PB.registerAnalysisRegistrationCallback([](ModuleAnalysisManager &MAM) {
              PipelineMAM = &MAM;
              MAM.registerPass([] { return PluginInlineAdvisorAnalysis(makeAdvisor); });
            });
          }};
}
