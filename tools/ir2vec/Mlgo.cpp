// `ir2vec mlgo ...`: the MLGO runtime (interactive host, collection, logs, feature and policy
// tables). `run` is shared with the launcher (tools/ir2vec/MlgoRun.h).
#include "tools/ir2vec/Groups.h"
#include "tools/ir2vec/MlgoRun.h"

#include "features/Augment.h"
#include "features/Dataset.h"
#include "features/TrainingLog.h"
#include "mlgo/Collect.h"
#include "runners/Models.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/Process.h"

#include <unistd.h>

namespace wb::tool {

namespace {

struct CollectOptions {
  PolicyCLI Session;
  std::string Output, Opt = "opt-22", Llc = "llc-22";
  std::vector<std::string> Inputs;
  unsigned Jobs = 0;
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
  C.Opt = O.Opt;
  C.Llc = O.Llc;
  C.Jobs = jobsOrHardware(O.Jobs);
  C.TimeoutSeconds = O.Session.Timeout;
  C.ShowProgress = !O.Session.Quiet;
  C.Report = R.handler();
  llvm::Expected<int> Cancel = support::cancellationFd();
  if (!Cancel)
    return Cancel.takeError();
  C.CancelFd = *Cancel;
  auto Result = mlgo::collectDataset(*Inputs, O.Output, C);
  ::close(C.CancelFd);
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
  Collect->add_option("--opt", C->Opt, "The opt that runs -Oz");
  Collect->add_option("--llc", C->Llc, "The llc that compiles to an object");
  addInputs(*Collect, C->Inputs)->required();
  setRun(Cmds, Collect, [C, CollectExits, Checked] {
    support::Reporter R(MlgoToolName, C->Session.Quiet);
    return finish(R, CollectExits, Checked([&] { return runCollect(*C, R); }));
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

  auto X = std::make_shared<LogOptions>();
  CLI::App *Export =
      addCommand(*Log, Cmds, "export",
                 "Turn session logs into an HDF5 dataset (ir2vec.mlgo-dataset/1, without "
                 "rewards)",
                 simpleExits());
  Export->add_option("--task", X->Task, "The logs' task")
      ->check(CLI::IsMember(features::taskNames()));
  Export->add_option("logs", X->Logs, "Session logs (ir2vec mlgo run --log)")->required();
  addOutput(*Export, X->Output, "Output dataset (HDF5)", /*Stdout=*/false)->required();
  setRun(Cmds, Export, [X, Checked] {
    return finish(support::Reporter(MlgoToolName, false), simpleExits(),
                  Checked([&]() -> llvm::Expected<support::Outcome> {
                    auto T = features::parseTask(X->Task);
                    if (!T)
                      return T.takeError();
                    return outcomeOf(features::exportLogs(*T, X->Logs, X->Output));
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
