#include "runners/Policies.h"

#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <random>

namespace wb::runners {

namespace {

constexpr unsigned bit(Task T) { return 1u << static_cast<unsigned>(T); }
constexpr unsigned AllTasks = bit(Task::Inline) | bit(Task::Evict) | bit(Task::Priority);

constexpr PolicyInfo Policies[] = {
    {"default", AllTasks, PolicyNeeds::Nothing,
     "the compiler's own decision: inline: its heuristic's (`inlining_default`); evict and "
     "priority: the host opens no channel and the compiler's default advisor decides (nothing "
     "is asked or logged; `--reward` still scores it), as plain `llc-22` does"},
    {"no-evict", bit(Task::Evict), PolicyNeeds::Nothing,
     "column 32 (\"do not evict\"), or the first legal column when the compiler makes \"do "
     "not evict\" illegal"},
    {"random", AllTasks, PolicyNeeds::Nothing,
     "with probability `--explore` (default 0.1) a uniformly random legal answer, otherwise the "
     "base answer (inline: default; evict: no-evict; priority: `li_size`); seeded by `--seed`"},
    {"linear", AllTasks, PolicyNeeds::ModelFile,
     "a linear model read from `--model` ([format](formats/mlgo-model.md)): the inliner inlines "
     "when the output is > 0; eviction scores each of the 33 columns with the same model and "
     "answers the best legal one; priority answers the output"},
    {"mlp", AllTasks, PolicyNeeds::ModelFile,
     "a multi-layer perceptron with ReLU hidden layers, in the same file format and answering "
     "as `linear` does"},
    {"rule", bit(Task::Inline), PolicyNeeds::ModelFile,
     "a rule around the heuristic read from `--model` (a model file of kind `rule`): where the "
     "heuristic declines, inline when `threshold − cost_estimate` > −add and the callee has few "
     "users and blocks; where it inlines, refuse when the margin is ≤ refuse "
     "([format](formats/mlgo-model.md))"},
    {"replay", AllTasks, PolicyNeeds::SessionLog,
     "the decisions of a session log (`--replay`), in order; a compiler that asks for more is "
     "a host error (status 125), never a spin"},
    {"size", bit(Task::Inline), PolicyNeeds::ShippedModel,
     "the project's inliner-for-size policy, installed with the tool (`share/ir2vec/"
     "policies/inline-size.h5`): a `rule` chosen by a search scored on folds of packages of "
     "the benchmark corpus (`scripts/train-default-policy.sh`; docs/size-policy.md); reads only "
     "features the compiler always sends",
     "inline-size.h5", "Os Oz"},
};

} // namespace

llvm::ArrayRef<PolicyInfo> policyTable() { return Policies; }

const PolicyInfo *findPolicy(llvm::StringRef Name) {
  for (const PolicyInfo &P : Policies)
    if (Name == P.Name)
      return &P;
  return nullptr;
}

std::string policyNames() {
  std::string Out;
  for (const PolicyInfo &P : Policies)
    Out += (Out.empty() ? "" : ", ") + std::string(P.Name);
  return Out;
}

std::string policyNames(llvm::ArrayRef<Task> Tasks) {
  std::string Out;
  for (const PolicyInfo &P : Policies)
    if (llvm::any_of(Tasks, [&](Task T) { return P.serves(T); }))
      Out += (Out.empty() ? "" : ", ") + std::string(P.Name);
  return Out;
}

llvm::Expected<std::string> defaultPolicyFor(Task T) {
  switch (T) {
  case Task::Inline:
    return std::string("default");
  case Task::Evict:
    return std::string("no-evict");
  case Task::Priority:
    break;
  }
  return support::usageError("task 'priority' has no default policy (the priority advisor "
                             "sends no default decision): choose one with --policy (random, "
                             "linear, mlp or replay)");
}

std::string modelFileOf(const PolicyOptions &O) {
  const PolicyInfo *P = findPolicy(O.Name);
  if (!P || P->Needs == PolicyNeeds::ModelFile)
    return O.ModelPath;
  if (P->Needs == PolicyNeeds::ShippedModel)
    return O.ModelPath.empty() ? shippedModelPath(*P) : O.ModelPath;
  return "";
}

std::optional<std::string> unmeasuredLevelWarning(llvm::StringRef Policy, llvm::StringRef Level) {
  const PolicyInfo *P = findPolicy(Policy);
  if (!P || !P->ChosenFor || llvm::is_contained(llvm::split(P->ChosenFor, ' '), Level))
    return std::nullopt;
  return ("policy '" + Policy + "' was chosen and measured at -" +
          llvm::join(llvm::split(P->ChosenFor, ' '), " and -") +
          " (docs/size-policy.md); this command compiles at -" + Level + ", where it never was")
      .str();
}

bool needsFullTool(llvm::StringRef PolicyName, llvm::StringRef ModelPath) {
  const PolicyInfo *P = findPolicy(PolicyName);
  return !P || P->Needs == PolicyNeeds::ModelFile ||
         (P->Needs == PolicyNeeds::ShippedModel && !ModelPath.empty());
}

std::string shippedModelPath(const PolicyInfo &P) {
  // share/ir2vec/policies beside the directory of the code that runs: the program's bin/ (the
  // install tree, the build tree), or the Python module's directory in the build tree. The
  // program can be Python (/usr/bin/python3), so the file holding this code is asked, not the
  // main executable. Then the prefix the tool was configured to install into.
  std::vector<std::string> Prefixes;
  Dl_info Info;
  static int Anchor;
  if (::dladdr(reinterpret_cast<void *>(&shippedModelPath), &Info) && Info.dli_fname) {
    llvm::SmallString<256> Code(Info.dli_fname);
    llvm::sys::fs::make_absolute(Code);
    Prefixes.push_back(llvm::sys::path::parent_path(llvm::sys::path::parent_path(Code)).str());
  }
  Prefixes.push_back(llvm::sys::path::parent_path(
                         llvm::sys::path::parent_path(llvm::sys::fs::getMainExecutable(nullptr, &Anchor)))
                         .str());
  Prefixes.push_back(WB_INSTALL_PREFIX);
  std::string First;
  for (const std::string &Prefix : Prefixes) {
    llvm::SmallString<256> Path(Prefix);
    llvm::sys::path::append(Path, "share", "ir2vec", "policies", P.Shipped ? P.Shipped : "");
    if (First.empty())
      First = std::string(Path);
    if (llvm::sys::fs::exists(Path))
      return std::string(Path);
  }
  return First;
}

std::string policyTableMarkdown() {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "| policy | tasks | answer |\n|---|---|---|\n";
  for (const PolicyInfo &P : Policies) {
    std::string Tasks;
    if (P.Tasks == AllTasks)
      Tasks = "all";
    else
      for (Task T : {Task::Inline, Task::Evict, Task::Priority})
        if (P.serves(T))
          Tasks += (Tasks.empty() ? "" : ", ") + std::string(features::taskInfo(T).Name);
    OS << "| `" << P.Name << "` | " << Tasks << " | " << P.Answer << " |\n";
  }
  return Out;
}

std::string int64Advice(int64_t V) { return std::string(reinterpret_cast<char *>(&V), 8); }
std::string floatAdvice(float V) { return std::string(reinterpret_cast<char *>(&V), 4); }

TensorSpec evictionMaskSpec() { return {"mask", features::TensorType::Int64, 0, {1, 33}}; }

std::vector<size_t> legalColumns(const Inputs &In, size_t MaskIdx) {
  std::vector<size_t> L;
  for (size_t C = 0; C < EvictionColumns; ++C)
    if (In.at(MaskIdx, C) == 1)
      L.push_back(C);
  return L;
}

namespace {

using support::makeError;

size_t noEvictColumn(const std::vector<size_t> &Legal) {
  if (Legal.empty() || Legal.back() == NoEviction)
    return NoEviction;
  return Legal.front();
}

using features::TensorType;

/// default (inliner), no-evict (eviction) and random around them.
class BasePolicy : public Policy {
public:
  BasePolicy(Task T, bool Random, uint64_t Seed, double Explore)
      : T(T), Random(Random), Rng(Seed), Explore(Explore) {}
  std::vector<TensorSpec> inputs() const override {
    switch (T) {
    case Task::Inline:
      return {{"inlining_default", TensorType::Int64, 0, {1}}};
    case Task::Evict:
      return {evictionMaskSpec()};
    case Task::Priority:
      return {{"li_size", TensorType::Int64, 0, {1}}};
    }
    return {};
  }
  llvm::Expected<std::string> advise(const Inputs &In) override {
    bool Explore = Random && std::uniform_real_distribution<double>(0, 1)(Rng) < this->Explore;
    switch (T) {
    case Task::Inline: {
      int64_t D = In.at(0, 0) != 0;
      if (Explore)
        D = std::uniform_int_distribution<int>(0, 1)(Rng);
      return int64Advice(D);
    }
    case Task::Evict: {
      std::vector<size_t> Legal = legalColumns(In, 0);
      size_t C = noEvictColumn(Legal);
      if (Explore && !Legal.empty())
        C = Legal[std::uniform_int_distribution<size_t>(0, Legal.size() - 1)(Rng)];
      return int64Advice(static_cast<int64_t>(C));
    }
    case Task::Priority: {
      double Size = In.at(0, 0);
      if (Explore)
        Size = std::uniform_real_distribution<double>(0, std::max(1.0, Size))(Rng);
      return floatAdvice(static_cast<float>(Size));
    }
    }
    return makeError("unknown task");
  }
  std::string describe() const override {
    if (Random)
      return "random";
    return T == Task::Evict ? "no-evict" : "default";
  }

private:
  Task T;
  bool Random;
  std::mt19937_64 Rng;
  double Explore;
};

class ReplayPolicy : public Policy {
public:
  ReplayPolicy(std::string Path, std::vector<std::string> Decisions)
      : Path(std::move(Path)), Decisions(std::move(Decisions)) {}
  std::vector<TensorSpec> inputs() const override { return {}; }
  llvm::Expected<std::string> advise(const Inputs &) override {
    if (Next == Decisions.size())
      return makeError("replay: " + Path + " has only " + llvm::Twine(Decisions.size()) +
                         " decisions and the compiler asks for more");
    return Decisions[Next++];
  }
  std::string describe() const override { return "replay"; }

private:
  std::string Path;
  std::vector<std::string> Decisions;
  size_t Next = 0;
};

/// R's answer to an observation bound to InlineRule::inputs().
bool ruleAnswer(const InlineRule &R, const Inputs &In) {
  return R.inlines(In.at(0, 0) != 0, int64_t(In.at(1, 0)), int64_t(In.at(2, 0)),
                   int64_t(In.at(3, 0)), int64_t(In.at(4, 0)));
}

class RulePolicy : public Policy {
public:
  explicit RulePolicy(InlineRule R) : R(std::move(R)) {}
  std::vector<TensorSpec> inputs() const override { return InlineRule::inputs(); }
  llvm::Expected<std::string> advise(const Inputs &In) override {
    return int64Advice(ruleAnswer(R, In));
  }
  std::string describe() const override { return "rule " + R.name(); }

private:
  InlineRule R;
};

class TrajectoryPolicy : public Policy {
public:
  TrajectoryPolicy(std::vector<int64_t> Decisions, const InlineRule *Tail)
      : Decisions(std::move(Decisions)), Tail(Tail) {}
  std::vector<TensorSpec> inputs() const override {
    if (Tail)
      return InlineRule::inputs(); // inlining_default first
    return {{"inlining_default", TensorType::Int64, 0, {1}}};
  }
  llvm::Expected<std::string> advise(const Inputs &In) override {
    int64_t D = In.at(0, 0) != 0;
    if (Next < Decisions.size())
      D = Decisions[Next];
    else if (Tail)
      D = ruleAnswer(*Tail, In);
    ++Next;
    return int64Advice(D);
  }
  std::string describe() const override {
    return Tail ? "trajectory, then rule " + Tail->name() : "trajectory";
  }

private:
  std::vector<int64_t> Decisions;
  const InlineRule *Tail;
  size_t Next = 0;
};

constexpr InlineRule margin(std::optional<int64_t> Refuse, std::optional<int64_t> Add) {
  InlineRule R;
  R.Refuse = Refuse;
  R.Add = Add;
  return R;
}

// Margins are multiples of LLVM's InstrCost (5): two to sixteen instructions more or fewer
// than the heuristic would take.
constexpr InlineRule MarginRules[] = {
    margin(std::nullopt, 10), margin(std::nullopt, 30), margin(std::nullopt, 80),
    margin(5, std::nullopt),  margin(10, std::nullopt), margin(25, std::nullopt),
    margin(5, 10),
};


llvm::Expected<std::vector<std::string>> replayDecisions(Task T, llvm::StringRef Path) {
  llvm::Expected<features::Log> L = features::readLogFile(Path);
  if (!L)
    return L.takeError();
  const TensorSpec &Advice = features::taskInfo(T).Advice;
  std::optional<size_t> Idx = L->Header.find(Advice.Name);
  if (!Idx || L->Header.Features[*Idx] != Advice)
    return support::fileError(Path, llvm::Twine("not a session log of task '") +
                                        features::taskInfo(T).Name + "': no '" + Advice.Name +
                                        "' " + features::shapeString(Advice) + " feature");
  size_t Off = L->Header.offsetOf(*Idx);
  std::vector<std::string> D;
  for (const features::LogObservation &O : L->Observations)
    D.push_back(O.Payload.substr(Off, Advice.byteSize()));
  return D;
}

} // namespace

bool compilerDecides(Task T, llvm::StringRef Name) {
  return T != Task::Inline && Name == "default";
}

llvm::Error checkPolicyOptions(Task T, const PolicyOptions &O) {
  const PolicyInfo *P = findPolicy(O.Name);
  std::string Named = "policy '" + O.Name + "'";
  if (O.Name.empty()) {
    llvm::Expected<std::string> D = defaultPolicyFor(T);
    Named = D ? "the task's default policy ('" + *D + "')" : std::string("no policy");
    llvm::consumeError(D.takeError());
  }
  const PolicySpelling &Say = O.Say;
  if (!O.ModelPath.empty() && (O.Name.empty() || (P && P->Needs != PolicyNeeds::ModelFile &&
                                                  P->Needs != PolicyNeeds::ShippedModel)))
    return support::usageError(Say.given(Say.Model, O.ModelPath) + ": " + Named +
                               " reads no model; name the policy that does with " + Say.Policy +
                               " (linear, mlp or rule for a model of that kind; size for another "
                               "file of the shipped policy's)");
  if (!O.ReplayPath.empty() && (O.Name.empty() || (P && P->Needs != PolicyNeeds::SessionLog)))
    return support::usageError(Say.given(Say.Replay ? Say.Replay : "replay", O.ReplayPath) +
                               ": " + Named + " replays no log; " +
                               Say.given(Say.Policy, "replay") + " does");
  return llvm::Error::success();
}

extern const ShippedRule ShippedRules[];
extern const size_t NumShippedRules;

namespace {
/// A shipped policy as its built-in rule (the same as its model file's: generated from it).
llvm::Expected<std::unique_ptr<Policy>> shippedRulePolicy(const PolicyInfo &P) {
  for (size_t I = 0; I < NumShippedRules; ++I) {
    if (llvm::StringRef(ShippedRules[I].File) != P.Shipped)
      continue;
    llvm::Expected<llvm::json::Value> J = llvm::json::parse(ShippedRules[I].RuleJSON);
    if (!J)
      return J.takeError();
    llvm::Expected<InlineRule> R = InlineRule::fromJSON(*J);
    if (!R)
      return R.takeError();
    return makeRulePolicy(*R);
  }
  return makeError(llvm::Twine("policy '") + P.Name + "' has no built-in rule");
}
} // namespace

llvm::Expected<std::unique_ptr<Policy>> makePolicy(Task T, const PolicyOptions &O) {
  if (compilerDecides(T, O.Name))
    return makeError("policy 'default' of --task " + llvm::Twine(features::taskInfo(T).Name) +
                     " answers nothing: the compiler's own advisor decides (runners::"
                     "compilerDecides)");
  std::string N = O.Name;
  if (N.empty()) {
    llvm::Expected<std::string> D = defaultPolicyFor(T);
    if (!D)
      return D.takeError();
    N = *D;
  }
  const PolicyInfo *P = findPolicy(N);
  if (!P)
    return support::usageError("unknown policy '" + N + "' (" + policyNames() + ")");
  if (!P->serves(T)) {
    std::string Tasks;
    for (Task X : {Task::Inline, Task::Evict, Task::Priority})
      if (P->serves(X))
        Tasks += (Tasks.empty() ? "" : " or ") + std::string(features::taskInfo(X).Name);
    return support::usageError("policy '" + N + "' is for --task " + Tasks + ", not " +
                               features::taskInfo(T).Name);
  }
  if (N == "random" && !(O.Explore >= 0 && O.Explore <= 1))
    return support::usageError("--explore must be a probability in [0, 1]");
  switch (P->Needs) {
  case PolicyNeeds::Nothing:
    return std::make_unique<BasePolicy>(T, N == "random", O.Seed, O.Explore);
  case PolicyNeeds::ModelFile:
    if (O.ModelPath.empty())
      return support::usageError("policy '" + N + "' reads a model file: give it with " +
                                 O.Say.given(O.Say.Model, "FILE"));
    if (!O.LoadModel)
      return makeError("policy '" + N + "' is not available in this program");
    return O.LoadModel(T, O);
  case PolicyNeeds::ShippedModel: {
    if (O.ModelPath.empty())
      return shippedRulePolicy(*P);
    if (!O.LoadModel)
      return makeError("policy '" + N + "' is not available in this program");
    return O.LoadModel(T, O);
  }
  case PolicyNeeds::SessionLog: {
    if (O.ReplayPath.empty())
      return support::usageError("policy '" + N + "' replays a session log: " +
                                 (O.Say.Replay ? "give it with " + O.Say.given(O.Say.Replay, "LOG")
                                               : std::string(O.Say.NoReplay) +
                                                     "; replay under the host (ir2vec mlgo run "
                                                     "--policy replay --replay LOG)"));
    llvm::Expected<std::vector<std::string>> D = replayDecisions(T, O.ReplayPath);
    if (!D)
      return D.takeError();
    return std::make_unique<ReplayPolicy>(O.ReplayPath, std::move(*D));
  }
  }
  return makeError("unknown policy kind");
}

std::vector<TensorSpec> InlineRule::inputs() {
  std::vector<TensorSpec> In;
  for (const char *N : {"inlining_default", "threshold", "cost_estimate", "callee_users",
                        "callee_basic_block_count"})
    In.push_back({N, TensorType::Int64, 0, {1}});
  return In;
}

std::string InlineRule::name() const {
  std::string S;
  if (Refuse) {
    S = "refuse-" + std::to_string(*Refuse);
    if (RefuseMinCalleeUsers > 0)
      S += "[users>=" + std::to_string(RefuseMinCalleeUsers) + "]";
  }
  if (Add) {
    S += (S.empty() ? "" : "+") + std::string("inline+") + std::to_string(*Add);
    std::vector<std::string> When;
    if (AddMaxCalleeUsers != Any)
      When.push_back("users<=" + std::to_string(AddMaxCalleeUsers));
    if (AddMaxCalleeBlocks != Any)
      When.push_back("blocks<=" + std::to_string(AddMaxCalleeBlocks));
    if (!When.empty())
      S += "[" + llvm::join(When, ",") + "]";
  }
  return S.empty() ? "heuristic" : S;
}

llvm::json::Object InlineRule::toJSON() const {
  auto Opt = [](std::optional<int64_t> V) { return V ? llvm::json::Value(*V) : nullptr; };
  auto Lim = [](int64_t V) { return V == Any ? llvm::json::Value(nullptr) : llvm::json::Value(V); };
  return llvm::json::Object{{"add", Opt(Add)},
                            {"add_max_callee_users", Lim(AddMaxCalleeUsers)},
                            {"add_max_callee_blocks", Lim(AddMaxCalleeBlocks)},
                            {"refuse", Opt(Refuse)},
                            {"refuse_min_callee_users", RefuseMinCalleeUsers}};
}

namespace {
// The order of toJSON and of fromJSON's Values.
constexpr InlineRule::Key Keys[] = {{"add", true, 0},
                                    {"add_max_callee_users", true, 1},
                                    {"add_max_callee_blocks", true, 1},
                                    {"refuse", true, INT64_MIN},
                                    {"refuse_min_callee_users", false, 0}};
} // namespace

bool InlineRule::Key::accepts(const llvm::json::Value &V) const {
  if (V.kind() == llvm::json::Value::Null)
    return NullAllowed;
  const std::optional<int64_t> N = V.getAsInteger();
  return N && *N >= Min;
}

llvm::ArrayRef<InlineRule::Key> InlineRule::keys() { return Keys; }

llvm::Expected<InlineRule> InlineRule::fromJSON(const llvm::json::Value &V) {
  const llvm::json::Object *O = V.getAsObject();
  if (!O)
    return makeError("rule: expected a JSON object");
  // The ranges a search grid accepts (keys()): a file is trusted no more than a spec. Every
  // key is required, so that a file never means the heuristic by omission.
  for (const auto &KV : *O)
    if (llvm::none_of(Keys, [&](const Key &K) { return KV.first == K.Name; }))
      return makeError("rule: unknown key '" + KV.first.str() + "' (add, add_max_callee_users, "
                       "add_max_callee_blocks, refuse, refuse_min_callee_users)");
  std::optional<int64_t> Values[std::size(Keys)];
  for (size_t I = 0; I < std::size(Keys); ++I) {
    const Key &K = Keys[I];
    const llvm::json::Value *X = O->get(K.Name);
    if (!X)
      return makeError(llvm::Twine("rule: missing key '") + K.Name + "'");
    Values[I] = X->getAsInteger();
    if (!K.accepts(*X))
      return makeError(llvm::Twine("rule: key '") + K.Name + "' must be an integer >= " +
                       llvm::Twine(K.Min) + (K.NullAllowed ? " or null" : ""));
  }
  InlineRule R;
  R.Add = Values[0];
  R.AddMaxCalleeUsers = Values[1].value_or(Any);
  R.AddMaxCalleeBlocks = Values[2].value_or(Any);
  R.Refuse = Values[3];
  R.RefuseMinCalleeUsers = *Values[4];
  return R;
}

llvm::ArrayRef<InlineRule> marginRules() { return MarginRules; }

const InlineRule *findMarginRule(llvm::StringRef Name) {
  for (const InlineRule &R : MarginRules)
    if (Name == R.name())
      return &R;
  return nullptr;
}

std::unique_ptr<Policy> makeRulePolicy(InlineRule R) {
  return std::make_unique<RulePolicy>(std::move(R));
}

std::unique_ptr<Policy> makeTrajectoryPolicy(std::vector<int64_t> Decisions,
                                             const InlineRule *Tail) {
  return std::make_unique<TrajectoryPolicy>(std::move(Decisions), Tail);
}

} // namespace wb::runners
