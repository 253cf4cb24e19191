#include "features/FeatureSets.h"

#include "support/JSON.h"
#include "support/Error.h"
#include "support/Files.h"

#include "llvm/Analysis/InlineModelFeatureMaps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <set>

namespace wb::features {

namespace {

using TT = TensorType;
const std::vector<int64_t> Scalar{1};
const std::vector<int64_t> Row33{1, 33};
const std::vector<int64_t> VecD{DimD};
const std::vector<int64_t> VecM{DimM};

// Inliner: what MLInlineAdvisor::getInitialFeatureMap() sends in LLVM 22, generated from LLVM's
// own lists (llvm/Analysis/InlineModelFeatureMaps.h: names, types, shapes, doc strings in
// order): the 25 InlineCost features, then the 13 call-site and function features. Then the
// optional extras in the order LLVM appends them, and the workbench's own.
TaskInfo makeInline() {
  TaskInfo T{Task::Inline,
             "inline",
             {},
             {{"cost", "the 25 InlineCost features (LLVM's INLINE_COST_FEATURE_ITERATOR): the "
                       "heuristic's cost model, some of it needing loop analyses"},
              {"callgraph", "the 13 call-site and function features (INLINE_FEATURE_ITERATOR): "
                            "sizes, uses, call-graph position, the cost estimate"},
              {"heuristic", "the default heuristic's decision"},
              {"embedding", "the compiler's IR2Vec embeddings of the callee and the caller"},
              {"module", "the workbench's IR2Vec embedding of the whole module"}},
             {"inlining_decision", TT::Int64, 0, Scalar},
             "-enable-ml-inliner=release",
             "-inliner-interactive-channel-base=",
             // The default heuristic's decision is a feature: the default policy answers it.
             {"-inliner-interactive-include-default",
              // LLVM's ML advisor stops inlining altogether, without asking the policy, once
              // the module has grown past this factor of its size (MLInlineAdvisor's ForceStop,
              // default 2.0): the default policy then gave smaller code than plain clang++ -O2
              // (tinyobjloader: 89,299 against 97,406 bytes of .text) and the session could not
              // tell. The policy decides every call site; a command that sets the option keeps
              // its own (docs/mlgo.md).
              "-ml-advisor-size-increase-threshold=inf"}};
#define WB_LLVM_FEATURE(Group, Type, Shape, Name, Doc)                                           \
  T.Features.push_back({#Name, TensorTypeOf<Type>::Value, std::vector<int64_t> Shape,           \
                        Origin::Compiler, Group, Doc});
#define WB_COST_FEATURE(Type, Shape, Name, Doc) WB_LLVM_FEATURE("cost", Type, Shape, Name, Doc)
#define WB_CALL_FEATURE(Type, Shape, Name, Doc) WB_LLVM_FEATURE("callgraph", Type, Shape, Name, Doc)
  INLINE_COST_FEATURE_ITERATOR(WB_COST_FEATURE)
  INLINE_FEATURE_ITERATOR(WB_CALL_FEATURE)
#undef WB_CALL_FEATURE
#undef WB_COST_FEATURE
#undef WB_LLVM_FEATURE
  T.Features.push_back({"callee_embedding", TT::Float, VecD, Origin::CompilerOptional, "embedding",
                        "symbolic IR2Vec vector of the callee at decision time, computed by "
                        "the compiler (--embeddings)"});
  T.Features.push_back({"caller_embedding", TT::Float, VecD, Origin::CompilerOptional, "embedding",
                        "symbolic IR2Vec vector of the caller at decision time, computed by "
                        "the compiler (--embeddings)"});
  T.Features.push_back({"inlining_default", TT::Int64, Scalar, Origin::CompilerOptional, "heuristic",
                        "the default heuristic's decision (1 = inline); always requested by "
                        "the host"});
  T.Features.push_back({"module_embedding", TT::Float, VecD, Origin::Workbench, "module",
                        "symbolic IR2Vec vector of the whole input module (sum of its "
                        "defined functions' vectors) before any pass, computed by the "
                        "workbench from the input file (--embeddings); the same in every "
                        "observation of a session"});
  return T;
}

// The workbench's embeddings of the function being allocated, for both register-allocation
// tasks (the context of an observation names the machine function).
void addFunctionEmbeddings(TaskInfo &T) {
  T.Groups.push_back({"embedding", "the workbench's IR2Vec embedding of the function"});
  T.Groups.push_back({"machine", "the workbench's MIR2Vec embedding of the function's machine IR "
                                 "before register allocation"});
  T.Features.push_back({"function_embedding", TT::Float, VecD, Origin::Workbench, "embedding",
                        "symbolic IR2Vec vector of the function being allocated (the "
                        "context's name), computed by the workbench from the IR given to the "
                        "compiler, before codegen (--embeddings); zero when the context names "
                        "no defined function of that IR"});
  T.Features.push_back({"machine_function_embedding", TT::Float, VecM, Origin::Workbench,
                        "machine",
                        "symbolic MIR2Vec vector of the function being allocated, computed by "
                        "the workbench from the same IR taken by llc-22 -O2 to the point "
                        "before the greedy allocator (--embeddings; the default MIR "
                        "vocabulary, x86-64); zero when the context names no machine function "
                        "of that IR"});
}

// Regalloc eviction: RA_EVICT_FEATURES_LIST of LLVM 22's MLRegAllocEvictAdvisor.cpp.
TaskInfo makeEvict() {
  TaskInfo T{Task::Evict,
             "evict",
             {},
             {{"register", "the 20 per-candidate features and the queue progress"}},
             {"index_to_evict", TT::Int64, 0, Scalar},
             "-regalloc-enable-advisor=release",
             "-regalloc-evict-interactive-channel-base="};
  auto Col = [&](const char *N, TT Ty, const char *Doc) {
    T.Features.push_back({N, Ty, Row33, Origin::Compiler, "register", Doc});
  };
  Col("mask", TT::Int64, "1 = legal choice (32 candidate registers, column 32 = no eviction)");
  Col("is_free", TT::Int64, "physical register has no interference");
  Col("nr_urgent", TT::Float, "urgent evictions (normalised by the row maximum)");
  Col("nr_broken_hints", TT::Float, "broken hints (normalised)");
  Col("is_hint", TT::Int64, "register is a hint");
  Col("is_local", TT::Int64, "interference is local to a block");
  Col("nr_rematerializable", TT::Float, "rematerializable live ranges (normalised)");
  Col("nr_defs_and_uses", TT::Float, "defs and uses (normalised)");
  Col("weighed_reads_by_max", TT::Float, "weighted reads (normalised)");
  Col("weighed_writes_by_max", TT::Float, "weighted writes (normalised)");
  Col("weighed_read_writes_by_max", TT::Float, "weighted read-writes (normalised)");
  Col("weighed_indvars_by_max", TT::Float, "weighted induction variables (normalised)");
  Col("hint_weights_by_max", TT::Float, "hint weights (normalised)");
  Col("start_bb_freq_by_max", TT::Float, "start block frequency (normalised)");
  Col("end_bb_freq_by_max", TT::Float, "end block frequency (normalised)");
  Col("hottest_bb_freq_by_max", TT::Float, "hottest block frequency (normalised)");
  Col("liverange_size", TT::Float, "live range size (normalised)");
  Col("use_def_density", TT::Float, "max live interval weight (normalised)");
  Col("max_stage", TT::Int64, "maximum allocation stage");
  Col("min_stage", TT::Int64, "minimum allocation stage");
  T.Features.push_back({"progress", TT::Float, Scalar, Origin::Compiler, "register",
                        "queue size / initial queue size"});
  addFunctionEmbeddings(T);
  return T;
}

TaskInfo makePriority() {
  TaskInfo T{Task::Priority,
             "priority",
             {},
             {{"interval", "the live interval's size, stage and weight"}},
             {"priority", TT::Float, 0, Scalar},
             "-regalloc-enable-priority-advisor=release",
             "-regalloc-priority-interactive-channel-base="};
  for (auto [N, Ty, Doc] : {std::tuple{"li_size", TT::Int64, "live interval size"},
                            {"stage", TT::Int64, "allocation stage"},
                            {"weight", TT::Float, "live interval weight"}})
    T.Features.push_back({N, Ty, Scalar, Origin::Compiler, "interval", Doc});
  addFunctionEmbeddings(T);
  return T;
}

llvm::Error featureError(const TaskInfo &T, const llvm::Twine &What) {
  return support::makeError(llvm::Twine("feature set of task '") + T.Name + "': " + What);
}

const char *originName(Origin O) {
  switch (O) {
  case Origin::Compiler:
    return "compiler";
  case Origin::CompilerOptional:
    return "compiler, optional";
  case Origin::Workbench:
    return "workbench";
  }
  return "";
}

} // namespace

const TaskInfo &taskInfo(Task T) {
  static const TaskInfo Inline = makeInline(), Evict = makeEvict(), Priority = makePriority();
  switch (T) {
  case Task::Inline:
    return Inline;
  case Task::Evict:
    return Evict;
  case Task::Priority:
    return Priority;
  }
  return Inline;
}

std::optional<Task> taskFromName(llvm::StringRef Name) {
  for (Task T : {Task::Inline, Task::Evict, Task::Priority})
    if (Name == taskInfo(T).Name)
      return T;
  return std::nullopt;
}

std::vector<std::string> taskNames() {
  std::vector<std::string> Out;
  for (Task T : {Task::Inline, Task::Evict, Task::Priority})
    Out.push_back(taskInfo(T).Name);
  return Out;
}

llvm::Expected<Task> parseTask(llvm::StringRef Name) {
  if (std::optional<Task> T = taskFromName(Name))
    return *T;
  return support::usageError("unknown task '" + Name + "' (expected inline, evict or priority)");
}

TensorSpec specOf(const FeatureDef &D, unsigned Dim, unsigned MirDim) {
  TensorSpec S{D.Name, D.Type, 0, D.Shape};
  for (int64_t &X : S.Shape)
    if (X == DimD)
      X = Dim;
    else if (X == DimM)
      X = MirDim;
  return S;
}

bool isEmbedding(const FeatureDef &D) {
  return D.Shape.size() == 1 && (D.Shape[0] == DimD || D.Shape[0] == DimM);
}

llvm::Expected<std::vector<std::string>> checkHeader(Task Id, llvm::ArrayRef<TensorSpec> Features,
                                                     const std::optional<TensorSpec> &Advice) {
  const TaskInfo &T = taskInfo(Id);
  std::vector<std::string> Unknown;
  std::set<std::string> Seen;
  int64_t EmbeddingDim = 0;
  for (const TensorSpec &S : Features) {
    if (!Seen.insert(S.Name).second)
      return featureError(T, "feature '" + S.Name + "' is sent twice");
    const FeatureDef *D = nullptr;
    for (const FeatureDef &F : T.Features)
      if (S.Name == F.Name)
        D = &F;
    if (!D) {
      Unknown.push_back(S.Name);
      continue;
    }
    if (D->From == Origin::Workbench)
      return featureError(T, "the compiler sends '" + S.Name +
                                 "', a name the workbench reserves for its own feature");
    bool Match = S.Type == D->Type && S.Shape.size() == D->Shape.size();
    for (size_t I = 0; Match && I < S.Shape.size(); ++I) {
      if (D->Shape[I] != DimD) {
        Match = S.Shape[I] == D->Shape[I];
        continue;
      }
      Match = S.Shape[I] > 0 && (!EmbeddingDim || EmbeddingDim == S.Shape[I]);
      EmbeddingDim = S.Shape[I];
    }
    if (!Match)
      return featureError(T, "feature '" + S.Name + "' is " + shapeString(S) + ", expected " +
                                 shapeString(specOf(*D, EmbeddingDim)) +
                                 (EmbeddingDim ? "" : " (D = vocabulary dimension)"));
  }
  for (const FeatureDef &F : T.Features)
    if (F.From == Origin::Compiler && !Seen.count(F.Name))
      return featureError(T, std::string("the compiler did not send feature '") + F.Name +
                                 "' (" + shapeString(specOf(F, 0)) + ")");
  if (!Advice)
    return featureError(T, "the header has no advice spec (expected '" + T.Advice.Name + "' " +
                               shapeString(T.Advice) + ")");
  if (*Advice != T.Advice)
    return featureError(T, "advice is '" + Advice->Name + "' " + shapeString(*Advice) +
                               ", expected '" + T.Advice.Name + "' " + shapeString(T.Advice));
  return Unknown;
}

std::string specsJSON(llvm::ArrayRef<TensorSpec> Specs) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  llvm::json::OStream J(OS);
  J.array([&] {
    for (const TensorSpec &T : Specs)
      T.toJSON(J);
  });
  return S;
}

