// `ir2vec mlgo ...`: the MLGO runtime (interactive host, collection, logs, feature and policy
// tables). `run` is shared with the launcher (tools/ir2vec/MlgoRun.h).
#include "tools/ir2vec/Groups.h"
#include "tools/ir2vec/MlgoRun.h"

#include "features/Augment.h"
#include "features/Dataset.h"
#include "features/RegallocScore.h"
#include "features/TrainingLog.h"
#include "mlgo/Ablate.h"
#include "mlgo/Benchmark.h"
#include "mlgo/Collect.h"
#include "mlgo/Eval.h"
#include "mlgo/EvictTrain.h"
#include "mlgo/Explore.h"
#include "mlgo/FineTune.h"
#include "mlgo/Train.h"
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

struct EvalOptions {
  PolicyCLI Session;
  std::string Protocol;
  std::string Exploration;
  CLI::App *Command = nullptr;
  mlgo::SplitOptions Split;
  mlgo::Toolchain Tools;
  std::vector<std::string> Inputs;
  std::string Output, HDF5Output;
  uint64_t BootstrapSeed = 1;
  bool TrainSide = false;
  unsigned Jobs = 0;
  int RootJobs = -1;
};

struct AblateOptions {
  std::string Spec, Output, Gnuplot = "gnuplot";
  mlgo::Toolchain Tools;
  unsigned Jobs = 0;
  bool Quiet = false;
};

struct BenchmarkOptions {
  std::string Spec, Output, PerfResults;
  mlgo::Toolchain Tools;
  unsigned Jobs = 0;
  bool Quiet = false;
};

struct TrainOptions {
  mlgo::TrainConfig Config;
  std::string Exploration, Output, Observations = "none", Optimizer = "adam",
                                   Normalize = "quantile";
  CLI::Option *FeaturesFlag = nullptr;
  bool Quiet = false;
};

struct FineTuneOptions {
  mlgo::FineTuneConfig Config;
  std::string Exploration, Model, Output, Optimizer = "adam", Method = "bias";
  std::vector<std::string> Inputs;
  unsigned Jobs = 0;
  bool FromHeuristic = false, Quiet = false;
};

struct EvictTrainOptions {
  mlgo::EvictTrainJob Job;
  std::vector<std::string> Inputs;
  std::string Optimizer = "adam";
  unsigned Jobs = 0;
  int RootJobs = -1;
  bool Quiet = false;
};

struct LogOptions {
  std::string Task = "inline", Output;
  std::vector<std::string> Logs;
};

FullHooks fullHooks() {
  FullHooks H;
  H.LoadModel = runners::cachingModelLoader();
  H.Augmenter = [](runners::Task T, std::string Vocab, std::string Module) {
    return features::embeddingAugmenter(T, {std::move(Vocab), ir2vec::Kind::Symbolic},
                                        std::move(Module));
  };
  H.ReadRemarks = features::readRegallocRemarks;
  return H;
}

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
  C.Embeddings = O.Session.embeddings();
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

void addToolchainOptions(CLI::App &Sub, mlgo::Toolchain &T) {
  Sub.add_option("--opt", T.Opt, "The opt that runs -Oz (modules without a recorded command)");
  Sub.add_option("--llc", T.Llc, "The llc that compiles to an object (modules without a "
                                 "recorded command)");
  Sub.add_option("--clang", T.Clang, "The clang that runs recorded command lines (.cmd files "
                                     "of a corpus description, global_command_override)");
  Sub.add_option_function<std::string>(
         "--compile",
         [&T](const std::string &S) {
           T.Mode = *support::parseNamed<mlgo::CompileMode>(mlgo::CompileModeNames, S, "mode");
         },
         "How modules are compiled: auto (each module's recorded command line when the corpus "
         "has one, else opt -Oz then llc), recorded (recorded command lines only), pipeline "
         "(opt -Oz then llc, recorded command lines ignored)")
      ->check(CLI::IsMember(support::names<mlgo::CompileMode>(mlgo::CompileModeNames)))
      ->type_name("MODE")
      ->default_str("auto");
}

