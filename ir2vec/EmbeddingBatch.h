// Embedding many modules: llvm-ir2vec text or the HDF5 file, in parallel, in input order.
// One call (runEmbeddings) does a whole `ir2vec embeddings` run: the output appears complete
// under its name or not at all, and the outcome says whether every module was embedded.
//
// HDF5 runs are resumable. While running, data goes to OUT.partial and, every checkpoint
// (64 modules or 64 MiB of vectors), the file is flushed and OUT.resume records how many
// modules and rows are safely on disk, with a checksum of every dataset and a fingerprint of
// the options and inputs. `--resume` takes OUT.partial back to the checkpoint, verifies the
// checksums and continues; the result has the same content as an uninterrupted
// run (the checkpointed rows are copied into a fresh file: cutting half-written rows off in
// place crashed libhdf5). On success OUT.partial is renamed to OUT and OUT.resume removed. See
// docs/formats/embeddings-hdf5.md.
#pragma once

#include "corpus/Batch.h"
#include "ir2vec/EmbeddingFile.h"
#include "support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace wb::ir2vec {

enum class OutputFormat { Text, HDF5 };
inline constexpr support::Named<OutputFormat> OutputFormatNames[] = {
    {OutputFormat::Text, "text"}, {OutputFormat::HDF5, "hdf5"}};
llvm::Expected<OutputFormat> parseOutputFormat(llvm::StringRef Name);

struct EmbeddedModule;

/// The settings of a job that its rules name, and how a front end spells one, with a value
/// where it has one, in its errors: the command line's "--level module", the Python module's
/// "level='module'".
enum class JobSetting { Function, Level, InstructionText, Counts, Mode, Kind };
using SettingSpelling = std::function<std::string(JobSetting, llvm::StringRef Value)>;
/// The command line's spelling: --function, --level VALUE, --inst-text, --counts, --mode=VALUE,
/// --ir2vec-kind VALUE.
std::string commandLineSpelling(JobSetting S, llvm::StringRef Value);

/// What turns one input into rows: LLVM IR's embedder when a job names none, or a layer
/// above's (machine IR: mir/MirCorpus.h). A run uses one source for all its inputs.
struct ModuleSource {
  IRMode Mode = IRMode::LLVM;
  /// How the source's workers use contexts.
  corpus::ContextPolicy Policy;
  /// The rows of the input at Path at the given levels (instruction text when Text), or why
  /// there are none; FunctionName as EmbeddingJob's. Called from several workers at once.
  std::function<EmbeddedModule(const std::string &Path, llvm::LLVMContext &Ctx,
                               const LevelSet &Levels, bool Text,
                               const std::optional<std::string> &FunctionName)>
      Embed;
};

struct EmbeddingJob {
  std::vector<std::string> Inputs;
  /// Null: LLVM IR, embedded with Vocab and EmbeddingKind.
  const ModuleSource *Source = nullptr;
  OutputFormat Format = OutputFormat::Text;
  const vocab::Vocabulary *Vocab = nullptr; // the identity vocabulary for counts files
  Kind EmbeddingKind = Kind::Symbolic;
  Level Granularity = Level::Func;
  std::optional<std::string> FunctionName;
  // text
  unsigned Precision = 2;
  std::string Output = "-"; // text: "-" = standard output
  // HDF5
  FileHeader Header;
  unsigned Compress = 0;
  bool Resume = false;

  /// Usage errors about what is embedded, whatever the output, for IR of Mode (LLVM IR when
  /// Source is null, else Source's; given apart so a front end can check before it makes
  /// the source): a function at the module level, instruction text at another level than
  /// inst, counts or another kind than symbolic of machine IR. Say names the settings.
  llvm::Error validateSelection(const SettingSpelling &Say, IRMode Mode) const;
  /// Those, then the output's rules (e.g. --resume with text output), in the command line's
  /// terms.
  llvm::Error validate() const;
};

struct EmbeddingRun {
  corpus::BatchSummary Summary;
  bool FunctionFound = false; // meaningful with FunctionName
  bool Resumed = false;       // continued from a checkpoint
  uint64_t ResumedModules = 0;
  RowCounts Rows;             // HDF5: rows written
};

/// How contexts are used at a level: reused at func/bb level (faster), fresh per module at
/// inst level (printed instructions name struct types, which context reuse would rename);
/// local names are dropped at func level, where nothing prints them. (Timing only: results
/// are the same under any policy but for instruction text.)
corpus::ContextPolicy contextPolicyFor(Level L);
/// J's source's policy, or LLVM IR's at J's level.
corpus::ContextPolicy contextPolicyFor(const EmbeddingJob &J);

/// A whole run: validates J, embeds every input, writes J.Output in J.Format and says how it
/// went (complete, or partial when some modules failed); an error when nothing usable came
/// out or --function names no function of any input, and then nothing is left under
/// J.Output (an interrupted HDF5 run keeps OUT.partial and OUT.resume for --resume).
/// Per-module problems, where a run resumed and a summary go to IO.Run.Report.
llvm::Expected<support::Outcome> runEmbeddings(const EmbeddingJob &J, const corpus::BatchIO &IO);

llvm::Expected<EmbeddingRun> runEmbeddingsText(const EmbeddingJob &J, llvm::raw_ostream &OS,
                                               const corpus::BatchIO &IO);
/// Reads a resume state file (OUT.resume) written for a run with this Fingerprint: an error
/// names what is wrong with it (for fuzzing; runs read it themselves).
llvm::Error checkResumeState(const std::string &Path, const std::string &Fingerprint);

/// Writes J.Output (HDF5). Leaves no file under J.Output unless at least one module worked.
llvm::Expected<EmbeddingRun> runEmbeddingsHDF5(const EmbeddingJob &J, const corpus::BatchIO &IO);

/// One module as the workers made it: its rows, or why it has none.
struct EmbeddedModule {
  std::string Error; // empty: embedded
  std::vector<std::string> Warnings;
  ModuleEmbedding E;
};
/// How a module's rows travel from a rank to rank 0 of an MPI run (every field, exactly).
void encode(const EmbeddedModule &M, support::WireWriter &W);
void decode(support::WireReader &In, EmbeddedModule &M);

/// Embeds J.Inputs[Begin, end) with J.Vocab, J.EmbeddingKind and J.FunctionName at the given
/// levels, with IO.Run.Jobs workers, and hands every module to Take in input order (Take may stop
/// the run with an error, which is returned). A module LLVM crashes or loops on gets an Error
/// saying so. The engine of every embeddings run (the HDF5 file, the Python module).
llvm::Error embedModules(const EmbeddingJob &J, LevelSet Levels, bool InstructionText,
                         size_t Begin, const corpus::BatchIO &IO,
                         const std::function<llvm::Error(size_t Index, EmbeddedModule &&)> &Take);

/// The vocabulary whose rows are the unit vectors: embedding with it yields entity counts.
const vocab::Vocabulary &countingVocabulary();

} // namespace wb::ir2vec
