#include "tools/ir2vec/Command.h"

#include "llvm/Support/Threading.h"

#include "support/Files.h"
#include "support/Inputs.h"
#include "support/Process.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace wb::tool {

ExitRow &ExitTable::row(const std::string &Status) {
  for (ExitRow &R : Rows)
    if (R.Status == Status)
      return R;
  Rows.push_back({Status, ""});
  return Rows.back();
}

std::string ExitTable::help() const {
  size_t Width = 0;
  for (const ExitRow &R : Rows)
    Width = std::max(Width, R.Status.size());
  std::string Out = "Exit status:\n";
  for (const ExitRow &R : Rows)
    Out += "  " + R.Status + std::string(Width - R.Status.size() + 2, ' ') + R.Meaning + "\n";
  if (!Note.empty())
    Out += Note + "\n";
  return Out;
}

ExitTable batchExits() {
  return {1, 1, 2, 130,
          {{"0", "every module was processed"},
           {"1", "nothing usable: bad usage, no input, an output that cannot be written, every "
                 "module failed (embeddings: also a bad vocabulary or an unknown --function); "
                 "no output file is left behind"},
           {"2", "some modules failed to read or verify (each is reported, and recorded in "
                 "modules/error with --format hdf5); the output holds all the others"},
           {"130", "interrupted: the run ends by the signal (a shell shows 130 for SIGINT, 143 "
                   "for SIGTERM, 129 for SIGHUP); nothing is left beside the requested name, and "
                   "under it only an output completed before the signal; an HDF5 run keeps "
                   "OUT.partial for --resume"}},
          ""};
}

ExitTable simpleExits() {
  return {1, 1, 2, 130,
          {{"0", "done"},
           {"1", "bad usage or input (the message names the file and the place); no output "
                 "file is left behind"}},
          ""};
}

int finish(const support::Reporter &R, const ExitTable &Table,
           llvm::Expected<support::Outcome> Result) {
  support::removeLeftoverTrees(); // the run's workers are done: descriptors are free again
  if (Result) {
    switch (Result->K) {
    case support::Outcome::Complete:
      return 0;
    case support::Outcome::Partial:
      R.endWarning(Result->Warning);
      return Table.Partial;
    case support::Outcome::Status:
      if (!Result->Error.empty())
        R.error(Result->Error);
      return Result->ExitStatus;
    }
  }
  auto [Kind, Message] = support::describeFailure(Result.takeError());
  if (Kind != support::FailureKind::Reported)
    R.error(Message);
  switch (Kind) {
  case support::FailureKind::Usage:
    return Table.Usage;
  case support::FailureKind::Interrupted:
    return Table.Interrupted;
  case support::FailureKind::Failed:
  case support::FailureKind::Reported:
    break;
  }
  return Table.Failure;
}

CLI::App *addGroup(CLI::App &Parent, const std::string &Name, const std::string &Description) {
  CLI::App *G = Parent.add_subcommand(Name, Description);
  G->require_subcommand(1);
  G->footer("Each subcommand's --help lists its options and exit statuses.");
  return G;
}

CLI::App *addCommand(CLI::App &Parent, Commands &Cmds, const std::string &Name,
                     const std::string &Description, ExitTable Exits) {
  CLI::App *Sub = Parent.add_subcommand(Name, Description);
  Sub->footer(Exits.help());
  Cmds.push_back({Sub, std::move(Exits), nullptr});
  return Sub;
}

void setRun(Commands &Cmds, CLI::App *App, std::function<int()> Run) {
  for (Command &C : Cmds)
    if (C.App == App)
      C.Run = std::move(Run);
}

const Command *parsedCommand(const CLI::App &Root, const Commands &Cmds) {
  const CLI::App *Cur = &Root;
  for (std::vector<CLI::App *> Subs = Cur->get_subcommands(); !Subs.empty();
       Subs = Cur->get_subcommands())
    Cur = Subs.back();
  for (const Command &C : Cmds)
    if (C.App == Cur)
      return &C;
  return nullptr;
}

CLI::Option *addOutput(CLI::App &Sub, std::string &Path, const std::string &What, bool Stdout) {
  return Sub.add_option("-o", Path, What + (Stdout ? " ('-' = standard output)" : ""))
      ->type_name("FILE");
}

CLI::Option *addQuiet(CLI::App &Sub, bool &Quiet, const std::string &What) {
  return Sub.add_flag("-q,--quiet", Quiet, What);
}

