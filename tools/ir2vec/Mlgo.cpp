// `ir2vec mlgo ...`: the MLGO runtime (interactive host, collection, logs, feature and policy
// tables). `run` is shared with the launcher (tools/ir2vec/MlgoRun.h).
#include "tools/ir2vec/Groups.h"
#include "tools/ir2vec/MlgoRun.h"

#include "features/Augment.h"
#include "features/Dataset.h"
#include "features/TrainingLog.h"
#include "mlgo/Collect.h"
#include "mlgo/Explore.h"
#include "runners/Models.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/Process.h"

#include <unistd.h>

namespace wb::tool {

namespace {

struct CollectOptions {
  PolicyCLI Session;
  mlgo::Toolchain Tools;
  std::string Output;
  std::vector<std::string> Inputs;
  unsigned Jobs = 0;
};

struct ExploreOptions {
  mlgo::ExploreConfig Config;
  mlgo::SplitOptions Split;
  std::string Output, Order = "inlined";
  std::vector<std::string> Inputs, Embeddings;
  CLI::Option *EmbeddingsFlag = nullptr;
  unsigned Jobs = 0;
  bool Resume = false, Quiet = false;
};

struct LogOptions {
  std::string Task = "inline", Output;
  std::vector<std::string> Logs;
};

FullHooks fullHooks() {
  FullHooks H;
  H.LoadModel = runners::loadModelPolicy;
  H.Augmenter = features::embeddingAugmenter;
  return H;
}

llvm::Expected<support::Outcome> runCollect(const CollectOptions &O,
                                            const support::Reporter &R) {
  auto Task = features::parseTask(O.Session.Task);
  if (!Task)
    return Task.takeError();
  auto Inputs = support::expandInputs(O.Inputs);
  if (!Inputs)
    return Inputs.takeError();
  mlgo::CollectConfig C;
  C.T = *Task;
  C.Policy = O.Session.Policy;
  C.Policy.LoadModel = runners::loadModelPolicy;
  C.Bind.ZeroMissing = O.Session.ZeroMissing;
  C.Embeddings = O.Session.embeddings();
  C.Tools = O.Tools;
  C.Jobs = jobsOrHardware(O.Jobs);
  C.Tools.TimeoutSeconds = O.Session.Timeout;
  C.ShowProgress = !O.Session.Quiet;
  C.Report = R.handler();
  llvm::Expected<int> Cancel = support::cancellationFd();
  if (!Cancel)
    return Cancel.takeError();
  C.Tools.CancelFd = *Cancel;
  auto Result = mlgo::collectDataset(*Inputs, O.Output, C);
  ::close(*Cancel);
  return Result;
}

llvm::Expected<support::Outcome> printLog(const std::string &Path, bool Dump,
                                          const std::string &Output) {
  llvm::Expected<features::Log> L = features::readLogFile(Path);
  if (!L)
    return L.takeError();
  return outcomeOf(support::writeFileAtomically(Output, [&](llvm::raw_ostream &OS) {
    if (Dump)
      features::dumpLog(OS, *L);
    else
      features::writeLog(OS, *L);
  }));
}

void addToolchainOptions(CLI::App &Sub, mlgo::Toolchain &T) {
  Sub.add_option("--opt", T.Opt, "The opt that runs -Oz");
  Sub.add_option("--llc", T.Llc, "The llc that compiles to an object");
}

void addSplitOptions(CLI::App &Sub, mlgo::SplitOptions &S) {
  Sub.add_option("--test-fraction", S.TestFraction,
                 "Fraction of the modules held out for testing, whole packages at a time");
  Sub.add_option("--split-seed", S.Seed, "Seed of the split by package");
  Sub.add_option("--split-keys", S.KeysFile,
                 "Lines 'MODULE<TAB>KEY' giving each module's package (default: the first path "
                 "component below the corpus root)")
      ->type_name("FILE");
}

llvm::Expected<support::Outcome> runExplore(ExploreOptions &O, const support::Reporter &R) {
  auto Order = support::parseNamed<mlgo::FlipOrder>(mlgo::FlipOrderNames, O.Order, "flip order");
  if (!Order)
    return Order.takeError();
  auto Inputs = support::expandInputs(O.Inputs);
  if (!Inputs)
    return Inputs.takeError();
  mlgo::ExploreConfig &C = O.Config;
  C.Order = *Order;
  C.Vocabularies = O.Embeddings;
  C.Jobs = jobsOrHardware(O.Jobs);
  C.ShowProgress = !O.Quiet;
  C.Report = R.handler();
  llvm::Expected<int> Cancel = support::cancellationFd();
  if (!Cancel)
    return Cancel.takeError();
  C.Tools.CancelFd = *Cancel;
  auto Result = mlgo::runExploration(*Inputs, O.Split, C, O.Output, O.Resume);
  ::close(*Cancel);
  return Result;
}

/// Prints a table the library renders (feature tables, the policy table).
llvm::Expected<support::Outcome> printTable(const std::string &Table) {
  llvm::outs() << Table;
  return support::Outcome::complete();
}

} // namespace

void addMlgoCommands(CLI::App &App, Commands &Cmds, std::vector<std::string> Compiler) {
  CLI::App *M = App.add_subcommand("mlgo", "MLGO runtime: drive opt/llc/clang 22 in interactive "
                                           "mode, collect datasets, read and write logs");
  M->require_subcommand(1);
  auto Run = std::make_shared<RunOptions>();
  Run->Command = Compiler;
  addRunCommand(*M, Cmds, Run, fullHooks());
  // Only `run` takes a compiler command.
  auto Checked = [HasCompiler = !Compiler.empty()](
                     std::function<llvm::Expected<support::Outcome>()> Do)
      -> llvm::Expected<support::Outcome> {
    if (HasCompiler)
      return support::usageError("unexpected arguments after '--' (only mlgo run takes a "
                                 "compiler command)");
    return Do();
  };

  auto C = std::make_shared<CollectOptions>();
  ExitTable CollectExits = batchExits();
  CollectExits.Rows = {
      {"0", "every module was collected"},
      {"1", "nothing usable (bad usage, policy or model, no input, every module failed); no "
            "output file is left behind"},
      {"2", "some modules failed (each is reported and listed in modules/error); the dataset "
            "holds the others"},
      {"130", "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers were killed, no output "
              "file"}};
  CLI::App *Collect = addCommand(
      *M, Cmds, "collect",
      "Collect a dataset over a corpus: -Oz under the host and with the default heuristic, "
      ".text sizes, rewards",
      CollectExits);
  // The reward is a module's .text size, which only the inliner's decisions determine alone.
  addPolicyOptions(*Collect, C->Session, {"inline"});
  addOutput(*Collect, C->Output, "Output dataset (HDF5, ir2vec.mlgo-dataset/1)",
            /*Stdout=*/false)
      ->required();
  addJobs(*Collect, C->Jobs, "Modules in parallel");
  addToolchainOptions(*Collect, C->Tools);
  addInputs(*Collect, C->Inputs)->required();
  setRun(Cmds, Collect, [C, CollectExits, Checked] {
    support::Reporter R(MlgoToolName, C->Session.Quiet);
    return finish(R, CollectExits, Checked([&] { return runCollect(*C, R); }));
  });

  auto X = std::make_shared<ExploreOptions>();
  ExitTable ExploreExits = CollectExits;
  ExploreExits.Rows[0].Meaning = "every training module was explored";
  ExploreExits.Rows[3].Meaning = "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers were "
                                 "killed, no output file; finished modules are kept for --resume";
  CLI::App *Explore = addCommand(
      *M, Cmds, "explore",
      "Explore inlining decisions on the training side of a corpus: the heuristic's "
      "trajectory, then single flips with greedy refinement, within a budget of compilations "
      "per module (docs/formats/mlgo-exploration.md)",
      ExploreExits);
  addOutput(*Explore, X->Output, "Output exploration (HDF5, ir2vec.mlgo-exploration/1)",
            /*Stdout=*/false)
      ->required();
  Explore->add_option("--budget", X->Config.Budget,
                      "Compilations per module in the search, the heuristic's included");
  Explore->add_option("--seed", X->Config.Seed, "Seed (the random flip order)");
  Explore
      ->add_option("--flip-order", X->Order,
                   "Which decisions to flip first: inlined (the heuristic's inline decisions, "
                   "then the others, each by margin), margin (the heuristic's closest calls to "
                   "its -Oz threshold), position (in the compiler's order) or random")
      ->check(CLI::IsMember(support::names<mlgo::FlipOrder>(mlgo::FlipOrderNames)));
  Explore
      ->add_option("--embeddings", X->Embeddings,
                   "Also record the best decisions' observations with embedding features for "
                   "VOCAB (LLVM JSON or the workbench's HDF5; '' = the default vocabulary), by one "
                   "replay per module; repeatable")
      ->type_name("VOCAB");
  addSplitOptions(*Explore, X->Split);
  addToolchainOptions(*Explore, X->Config.Tools);
  Explore->add_option("--timeout", X->Config.Tools.TimeoutSeconds,
                      "Kill a compiler after S seconds (0: no limit); the rollout is recorded "
                      "as failed")
      ->type_name("S");
  Explore->add_flag("--resume", X->Resume,
                    "Continue an interrupted run of the same command: modules finished before "
                    "are not explored again");
  addJobs(*Explore, X->Jobs, "Modules in parallel");
  addQuiet(*Explore, X->Quiet, "No warnings, progress line or summary");
  addInputs(*Explore, X->Inputs)->required();
  setRun(Cmds, Explore, [X, ExploreExits, Checked] {
    support::Reporter R(MlgoToolName, X->Quiet);
    return finish(R, ExploreExits, Checked([&] { return runExplore(*X, R); }));
  });

  CLI::App *Log = M->add_subcommand("log", "Training logs: dump, rewrite, export to HDF5");
  Log->require_subcommand(1);
  auto L = std::make_shared<LogOptions>();
  CLI::App *Dump = addCommand(*Log, Cmds, "dump", "Print a log's records as text", simpleExits());
  CLI::App *Rewrite =
      addCommand(*Log, Cmds, "rewrite",
                 "Parse a log and write it again (byte-identical for a valid log)", simpleExits());
  for (CLI::App *Sub : {Dump, Rewrite})
    Sub->add_option("log", L->Logs, "Log file ('-' = standard input)")->required()->expected(1);
  L->Output = "-";
  addOutput(*Rewrite, L->Output, "Output file", /*Stdout=*/true);
  for (auto [Sub, IsDump] : {std::pair{Dump, true}, std::pair{Rewrite, false}})
    setRun(Cmds, Sub, [L, IsDump = IsDump, Checked] {
      return finish(support::Reporter(MlgoToolName, false), simpleExits(), Checked([&] {
                      return printLog(L->Logs.front(), IsDump, IsDump ? "-" : L->Output);
                    }));
    });

  auto LX = std::make_shared<LogOptions>();
  CLI::App *Export =
      addCommand(*Log, Cmds, "export",
                 "Turn session logs into an HDF5 dataset (ir2vec.mlgo-dataset/1, without "
                 "rewards)",
                 simpleExits());
  Export->add_option("--task", LX->Task, "The logs' task")
      ->check(CLI::IsMember(features::taskNames()));
  Export->add_option("logs", LX->Logs, "Session logs (ir2vec mlgo run --log)")->required();
  addOutput(*Export, LX->Output, "Output dataset (HDF5)", /*Stdout=*/false)->required();
  setRun(Cmds, Export, [LX, Checked] {
    return finish(support::Reporter(MlgoToolName, false), simpleExits(),
                  Checked([&]() -> llvm::Expected<support::Outcome> {
                    auto T = features::parseTask(LX->Task);
                    if (!T)
                      return T.takeError();
                    return outcomeOf(features::exportLogs(*T, LX->Logs, LX->Output));
                  }));
  });

  auto F = std::make_shared<std::string>("inline");
  CLI::App *Features = addCommand(
      *M, Cmds, "features",
      "Print a task's feature table (compiler features and workbench extras) as Markdown",
      simpleExits());
  Features->add_option("--task", *F, "The task")->check(CLI::IsMember(features::taskNames()));
  setRun(Cmds, Features, [F, Checked] {
    return finish(support::Reporter(MlgoToolName, false), simpleExits(),
                  Checked([&]() -> llvm::Expected<support::Outcome> {
                    auto T = features::parseTask(*F);
                    if (!T)
                      return T.takeError();
                    return printTable(features::featureTableMarkdown(*T));
                  }));
  });

  CLI::App *Policies = addCommand(*M, Cmds, "policies",
                                  "Print the policy table (names, tasks, answers) as Markdown",
                                  simpleExits());
  setRun(Cmds, Policies, [Checked] {
    return finish(support::Reporter(MlgoToolName, false), simpleExits(),
                  Checked([] { return printTable(runners::policyTableMarkdown()); }));
  });
}

} // namespace wb::tool
