#include "tools/ir2vec/MlgoRun.h"

#include "runners/InteractiveHost.h"
#include "support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <unistd.h>

namespace wb::tool {

namespace {

constexpr const char *RunSyntax = "ir2vec mlgo run [options] -- COMPILER ARGS...";

llvm::Expected<support::Outcome> runSession(const RunOptions &O, const FullHooks &H,
                                            const support::Reporter &R) {
  if (!O.Stray.empty())
    return support::usageError(
        O.Command.empty()
            ? "unexpected arguments '" + llvm::join(O.Stray, " ") +
                  "': the compiler command goes after '--': " + RunSyntax
            : "unknown options before '--': '" + llvm::join(O.Stray, " ") + "' (see ir2vec mlgo "
                                                                               "run --help)");
  if (O.Command.empty())
    return support::usageError(llvm::Twine("mlgo run needs the compiler command after '--': ") +
                               RunSyntax);
  const PolicyCLI &P = O.Session;
  auto Task = features::parseTask(P.Task);
  if (!Task)
    return Task.takeError();
  // The logs must not replace a file the session reads or the compiler writes: its arguments
  // (and the values of "-o=F"-style options) are compared with them.
  std::vector<std::string> Read = O.Command;
  for (const std::string &A : O.Command)
    if (size_t Eq = A.find('='); !A.empty() && A[0] == '-' && Eq != std::string::npos)
      Read.push_back(A.substr(Eq + 1));
  if (llvm::Error E = checkOutputs({O.LogPath, O.TranscriptPath}, Read,
                                   {P.Policy.ModelPath, P.Policy.ReplayPath, O.ModulePath}))
    return E;
  if (llvm::Error E = runners::checkPolicyOptions(*Task, P.Policy))
    return E;
  runners::SessionConfig C;
  C.T = *Task;
  C.Command = O.Command;
  C.Policy = P.Policy;
  C.Policy.LoadModel = H.LoadModel;
  C.Bind.ZeroMissing = P.ZeroMissing;
  if (std::optional<std::string> E = P.embeddings()) {
    if (!H.Augmenter)
      return support::makeError("--embeddings is not available in this program");
    llvm::Expected<features::Augmenter> A = H.Augmenter(C.T, *E, O.ModulePath);
    if (!A)
      return A.takeError();
    C.Augment = std::move(*A);
  }
  C.TimeoutSeconds = P.Timeout;
  if (O.Reward) {
    if (C.T == runners::Task::Inline)
      return support::usageError("--reward scores register allocation (--task evict or "
                                 "priority); the inliner's reward is the object's .text size "
                                 "(mlgo collect)");
    if (!H.ReadRemarks)
      return support::makeError("--reward is not available in this program");
    C.Costs = features::RegallocWeights{};
    C.ReadRemarks = H.ReadRemarks;
  }
  llvm::Expected<runners::SessionResult> S = support::withCancellation([&](int Cancel) {
    C.CancelFd = Cancel;
    return runners::runSessionToFiles(C, O.LogPath, O.TranscriptPath);
  });
  if (!S)
    return S.takeError();
  const std::string Subject = runners::sessionSubject(O.Command);
  for (const std::string &W : S->Warnings)
    R.warning(Subject + ": " + W);
  if (O.Stats) // asked for: printed even with --quiet
    llvm::errs() << MlgoToolName << ": " << S->summary() << "\n";
  if (O.Reward && S->Regalloc) { // asked for: printed even with --quiet
    features::RegallocCounts Sum;
    double Cost = 0;
    for (const features::FunctionRegalloc &F : *S->Regalloc) {
      Sum += F.Counts;
      Cost += C.Costs->cost(F.Counts);
    }
    llvm::errs() << llvm::formatv("{0}: regalloc cost {1:f3} ({2} functions with spills, reloads "
                                  "or copies: {3} spills, {4} reloads, {5} folded spills, {6} "
                                  "folded reloads, {7} copies)\n",
                                  MlgoToolName, Cost, S->Regalloc->size(), Sum.Spills,
                                  Sum.Reloads, Sum.FoldedSpills, Sum.FoldedReloads, Sum.Copies);
  }
  return support::Outcome::status(S->exitStatus(), S->Error);
}

} // namespace

std::optional<std::string> PolicyCLI::embeddings() const {
  if (!EmbeddingsFlag || !EmbeddingsFlag->count())
    return std::nullopt;
  return Embeddings.empty() ? std::string() : Embeddings.front();
}

void addPolicyOptions(CLI::App &Sub, PolicyCLI &O, const std::vector<std::string> &Tasks) {
  // The help names only what the subcommand's tasks can use.
  std::vector<runners::Task> Served;
  for (const std::string &T : Tasks)
    if (llvm::Expected<runners::Task> X = features::parseTask(T))
      Served.push_back(*X);
    else
      llvm::consumeError(X.takeError());
  const bool OnlyInline = Served.size() == 1 && Served[0] == runners::Task::Inline;
  Sub.add_option("--task", O.Task, "The advisor: " + llvm::join(Tasks, ", "))
      ->check(CLI::IsMember(Tasks));
  Sub.add_option("--policy", O.Policy.Name,
                 "One of " + runners::policyNames(Served) +
                     (OnlyInline ? " (docs/mlgo.md, Policies; default: the compiler's own "
                                   "decision)"
                                 : " (docs/mlgo.md, Policies; default: the task's own decision, "
                                   "default for inline and no-evict for evict)"))
      ->type_name("NAME");
  Sub.add_option("--model", O.Policy.ModelPath,
                 "Model file for linear/mlp (HDF5, docs/formats/mlgo-model.md)")
      ->type_name("FILE");
  Sub.add_option("--replay", O.Policy.ReplayPath, "Session log whose decisions to replay")
      ->type_name("LOG");
  Sub.add_option("--seed", O.Policy.Seed, "Seed of the random policy");
  Sub.add_option("--explore", O.Policy.Explore,
                 "random: probability of a random answer instead of the base one");
  Sub.add_flag("--zero-missing", O.ZeroMissing,
               "Feed zeros for model features the compiler does not send (ablations) instead "
               "of failing");
  O.EmbeddingsFlag =
      Sub.add_option("--embeddings", O.Embeddings,
                     std::string(OnlyInline
                                     ? "Add embedding features (the compiler's callee/caller "
                                       "embeddings and the workbench's module_embedding)"
                                     : "Add embedding features (inliner: the compiler's "
                                       "callee/caller embeddings and the workbench's "
                                       "module_embedding; eviction and priority: the "
                                       "workbench's function_embedding and, with the default "
                                       "MIR vocabulary, machine_function_embedding)") +
                         " with VOCAB (LLVM JSON or the workbench's HDF5; default: the default "
                         "vocabulary, built into the tool)")
          ->expected(0, 1)
          // Given without a value it means the default vocabulary ("" below); a captured
          // default ("[]") would make CLI11 2.1 count it as absent.
          ->default_str("")
          ->type_name("[VOCAB]");
  Sub.add_option("--timeout", O.Timeout, "Kill a compiler after S seconds (0: no limit)")
      ->check(seconds())
      ->type_name("S");
  Sub.add_flag("-q,--quiet", O.Quiet, "No warnings or progress");
}

ExitTable runExits() {
  return {64, 125, 0, 130,
          {{"the compiler's", "the session ran: the compiler's own status (128 + N when it was "
                              "killed by signal N)"},
           {"64", "usage error (EX_USAGE): an unknown option, task or policy, a policy that "
                  "does not serve the task, no compiler command after '--'; nothing was run"},
           {"124", "--timeout expired: the compiler (its whole process group) was killed"},
           {"125", "the host failed: a model or vocabulary that cannot be read, a header that "
                   "does not match the feature table, a protocol error (the byte offset is "
                   "named), a policy that cannot answer, a compiler that cannot be started"},
           {"130", "interrupted (SIGINT, SIGTERM, SIGHUP): the compiler was killed"}},
          "In every case the FIFOs, temporary files and compiler processes are gone, and "
          "--log/--transcript exist only after a compiler that exited by itself."};
}

CLI::App *addRunCommand(CLI::App &Mlgo, Commands &Cmds, std::shared_ptr<RunOptions> O,
                        FullHooks H) {
  CLI::App *Run = addCommand(Mlgo, Cmds, "run",
                             std::string("Run a compiler with an interactive channel and answer "
                                         "it with a policy: ") +
                                 RunSyntax,
                             runExits());
  addPolicyOptions(*Run, O->Session, features::taskNames());
  Run->add_option("--log", O->LogPath,
                  "Write the session log: LLVM's training-log format, the compiler's "
                  "features, workbench extras, then the decision")
      ->type_name("FILE");
  Run->add_option("--transcript", O->TranscriptPath,
                  "Write the compiler's raw stream exactly as received")
      ->type_name("FILE");
  Run->add_option("--module", O->ModulePath,
                  "With --embeddings: the IR file to embed (default: the .bc/.ll argument)")
      ->type_name("FILE");
  Run->add_flag("--stats", O->Stats, "Print a summary of the session on standard error");
  Run->add_flag("--reward", O->Reward,
                "evict, priority: score the allocation from the greedy allocator's remarks "
                "(docs/regalloc.md): print the cost on standard error and log it as LLVM's "
                "development mode does (score 'reward' after each function's last observation)");
  // Arguments that are not options belong after "--", and so do options that are not ours
  // (`mlgo run clang-22 -Oz -c f.c` without "--"): collected, in order, to say so (CLI11 would
  // refuse the options without a word about "--").
  Run->allow_extras();
  setRun(Cmds, Run, [O, H, Run] {
    for (const std::string &X : Run->remaining())
      O->Stray.push_back(X);
    support::Reporter R(MlgoToolName, O->Session.Quiet);
    return finish(R, runExits(), runSession(*O, H, R));
  });
  return Run;
}

bool servedByLauncher(const RunOptions &O) {
  // A task's default policy is always built in.
  const std::string &Name = O.Session.Policy.Name;
  return !O.Session.embeddings() && !O.Reward &&
         (Name.empty() || !runners::needsFullTool(Name, O.Session.Policy.ModelPath));
}

} // namespace wb::tool