CLI::Option *addJobs(CLI::App &Sub, unsigned &Jobs, const std::string &What) {
  return Sub.add_option("-j,--jobs", Jobs, What + " (0: all hardware threads)")
      ->check(CLI::Range(0u, 1024u));
}

CLI::Option *addInputs(CLI::App &Sub, std::vector<std::string> &Inputs) {
  return Sub
      .add_option("inputs", Inputs,
                  "Inputs: .ll/.bc files ('-' = standard input), directories (searched "
                  "recursively for .bc and .ll), @LIST files (one path per line) and "
                  "ml-compiler-opt corpus descriptions (JSON, recognised by content)")
      ->type_name("INPUT...");
}

CLI::Option *addMode(CLI::App &Sub, std::string &Mode) {
  return Sub.add_option("--mode", Mode,
                        "Input kind: llvm (LLVM IR) or mir (machine IR: .mir files, or LLVM IR "
                        "taken through code generation; docs/mir2vec.md)")
      ->check(CLI::IsMember({"llvm", "mir"}));
}

llvm::Error refuseForMir(std::initializer_list<std::pair<bool, std::string>> Given) {
  for (const auto &[Set, Name] : Given)
    if (Set)
      return support::usageError(Name + " applies to LLVM IR only, not --mode=mir");
  return llvm::Error::success();
}

void addVocabularyOptions(CLI::App &Sub, VocabularyOptions &V) {
  Sub.add_option("--vocab,--ir2vec-vocab-path", V.Path,
                 "Vocabulary: LLVM's IR2Vec JSON or the workbench's HDF5 (recognised by "
                 "content); default: the workbench's default vocabulary, built into the tool")
      ->type_name("FILE");
  V.WeightOptions = {
      Sub.add_option("--ir2vec-opc-weight", V.OpcWeight, "Weight of opcode vectors (float)")
          ->type_name("NUM"),
      Sub.add_option("--ir2vec-type-weight", V.TypeWeight, "Weight of type vectors (float)")
          ->type_name("NUM"),
      Sub.add_option("--ir2vec-arg-weight", V.ArgWeight,
                     "Weight of operand-kind and predicate vectors (float)")
          ->type_name("NUM")};
}

std::string VocabularyOptions::givenWeight() const {
  for (const CLI::Option *O : WeightOptions)
    if (O->count())
      return O->get_name();
  return "";
}

unsigned jobsOrHardware(unsigned Jobs) {
  return Jobs ? Jobs : llvm::hardware_concurrency().compute_thread_count();
}

CLI::Validator seconds() {
  return CLI::Validator(
      [](std::string &V) -> std::string {
        double X = 0;
        if (!CLI::detail::lexical_cast(V, X))
          return "'" + V + "' is not a number of seconds (0 or more)";
        if (llvm::Error E = support::checkSeconds(X, "'" + V + "'")) {
          llvm::consumeError(std::move(E));
          return "'" + V + "' is not a number of seconds (0 or more)";
        }
        return "";
      },
      "SECONDS");
}

CLI::Option *addModuleTimeLimit(CLI::App &Sub, double &Seconds) {
  return Sub
      .add_option("--module-time-limit", Seconds,
                  "Seconds one module may take before it is stopped and recorded as failed "
                  "(LLVM's reader loops for ever on some malformed bitcode; 0: no limit)")
      ->check(seconds())
      ->type_name("SECONDS");
}

support::RunSettings runSettings(const support::Reporter &R, unsigned Jobs,
                                 support::Distribution Dist) {
  support::RunSettings S;
  S.Jobs = jobsOrHardware(Jobs);
  S.ShowProgress = !R.quiet();
  S.Report = R.handler();
  S.Dist = std::move(Dist);
  return S;
}

corpus::BatchIO batchIO(const support::Reporter &R, unsigned Jobs, double ModuleSeconds,
                        support::Distribution Dist) {
  corpus::BatchIO IO;
  IO.Run = runSettings(R, Jobs, std::move(Dist));
  IO.ModuleSeconds = ModuleSeconds;
  return IO;
}

support::Distribution RunContext::distribution(int RootJobs) const {
  support::Distribution D;
  D.Job = Ranks;
  if (RootJobs >= 0)
    D.RootJobs = unsigned(RootJobs);
  return D;
}

