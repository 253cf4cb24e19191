// The `ir2vec mlgo` group, one file per kind of subcommand (MlgoData.cpp: data; MlgoTrain.cpp:
// policies; MlgoStudies.cpp: judging; MlgoRun.cpp: run), each subcommand one function that
// declares its options and hands them to one library call. Mlgo.cpp lists them in one table.
#pragma once

#include "mlgo/pipelines/Compile.h"
#include "mlgo/pipelines/FineTune.h"
#include "mlgo/pipelines/Split.h"
#include "tools/ir2vec/Command.h"
#include "tools/ir2vec/Groups.h"
#include "tools/ir2vec/MlgoRun.h"

#include <functional>

namespace wb::tool {

/// Refuses a compiler command (what follows "--") to every subcommand but run, else runs Do.
using CheckedFn = std::function<llvm::Expected<support::Outcome>(
    std::function<llvm::Expected<support::Outcome>()> Do)>;

/// Where an `mlgo` subcommand is added.
struct MlgoGroup {
  CLI::App &App; // the mlgo group
  Commands &Cmds;
  RunContext &Ctx;
  CheckedFn Checked;
};

/// --opt, --llc, --clang, --compile.
void addToolchainOptions(CLI::App &Sub, mlgo::Toolchain &T);
/// --test-fraction, --split-seed, --split-keys.
void addSplitOptions(CLI::App &Sub, mlgo::SplitOptions &S);
/// --steps, --pairs, --modules-per-step, --sigma, --lr, --optimizer (into Optimizer, parsed by
/// the run), each help text after Prefix ("es: " where the command has other methods).
void addESOptions(CLI::App &Sub, mlgo::ESSettings &S, std::string &Optimizer,
                  const std::string &Prefix);
/// What --embeddings VOCAB names (embeddingRequest), resolved.
llvm::Expected<ir2vec::EmbeddingChoice> resolveEmbeddings(const std::string &Vocab);
/// --embeddings [VOCAB] as the studies take it, resolved: not given = none (null), no value =
/// the default vocabulary, else the file.
llvm::Expected<ir2vec::EmbeddingChoice> resolveEmbeddings(const PolicyCLI &P);
/// The table of the commands over a corpus (collect's; the others edit its rows by status).
ExitTable collectExits();

void addCollect(const MlgoGroup &G);
void addExplore(const MlgoGroup &G);
void addEval(const MlgoGroup &G);
void addAblate(const MlgoGroup &G);
void addBenchmark(const MlgoGroup &G);
void addTrain(const MlgoGroup &G);
void addFineTune(const MlgoGroup &G);
void addEvictTrain(const MlgoGroup &G);
void addRegallocCost(const MlgoGroup &G);
void addPredict(const MlgoGroup &G);
void addLog(const MlgoGroup &G);
void addFeatures(const MlgoGroup &G);
void addPolicies(const MlgoGroup &G);

} // namespace wb::tool
