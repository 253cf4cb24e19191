// `ir2vec mlgo ...`: the MLGO runtime (interactive host, collection, exploration, training,
// studies, logs, feature and policy tables). `run` is shared with the launcher
// (tools/ir2vec/MlgoRun.h); the other subcommands live in MlgoData.cpp, MlgoTrain.cpp and
// MlgoStudies.cpp, one function each, added here from one table in the order --help lists them.
#include "tools/ir2vec/MlgoCommands.h"

#include "features/Augment.h"
#include "features/RegallocScore.h"
#include "runners/Models.h"

namespace wb::tool {

namespace {

FullHooks fullHooks() {
  FullHooks H;
  H.LoadModel = runners::cachingModelLoader();
  H.Augmenter = [](runners::Task T, const std::string &Vocab,
                   std::string Module) -> llvm::Expected<features::Augmenter> {
    auto E = resolveEmbeddings(Vocab);
    if (!E)
      return E.takeError();
    return features::embeddingAugmenter(T, std::move(*E), std::move(Module));
  };
  H.ReadRemarks = features::readRegallocRemarks;
  return H;
}


/// Every subcommand but run, in the order of --help.
constexpr void (*MlgoCommandRows[])(const MlgoGroup &) = {
    addCollect, addExplore,  addEval,         addAblate,  addBenchmark, addTrain,   addFineTune,
    addEvictTrain, addRegallocCost, addPredict, addLog, addFeatures, addPolicies};

} // namespace

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

llvm::Expected<ir2vec::EmbeddingChoice> resolveEmbeddings(const std::string &Vocab) {
  return ir2vec::EmbeddingChoice::resolve(embeddingRequest(Vocab));
}

llvm::Expected<ir2vec::EmbeddingChoice> resolveEmbeddings(const PolicyCLI &P) {
  const std::optional<std::string> E = P.embeddings();
  if (!E)
    return ir2vec::EmbeddingChoice();
  return resolveEmbeddings(*E);
}

void addESOptions(CLI::App &Sub, mlgo::ESSettings &S, std::string &Optimizer,
                  const std::string &Prefix) {
  Sub.add_option("--steps", S.Steps, Prefix + "steps of evolution strategies");
  Sub.add_option("--pairs", S.Pairs, Prefix + "antithetic perturbation pairs per step");
  Sub.add_option("--modules-per-step", S.ModulesPerStep,
                 Prefix + "training modules (with decisions) sampled per step");
  Sub.add_option("--sigma", S.Sigma,
                 Prefix + "perturbation size (first-layer weights: relative to their input's "
                          "robust spread over the start policy's observations)");
  Sub.add_option("--lr", S.Optimizer.LearningRate, Prefix + "learning rate");
  Sub.add_option("--optimizer", Optimizer, Prefix + "sgd or adam")
      ->check(CLI::IsMember(support::names<learn::OptimizerKind>(learn::OptimizerNames)));
}

ExitTable collectExits() {
  ExitTable CollectExits = batchExits();
  CollectExits.Rows = {
      {"0", "every module was collected"},
      {"1", "nothing usable (bad usage, policy or model, no input, every module failed); no "
            "output file is left behind"},
      {"2", "some modules failed (each is reported and listed in modules/error); the dataset "
            "holds the others"},
      {"130", "interrupted (SIGINT, SIGTERM, SIGHUP): the compilers were killed, no output "
              "file; finished modules are kept for --resume"}};
  return CollectExits;
}

void addMlgoCommands(CLI::App &App, Commands &Cmds, std::vector<std::string> Compiler,
                     RunContext &Ctx) {
  CLI::App *M = addGroup(App, "mlgo", "MLGO runtime: drive opt/llc/clang 22 in interactive "
                                      "mode, collect datasets, read and write logs");
  auto Run = std::make_shared<RunOptions>();
  Run->Command = Compiler;
  addRunCommand(*M, Cmds, Run, fullHooks());
  // Only `run` takes a compiler command.
  const MlgoGroup G{*M, Cmds, Ctx,
                    [HasCompiler = !Compiler.empty()](
                        std::function<llvm::Expected<support::Outcome>()> Do)
                        -> llvm::Expected<support::Outcome> {
                      if (HasCompiler)
                        return support::usageError("unexpected arguments after '--' (only mlgo "
                                                   "run takes a compiler command)");
                      return Do();
                    }};
  for (auto Add : MlgoCommandRows)
    Add(G);
}

} // namespace wb::tool