llvm::Expected<std::vector<std::string>> commandInputs(const std::vector<std::string> &Args,
                                                       const RunContext &Ctx,
                                                       const support::Reporter &R,
                                                       bool Machine) {
  auto Inputs = support::expandInputsOrStdin(
      Args, R.handler(), Machine ? llvm::ArrayRef(support::MachineExtensions)
                                 : llvm::ArrayRef(support::IRExtensions));
  if (Inputs && Ctx.spread() && llvm::is_contained(*Inputs, "-"))
    return support::usageError("standard input ('-') cannot be shared by the ranks of an MPI "
                               "run: name the modules");
  return Inputs;
}

std::vector<std::string> listFiles(const std::vector<std::string> &Args,
                                   std::vector<std::string> More) {
  for (const std::string &A : Args)
    if (A.size() > 1 && A[0] == '@')
      More.push_back(A.substr(1));
  return More;
}

llvm::Error checkOutputs(const std::vector<std::string> &Outputs,
                         const std::vector<std::string> &Inputs,
                         const std::vector<std::string> &More, support::Within W) {
  std::vector<std::string> All = Inputs;
  All.insert(All.end(), More.begin(), More.end());
  if (llvm::Error E = support::checkOutputsAgainstInputs(Outputs, All, W))
    return E;
  // Once per run, before this run makes any: what runs killed by SIGKILL left.
  support::sweepStaleTemporaries(Outputs);
  return llvm::Error::success();
}

void setSpreads(Commands &Cmds, CLI::App *App, int &RootJobs) {
  for (Command &C : Cmds)
    if (C.App == App)
      C.Spreads = true;
  App->add_option("--root-jobs", RootJobs,
                  "Under mpirun: workers of rank 0, which also hands out the modules and writes "
                  "the output (default -1: -j; 0: rank 0 only coordinates)")
      ->check(CLI::Range(-1, 1 << 16));
}

namespace {

void longNames(CLI::App &App, std::set<std::string> &Long) {
  for (const CLI::Option *Opt : App.get_options())
    for (const std::string &N : Opt->get_lnames())
      Long.insert(N);
  for (CLI::App *Sub : App.get_subcommands([](CLI::App *) { return true; }))
    longNames(*Sub, Long);
}

} // namespace

std::vector<std::string> normaliseArgs(std::vector<std::string> Args, CLI::App &App) {
  std::set<std::string> Long;
  longNames(App, Long);
  for (std::string &A : Args) {
    if (A.size() < 3 || A[0] != '-' || A[1] == '-')
      continue;
    std::string Name = A.substr(1, A.find('=') - 1);
    if (Long.count(Name))
      A.insert(0, "-");
  }
  std::reverse(Args.begin(), Args.end()); // CLI11 takes argument vectors in reverse
  return Args;
}

std::vector<std::string> splitCompilerCommand(std::vector<std::string> &Args) {
  auto Dash = std::find(Args.begin(), Args.end(), "--");
  if (Args.empty() || Args[0] != "mlgo" || Dash == Args.end())
    return {};
  std::vector<std::string> Compiler(Dash + 1, Args.end());
  Args.erase(Dash, Args.end());
  return Compiler;
}

int parseAndRun(CLI::App &App, const Commands &Cmds, std::vector<std::string> Args,
                const RunContext &Ctx) {
  // Usage errors look like every other error of the tool ("ir2vec: error: ...").
  App.failure_message([](const CLI::App *A, const CLI::Error &E) {
    return std::string(ToolName) + ": error: " + CLI::FailureMessage::simple(A, E);
  });
  try {
    App.parse(normaliseArgs(std::move(Args), App));
  } catch (const CLI::ParseError &E) {
    std::ostringstream Elsewhere; // the other ranks of a job: rank 0 prints it
    const int Status = Ctx.root() ? App.exit(E) // prints the help, the version or the error
                                  : App.exit(E, Elsewhere, Elsewhere);
    if (Status == 0)
      return 0;
    const Command *C = parsedCommand(App, Cmds);
    return C ? C->Exits.Usage : 1;
  }
  const Command *C = parsedCommand(App, Cmds);
  if (!C || !C->Run) {
    if (Ctx.root())
      llvm::errs() << App.help();
    return 1;
  }
  if (Ctx.spread() && !C->Spreads) {
    if (Ctx.root())
      support::Reporter(ToolName, false)
          .error("'" + C->App->get_name() + "' runs as one process, not as the " +
                 std::to_string(Ctx.Ranks->size()) + " ranks of an MPI job: run it without "
                 "mpirun (embeddings, triplets and mlgo collect|explore|eval run as ranks)");
    return C->Exits.Usage;
  }
  return C->Run();
}

} // namespace wb::tool
