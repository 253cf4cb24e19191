// `ir2vec mlgo` subcommands that make policies: train, finetune, train-evict.
#include "tools/ir2vec/MlgoCommands.h"

#include "mlgo/studies/TrainEvict.h"
#include "mlgo/pipelines/FineTune.h"
#include "mlgo/pipelines/Train.h"

namespace wb::tool {

namespace {

struct PolicyTrainOptions {
  mlgo::TrainConfig Config;
  std::string Exploration, Output, Observations = "none", Optimizer = "adam",
                                   Normalize = "quantile", Model = "mlp";
  CLI::Option *FeaturesFlag = nullptr;
  bool Quiet = false;
};

struct FineTuneOptions {
  mlgo::FineTuneConfig Config;
  std::string Exploration, Model, Output, Optimizer = "adam", Method = "bias";
  std::vector<std::string> Inputs, Embeddings; // 0 or 1 values when given
  CLI::Option *EmbeddingsFlag = nullptr;
  unsigned Jobs = 0;
  bool FromHeuristic = false, Quiet = false;
};

struct EvictTrainOptions {
  mlgo::EvictTrainJob Job;
  std::string Optimizer = "adam";
  unsigned Jobs = 0;
  int RootJobs = -1;
  bool Quiet = false;
};

llvm::Expected<support::Outcome> runPolicyTrain(PolicyTrainOptions &O, const support::Reporter &R) {
  auto Opt = learn::parseOptimizer(O.Optimizer);
  if (!Opt)
    return Opt.takeError();
  O.Config.Optimizer.Kind = *Opt;
  auto Norm = support::parseNamed<mlgo::IntegerNormalization>(mlgo::IntegerNormalizationNames,
                                                             O.Normalize, "normalisation");
  if (!Norm)
    return Norm.takeError();
  O.Config.Normalize = *Norm;
  auto Kind = support::parseNamed<runners::ModelKind>(runners::TrainedKindNames, O.Model, "model");
  if (!Kind)
    return Kind.takeError();
  O.Config.Kind = *Kind;
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
  if (O.EmbeddingsFlag->count()) {
    auto E = resolveEmbeddings(O.Embeddings.empty() ? std::string() : O.Embeddings.front());
    if (!E)
      return E.takeError();
    C.Embeddings = std::move(*E);
  }
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
  return support::withCancellation([&](int Cancel) {
    J.Tune.Run.CancelFd = Cancel;
    return mlgo::runEvictTraining(J);
  });
}


} // namespace

/// `mlgo train`.
void addTrain(const MlgoGroup &G) {
  CLI::App *M = &G.App;
  Commands &Cmds = G.Cmds;
  RunContext &Ctx = G.Ctx;
  const CheckedFn &Checked = G.Checked;
  auto T = std::make_shared<PolicyTrainOptions>();
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
  Train->add_option("--model", T->Model, "linear or mlp")
      ->check(CLI::IsMember(support::names<runners::ModelKind>(runners::TrainedKindNames)));
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
    return finish(R, simpleExits(), Checked([&] { return runPolicyTrain(*T, R); }));
  });
}

/// `mlgo finetune`.
void addFineTune(const MlgoGroup &G) {
  CLI::App *M = &G.App;
  Commands &Cmds = G.Cmds;
  RunContext &Ctx = G.Ctx;
  const CheckedFn &Checked = G.Checked;
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
  FT->EmbeddingsFlag =
      FineTune
          ->add_option("--embeddings", FT->Embeddings,
                       "The embeddings of a model that reads embedding features: VOCAB (no "
                       "value: the default vocabulary), the one its observation set was made "
                       "with (the exploration's digest must match)")
          ->expected(0, 1)
          ->default_str("") // as mlgo run's: without it CLI11 2.1 counts a bare flag as absent
          ->type_name("[VOCAB]");
  addOutput(*FineTune, FT->Output, "Output model", /*Stdout=*/false)->required();
  FineTune->add_flag("--from-heuristic", FT->FromHeuristic,
                     "Start from the heuristic instead: a linear model on threshold, "
                     "cost_estimate and inlining_default that answers as the heuristic "
                     "(docs/mlgo.md)");
  FineTune->add_option("--method", FT->Method,
                       "bias: line search over the output bias (the operating point); es: "
                       "evolution strategies on every parameter")
      ->check(CLI::IsMember(support::names<mlgo::TuneMethod>(mlgo::TuneMethodNames)));
  addESOptions(*FineTune, FT->Config, FT->Optimizer, "es: ");
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
}

/// `mlgo train-evict`.
void addEvictTrain(const MlgoGroup &G) {
  CLI::App *M = &G.App;
  Commands &Cmds = G.Cmds;
  RunContext &Ctx = G.Ctx;
  const CheckedFn &Checked = G.Checked;
  auto EV = std::make_shared<EvictTrainOptions>();
  static_cast<mlgo::ESSettings &>(EV->Job.Tune) = mlgo::ESSettings::evict();
  ExitTable EvictTrainExits = simpleExits();
  EvictTrainExits.row("1").Meaning += "; also when every module of the training or the held-out "
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
  addESOptions(*EvictTrain, EV->Job.Tune, EV->Optimizer, "");
  EvictTrain->add_option("--seed", EV->Job.Tune.Seed, "Seed (perturbations, module samples)");
  EvictTrain->add_option("--bootstrap-seed", EV->Job.BootstrapSeed, "Seed of the bootstrap intervals");
  addSplitOptions(*EvictTrain, EV->Job.Plan.Split);
  addToolchainOptions(*EvictTrain, EV->Job.Tune.Tools);
  EvictTrain->add_option("--timeout", EV->Job.Plan.Timeout,
                         "Kill a compiler after S seconds (0: no limit)")
      ->check(seconds())
      ->type_name("S");
  EvictTrain->add_flag("--resume", EV->Job.Resume,
                       "Continue an interrupted run from the steps kept in OUTPUT.parts/ (the "
                       "same inputs and options)");
  addJobs(*EvictTrain, EV->Jobs, "Compilations in parallel");
  addQuiet(*EvictTrain, EV->Quiet, "No notes or progress line");
  addInputs(*EvictTrain, EV->Job.Plan.Corpus)->required();
  setSpreads(Cmds, EvictTrain, EV->RootJobs);
  setRun(Cmds, EvictTrain, [&Ctx, EV, EvictTrainExits, Checked] {
    support::Reporter R = Ctx.reporter(MlgoToolName, EV->Quiet);
    return finish(R, EvictTrainExits,
                  Checked([&] { return runEvictTrainCommand(*EV, R, Ctx); }));
  });
}

} // namespace wb::tool
