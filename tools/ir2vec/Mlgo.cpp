#include "tools/ir2vec/Mlgo.h"

#include "features/Dataset.h"
#include "features/FeatureSets.h"
#include "features/TrainingLog.h"
#include "runners/Collect.h"
#include "runners/InteractiveHost.h"
#include "runners/Policies.h"
#include "vocab/Inputs.h"
#include "vocab/IO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace wb::tool {

namespace {

using runners::Task;

constexpr const char *Tool = "ir2vec mlgo";

struct MlgoOptions {
  std::string TaskName = "inline";
  runners::PolicyOptions Policy;
  bool ZeroMissing = false;
  std::string LogPath, TranscriptPath, ModulePath, Output;
  std::vector<std::string> Embeddings; // 0 or 1 values when given
  double Timeout = 0;
  bool Stats = false, Quiet = false;
  unsigned Jobs = 0, Dim = 75;
  std::vector<std::string> Command, Inputs;
  std::string Opt = "opt-22", Llc = "llc-22";
};

constexpr const char *RunFooter =
    "Exit status: the compiler's (128 + N when it was killed by signal N); 124 when --timeout "
    "expired (the compiler was killed); 125 when the host failed (bad policy, model or "
    "vocabulary, a protocol error, a policy that cannot answer); 130 when interrupted. The "
    "FIFOs, temporary files and compiler processes are gone in every case.";

constexpr const char *CollectFooter =
    "Exit status:\n"
    "  0  every module was collected\n"
    "  1  nothing usable (bad usage, policy or model, no input, every module failed; no "
    "output file is left behind)\n"
    "  2  some modules failed (each is reported and listed in modules/error); the dataset "
    "holds the others\n"
    "  130 interrupted (no output file)";

int fail(const llvm::Twine &Msg, int Status = 1) {
  llvm::WithColor::error(llvm::errs(), Tool) << Msg << "\n";
  return Status;
}

/// Blocks the terminating signals in this thread (and the threads it starts) and returns a
/// signalfd for them: sessions poll it and stop their compiler, nothing is left behind.
int cancellationFd() {
  // A compiler that dies while the host writes to it must give EPIPE, not kill the host.
  signal(SIGPIPE, SIG_IGN);
  sigset_t S;
  sigemptyset(&S);
  for (int Sig : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&S, Sig);
  pthread_sigmask(SIG_BLOCK, &S, nullptr);
  return signalfd(-1, &S, SFD_CLOEXEC | SFD_NONBLOCK);
}

std::optional<Task> taskOf(const MlgoOptions &O) { return features::taskFromName(O.TaskName); }

std::optional<std::string> embeddingsOf(const MlgoOptions &O, const CLI::Option *Flag) {
  if (!Flag->count())
    return std::nullopt;
  return O.Embeddings.empty() ? std::string() : O.Embeddings.front();
}

int runRun(const MlgoOptions &O, const CLI::Option *EmbFlag) {
  runners::SessionConfig C;
  C.T = *taskOf(O);
  C.Command = O.Command;
  C.Policy = O.Policy;
  C.Bind.ZeroMissing = O.ZeroMissing;
  C.Embeddings = embeddingsOf(O, EmbFlag);
  C.ModulePath = O.ModulePath;
  C.TimeoutSeconds = O.Timeout;
  C.KeepTranscript = !O.TranscriptPath.empty();
  C.CancelFd = cancellationFd();
  llvm::Expected<runners::SessionResult> R = runners::runSession(C);
  ::close(C.CancelFd);
  if (!R)
    return fail(llvm::toString(R.takeError()), 125);
  if (!O.Quiet)
    for (const std::string &N : R->ZeroFilled)
      llvm::WithColor::warning(llvm::errs(), Tool)
          << "feature '" << N << "' is not sent by the compiler; the policy sees zeros\n";
  if (!R->Error.empty())
    fail(R->Error);
  bool Clean = R->Outcome == runners::SessionResult::Exited && R->Error.empty();
  // The log of a session that did not finish cleanly is incomplete: not written.
  if (Clean && R->ChannelOpened) {
    for (auto [Path, Body] :
         {std::pair{O.LogPath, std::function<void(llvm::raw_ostream &)>(
                                   [&](llvm::raw_ostream &OS) { writeLog(OS, R->SessionLog); })},
          {O.TranscriptPath, [&](llvm::raw_ostream &OS) { OS << R->Transcript; }}})
      if (!Path.empty())
        if (llvm::Error E = vocab::writeFileAtomically(Path, Body))
          return fail(llvm::toString(std::move(E)), 125);
  } else if (Clean && (!O.LogPath.empty() || !O.TranscriptPath.empty())) {
    llvm::WithColor::warning(llvm::errs(), Tool)
        << "the compiler never opened the channel (no ML advisor in this pipeline); no log "
           "written\n";
  }
  if (O.Stats)
    llvm::errs() << llvm::formatv(
        "{0}: {1} observations, {2} contexts, feature set {3}, {4}; ignored by the policy: "
        "{5}\n",
        Tool, R->SessionLog.Observations.size(), R->SessionLog.Contexts.size(),
        R->FeatureSetVersion.empty() ? "-" : R->FeatureSetVersion,
        R->Outcome == runners::SessionResult::Exited ? R->Status.describe() : R->Error,
        llvm::join(R->Ignored, ","));
  return R->exitStatus();
}

int runCollect(const MlgoOptions &O, const CLI::Option *EmbFlag) {
  if (O.Output.empty())
    return fail("collect needs -o DATA.h5");
  llvm::Expected<std::vector<std::string>> Inputs = vocab::expandInputs(O.Inputs);
  if (!Inputs)
    return fail(llvm::toString(Inputs.takeError()));
  if (Inputs->empty())
    return fail("no input modules");
  runners::CollectConfig C;
  C.T = *taskOf(O);
  C.Policy = O.Policy;
  C.Bind.ZeroMissing = O.ZeroMissing;
  C.Embeddings = embeddingsOf(O, EmbFlag);
  C.Opt = O.Opt;
  C.Llc = O.Llc;
  C.Jobs = O.Jobs ? O.Jobs : llvm::hardware_concurrency().compute_thread_count();
  C.TimeoutSeconds = O.Timeout;
  C.ShowProgress = !O.Quiet;
  C.Report = [](const std::string &M) { fail(M); };
  C.CancelFd = cancellationFd();
  llvm::Expected<runners::CollectSummary> S = runners::collect(*Inputs, O.Output, C);
  ::close(C.CancelFd);
  if (!S)
    return fail(llvm::toString(S.takeError()));
  if (S->Cancelled)
    return fail("interrupted; no output written", 130);
  if (S->Failed == S->Modules)
    return fail("none of the " + llvm::Twine(S->Modules) + " modules could be collected");
  if (!O.Quiet)
    llvm::errs() << llvm::formatv(
        "{0}: {1} modules, {2} decisions; .text {3} bytes vs baseline {4} ({5} modules the "
        "same size); reward {6:f4}\n",
        Tool, S->Modules - S->Failed, S->Rows, S->Text, S->BaselineText, S->SameSize,
        features::sizeReward(S->Text, S->BaselineText));
  if (S->Failed) {
    llvm::WithColor::warning(llvm::errs(), Tool)
        << S->Failed << " of " << S->Modules << " modules failed and were skipped\n";
    return 2;
  }
  return 0;
}

void printValues(llvm::raw_ostream &OS, const features::TensorSpec &S, const char *P) {
  OS << runners::tensorToString(S, llvm::StringRef(P, S.byteSize()));
}

int runLogDump(const MlgoOptions &O) {
  llvm::Expected<features::Log> L = features::readLogFile(O.Inputs.front());
  if (!L)
    return fail(llvm::toString(L.takeError()));
  llvm::raw_ostream &OS = llvm::outs();
  OS << "features " << features::specsJSON(L->Header.Features) << "\n";
  if (L->Header.Score)
    OS << "score " << L->Header.Score->toJSON() << "\n";
  if (L->Header.Advice)
    OS << "advice " << L->Header.Advice->toJSON() << "\n";
  for (const features::LogObservation &Ob : L->Observations) {
    OS << "observation \"" << Ob.Context << "\" " << Ob.Id;
    for (size_t I = 0; I < L->Header.Features.size(); ++I) {
      OS << " " << L->Header.Features[I].Name << "=";
      printValues(OS, L->Header.Features[I], Ob.Payload.data() + L->Header.offsetOf(I));
    }
    if (Ob.Score) {
      OS << " score=";
      printValues(OS, *L->Header.Score, Ob.Score->data());
    }
    OS << "\n";
  }
  return 0;
}

int runLogRewrite(const MlgoOptions &O) {
  llvm::Expected<features::Log> L = features::readLogFile(O.Inputs.front());
  if (!L)
    return fail(llvm::toString(L.takeError()));
  if (llvm::Error E = vocab::writeFileAtomically(
          O.Output.empty() ? "-" : O.Output,
          [&](llvm::raw_ostream &OS) { features::writeLog(OS, *L); }))
    return fail(llvm::toString(std::move(E)));
  return 0;
}

int runLogExport(const MlgoOptions &O) {
  if (O.Output.empty())
    return fail("export needs -o DATA.h5");
  features::DatasetBuilder DS(*taskOf(O), "log");
  const features::TensorSpec &Advice = features::taskInfo(*taskOf(O)).Advice;
  for (const std::string &P : O.Inputs) {
    llvm::Expected<features::Log> L = features::readLogFile(P);
    if (!L)
      return fail(llvm::toString(L.takeError()));
    if (L->Header.Features.empty() || L->Header.Features.back() != Advice)
      return fail(P + ": not a session log: the last feature must be the decision '" +
                  Advice.Name + "' " + features::shapeString(Advice));
    features::DatasetModule M;
    M.Path = P;
    if (llvm::Error E = DS.add(M, *L))
      return fail(llvm::toString(std::move(E)));
  }
  if (llvm::Error E = DS.write(O.Output))
    return fail(llvm::toString(std::move(E)));
  return 0;
}

int runFeatures(const MlgoOptions &O) {
  const features::TaskInfo &T = features::taskInfo(*taskOf(O));
  llvm::raw_ostream &OS = llvm::outs();
  OS << "| idx | name | type | shape | origin | meaning |\n|---|---|---|---|---|---|\n";
  size_t I = 0;
  for (const features::FeatureDef &F : T.Features) {
    features::TensorSpec S = features::specOf(F, O.Dim);
    std::string Shape = features::shapeString(S);
    Shape = Shape.substr(Shape.find('['));
    for (int64_t D : F.Shape)
      if (D == features::DimD)
        Shape = "[D]";
    const char *Origin = F.From == features::Origin::Compiler           ? "compiler"
                         : F.From == features::Origin::CompilerOptional ? "compiler, optional"
                                                                         : "workbench";
    OS << "| " << I++ << " | `" << F.Name << "` | " << features::typeName(F.Type) << " | "
       << Shape << " | " << Origin << " | " << F.Doc << " |\n";
  }
  OS << "\nadvice: `" << T.Advice.Name << "` " << features::shapeString(T.Advice) << "\n";
  return 0;
}

} // namespace

