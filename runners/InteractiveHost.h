// The interactive host: runs a compiler (opt-22, llc-22, clang-22) with an MLGO interactive
// channel and answers every observation with a policy.
//
// How the pitfalls of the protocol (docs/mlgo.md, "Host pitfalls") are handled:
// - Open order / never-opened channel: the host opens both FIFOs itself with O_RDWR before
//   starting the compiler, so no open() on either side can block, whatever the order and
//   whether or not the compiler ever opens them.
// - EOF spin: the host keeps its write end of <base>.in open until the compiler has exited,
//   so the compiler never reads EOF (which it would retry at 100% CPU).
// - End of the conversation: because the host also holds <base>.out open, the end is the
//   compiler's exit (seen on a pidfd), not EOF; the host then drains what is left.
// - Crash, hang, cancellation: the compiler runs in its own process group; on a timeout,
//   a cancellation or a protocol error the whole group is killed and reaped.
// - Reply size: each reply is exactly the header's advice size (8 bytes int64, 4 float).
// - SIGPIPE cannot happen on <base>.in (the host is also a reader); the tool ignores it.
// Whatever the outcome, the FIFOs and their temporary directory are removed.
#pragma once

#include "features/Augment.h"
#include "features/FeatureSets.h"
#include "features/RegallocScore.h"
#include "features/TrainingLog.h"
#include "runners/ModelRunner.h"
#include "runners/Policies.h"
#include "support/Process.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace wb::runners {

struct SessionConfig {
  Task T = Task::Inline;
  std::vector<std::string> Command; // compiler and its arguments; channel flags are appended
  PolicyOptions Policy;
  /// When set, makes the session's policy instead of Policy (pipelines that build their own,
  /// e.g. exploration's trajectories).
  std::function<llvm::Expected<std::unique_ptr<runners::Policy>>()> MakePolicy;
  BindOptions Bind;
  /// Called with the session's private directory before the compiler starts (files it
  /// writes there are removed with it); unset = no augmentation (features/Augment.h).
  features::Augmenter Augment;
  double TimeoutSeconds = 0; // 0 = none
  int CancelFd = -1;         // readable = stop (support::cancellationFd)
  int StdoutFd = -1, StderrFd = -1;
  /// When set, the session log is written here as the session goes (SessionLog then keeps
  /// only the header and contexts); otherwise it is kept in SessionLog.
  llvm::raw_ostream *LogStream = nullptr;
  /// When set, the compiler's raw stream is copied here as it arrives.
  llvm::raw_ostream *TranscriptStream = nullptr;
  /// Temporary files of the host's own outputs, removed by the session's guardian should the
  /// host be killed (support::Guardian).
  std::vector<std::string> HostTemporaries;
  /// The compiler's extra flags (the same for every session of a run).
  std::vector<std::string> ExtraFlags;
  /// The compiler is clang whatever its file is called (recorded command lines): every flag
  /// goes after -mllvm. Otherwise a program named clang* gets them so.
  bool Clang = false;
  /// Register allocation: ask the compiler for the greedy allocator's remarks and score each
  /// function with these weights (features/RegallocScore.h). The session log then has the
  /// score LLVM's development mode logs, `reward` float[1]: an outcome after every
  /// observation, 0.0 but after each function's last, which carries the function's cost.
  std::optional<features::RegallocWeights> Costs;
  /// Reads the remarks file (features::readRegallocRemarks): a hook, so that the launcher,
  /// which links LLVM Support alone, does not link LLVM's remark parser.
  std::function<llvm::Expected<std::vector<features::FunctionRegalloc>>(llvm::StringRef)>
      ReadRemarks;
};

struct SessionResult {
  enum Kind { Exited, TimedOut, Cancelled, HostError } Outcome = Exited;
  support::ExitStatus Status; // the compiler's
  bool ChannelOpened = false;
  std::string Error;        // HostError: what went wrong
  features::Log SessionLog; // features + workbench extras + the decision, one row per answer
  size_t Observations = 0;  // answered
  /// Answers that differ from the compiler's own decision (the inliner's inlining_default,
  /// sent with -inliner-interactive-include-default); -1 when the compiler sends none.
  long Changed = -1;
  std::vector<std::string> UnknownFeatures, Ignored, ZeroFilled;
  std::string FeatureSetVersion;
  /// With SessionConfig::Costs and a compiler that exited with 0: its remarks, per function.
  std::optional<std::vector<features::FunctionRegalloc>> Regalloc;
  /// Warnings for the user: features the policy sees as zeros, logs not written because the
  /// compiler never opened the channel.
  std::vector<std::string> Warnings;
  /// The status `ir2vec mlgo run` exits with: the compiler's (128 + signal when killed),
  /// 124 on a timeout, 125 on a host error, 130 when cancelled.
  int exitStatus() const;
  /// Whether the compiler exited by itself and the host saw no error: only then is the
  /// session's log complete (a compiler killed by a signal may have died mid-decision).
  bool clean() const;
  /// One line for `--stats`: observations, contexts, feature set, how it ended, features the
  /// policy ignored.
  std::string summary() const;
};

/// The full compiler command line for a session (flags for the channel, the default decision,
/// augmentation; -mllvm before each for clang).
std::vector<std::string> sessionCommand(const SessionConfig &C, llvm::StringRef ChannelBase,
                                        llvm::ArrayRef<std::string> AugmentFlags);

/// The flags that make the compiler of Cmd (opt, llc, clang or clang -cc1) write the greedy
/// allocator's remarks, and only them, as YAML to Path; not behind -mllvm.
std::vector<std::string> regallocRemarkFlags(const std::vector<std::string> &Cmd, bool Clang,
                                             const std::string &Path);

/// What a session's messages name: the compiler's -o output, else its last argument that is a
/// file, else the compiler (in a parallel build's log, the warning of which compile).
std::string sessionSubject(const std::vector<std::string> &Cmd);

/// The remark files the user's own command writes (opt/llc's -pass-remarks-output; clang's
/// -fsave-optimization-record/-foptimization-record-file, as the driver names them, which it is
/// asked with -###, writing to Scratch): --reward reads the allocator's remarks from them
/// instead of replacing them. A usage error when one would not hold them (a pass filter that
/// leaves out regalloc, a format other than YAML).
llvm::Expected<std::vector<std::string>> userRemarkFiles(const std::vector<std::string> &Cmd, bool Clang,
                                                          const std::string &Scratch);

/// Runs one session. Errors before the compiler starts (bad policy, model, vocabulary,
/// temporary directory) are returned as errors; everything after is in the result.
llvm::Expected<SessionResult> runSession(const SessionConfig &C);

/// Runs one session with its log and the compiler's raw stream written to files ("" = not
/// wanted) as the session goes; they appear under their names only when the session is clean
/// (SessionResult::clean) and the compiler opened the channel.
llvm::Expected<SessionResult> runSessionToFiles(SessionConfig C, const std::string &LogPath,
                                                const std::string &TranscriptPath);

} // namespace wb::runners