void addSplitOptions(CLI::App &Sub, mlgo::SplitOptions &S) {
  Sub.add_option("--test-fraction", S.TestFraction,
                 "Fraction of the modules held out for testing, whole packages at a time (1: "
                 "every module, to evaluate a policy on all of a corpus it never saw)");
  Sub.add_option("--split-seed", S.Seed, "Seed of the split by package");
  Sub.add_option("--split-keys", S.KeysFile,
                 "Lines 'MODULE<TAB>KEY' giving each module's package, MODULE its name in its "
                 "corpus or its path (default: the first component of the module's name, "
                 "docs/corpus.md)")
      ->type_name("FILE");
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
  C.Vocabularies = O.Embeddings;
  C.Run = runSettings(R, O.Jobs, Ctx.distribution(O.RootJobs));
  return support::withCancellation([&](int Cancel) {
    C.Run.CancelFd = Cancel;
    return mlgo::runExploration(*Inputs, O.Split, C, O.Output, O.Resume);
  });
}

llvm::Expected<support::Outcome> runTrain(TrainOptions &O, const support::Reporter &R) {
  auto Opt = learn::parseOptimizer(O.Optimizer);
  if (!Opt)
    return Opt.takeError();
  O.Config.Optimizer.Kind = *Opt;
  auto Norm = support::parseNamed<mlgo::IntegerNormalization>(mlgo::IntegerNormalizationNames,
                                                             O.Normalize, "normalisation");
  if (!Norm)
    return Norm.takeError();
  O.Config.Normalize = *Norm;
  // Named inputs alone: no default groups besides them.
  if (!O.Config.Inputs.empty() && O.FeaturesFlag->count() == 0)
    O.Config.Groups.clear();
  if (llvm::Error E = checkOutputs({O.Output}, {O.Exploration}))
    return E;
  return mlgo::runTraining(O.Exploration, O.Observations, O.Config, O.Output, R.handler());
}

llvm::Expected<support::Outcome> runFineTuneCommand(FineTuneOptions &O,
                                                    const support::Reporter &R) {
  auto Opt = learn::parseOptimizer(O.Optimizer);
  if (!Opt)
    return Opt.takeError();
  mlgo::FineTuneConfig &C = O.Config;
  C.Optimizer.Kind = *Opt;
  C.Run = runSettings(R, O.Jobs);
  if (O.FromHeuristic == !O.Model.empty())
    return support::usageError("start from --model FILE or from --from-heuristic (one of them)");
  auto Method = support::parseNamed<mlgo::TuneMethod>(mlgo::TuneMethodNames, O.Method, "method");
  if (!Method)
    return Method.takeError();
  C.Method = *Method;
  if (llvm::Error E = checkOutputs({O.Output}, O.Inputs, {O.Exploration, O.Model}))
    return E;
  mlgo::FineTuneStart From;
  From.ModelPath = O.Model;
  From.Heuristic = O.FromHeuristic;
  return support::withCancellation([&](int Cancel) {
    C.Run.CancelFd = Cancel;
    return mlgo::runFineTune(O.Exploration, From, O.Inputs, C, O.Output);
  });
}

llvm::Expected<support::Outcome> runEvictTrainCommand(EvictTrainOptions &O,
                                                      const support::Reporter &R,
                                                      const RunContext &Ctx) {
  auto Opt = learn::parseOptimizer(O.Optimizer);
  if (!Opt)
    return Opt.takeError();
  mlgo::EvictTrainJob &J = O.Job;
  J.Tune.Optimizer.Kind = *Opt;
  J.Tune.Run = runSettings(R, O.Jobs, Ctx.distribution(O.RootJobs));
  auto Inputs = support::expandInputs(O.Inputs, R.handler(), &J.Split.Names);
  if (!Inputs)
    return Inputs.takeError();
  if (llvm::Error E = checkOutputs({J.Output, J.Report}, *Inputs, listFiles(O.Inputs, {J.StartModel})))
    return E;
  if (llvm::Error E = mlgo::loadRecordedCommands(J.Tune.Tools, O.Inputs))
    return E;
  J.Modules = *Inputs;
  return support::withCancellation([&](int Cancel) {
    J.Tune.Run.CancelFd = Cancel;
    return mlgo::runEvictTraining(J);
  });
}

