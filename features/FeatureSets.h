// The LLVM 22 MLGO feature sets (inliner, regalloc eviction, regalloc priority) and the
// workbench's own additions. One table per task drives the names, types, shapes and docs
// (docs/mlgo.md is generated from the same table by `ir2vec mlgo features`), the check of
// the header the compiler sends, the compiler flags a session needs, and the advice spec.
// The inliner's compiler features are generated from LLVM's own X-macros; a test checks all
// three tables against libLLVM's specs.
#pragma once

#include "features/TensorSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace wb::features {

enum class Task { Inline, Evict, Priority };

/// Shape dimension that is the vocabulary dimension D (embedding features).
inline constexpr int64_t DimD = -1;
/// Shape dimension that is the MIR vocabulary's dimension M (machine-IR embedding features).
inline constexpr int64_t DimM = -2;

/// Where a feature comes from.
enum class Origin {
  Compiler,         // always sent by LLVM 22
  CompilerOptional, // sent by LLVM 22 only with a flag (embeddings, inlining_default)
  Workbench,        // added by the host to every observation (embedding augmentation)
};

struct FeatureDef {
  const char *Name;
  TensorType Type;
  std::vector<int64_t> Shape; // DimD, DimM stand for the vocabularies' dimensions
  Origin From;
  const char *Group; // the feature group (policy training selects features by group)
  const char *Doc;
};

/// A feature group of a task: the unit in which policy training selects features and
/// ablation studies remove or add them.
struct FeatureGroup {
  const char *Name;
  const char *Doc;
};

struct TaskInfo {
  Task Id;
  const char *Name; // "inline", "evict", "priority"
  std::vector<FeatureDef> Features; // in the compiler's order, then workbench extras
  std::vector<FeatureGroup> Groups; // every FeatureDef::Group, documented
  TensorSpec Advice;
  const char *EnableFlag;  // e.g. -enable-ml-inliner=release
  const char *ChannelFlag; // e.g. -inliner-interactive-channel-base= (value appended)
  /// LLVM options every session of the task gives the compiler, unless its command sets the
  /// same option itself (FeatureSets.cpp says why each is there).
  std::vector<const char *> SessionFlags = {};
};

const TaskInfo &taskInfo(Task T);
std::optional<Task> taskFromName(llvm::StringRef Name);
/// "inline", "evict", "priority".
std::vector<std::string> taskNames();
/// The same, with an error listing the tasks for a name that is none of them.
llvm::Expected<Task> parseTask(llvm::StringRef Name);

/// The concrete spec of a table entry for vocabulary dimension Dim (IR2Vec) and MirDim (MIR2Vec).
TensorSpec specOf(const FeatureDef &D, unsigned Dim, unsigned MirDim = 0);
/// Whether a feature is an embedding (a vector of a vocabulary's dimension): what needs
/// --embeddings or an ablation arm's vocabulary.
bool isEmbedding(const FeatureDef &D);

/// Checks the header the compiler sent against the task's table: every feature the table
/// knows must have the table's type and shape (D = any positive width, but callee and caller
/// embeddings must agree), every always-sent feature must be present, and the advice must
/// match. Features the table does not know are accepted (LLVM adds features over time);
/// their names are returned so callers can mention them. Errors name the feature.
llvm::Expected<std::vector<std::string>> checkHeader(Task T, llvm::ArrayRef<TensorSpec> Features,
                                                     const std::optional<TensorSpec> &Advice);

/// The canonical name of a feature set: "<task>/<n>/<12 hex of SHA-256 of the specs' JSON>".
/// Two sets have the same version exactly when they list the same specs in the same order.
std::string featureSetVersion(Task T, llvm::ArrayRef<TensorSpec> Features);

/// The features of the named groups (an error naming an unknown group and listing the task's).
llvm::Expected<std::vector<const FeatureDef *>> featuresOfGroups(Task T,
                                                                 llvm::ArrayRef<std::string> Groups);

/// The task's table as Markdown (`ir2vec mlgo features`; docs/mlgo.md holds the same text,
/// and a test keeps them equal): row, name, type, shape (D = vocabulary dimension), origin,
/// meaning, then the advice.
std::string featureTableMarkdown(Task T);

/// A JSON array of specs, compact, as in LLVM's log headers.
std::string specsJSON(llvm::ArrayRef<TensorSpec> Specs);
llvm::Expected<std::vector<TensorSpec>> specsFromJSON(llvm::StringRef Text,
                                                      llvm::StringRef Where);

} // namespace wb::features
