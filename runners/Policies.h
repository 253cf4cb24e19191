// The policies a session can run, as one table (policyTable()): names, tasks, what each needs
// and answers. The table drives makePolicy, the task defaults, the --policy help, the table
// in docs/mlgo.md (`ir2vec mlgo policies`, checked by a test) and the launcher's choice of
// program (policies that read model files run in the full tool).
#pragma once

#include "runners/ModelRunner.h"

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <functional>
#include <memory>
#include <string>

namespace wb::runners {

/// What a policy needs besides the observations.
enum class PolicyNeeds {
  Nothing,      // built in
  ModelFile,    // --model: weights in HDF5, evaluated with Armadillo (the full tool only)
  SessionLog,   // --replay: a session log
  ShippedModel, // a rule installed with the tool (--model overrides it, in the full tool only)
};

/// A shipped policy's rule, built in from its model file (runners/shipped_rules.py): the policy
/// runs without reading HDF5.
struct ShippedRule {
  const char *File; // PolicyInfo::Shipped
  const char *RuleJSON;
};

struct PolicyInfo {
  const char *Name;
  unsigned Tasks; // bit (1 << Task) for each task it serves
  PolicyNeeds Needs;
  const char *Answer; // what it answers, for help and docs
  const char *Shipped = nullptr; // ShippedModel: the file in share/ir2vec/policies
  /// The optimisation levels it was chosen and measured at ("Os Oz"; null: any): a session at
  /// another level is warned that it was never measured there.
  const char *ChosenFor = nullptr;
  bool serves(Task T) const { return Tasks & (1u << static_cast<unsigned>(T)); }
};

/// Where a shipped model is: share/ir2vec/policies/<file> next to the program's bin/ (the
/// install tree, and the build tree, where the build copies it).
std::string shippedModelPath(const PolicyInfo &P);

llvm::ArrayRef<PolicyInfo> policyTable();
const PolicyInfo *findPolicy(llvm::StringRef Name);
/// The policy a session of task T runs when none is named: the compiler's own decision where
/// the compiler sends one (inline: default, evict: no-evict); an error for priority, whose
/// advisor sends none.
llvm::Expected<std::string> defaultPolicyFor(Task T);
/// Whether policy Name on task T leaves every decision to the compiler's own advisor: `default`
/// for eviction and priority, whose advisors send no default decision to answer with. The host
/// then adds no advisor flag; nothing is asked or logged (makePolicy refuses it).
bool compilerDecides(Task T, llvm::StringRef Name);
/// Whether `mlgo run` with this policy must run in the full tool (models need HDF5 and
/// Armadillo): a model file, or another file than a shipped policy's own (ModelPath); unknown
/// names too, so that the full tool reports them.
bool needsFullTool(llvm::StringRef PolicyName, llvm::StringRef ModelPath = "");
/// A warning when Policy was chosen and measured at other optimisation levels than Level ("Oz",
/// "O2", ...): its numbers do not hold there (the host and the inliner plugin say it).
std::optional<std::string> unmeasuredLevelWarning(llvm::StringRef Policy, llvm::StringRef Level);
/// The table as Markdown (docs/mlgo.md, "Policies").
std::string policyTableMarkdown();
/// "default, no-evict, random, linear, mlp, replay".
std::string policyNames();
/// The names of the policies that serve at least one of Tasks (for a subcommand's help).
std::string policyNames(llvm::ArrayRef<Task> Tasks);

/// How a program names the settings of PolicyOptions in its messages: the host by its options
/// (the default), the Python module by its arguments, the inliner plugin by its environment.
struct PolicySpelling {
  const char *Policy = "--policy";
  const char *Model = "--model";
  /// Null where the program takes no session log; NoReplay then says so in its terms (the
  /// message adds where a log can be replayed).
  const char *Replay = "--replay";
  const char *NoReplay = "";
  char Joiner = ' '; // between a setting and its value
  /// Setting with Value, as a user of the program writes it ("--model m.h5", "model=m.h5").
  std::string given(llvm::StringRef Setting, llvm::StringRef Value) const {
    return (Setting + llvm::Twine(Joiner) + Value).str();
  }
};

struct PolicyOptions {
  std::string Name; // "" = the task's default (defaultPolicyFor)
  std::string ModelPath;  // linear, mlp
  std::string ReplayPath; // replay
  uint64_t Seed = 0;
  double Explore = 0.1; // random
  /// Loads linear/mlp models (runners/Models.h, loadModelPolicy). Models need HDF5 and
  /// Armadillo, which the launcher's fast path does not link; unset there.
  std::function<llvm::Expected<std::unique_ptr<Policy>>(Task, const PolicyOptions &)> LoadModel;
  /// How the messages of makePolicy and checkPolicyOptions name these settings.
  PolicySpelling Say;
};

llvm::Expected<std::unique_ptr<Policy>> makePolicy(Task T, const PolicyOptions &O);

/// A usage error when O gives a file its policy does not read (--model to a policy without a
/// model, or without --policy: a model's kind is not a policy name; --replay to another than
/// replay), instead of running the task's default as if the file were not there. Settings are
/// named as O.Say spells them.
llvm::Error checkPolicyOptions(Task T, const PolicyOptions &O);

/// The model file the policy O names reads (--model, or a shipped policy's installed file);
/// "" for a policy without one.
std::string modelFileOf(const PolicyOptions &O);

/// A rule around the inliner's heuristic over features the compiler always sends, with
/// M = threshold - cost_estimate (the compiler's own margin: at -Oz it inlines when M > 0):
///  * where the heuristic declines, inline when M > -Add, callee_users <= AddMaxCalleeUsers and
///    callee_basic_block_count <= AddMaxCalleeBlocks (no Add: never);
///  * where the heuristic inlines, refuse when M <= Refuse and callee_users >=
///    RefuseMinCalleeUsers (no Refuse: never).
/// Exploration rolls whole modules out with the rules of marginRules() before it flips single
/// decisions (mlgo/pipelines/Explore.h), and the shipped `size` policy is one (a model file of kind
/// `rule`, chosen by a search scored on folds of packages: mlgo/studies/RuleSearch.h). Why callee_users:
/// a callee with one call site and outside linkage (callee_users 2) is, in C++, mostly a
/// linkonce_odr function that inlining its last call deletes; LLVM's cost model knows only the
/// local-linkage case (last_call_to_static_bonus).
struct InlineRule {
  static constexpr int64_t Any = INT64_MAX;
  std::optional<int64_t> Add, Refuse;
  int64_t AddMaxCalleeUsers = Any, AddMaxCalleeBlocks = Any, RefuseMinCalleeUsers = 0;