llvm::Expected<support::Outcome> runEval(EvalOptions &O, const support::Reporter &R,
                                         const RunContext &Ctx) {
  if (llvm::Error E = runners::checkPolicyOptions(runners::Task::Inline, O.Session.Policy))
    return E;
  auto Inputs = support::expandInputs(O.Inputs, R.handler(), &O.Split.Names);
  if (!Inputs)
    return Inputs.takeError();
  if (llvm::Error E = checkOutputs({O.Output, O.HDF5Output}, *Inputs,
                                   listFiles(O.Inputs, {O.Session.Policy.ModelPath, O.Exploration})))
    return E;
  mlgo::EvalJob J;
  J.Inputs = std::move(*Inputs);
  // The transfer protocol unless asked otherwise; a split's own options ask for a split.
  std::string Proto = O.Protocol;
  if (Proto.empty())
    Proto = O.Command->count("--test-fraction") || O.Command->count("--split-seed") ||
                    O.Command->count("--train-side")
                ? "split"
                : "transfer";
  auto P = support::parseNamed<mlgo::Protocol>(mlgo::ProtocolNames, Proto, "protocol");
  if (!P)
    return P.takeError();
  J.Proto = *P;
  if (J.Proto == mlgo::Protocol::Transfer &&
      (O.Command->count("--test-fraction") || O.Command->count("--train-side")))
    return support::usageError("--test-fraction and --train-side choose a side of a split: "
                               "they go with --protocol split");
  J.Exploration = O.Exploration;
  J.Split = O.Split;
  J.TestSide = !O.TrainSide;
  J.Session.T = runners::Task::Inline;
  J.Session.Policy = O.Session.Policy;
  J.Session.Policy.LoadModel = runners::cachingModelLoader();
  J.Session.Bind.ZeroMissing = O.Session.ZeroMissing;
  J.Embeddings = O.Session.embeddings();
  J.PolicyLabel = O.Session.Policy.Name.empty() ? "default" : O.Session.Policy.Name;
  J.ModelPath = O.Session.Policy.ModelPath;
  J.Seed = O.BootstrapSeed;
  J.JSONOutput = O.Output;
  J.HDF5Output = O.HDF5Output;
  mlgo::EvalRunConfig C;
  C.Tools = O.Tools;
  if (llvm::Error E = mlgo::loadRecordedCommands(C.Tools, O.Inputs))
    return E;
  C.Tools.TimeoutSeconds = O.Session.Timeout;
  C.Run = runSettings(R, O.Jobs, Ctx.distribution(O.RootJobs));
  return support::withCancellation([&](int Cancel) {
    C.Run.CancelFd = Cancel;
    return mlgo::runEvaluation(J, C);
  });
}

llvm::Expected<support::Outcome> runAblate(const AblateOptions &O, const support::Reporter &R) {
  auto Spec = mlgo::readAblationSpec(O.Spec);
  if (!Spec)
    return Spec.takeError();
  mlgo::AblationConfig C;
  C.Tools = O.Tools;
  C.Run = runSettings(R, O.Jobs);
  C.Gnuplot = O.Gnuplot;
  return support::withCancellation([&](int Cancel) {
    C.Run.CancelFd = Cancel;
    return mlgo::runAblation(*Spec, O.Output, C);
  });
}

llvm::Expected<support::Outcome> runBenchmarkCommand(const BenchmarkOptions &O,
                                                     const support::Reporter &R) {
  auto Spec = mlgo::readBenchmarkSpec(O.Spec);
  if (!Spec)
    return Spec.takeError();
  mlgo::BenchmarkConfig C;
  C.Tools = O.Tools;
  C.Run = runSettings(R, O.Jobs);
  C.PerfResults = O.PerfResults;
  return support::withCancellation([&](int Cancel) {
    C.Run.CancelFd = Cancel;
    return mlgo::runBenchmark(*Spec, O.Output, C);
  });
}

/// A model's decisions on the observations of a session log, one per line.
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

