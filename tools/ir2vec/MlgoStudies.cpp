// `ir2vec mlgo` subcommands that judge policies: eval, ablate, benchmark.
#include "tools/ir2vec/MlgoCommands.h"

#include "mlgo/studies/Ablation.h"
#include "mlgo/studies/OpenBenchmark.h"
#include "mlgo/studies/Eval.h"
#include "runners/Models.h"

namespace wb::tool {

namespace {

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

/// What the study commands that run a spec into a directory (ablate, benchmark) share.
struct StudyOptions {
  std::string Spec, Output;
  mlgo::Toolchain Tools;
  unsigned Jobs = 0;
  bool Quiet = false;
};

struct AblateOptions : StudyOptions {
  std::string Gnuplot = "gnuplot";
};

struct BenchmarkOptions : StudyOptions {
  std::string PerfResults;
};

/// How a spec study command reads: its name and help, what its exit statuses mean (the rows of
/// the corpus commands' table: 0, 1, 2, 130), what its spec and output directory are.
struct StudyCommand {
  const char *Name, *Help;
  const char *Exit0, *Exit1, *Exit2, *Exit130;
  const char *SpecHelp, *OutputHelp;
};

/// Adds a spec study command: its spec, -o DIR, the toolchain, -j, -q and the options Extra adds;
/// Run reads the spec and runs the study with the run's settings (cancellation set).
template <typename Options>
void addStudyCommand(
    const MlgoGroup &G, const StudyCommand &S,
    const std::function<void(CLI::App &, Options &)> &Extra,
    std::function<llvm::Expected<support::Outcome>(const Options &, const support::RunSettings &)>
        Run) {
  RunContext &Ctx = G.Ctx;
  auto O = std::make_shared<Options>();
  ExitTable Exits = collectExits();
  Exits.row("0").Meaning = S.Exit0;
  Exits.row("1").Meaning = S.Exit1;
  Exits.row("2").Meaning = S.Exit2;
  Exits.row("130").Meaning = S.Exit130;
  CLI::App *Cmd = addCommand(G.App, G.Cmds, S.Name, S.Help, Exits);
  Cmd->add_option("spec", O->Spec, S.SpecHelp)->required();
  Cmd->add_option("-o,--output", O->Output, S.OutputHelp)->type_name("DIR")->required();
  Extra(*Cmd, *O);
  addToolchainOptions(*Cmd, O->Tools);
  addJobs(*Cmd, O->Jobs, "Modules in parallel");
  addQuiet(*Cmd, O->Quiet, "No notes, warnings or progress line");
  setRun(G.Cmds, Cmd, [&Ctx, O, Exits, Run, Checked = G.Checked] {
    support::Reporter R = Ctx.reporter(MlgoToolName, O->Quiet);
    return finish(R, Exits, Checked([&]() -> llvm::Expected<support::Outcome> {
      support::RunSettings Settings = runSettings(R, O->Jobs);
      return support::withCancellation([&](int Cancel) {
        Settings.CancelFd = Cancel;
        return Run(*O, Settings);
      });
    }));
  });
}

llvm::Expected<support::Outcome> runEval(EvalOptions &O, const support::Reporter &R,
                                         const RunContext &Ctx) {
  if (llvm::Error E = runners::checkPolicyOptions(runners::Task::Inline, O.Session.Policy))
    return E;
  mlgo::EvalJob J;
  // The transfer protocol unless asked otherwise; a split's own options ask for a split.
  std::string Proto = O.Protocol;
  if (Proto.empty())
    Proto = O.Command->count("--test-fraction") || O.Command->count("--split-seed") ||
                    O.Command->count("--train-side")
                ? "split"
                : "transfer";
  auto P = support::parseNamed<mlgo::JudgingProtocol>(mlgo::JudgingProtocolNames, Proto, "protocol");
  if (!P)
    return P.takeError();
  if (*P == mlgo::JudgingProtocol::Transfer &&
      (O.Command->count("--test-fraction") || O.Command->count("--train-side")))
    return support::usageError("--test-fraction and --train-side choose a side of a split: "
                               "they go with --protocol split");
  J.Plan = {O.Inputs, *P, O.Split, std::nullopt, O.Session.Timeout};
  J.Exploration = O.Exploration;
  J.TestSide = !O.TrainSide;
  J.Session.T = runners::Task::Inline;
  J.Session.Policy = O.Session.Policy;
  J.Session.Policy.LoadModel = runners::cachingModelLoader();
  J.Session.Bind.ZeroMissing = O.Session.ZeroMissing;
  auto Embeddings = resolveEmbeddings(O.Session);
  if (!Embeddings)
    return Embeddings.takeError();
  J.Embeddings = std::move(*Embeddings);
  J.PolicyLabel = O.Session.Policy.Name.empty() ? "default" : O.Session.Policy.Name;
  J.ModelPath = O.Session.Policy.ModelPath;
  J.Seed = O.BootstrapSeed;
  J.JSONOutput = O.Output;
  J.HDF5Output = O.HDF5Output;
  mlgo::CompileSetup C{O.Tools, runSettings(R, O.Jobs, Ctx.distribution(O.RootJobs))};
  return support::withCancellation([&](int Cancel) {
    C.Run.CancelFd = Cancel;
    return mlgo::runEvaluation(J, C, {O.Session.Policy.ModelPath, O.Exploration});
  });
}

} // namespace

/// `mlgo eval`.
void addEval(const MlgoGroup &G) {
  CLI::App *M = &G.App;
  Commands &Cmds = G.Cmds;
  RunContext &Ctx = G.Ctx;
  const CheckedFn &Checked = G.Checked;
  auto E = std::make_shared<EvalOptions>();
  ExitTable EvalExits = collectExits();
  EvalExits.row("0").Meaning = "every module was evaluated";
  EvalExits.row("130").Meaning = "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers were "
                              "killed, no output file";
  EvalExits.row("2").Meaning = "some modules failed (each is reported and listed with its error); "
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
      ->check(CLI::IsMember(support::names<mlgo::JudgingProtocol>(mlgo::JudgingProtocolNames)));
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
}

/// `mlgo ablate`.
void addAblate(const MlgoGroup &G) {
  addStudyCommand<AblateOptions>(
      G,
      {"ablate",
       "Feature-ablation study of inlining for size (one exploration, a model per arm and seed, "
       "held-out .text against -Oz with intervals, permutation importance; docs/ablation.md) or, "
       "with \"task\": \"evict\", of eviction (an MLP per arm and seed tuned by ES on the "
       "register allocation cost, held-out cost against the default advisor; "
       "docs/ablation-regalloc.md): plots and a report (docs/formats/mlgo-ablation.md)",
       "every arm was trained and evaluated with every seed",
       "nothing usable (bad usage or spec, no input, a failed exploration or training, gnuplot "
       "missing); the report is not written",
       "some held-out evaluations failed (each is reported); the report covers the others",
       "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers were killed; finished explorations "
       "are kept and reused by a rerun",
       "The study (JSON, docs/formats/mlgo-ablation.md)",
       "Output directory (report.md, report.json, results.h5, plots, models, explorations); "
       "explorations in it made with the same settings, embeddings and modules are reused"},
      [](CLI::App &Cmd, AblateOptions &O) {
        Cmd.add_option("--gnuplot", O.Gnuplot, "The gnuplot that draws the plots");
      },
      [](const AblateOptions &O, const support::RunSettings &Run) -> llvm::Expected<support::Outcome> {
        auto Spec = mlgo::readAblationSpec(O.Spec);
        if (!Spec)
          return Spec.takeError();
        mlgo::AblationConfig C;
        C.Tools = O.Tools;
        C.Run = Run;
        C.Gnuplot = O.Gnuplot;
        return mlgo::runAblation(*Spec, O.Output, C);
      });
}

/// `mlgo benchmark`.
void addBenchmark(const MlgoGroup &G) {
  addStudyCommand<BenchmarkOptions>(
      G,
      {"benchmark",
       "The open benchmark for inliner policies: policies judged by the transfer protocol on a "
       "corpus (fixed policies on every package their model was not trained on, trained "
       "policies by cross-validation by package), with the worst package, both intervals and "
       "the headroom; results.json, manifest.json and a self-contained index.html "
       "(docs/benchmark.md)",
       "every policy was judged on every module it was given",
       "nothing usable (bad usage or spec, no input, a policy that cannot be made, a failed "
       "exploration or training); no results are written",
       "some evaluations failed (each is reported); the results cover the others",
       "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers were killed; the exploration is "
       "kept and reused by a rerun",
       "The benchmark (JSON, docs/benchmark.md; the default set is "
       "bench/benchmark/benchmark.json)",
       "Output directory (results.json, manifest.json, index.html, the exploration, models); an "
       "exploration in it made with the same settings, embeddings and modules is reused"},
      [](CLI::App &Cmd, BenchmarkOptions &O) {
        Cmd.add_option("--perf-results", O.PerfResults,
                       "The performance track's results (scripts/perf-track.py's results.json, "
                       "docs/perf.md): checked, pinned in manifest.json and drawn in index.html")
            ->type_name("FILE");
      },
      [](const BenchmarkOptions &O, const support::RunSettings &Run) -> llvm::Expected<support::Outcome> {
        auto Spec = mlgo::readOpenBenchmarkSpec(O.Spec);
        if (!Spec)
          return Spec.takeError();
        mlgo::OpenBenchmarkConfig C;
        C.Tools = O.Tools;
        C.Run = Run;
        C.PerfResults = O.PerfResults;
        return mlgo::runOpenBenchmark(*Spec, O.Output, C);
      });
}

} // namespace wb::tool
