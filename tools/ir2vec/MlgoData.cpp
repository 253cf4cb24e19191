// `ir2vec mlgo` subcommands that make and read data: collect, explore, log, predict,
// regalloc-cost, features, policies.
#include "tools/ir2vec/MlgoCommands.h"

#include "features/Dataset.h"
#include "features/RegallocScore.h"
#include "features/TrainingLog.h"
#include "mlgo/pipelines/Collect.h"
#include "mlgo/pipelines/Explore.h"
#include "mlgo/pipelines/Train.h"
#include "runners/Models.h"
#include "support/Files.h"
#include "support/Inputs.h"

namespace wb::tool {

namespace {

struct CollectOptions {
  PolicyCLI Session;
  mlgo::Toolchain Tools;
  std::string Output;
  std::vector<std::string> Inputs;
  unsigned Jobs = 0;
  int RootJobs = -1;
  bool Resume = false;
};

struct ExploreOptions {
  mlgo::ExploreConfig Config;
  mlgo::SplitOptions Split;
  std::string Output, Order = "inlined", Rules = "none";
  std::vector<std::string> Inputs, Embeddings;
  CLI::Option *EmbeddingsFlag = nullptr;
  unsigned Jobs = 0;
  int RootJobs = -1;
  bool Resume = false, Quiet = false;
};

struct LogOptions {
  std::string Task = "inline", Output;
  std::vector<std::string> Logs;
};

llvm::Expected<support::Outcome> runCollect(const CollectOptions &O,
                                            const support::Reporter &R, const RunContext &Ctx) {
  auto Task = features::parseTask(O.Session.Task);
  if (!Task)
    return Task.takeError();
  auto Inputs = support::expandInputs(O.Inputs, R.handler());
  if (!Inputs)
    return Inputs.takeError();
  if (llvm::Error E = runners::checkPolicyOptions(*Task, O.Session.Policy))
    return E;
  if (llvm::Error E = checkOutputs({O.Output}, *Inputs, listFiles(O.Inputs, {O.Session.Policy.ModelPath})))
    return E;
  mlgo::CollectConfig C;
  C.T = *Task;
  C.Policy = O.Session.Policy;
  C.Policy.LoadModel = runners::cachingModelLoader();
  C.Bind.ZeroMissing = O.Session.ZeroMissing;
  auto Embeddings = resolveEmbeddings(O.Session);
  if (!Embeddings)
    return Embeddings.takeError();
  C.Embeddings = std::move(*Embeddings);
  C.Tools = O.Tools;
  if (llvm::Error E = mlgo::loadRecordedCommands(C.Tools, O.Inputs))
    return E;
  C.Run = runSettings(R, O.Jobs, Ctx.distribution(O.RootJobs));
  C.Tools.TimeoutSeconds = O.Session.Timeout;
  C.Resume = O.Resume;
  return support::withCancellation([&](int Cancel) {
    C.Run.CancelFd = Cancel;
    return mlgo::collectDataset(*Inputs, O.Output, C);
  });
}

llvm::Expected<support::Outcome> printLog(const std::string &Path, bool Dump,
                                          const std::string &Output) {
  if (llvm::Error E = checkOutputs({Output}, {Path}))
    return E;
  llvm::Expected<features::Log> L = features::readLogFile(Path);
  if (!L)
    return L.takeError();
  return outcomeOf(support::writeFileAtomicallyChecked(Output, [&](llvm::raw_ostream &OS) -> llvm::Error {
    if (!Dump)
      return features::writeLog(OS, *L);
    features::dumpLog(OS, *L);
    return llvm::Error::success();
  }));
}

llvm::Expected<support::Outcome> runExplore(ExploreOptions &O, const support::Reporter &R,
                                            const RunContext &Ctx) {
  auto Order = support::parseNamed<mlgo::FlipOrder>(mlgo::FlipOrderNames, O.Order, "flip order");
  if (!Order)
    return Order.takeError();
  auto Inputs = support::expandInputs(O.Inputs, R.handler(), &O.Split.Names);
  if (!Inputs)
    return Inputs.takeError();
  if (llvm::Error E = checkOutputs({O.Output}, *Inputs, listFiles(O.Inputs)))
    return E;
  mlgo::ExploreConfig &C = O.Config;
  if (llvm::Error E = mlgo::loadRecordedCommands(C.Tools, O.Inputs))
    return E;
  C.Corpus = mlgo::corpusDescriptions(O.Inputs);
  C.Search.Order = *Order;
  auto Rules = mlgo::parseRules(O.Rules);
  if (!Rules)
    return Rules.takeError();
  C.Search.Rules = std::move(*Rules);
  ir2vec::EmbeddingResolver Resolve; // a vocabulary named twice is read once
  for (const std::string &V : O.Embeddings) {
    auto E = Resolve.resolve(embeddingRequest(V));
    if (!E)
      return E.takeError();
    C.Vocabularies.push_back(std::move(*E));
  }
  C.Run = runSettings(R, O.Jobs, Ctx.distribution(O.RootJobs));
  return support::withCancellation([&](int Cancel) {
    C.Run.CancelFd = Cancel;
    return mlgo::runExploration(*Inputs, O.Split, C, O.Output, O.Resume);
  });
}

llvm::Expected<support::Outcome> runPredict(const std::string &Model, const std::string &Log) {
  llvm::Expected<runners::ModelFile> M = runners::readModelFile(Model);
  if (!M)
    return M.takeError();
  llvm::Expected<features::Log> L = features::readLogFile(Log);
  if (!L)
    return L.takeError();
  llvm::Expected<std::vector<int64_t>> D = mlgo::predictOnLog(*M, *L, Log);
  if (!D)
    return D.takeError();
  for (int64_t X : *D)
    llvm::outs() << X << "\n";
  return support::Outcome::complete();
}

/// Prints a table the library renders (feature tables, the policy table).
/// `mlgo regalloc-cost`: the register allocation cost of remark files, as JSON on standard
/// output (schema ir2vec.regalloc-cost/1, docs/regalloc.md).
llvm::Expected<support::Outcome> printRegallocCost(const std::vector<std::string> &Files) {
  const features::RegallocWeights W;
  llvm::json::Array Out;
  double Total = 0;
  for (const std::string &F : Files) {
    llvm::Expected<std::vector<features::FunctionRegalloc>> Fs = features::readRegallocRemarks(F);
    if (!Fs)
      return Fs.takeError();
    llvm::json::Array Functions = features::regallocCostJSON(*Fs, W);
    const double Cost = features::totalCost(W, *Fs);
    Total += Cost;
    Out.push_back(llvm::json::Object{{"path", F}, {"cost", Cost}, {"functions", std::move(Functions)}});
  }
  llvm::outs() << llvm::formatv("{0:1}", llvm::json::Value(llvm::json::Object{
                                             {"schema", "ir2vec.regalloc-cost/1"},
                                             {"cost", W.describe()},
                                             {"total", Total},
                                             {"files", std::move(Out)}}))
               << "\n";
  return support::Outcome::complete();
}

llvm::Expected<support::Outcome> printTable(const std::string &Table) {
  llvm::outs() << Table;
  return support::Outcome::complete();
}

} // namespace

/// `mlgo collect`.
void addCollect(const MlgoGroup &G) {
  CLI::App *M = &G.App;
  Commands &Cmds = G.Cmds;
  RunContext &Ctx = G.Ctx;
  const CheckedFn &Checked = G.Checked;
  auto C = std::make_shared<CollectOptions>();
  const ExitTable CollectExits = collectExits();
  CLI::App *Collect = addCommand(
      *M, Cmds, "collect",
      "Collect a dataset over a corpus: -Oz under the host and with the compiler's default "
      "(inliner: .text sizes; evict, priority: the register allocator's static cost, "
      "docs/regalloc.md), rewards",
      CollectExits);
  addPolicyOptions(*Collect, C->Session, features::taskNames());
  addOutput(*Collect, C->Output, "Output dataset (HDF5, ir2vec.mlgo-dataset/3)",
            /*Stdout=*/false)
      ->required();
  addJobs(*Collect, C->Jobs, "Modules in parallel");
  addToolchainOptions(*Collect, C->Tools);
  Collect->add_flag("--resume", C->Resume,
                    "Continue an interrupted run of the same command: modules finished before "
                    "are not compiled again");
  addInputs(*Collect, C->Inputs)->required();
  setRun(Cmds, Collect, [&Ctx, C, CollectExits, Checked] {
    support::Reporter R = Ctx.reporter(MlgoToolName, C->Session.Quiet);
    return finish(R, CollectExits, Checked([&] { return runCollect(*C, R, Ctx); }));
  });
  setSpreads(Cmds, Collect, C->RootJobs);
}

/// `mlgo explore`.
void addExplore(const MlgoGroup &G) {
  CLI::App *M = &G.App;
  Commands &Cmds = G.Cmds;
  RunContext &Ctx = G.Ctx;
  const CheckedFn &Checked = G.Checked;
  auto X = std::make_shared<ExploreOptions>();
  ExitTable ExploreExits = collectExits();
  ExploreExits.row("0").Meaning = "every training module was explored";
  ExploreExits.row("130").Meaning = "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers were "
                                 "killed, no output file; finished modules are kept for --resume";
  CLI::App *Explore = addCommand(
      *M, Cmds, "explore",
      "Explore inlining decisions on the training side of a corpus: the heuristic's "
      "trajectory, then single flips with greedy refinement, within a budget of compilations "
      "per module (docs/formats/mlgo-exploration.md)",
      ExploreExits);
  addOutput(*Explore, X->Output, "Output exploration (HDF5, ir2vec.mlgo-exploration/3)",
            /*Stdout=*/false)
      ->required();
  Explore->add_option("--budget", X->Config.Search.Budget,
                      "Compilations per module in the search, the heuristic's included");
  Explore->add_option("--seed", X->Config.Search.Seed, "Seed (the random flip order)");
  Explore
      ->add_option("--rules", X->Rules,
                   "Margin rules rolled out on the whole module before the flips, within the "
                   "budget: all, none, or names (" + mlgo::marginRuleNames() + "); docs/formats/mlgo-exploration.md")
      ->type_name("RULES")
      ->default_str("none");
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
      ->check(seconds())
      ->type_name("S");
  Explore
      ->add_flag_function(
          "--held-out", [X](int64_t) { X->Config.Side = mlgo::ExploredSide::Test; },
          "Explore the held-out side instead (labels for measuring agreement only; mlgo train "
          "refuses the file)")
      ->excludes(Explore->add_flag_function(
          "--all", [X](int64_t) { X->Config.Side = mlgo::ExploredSide::All; },
          "Explore every module of the corpus, both sides (what the transfer protocol's "
          "cross-validation trains on, fold by fold; docs/benchmark.md)"));
  Explore->add_flag("--resume", X->Resume,
                    "Continue an interrupted run of the same command: modules finished before "
                    "are not explored again");
  addJobs(*Explore, X->Jobs, "Modules in parallel");
  addQuiet(*Explore, X->Quiet, "No warnings, progress line or summary");
  addInputs(*Explore, X->Inputs)->required();
  setRun(Cmds, Explore, [&Ctx, X, ExploreExits, Checked] {
    support::Reporter R = Ctx.reporter(MlgoToolName, X->Quiet);
    return finish(R, ExploreExits, Checked([&] { return runExplore(*X, R, Ctx); }));
  });
  setSpreads(Cmds, Explore, X->RootJobs);
}

/// `mlgo regalloc-cost`.
void addRegallocCost(const MlgoGroup &G) {
  CLI::App *M = &G.App;
  Commands &Cmds = G.Cmds;
  RunContext &Ctx = G.Ctx;
  const CheckedFn &Checked = G.Checked;
  auto RC = std::make_shared<std::vector<std::string>>();
  CLI::App *RegallocCost = addCommand(
      *M, Cmds, "regalloc-cost",
      "The register allocation cost of YAML remark files (llc-22 -pass-remarks-output=F "
      "-pass-remarks-filter=regalloc, clang -fsave-optimization-record): per function and in "
      "total, as JSON on standard output (docs/regalloc.md)",
      simpleExits());
  RegallocCost->add_option("remarks", *RC, "Remark files (YAML)")->required();
  setRun(Cmds, RegallocCost, [&Ctx, RC, Checked] {
    support::Reporter R = Ctx.reporter(MlgoToolName, false);
    return finish(R, simpleExits(), Checked([&] { return printRegallocCost(*RC); }));
  });
}

/// `mlgo predict`.
void addPredict(const MlgoGroup &G) {
  CLI::App *M = &G.App;
  Commands &Cmds = G.Cmds;
  const CheckedFn &Checked = G.Checked;
  auto Pr = std::make_shared<std::pair<std::string, std::string>>();
  CLI::App *Predict = addCommand(
      *M, Cmds, "predict",
      "Print a model's decisions (1 = inline) on the observations of a session log, as it "
      "computes them inside the compiler",
      simpleExits());
  Predict->add_option("--model", Pr->first, "Model file")->required()->type_name("FILE");
  Predict->add_option("log", Pr->second, "Session log (mlgo run --log)")->required();
  setRun(Cmds, Predict, [Pr, Checked] {
    return finish(support::Reporter(MlgoToolName, false), simpleExits(),
                  Checked([&] { return runPredict(Pr->first, Pr->second); }));
  });
}

/// `mlgo log dump|rewrite|export`.
void addLog(const MlgoGroup &G) {
  CLI::App *M = &G.App;
  Commands &Cmds = G.Cmds;
  const CheckedFn &Checked = G.Checked;
  CLI::App *Log = addGroup(*M, "log", "Training logs: dump, rewrite, export to HDF5");
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
                 "Turn session logs into an HDF5 dataset (ir2vec.mlgo-dataset/3, without "
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
                    if (llvm::Error E = checkOutputs({LX->Output}, LX->Logs))
                      return E;
                    return outcomeOf(features::exportLogs(*T, LX->Logs, LX->Output));
                  }));
  });
}

/// `mlgo features`.
void addFeatures(const MlgoGroup &G) {
  CLI::App *M = &G.App;
  Commands &Cmds = G.Cmds;
  const CheckedFn &Checked = G.Checked;
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
}

/// `mlgo policies`.
void addPolicies(const MlgoGroup &G) {
  CLI::App *M = &G.App;
  Commands &Cmds = G.Cmds;
  const CheckedFn &Checked = G.Checked;
  CLI::App *Policies = addCommand(*M, Cmds, "policies",
                                  "Print the policy table (names, tasks, answers) as Markdown",
                                  simpleExits());
  setRun(Cmds, Policies, [Checked] {
    return finish(support::Reporter(MlgoToolName, false), simpleExits(),
                  Checked([] { return printTable(runners::policyTableMarkdown()); }));
  });
}

} // namespace wb::tool
