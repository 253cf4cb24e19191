#include "tools/ir2vec/MlgoRun.h"

#include "vocab/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <csignal>
#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace wb::tool {

namespace {

constexpr const char *RunFooter =
    "Exit status: the compiler's (128 + N when it was killed by signal N); 124 when --timeout "
    "expired (the compiler was killed); 125 when the host failed (bad policy, model or "
    "vocabulary, a protocol error, a policy that cannot answer); 130 when interrupted. The "
    "FIFOs, temporary files and compiler processes are gone in every case.";

} // namespace

std::vector<std::string> splitCompilerCommand(std::vector<std::string> &Args) {
  auto Dash = std::find(Args.begin(), Args.end(), "--");
  if (Args.empty() || Args[0] != "mlgo" || Dash == Args.end())
    return {};
  std::vector<std::string> Compiler(Dash + 1, Args.end());
  Args.erase(Dash, Args.end());
  return Compiler;
}

int fail(const llvm::Twine &Msg, int Status) {
  llvm::WithColor::error(llvm::errs(), MlgoToolName) << Msg << "\n";
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

void addTaskOption(CLI::App &Sub, MlgoOptions &O) {
  Sub.add_option("--task", O.TaskName, "inline, evict or priority")
      ->check(CLI::IsMember({"inline", "evict", "priority"}));
}

CLI::Option *addPolicyOptions(CLI::App &Sub, MlgoOptions &O) {
  Sub.add_option("--policy", O.Policy.Name,
                 "default (inliner), no-evict (eviction), random, linear, mlp, replay");
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
  CLI::Option *E =
      Sub.add_option("--embeddings", O.Embeddings,
                     "Add embedding features (inliner: the compiler's callee/caller "
                     "embeddings and the workbench's module_embedding; eviction: the "
                     "workbench's function_embedding) with VOCAB (JSON or HDF5; default: the "
                     "built-in default vocabulary)")
          ->expected(0, 1)
          ->type_name("[VOCAB]");
  Sub.add_option("--timeout", O.Timeout, "Kill the compiler after S seconds (0: no limit)")
      ->type_name("S");
  Sub.add_flag("-q,--quiet", O.Quiet, "No warnings or progress");
  return E;
}

std::pair<CLI::App *, CLI::Option *> addRunCommand(CLI::App &Mlgo, MlgoOptions &O) {
  CLI::App *Run = Mlgo.add_subcommand(
      "run", "Run a compiler with an interactive channel and answer it with a policy: "
             "ir2vec mlgo run [options] -- COMPILER ARGS...");
  addTaskOption(*Run, O);
  CLI::Option *E = addPolicyOptions(*Run, O);
  Run->add_option("--log", O.LogPath,
                  "Write the session log: LLVM's training-log format, the compiler's "
                  "features, workbench extras, then the decision")
      ->type_name("FILE");
  Run->add_option("--transcript", O.TranscriptPath,
                  "Write the compiler's raw stream exactly as received")
      ->type_name("FILE");
  Run->add_option("--module", O.ModulePath,
                  "With --embeddings: the IR file to embed (default: the .bc/.ll argument)")
      ->type_name("FILE");
  Run->add_flag("--stats", O.Stats, "Print a summary of the session on standard error");
  Run->footer(RunFooter);
  return {Run, E};
}

int runRun(const MlgoOptions &O, const CLI::Option *EmbFlag, const FullHooks &H) {
  runners::SessionConfig C;
  C.T = *taskOf(O);
  C.Command = O.Command;
  C.Policy = O.Policy;
  C.Policy.LoadModel = H.LoadModel;
  C.Bind.ZeroMissing = O.ZeroMissing;
  if (std::optional<std::string> E = embeddingsOf(O, EmbFlag)) {
    if (!H.Augmenter)
      return fail("--embeddings is not available in this program", 125);
    C.Augment = H.Augmenter(C.T, *E, O.ModulePath, O.Command);
  }
  C.TimeoutSeconds = O.Timeout;
  // Logs are written as the session goes, to temporary files that are renamed into place
  // only after a clean session: a file under the requested name is always complete.
  std::optional<vocab::AtomicOutput> Log, Transcript;
  for (auto [Path, Out, Stream] : {std::tuple{&O.LogPath, &Log, &C.LogStream},
                                   {&O.TranscriptPath, &Transcript, &C.TranscriptStream}}) {
    if (Path->empty())
      continue;
    llvm::Expected<vocab::AtomicOutput> A = vocab::AtomicOutput::create(*Path);
    if (!A)
      return fail(llvm::toString(A.takeError()), 125);
    Out->emplace(std::move(*A));
    *Stream = &(*Out)->os();
  }
  C.CancelFd = cancellationFd();
  llvm::Expected<runners::SessionResult> R = runners::runSession(C);
  ::close(C.CancelFd);
  if (!R)
    return fail(llvm::toString(R.takeError()), 125);
  if (!O.Quiet)
    for (const std::string &N : R->ZeroFilled)
      llvm::WithColor::warning(llvm::errs(), MlgoToolName)
          << "feature '" << N << "' is not sent by the compiler; the policy sees zeros\n";
  if (!R->Error.empty())
    fail(R->Error);
  // A compiler killed by a signal may have died mid-decision: its log would mislead.
  bool Clean = R->Outcome == runners::SessionResult::Exited && R->Error.empty() &&
               !R->Status.Signaled;
  // The log of a session that did not finish cleanly is incomplete: not written.
  if (Clean && R->ChannelOpened) {
    for (std::optional<vocab::AtomicOutput> *Out : {&Log, &Transcript})
      if (*Out)
        if (llvm::Error E = (*Out)->commit())
          return fail(llvm::toString(std::move(E)), 125);
  } else if (Clean && (!O.LogPath.empty() || !O.TranscriptPath.empty())) {
    llvm::WithColor::warning(llvm::errs(), MlgoToolName)
        << "the compiler never opened the channel (no ML advisor in this pipeline); no log "
           "written\n";
  }
  if (O.Stats)
    llvm::errs() << llvm::formatv(
        "{0}: {1} observations, {2} contexts, feature set {3}, {4}; ignored by the policy: "
        "{5}\n",
        MlgoToolName, R->Observations, R->SessionLog.Contexts.size(),
        R->FeatureSetVersion.empty() ? "-" : R->FeatureSetVersion,
        R->Outcome == runners::SessionResult::Exited ? R->Status.describe() : R->Error,
        llvm::join(R->Ignored, ","));
  return R->exitStatus();
}

} // namespace wb::tool