void addMlgoCommands(CLI::App &App, Commands &Cmds, std::vector<std::string> Compiler,
                     RunContext &Ctx) {
  CLI::App *M = addGroup(App, "mlgo", "MLGO runtime: drive opt/llc/clang 22 in interactive "
                                      "mode, collect datasets, read and write logs");
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
              "file; finished modules are kept for --resume"}};
  CLI::App *Collect = addCommand(
      *M, Cmds, "collect",
      "Collect a dataset over a corpus: -Oz under the host and with the compiler's default "
      "(inliner: .text sizes; evict, priority: the register allocator's static cost, "
      "docs/regalloc.md), rewards",
      CollectExits);
  addPolicyOptions(*Collect, C->Session, features::taskNames());
  addOutput(*Collect, C->Output, "Output dataset (HDF5, ir2vec.mlgo-dataset/2)",
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
  addOutput(*Explore, X->Output, "Output exploration (HDF5, ir2vec.mlgo-exploration/2)",
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

  auto E = std::make_shared<EvalOptions>();
  ExitTable EvalExits = CollectExits;
  EvalExits.Rows[0].Meaning = "every module was evaluated";
  EvalExits.Rows[3].Meaning = "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers were "
                              "killed, no output file";
  EvalExits.Rows[2].Meaning = "some modules failed (each is reported and listed with its error); "
                              "the report covers the others";
  CLI::App *Eval = addCommand(
      *M, Cmds, "eval",
      "Evaluate an inliner policy against -Oz on the packages of a corpus it was not trained on "
      "(the transfer protocol) or on one side of a split: .text per module and package, the "
      "worst package, 95% bootstrap intervals over modules and over packages, the headroom "
      "an exploration found (docs/formats/mlgo-eval.md, docs/benchmark.md)",
      EvalExits);
  E->Command = Eval;
  addPolicyOptions(*Eval, E->Session, {"inline"});
  Eval->add_option("--protocol", E->Protocol,
                   "transfer (default: every package the policy's model was not trained on, as "
                   "its file records) or split (one side of a split by package; implied by "
                   "--test-fraction, --split-seed and --train-side)")
      ->check(CLI::IsMember(support::names<mlgo::Protocol>(mlgo::ProtocolNames)));
  Eval->add_option("--exploration", E->Exploration,
                   "An exploration of the corpus (mlgo explore --all): each module's smallest "
                   ".text found gives the headroom and the share of it the policy captured")
      ->type_name("FILE");
  addOutput(*Eval, E->Output, "Report (JSON, ir2vec.mlgo-eval/2)", /*Stdout=*/true)->required();
  Eval->add_option("--hdf5", E->HDF5Output, "Also write the report as HDF5")->type_name("FILE");
  Eval->add_flag("--train-side", E->TrainSide,
                 "Evaluate the training side of the split instead of the held-out side");
  Eval->add_option("--bootstrap-seed", E->BootstrapSeed, "Seed of the bootstrap interval");
  addSplitOptions(*Eval, E->Split);
  addToolchainOptions(*Eval, E->Tools);
  addJobs(*Eval, E->Jobs, "Modules in parallel");
  addInputs(*Eval, E->Inputs)->required();
  setRun(Cmds, Eval, [&Ctx, E, EvalExits, Checked] {
    support::Reporter R = Ctx.reporter(MlgoToolName, E->Session.Quiet);
    return finish(R, EvalExits, Checked([&] { return runEval(*E, R, Ctx); }));
  });
  setSpreads(Cmds, Eval, E->RootJobs);

  auto A = std::make_shared<AblateOptions>();
  ExitTable AblateExits = CollectExits;
  AblateExits.Rows[0].Meaning = "every arm was trained and evaluated with every seed";
  AblateExits.Rows[1].Meaning = "nothing usable (bad usage or spec, no input, a failed "
                                "exploration or training, gnuplot missing); the report is not "
                                "written";
  AblateExits.Rows[2].Meaning = "some held-out evaluations failed (each is reported); the "
                                "report covers the others";
  AblateExits.Rows[3].Meaning = "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers were "
                                "killed; finished explorations are kept and reused by a rerun";
  CLI::App *Ablate = addCommand(
      *M, Cmds, "ablate",
      "Feature-ablation study of inlining for size (one exploration, a model per arm and seed, "
      "held-out .text against -Oz with intervals, permutation importance; docs/ablation.md) or, "
      "with \"task\": \"evict\", of eviction (an MLP per arm and seed tuned by ES on the "
      "register allocation cost, held-out cost against the default advisor; "
      "docs/ablation-regalloc.md): plots and a report (docs/formats/mlgo-ablation.md)",
      AblateExits);
  Ablate->add_option("spec", A->Spec, "The study (JSON, docs/formats/mlgo-ablation.md)")
      ->required();
  Ablate->add_option("-o,--output", A->Output,
                     "Output directory (report.md, report.json, results.h5, plots, models, "
                     "explorations); explorations in it made with the same settings are reused")
      ->type_name("DIR")
      ->required();
  addToolchainOptions(*Ablate, A->Tools);
  Ablate->add_option("--gnuplot", A->Gnuplot, "The gnuplot that draws the plots");
  addJobs(*Ablate, A->Jobs, "Modules in parallel");
  addQuiet(*Ablate, A->Quiet, "No notes, warnings or progress line");
  setRun(Cmds, Ablate, [&Ctx, A, AblateExits, Checked] {
    support::Reporter R = Ctx.reporter(MlgoToolName, A->Quiet);
    return finish(R, AblateExits, Checked([&] { return runAblate(*A, R); }));
  });

  auto BM = std::make_shared<BenchmarkOptions>();
  ExitTable BenchmarkExits = CollectExits;
  BenchmarkExits.Rows[0].Meaning = "every policy was judged on every module it was given";
  BenchmarkExits.Rows[1].Meaning = "nothing usable (bad usage or spec, no input, a policy that "
                                   "cannot be made, a failed exploration or training); no "
                                   "results are written";
  BenchmarkExits.Rows[2].Meaning = "some evaluations failed (each is reported); the results "
                                   "cover the others";
  BenchmarkExits.Rows[3].Meaning = "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers were "
                                   "killed; the exploration is kept and reused by a rerun";
  CLI::App *Bench = addCommand(
      *M, Cmds, "benchmark",
      "The open benchmark for inliner policies: policies judged by the transfer protocol on a "
      "corpus (fixed policies on every package their model was not trained on, trained "
      "policies by cross-validation by package), with the worst package, both intervals and "
      "the headroom; results.json, manifest.json and a self-contained index.html "
      "(docs/benchmark.md)",
      BenchmarkExits);
  Bench->add_option("spec", BM->Spec, "The benchmark (JSON, docs/benchmark.md; the default "
                                      "set is bench/benchmark/benchmark.json)")
      ->required();
  Bench->add_option("-o,--output", BM->Output,
                    "Output directory (results.json, manifest.json, index.html, the exploration, "
                    "models); an exploration in it made with the same settings is reused")
      ->type_name("DIR")
      ->required();
  Bench->add_option("--perf-results", BM->PerfResults,
                    "The performance track's results (scripts/perf-track.py's results.json, "
                    "docs/perf.md): checked, pinned in manifest.json and drawn in index.html")
      ->type_name("FILE");
  addToolchainOptions(*Bench, BM->Tools);
  addJobs(*Bench, BM->Jobs, "Modules in parallel");
  addQuiet(*Bench, BM->Quiet, "No notes, warnings or progress line");
  setRun(Cmds, Bench, [&Ctx, BM, BenchmarkExits, Checked] {
    support::Reporter R = Ctx.reporter(MlgoToolName, BM->Quiet);
    return finish(R, BenchmarkExits, Checked([&] { return runBenchmarkCommand(*BM, R); }));
  });

  auto T = std::make_shared<TrainOptions>();
  CLI::App *Train = addCommand(
      *M, Cmds, "train",
      "Train a linear or mlp inliner policy on an exploration's best decisions (behavioural "
      "cloning; normalisation fitted on the training split and stored in the model)",
      simpleExits());
  Train->add_option("exploration", T->Exploration, "Exploration file (mlgo explore)")
      ->required();
  addOutput(*Train, T->Output, "Output model (HDF5, docs/formats/mlgo-model.md)",
            /*Stdout=*/false)
      ->required();
  T->FeaturesFlag = Train->add_option("--features", T->Config.Groups,
                                     "Feature groups the model reads (docs/mlgo.md: cost, "
                                     "callgraph, heuristic, embedding, module)")
                       ->delimiter(',')
                       ->type_name("GROUP,...");
  Train->add_option("--inputs", T->Config.Inputs,
                    "Further features the model reads, by name (alone: only these)")
      ->delimiter(',')
      ->type_name("NAME,...");
  Train->add_option("--normalize", T->Normalize,
                    "Integer features: quantile buckets, z-scores or none (float features get "
                    "z-scores unless none)")
      ->check(CLI::IsMember(
          support::names<mlgo::IntegerNormalization>(mlgo::IntegerNormalizationNames)));
  Train->add_option("--observations", T->Observations,
                    "The exploration's observation set: none (the compiler's features), "
                    "default or a vocabulary file given to explore --embeddings");
  Train->add_option("--model", T->Config.Kind, "linear or mlp")
      ->check(CLI::IsMember({"linear", "mlp"}));
  Train->add_option("--hidden", T->Config.Hidden, "mlp: hidden layer widths")
      ->delimiter(',')
      ->type_name("N,...");
  Train->add_option("--epochs", T->Config.Epochs, "Passes over the training decisions");
  Train->add_option("--batch-size", T->Config.BatchSize, "Decisions per minibatch");
  Train->add_option("--lr", T->Config.Optimizer.LearningRate, "Learning rate");
  Train->add_option("--optimizer", T->Optimizer, "sgd or adam")
      ->check(CLI::IsMember(support::names<learn::OptimizerKind>(learn::OptimizerNames)));
  Train->add_option("--seed", T->Config.Seed, "Seed (initial weights, minibatch order)");
  addQuiet(*Train, T->Quiet, "No summary");
  setRun(Cmds, Train, [&Ctx, T, Checked] {
    support::Reporter R = Ctx.reporter(MlgoToolName, T->Quiet);
    return finish(R, simpleExits(), Checked([&] { return runTrain(*T, R); }));
  });

  auto FT = std::make_shared<FineTuneOptions>();
  ExitTable FineTuneExits = simpleExits();
  FineTuneExits.Rows.push_back({"130", "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers "
                                       "were killed, no model written"});
  CLI::App *FineTune = addCommand(
      *M, Cmds, "finetune",
      "Fine-tune an inliner model on the .text of the training side of an exploration: a "
      "line search over its output bias, or evolution strategies (antithetic pairs), with "
      "the exploration's heuristic sizes as baselines; the tuned model is written if it "
      "beats the start model on the whole training side, else the start model",
      FineTuneExits);
  FineTune->add_option("exploration", FT->Exploration, "Exploration file (mlgo explore)")
      ->required();
  FineTune->add_option("corpus", FT->Inputs,
                       "The corpus inputs of the exploration, when its modules have recorded "
                       "command lines");
  FineTune->add_option("--model", FT->Model, "Start model (mlgo train)")->type_name("FILE");
  addOutput(*FineTune, FT->Output, "Output model", /*Stdout=*/false)->required();
  FineTune->add_flag("--from-heuristic", FT->FromHeuristic,
                     "Start from the heuristic instead: a linear model on threshold, "
                     "cost_estimate and inlining_default that answers as the heuristic "
                     "(docs/mlgo.md)");
  FineTune->add_option("--method", FT->Method,
                       "bias: line search over the output bias (the operating point); es: "
                       "evolution strategies on every parameter")
      ->check(CLI::IsMember(support::names<mlgo::TuneMethod>(mlgo::TuneMethodNames)));
  FineTune->add_option("--steps", FT->Config.Steps, "es: steps");
  FineTune->add_option("--pairs", FT->Config.Pairs, "es: antithetic perturbation pairs per step");
  FineTune->add_option("--modules-per-step", FT->Config.ModulesPerStep,
                       "es: training modules (with decisions) sampled per step");
  FineTune->add_option("--sigma", FT->Config.Sigma,
                       "es: perturbation size (first-layer weights: relative to their input's "
                       "robust spread)");
  FineTune->add_option("--lr", FT->Config.Optimizer.LearningRate, "es: learning rate");
  FineTune->add_option("--optimizer", FT->Optimizer, "es: sgd or adam")
      ->check(CLI::IsMember(support::names<learn::OptimizerKind>(learn::OptimizerNames)));
  FineTune->add_option("--seed", FT->Config.Seed, "es: seed (perturbations, module samples)");
  addToolchainOptions(*FineTune, FT->Config.Tools);
  FineTune->add_option("--timeout", FT->Config.Tools.TimeoutSeconds,
                       "Kill a compiler after S seconds (0: no limit); counted with the "
                       "heuristic's size")
      ->check(seconds())
      ->type_name("S");
  addJobs(*FineTune, FT->Jobs, "Compilations in parallel");
  addQuiet(*FineTune, FT->Quiet, "No notes or progress line");
  setRun(Cmds, FineTune, [&Ctx, FT, FineTuneExits, Checked] {
    support::Reporter R = Ctx.reporter(MlgoToolName, FT->Quiet);
    return finish(R, FineTuneExits, Checked([&] { return runFineTuneCommand(*FT, R); }));
  });

  auto EV = std::make_shared<EvictTrainOptions>();
  EV->Job.Tune.Steps = 12;
  EV->Job.Tune.Pairs = 6;
  EV->Job.Tune.ModulesPerStep = 24;
  EV->Job.Tune.Sigma = 0.1;
  EV->Job.Tune.Optimizer.LearningRate = 0.05;
  ExitTable EvictTrainExits = simpleExits();
  EvictTrainExits.Rows[1].Meaning += "; also when every module of the training or the held-out "
                                     "side failed to compile (the first cause is named)";
  EvictTrainExits.Rows.push_back({"2", "some held-out modules failed (each is reported); the "
                                       "model and the report judge the others"});
  EvictTrainExits.Rows.push_back({"130", "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers "
                                         "were killed, no model written; finished steps are kept "
                                         "in OUTPUT.parts/ for --resume"});
  CLI::App *EvictTrain = addCommand(
      *M, Cmds, "train-evict",
      "Train an eviction policy on the register allocator's static cost (docs/regalloc.md): "
      "split the corpus by package, start from the density rule (a linear model that evicts "
      "the candidate whose interference has the lowest use/def density, when lower than the "
      "evicting range's), tune every weight by evolution strategies on the training side "
      "against the default advisor's cost, then judge the held-out packages",
      EvictTrainExits);
  addOutput(*EvictTrain, EV->Job.Output, "Output model", /*Stdout=*/false)->required();
  EvictTrain->add_option("--report", EV->Job.Report,
                         "Also write the held-out report (JSON, ir2vec.mlgo-evict-eval/1)")
      ->type_name("FILE");
  EvictTrain->add_option("--model", EV->Job.StartModel, "Start model (default: the density rule)")
      ->type_name("FILE");
  EvictTrain->add_option("--steps", EV->Job.Tune.Steps, "Steps of evolution strategies");
  EvictTrain->add_option("--pairs", EV->Job.Tune.Pairs, "Antithetic perturbation pairs per step");
  EvictTrain->add_option("--modules-per-step", EV->Job.Tune.ModulesPerStep,
                         "Training modules sampled per step");
  EvictTrain->add_option("--sigma", EV->Job.Tune.Sigma,
                         "Perturbation size, relative to each input's spread over the start "
                         "policy's observations");
  EvictTrain->add_option("--lr", EV->Job.Tune.Optimizer.LearningRate, "Learning rate");
  EvictTrain->add_option("--optimizer", EV->Optimizer, "sgd or adam")
      ->check(CLI::IsMember(support::names<learn::OptimizerKind>(learn::OptimizerNames)));
  EvictTrain->add_option("--seed", EV->Job.Tune.Seed, "Seed (perturbations, module samples)");
  EvictTrain->add_option("--bootstrap-seed", EV->Job.BootstrapSeed, "Seed of the bootstrap intervals");
  addSplitOptions(*EvictTrain, EV->Job.Split);
  addToolchainOptions(*EvictTrain, EV->Job.Tune.Tools);
  EvictTrain->add_option("--timeout", EV->Job.Tune.Tools.TimeoutSeconds,
                         "Kill a compiler after S seconds (0: no limit)")
      ->check(seconds())
      ->type_name("S");
  EvictTrain->add_flag("--resume", EV->Job.Resume,
                       "Continue an interrupted run from the steps kept in OUTPUT.parts/ (the "
                       "same inputs and options)");
  addJobs(*EvictTrain, EV->Jobs, "Compilations in parallel");
  addQuiet(*EvictTrain, EV->Quiet, "No notes or progress line");
  addInputs(*EvictTrain, EV->Inputs)->required();
  setSpreads(Cmds, EvictTrain, EV->RootJobs);
  setRun(Cmds, EvictTrain, [&Ctx, EV, EvictTrainExits, Checked] {
    support::Reporter R = Ctx.reporter(MlgoToolName, EV->Quiet);
    return finish(R, EvictTrainExits,
                  Checked([&] { return runEvictTrainCommand(*EV, R, Ctx); }));
  });

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
                 "Turn session logs into an HDF5 dataset (ir2vec.mlgo-dataset/2, without "
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
