// What every subcommand of `ir2vec` shares: its exit-status table, the one boundary where a
// library call's result becomes messages and an exit status, and the option helpers that
// give the same option the same name, help and default everywhere.
//
// A subcommand is a thin driver: it declares its own options (only those), turns them into a
// library call, and hands the llvm::Expected<support::Outcome> to finish().
#pragma once

#include "corpus/Batch.h"
#include "support/RunSettings.h"
#include "support/Diagnostics.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Ranks.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wb::tool {

inline constexpr const char *ToolName = "ir2vec";
inline constexpr const char *MlgoToolName = "ir2vec mlgo";

struct ExitRow {
  std::string Status; // "0", "1", "the compiler's", ...
  std::string Meaning;
};

/// A subcommand's exit statuses: how each kind of ending maps to a status, and the table its
/// --help prints.
struct ExitTable {
  int Usage = 1, Failure = 1, Partial = 2, Interrupted = 130;
  std::vector<ExitRow> Rows;
  std::string Note; // a sentence after the table
  /// "Exit status:\n  0    ...\n" for --help.
  std::string help() const;
  /// The row of Status (a table edited by status, not by position); a new row when absent.
  ExitRow &row(const std::string &Status);
};

/// Tables shared by several subcommands.
ExitTable batchExits();  // many inputs: 0 all, 1 nothing usable, 2 some failed, 130
ExitTable simpleExits(); // 0 done, 1 failed (and no output)

/// The one boundary of a subcommand: prints the error (once, unless already reported) or the
/// warning of a partial result, and returns the status from Table.
int finish(const support::Reporter &R, const ExitTable &Table,
           llvm::Expected<support::Outcome> Result);

/// The run this process is part of: alone, or one rank of an MPI job (cluster/Job.h). Rank 0
/// prints the run's messages; the other ranks hold theirs (Held), printed only when such a rank
/// fails on its own and ends the job.
struct RunContext {
  support::Ranks *Ranks = nullptr;
  std::string Held;

  bool spread() const { return Ranks && Ranks->size() > 1; }
  bool root() const { return !Ranks || Ranks->root(); }
  /// The Reporter of a subcommand: Tool's messages on rank 0, held on the others.
  support::Reporter reporter(std::string Tool, bool Quiet) {
    return support::Reporter(std::move(Tool), Quiet, root() ? nullptr : &Held);
  }
  /// Where a subcommand's corpus work goes; RootJobs < 0: rank 0 keeps -j workers.
  support::Distribution distribution(int RootJobs) const;
};

/// A subcommand: its parser and what runs it once parsed.
struct Command {
  CLI::App *App;
  ExitTable Exits;
  std::function<int()> Run;
  /// Runs as the ranks of an MPI job (embeddings, triplets, mlgo collect|explore|eval); any
  /// other subcommand refuses to run as several ranks.
  bool Spreads = false;
};
using Commands = std::vector<Command>;

/// Adds a group of subcommands (`vocab`, `mlgo`, ...): one of them is required, and its help
/// points to theirs for exit statuses.
CLI::App *addGroup(CLI::App &Parent, const std::string &Name, const std::string &Description);
/// Adds a subcommand with its exit table in its --help.
CLI::App *addCommand(CLI::App &Parent, Commands &Cmds, const std::string &Name,
                     const std::string &Description, ExitTable Exits);
/// Sets the run function of the subcommand App (added with addCommand).
void setRun(Commands &Cmds, CLI::App *App, std::function<int()> Run);
/// Marks App (added with addCommand) as a subcommand that runs as the ranks of an MPI job, and
/// adds its --root-jobs option.
void setSpreads(Commands &Cmds, CLI::App *App, int &RootJobs);
/// The deepest subcommand the parser entered, and its exit table (for usage errors).
const Command *parsedCommand(const CLI::App &Root, const Commands &Cmds);

// ---- options shared by several subcommands ---------------------------------------------------