llvm::Expected<std::vector<TensorSpec>> specsFromJSON(llvm::StringRef Text,
                                                      llvm::StringRef Where) {
  llvm::Expected<llvm::json::Value> V = support::parseJSON(Text);
  if (!V)
    return support::fileError(Where, llvm::toString(V.takeError()));
  const llvm::json::Array *A = V->getAsArray();
  if (!A)
    return support::fileError(Where, "expected an array of tensor specs");
  std::vector<TensorSpec> Out;
  for (size_t I = 0; I < A->size(); ++I) {
    llvm::Expected<TensorSpec> S =
        tensorSpecFromJSON((*A)[I], (Where + "[" + llvm::Twine(I) + "]").str());
    if (!S)
      return S.takeError();
    Out.push_back(std::move(*S));
  }
  return Out;
}

std::string featureSetVersion(Task T, llvm::ArrayRef<TensorSpec> Features) {
  return std::string(taskInfo(T).Name) + "/" + std::to_string(Features.size()) + "/" +
         support::sha256Hex(specsJSON(Features)).substr(0, 12);
}

llvm::Expected<std::vector<const FeatureDef *>> featuresOfGroups(Task Id,
                                                                 llvm::ArrayRef<std::string> Groups) {
  const TaskInfo &T = taskInfo(Id);
  std::vector<const FeatureDef *> Out;
  for (const std::string &G : Groups) {
    bool Known = false;
    for (const FeatureGroup &X : T.Groups)
      Known |= G == X.Name;
    if (!Known) {
      std::string Names;
      for (const FeatureGroup &X : T.Groups)
        Names += (Names.empty() ? "" : ", ") + std::string(X.Name);
      return support::usageError("unknown feature group '" + G + "' of task '" + T.Name +
                                 "' (" + Names + ")");
    }
  }
  for (const FeatureDef &F : T.Features)
    if (std::find(Groups.begin(), Groups.end(), F.Group) != Groups.end())
      Out.push_back(&F);
  return Out;
}

std::string featureTableMarkdown(Task Id) {
  const TaskInfo &T = taskInfo(Id);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "| row | name | type | shape | origin | group | meaning |\n"
        "|---|---|---|---|---|---|---|\n";
  size_t Row = 0;
  for (const FeatureDef &F : T.Features) {
    std::string Shape = "[";
    for (size_t J = 0; J < F.Shape.size(); ++J)
      Shape += (J ? "," : "") + (F.Shape[J] == DimD   ? std::string("D")
                                 : F.Shape[J] == DimM ? std::string("M")
                                                      : std::to_string(F.Shape[J]));
    Shape += "]";
    OS << "| " << Row++ << " | `" << F.Name << "` | " << typeName(F.Type) << " | " << Shape
       << " | " << originName(F.From) << " | " << F.Group << " | " << F.Doc << " |\n";
  }
  OS << "\nadvice: `" << T.Advice.Name << "` " << shapeString(T.Advice) << "\n\n";
  OS << "| group | features |\n|---|---|\n";
  for (const FeatureGroup &G : T.Groups)
    OS << "| `" << G.Name << "` | " << G.Doc << " |\n";
  return Out;
}

} // namespace wb::features