std::function<int()> addMlgoCommands(CLI::App &App, std::vector<std::string> Compiler) {
  auto O = std::make_shared<MlgoOptions>();
  O->Command = std::move(Compiler);
  CLI::App *M = App.add_subcommand("mlgo", "MLGO runtime: drive opt/llc/clang 22 in interactive "
                                           "mode, collect datasets, read and write logs");
  M->require_subcommand(1);
  CLI::App *Run = M->add_subcommand(
      "run", "Run a compiler with an interactive channel and answer it with a policy: "
             "ir2vec mlgo run [options] -- COMPILER ARGS...");
  CLI::App *Collect = M->add_subcommand(
      "collect", "Collect a dataset over a corpus: -Oz under the host and with the default "
                 "heuristic, .text sizes, rewards");
  CLI::App *Log = M->add_subcommand("log", "Training logs: dump, rewrite, export to HDF5");
  Log->require_subcommand(1);
  CLI::App *Dump = Log->add_subcommand("dump", "Print a log's records as text");
  CLI::App *Rewrite = Log->add_subcommand(
      "rewrite", "Parse a log and write it again (byte-identical for a valid log)");
  CLI::App *Export =
      Log->add_subcommand("export", "Turn session logs into an HDF5 dataset "
                                    "(ir2vec.mlgo-dataset/1, without rewards)");
  CLI::App *Features = M->add_subcommand(
      "features", "Print a task's feature table (compiler features and workbench extras)");

  CLI::Option *EmbRun = nullptr, *EmbCollect = nullptr;
  for (CLI::App *Sub : {Run, Collect, Export, Features})
    Sub->add_option("--task", O->TaskName, "inline, evict or priority")
        ->check(CLI::IsMember({"inline", "evict", "priority"}));
  for (CLI::App *Sub : {Run, Collect}) {
    Sub->add_option("--policy", O->Policy.Name,
                    "default (inliner), no-evict (eviction), random, linear, mlp, replay");
    Sub->add_option("--model", O->Policy.ModelPath,
                    "Model file for linear/mlp (HDF5, docs/formats/mlgo-model.md)")
        ->type_name("FILE");
    Sub->add_option("--replay", O->Policy.ReplayPath, "Session log whose decisions to replay")
        ->type_name("LOG");
    Sub->add_option("--seed", O->Policy.Seed, "Seed of the random policy");
    Sub->add_option("--explore", O->Policy.Explore,
                    "random: probability of a random answer instead of the base one");
    Sub->add_flag("--zero-missing", O->ZeroMissing,
                  "Feed zeros for model features the compiler does not send (ablations) "
                  "instead of failing");
    CLI::Option *E =
        Sub->add_option("--embeddings", O->Embeddings,
                        "Add embedding features (inliner: the compiler's callee/caller "
                        "embeddings and the workbench's module_embedding; eviction: the "
                        "workbench's function_embedding) with VOCAB (JSON or HDF5; default: "
                        "the built-in default vocabulary)")
            ->expected(0, 1)
            ->type_name("[VOCAB]");
    (Sub == Run ? EmbRun : EmbCollect) = E;
    Sub->add_option("--timeout", O->Timeout,
                    "Kill the compiler after S seconds (0: no limit)")
        ->type_name("S");
    Sub->add_flag("-q,--quiet", O->Quiet, "No warnings or progress");
  }
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
  Run->footer(RunFooter);
  Collect->add_option("-o", O->Output, "Output dataset (HDF5, ir2vec.mlgo-dataset/1)")
      ->type_name("FILE");
  Collect->add_option("-j,--jobs", O->Jobs, "Modules in parallel (default: hardware threads)")
      ->check(CLI::Range(1u, 1024u));
  Collect->add_option("--opt", O->Opt, "The opt to run (default opt-22)");
  Collect->add_option("--llc", O->Llc, "The llc that compiles to an object (default llc-22)");
  Collect->add_option("inputs", O->Inputs,
                      "Modules: files, directories, @LIST files, corpus_description.json")
      ->required();
  Collect->footer(CollectFooter);
  for (CLI::App *Sub : {Dump, Rewrite})
    Sub->add_option("log", O->Inputs, "Log file ('-' = standard input)")->required()->expected(1);
  Rewrite->add_option("-o", O->Output, "Output file (default: standard output)");
  Export->add_option("logs", O->Inputs, "Session logs (ir2vec mlgo run --log)")->required();
  Export->add_option("-o", O->Output, "Output dataset (HDF5)")->type_name("FILE");
  Features->add_option("--dim", O->Dim, "Vocabulary dimension D for the embedding features");

  return [=]() -> int {
    if (Run->parsed()) {
      if (O->Command.empty())
        return fail("mlgo run needs the compiler command after '--'", 125);
      return runRun(*O, EmbRun);
    }
    if (!O->Command.empty())
      return fail("unexpected arguments after '--'");
    if (Collect->parsed())
      return runCollect(*O, EmbCollect);
    if (Dump->parsed())
      return runLogDump(*O);
    if (Rewrite->parsed())
      return runLogRewrite(*O);
    if (Export->parsed())
      return runLogExport(*O);
    return runFeatures(*O);
  };
}

} // namespace wb::tool