/// -o: Path; Stdout adds that "-" means standard output (offer it only where it works).
CLI::Option *addOutput(CLI::App &Sub, std::string &Path, const std::string &What, bool Stdout);
/// -q/--quiet with what it silences.
CLI::Option *addQuiet(CLI::App &Sub, bool &Quiet, const std::string &What);
/// -j/--jobs (0 = all hardware threads).
CLI::Option *addJobs(CLI::App &Sub, unsigned &Jobs, const std::string &What);
/// The inputs of a batch: files, directories, @lists, corpus descriptions.
CLI::Option *addInputs(CLI::App &Sub, std::vector<std::string> &Inputs);
/// --mode llvm or mir, as llvm-ir2vec spells it.
CLI::Option *addMode(CLI::App &Sub, std::string &Mode);
/// Options of LLVM IR only, refused with --mode=mir rather than ignored: the first given.
llvm::Error refuseForMir(std::initializer_list<std::pair<bool, std::string>> Given);

/// The vocabulary a command embeds with: file and section weights (as llvm-ir2vec names them).
struct VocabularyOptions {
  std::string Path; // "" = the built-in default vocabulary
  std::string OpcWeight = "1.0", TypeWeight = "0.5", ArgWeight = "0.2";
  /// The weights' options, to tell whether the command line gave one.
  std::vector<const CLI::Option *> WeightOptions;
  /// The name of a weight option the command line gave ("" = none).
  std::string givenWeight() const;
};
void addVocabularyOptions(CLI::App &Sub, VocabularyOptions &V);

/// Threads for Jobs (0 = all hardware threads).
unsigned jobsOrHardware(unsigned Jobs);
/// The batch settings of a run: workers, progress on a terminal unless quiet, and per-module
/// messages through R.
/// --module-time-limit of the commands that read a corpus in this process.
/// Seconds as a limit: a finite number, 0 or more (CLI11's NonNegativeNumber prints a range
/// up to DBL_MAX and lets "nan" through).
CLI::Validator seconds();
CLI::Option *addModuleTimeLimit(CLI::App &Sub, double &Seconds);
/// The one RunSettings of a command: workers (0 = the hardware's), the progress line when
/// the reporter is not quiet, diagnostics to the reporter, the ranks of an MPI run. The
/// cancellation descriptor is set where it is made (support::withCancellation).
support::RunSettings runSettings(const support::Reporter &R, unsigned Jobs,
                                 support::Distribution Dist = {});
corpus::BatchIO batchIO(const support::Reporter &R, unsigned Jobs, double ModuleSeconds,
                        support::Distribution Dist = {});
/// The inputs of a command, expanded; "-" (standard input) when there are none, which the ranks
/// of an MPI job cannot share. Machine: a machine-level run, whose directories give .mir files
/// too.
llvm::Expected<std::vector<std::string>> commandInputs(const std::vector<std::string> &Args,
                                                       const RunContext &Ctx,
                                                       const support::Reporter &R,
                                                       bool Machine = false);
using support::outcomeOf;
/// Refuses outputs that are inputs (Inputs, then More: vocabularies, models, logs) or each
/// other, before any work (support::checkOutputsAgainstInputs).
/// The @LIST files among a command's input arguments, with More: inputs too (an output must
/// never replace the list that named the modules).
std::vector<std::string> listFiles(const std::vector<std::string> &Args,
                                   std::vector<std::string> More = {});
llvm::Error checkOutputs(const std::vector<std::string> &Outputs,
                         const std::vector<std::string> &Inputs,
                         const std::vector<std::string> &More = {},
                         support::Within W = support::Within::Named);

/// llvm-ir2vec (LLVM's cl library) also accepts long options with one dash ("-level=bb");
/// rewrites those to "--" when the name is one of App's, and reverses the vector as CLI11
/// wants it.
std::vector<std::string> normaliseArgs(std::vector<std::string> Args, CLI::App &App);

/// For `ir2vec mlgo ...` command lines: removes "--" and what follows from Args and returns it
/// (another program's command line, never parsed as ours). Other command lines are left
/// alone and give an empty result.
std::vector<std::string> splitCompilerCommand(std::vector<std::string> &Args);

/// Parses Args (without the program name) into App and runs the chosen subcommand. Usage
/// errors exit with the parsed subcommand's status (printed by rank 0 of an MPI job only); a
/// subcommand that does not spread refuses to run as several ranks.
int parseAndRun(CLI::App &App, const Commands &Cmds, std::vector<std::string> Args,
                const RunContext &Ctx);

} // namespace wb::tool