  /// The features a rule reads, in the order inlines() takes them.
  static std::vector<TensorSpec> inputs();
  bool inlines(bool Default, int64_t Threshold, int64_t CostEstimate, int64_t CalleeUsers,
               int64_t CalleeBlocks) const {
    const int64_t M = Threshold - CostEstimate;
    if (Default)
      return !(Refuse && M <= *Refuse && CalleeUsers >= RefuseMinCalleeUsers);
    return Add && M > -*Add && CalleeUsers <= AddMaxCalleeUsers &&
           CalleeBlocks <= AddMaxCalleeBlocks;
  }
  /// "refuse-5+inline+10", "inline+30[users<=2,blocks<=1]", "heuristic" (neither side).
  std::string name() const;
  llvm::json::Object toJSON() const;
  /// A key of toJSON's form and the values it takes: an integer >= Min, or null where
  /// NullAllowed (a side off, or no limit). One table for rule files and search grids.
  struct Key {
    const char *Name;
    bool NullAllowed;
    int64_t Min;
    /// Whether V is a value of this key (an integer in range, or an allowed null).
    bool accepts(const llvm::json::Value &V) const;
  };
  static llvm::ArrayRef<Key> keys();
  /// From toJSON's form (every key required); an error naming the key otherwise.
  static llvm::Expected<InlineRule> fromJSON(const llvm::json::Value &V);
  bool operator==(const InlineRule &O) const {
    return Add == O.Add && Refuse == O.Refuse && AddMaxCalleeUsers == O.AddMaxCalleeUsers &&
           AddMaxCalleeBlocks == O.AddMaxCalleeBlocks &&
           RefuseMinCalleeUsers == O.RefuseMinCalleeUsers;
  }
};

/// The margin rules exploration rolls out (by name(): inline+10, ..., refuse-5+inline+10).
llvm::ArrayRef<InlineRule> marginRules();
/// The margin rule named Name, or nullptr.
const InlineRule *findMarginRule(llvm::StringRef Name);

/// A policy answering with R on every call site.
std::unique_ptr<Policy> makeRulePolicy(InlineRule R);

/// The inliner policy exploration runs: answers Decisions in order, then, for every later call
/// site, Tail's answer (nullptr: the compiler's own decision, inlining_default). A trajectory's
/// prefix is replayed exactly because the compiler is deterministic: the same answers bring
/// the same questions.
std::unique_ptr<Policy> makeTrajectoryPolicy(std::vector<int64_t> Decisions,
                                             const InlineRule *Tail = nullptr);

/// Advice bytes and eviction legality, shared by every policy.
inline constexpr size_t EvictionColumns = 33, NoEviction = 32;
std::string int64Advice(int64_t V);
std::string floatAdvice(float V);
features::TensorSpec evictionMaskSpec();
/// Columns whose mask (input MaskIdx) is 1.
std::vector<size_t> legalColumns(const Inputs &In, size_t MaskIdx);

} // namespace wb::runners
