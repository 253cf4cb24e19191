// The lossless HDF5 embeddings file, schema "ir2vec.embeddings/4" (and its twin
// "ir2vec.counts/4", whose rows are entity counts instead of embeddings). The schema is
// documented in docs/formats/embeddings-hdf5.md; this is its only implementation. Version 1
// files (no /modules/<data>) are still read: their module rows are computed as version 2
// defines them; version 2 files are LLVM IR's (version 3 added the mode: machine IR; version 4
// every setting that changes a vector: opt_level, and machine IR's mcpu and mattr).
//
//   /                       attributes: schema, mode, opt_level, method, kind, level,
//                           dimension, opc_weight, type_weight, arg_weight (machine IR:
//                           common_operand_weight, reg_operand_weight), vocab_sha256,
//                           llvm_version, tool_version; machine IR: target, mcpu, mattr,
//                           mir_stage
//   /modules/path, /modules/error string [M], /modules/<data> float64 [M, D]
//   /functions/name string [N], /functions/module int64 [N], /functions/<data> float64 [N, D]
//                                                           (every level but module)
//   /blocks/name, /blocks/function, /blocks/<data>          (level bb and inst)
//   /instructions/opcode, /instructions/function, /instructions/block, /instructions/<data>
//   /instructions/text                                      (level inst; text if requested)
//   /entities/name string [E]                               (names of entity ids and of
//                                                           the columns of counts: LLVM
//                                                           IR's 110, or the target's MIR)
// <data> is "embedding" or "counts". Rows are appended module by module in input order.
#pragma once

#include "corpus/OptPipeline.h"
#include "ir2vec/ModuleEmbedding.h"
#include "ir2vec/TextFormat.h"
#include "support/Isolate.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace wb::ir2vec {

inline constexpr const char *EmbeddingsSchema = "ir2vec.embeddings/4";
inline constexpr const char *CountsSchema = "ir2vec.counts/4";
inline constexpr unsigned CurrentSchemaVersion = 4;

struct FileHeader {
  unsigned SchemaVersion = CurrentSchemaVersion; // written as 4; 1 to 3 are read
  bool Counts = false;          // schema ir2vec.counts/N
  IRMode Mode = IRMode::LLVM;   // version 3's "mode" (earlier files are LLVM IR's)
  /// LLVM's default<O?> pipeline run on each module before it is embedded (or compiled, for
  /// machine IR); none: the modules as they are (version 4; earlier files ran none).
  std::optional<corpus::OptLevel> Opt;
  std::string Target, Stage;    // machine IR: the target triple, where code generation stopped
  std::string CPU, Features;    // machine IR: llc's -mcpu and -mattr ("": the target's default)
  /// Names of the entity ids; empty: LLVM IR's 110 (vocab/EntityLayout.h).
  std::vector<std::string> EntityNames;
  std::string Method = "exact"; // embeddings: "exact" or "counts" (computed from a counts file)
  Kind EmbeddingKind = Kind::Symbolic;
  Level Granularity = Level::Func;
  unsigned Dimension = 0;
  vocab::Weights W;             // embeddings only
  std::string VocabSHA256;      // embeddings only
  bool InstructionText = false; // /instructions/text present
  std::string LLVMVersion = WB_LLVM_VERSION;
  std::string ToolVersion = WB_VERSION;

  /// Levels computed for a file of this granularity: they accumulate (inst has all three).
  LevelSet levels() const;
  /// The schema attribute: "ir2vec.embeddings/4" or "ir2vec.counts/4".
  std::string schema() const;
  /// Whether rows written under H can continue a file written under this header.
  bool sameRows(const FileHeader &H) const;
};

/// One root attribute of the file.
struct HeaderAttribute {
  std::string Name;
  std::variant<std::string, int64_t, double> Value;
};
/// The root attributes of a file with header H, in the order they are written: what the file
/// stores, what the Python module's arrays carry, and what a resumed run compares (one list
/// for the three: every setting that changes a vector is in it).
std::vector<HeaderAttribute> headerAttributes(const FileHeader &H);

/// Row counts of the four tables; the state a checkpoint records.
struct RowCounts {
  uint64_t Modules = 0, Functions = 0, Blocks = 0, Instructions = 0;
};

/// A checksum per dataset over its rows in order (xxh3 of each row, chained); lets a resumed
/// run verify that the checkpointed part of a partial file is intact. Row-wise, so it does not
/// depend on how rows were grouped into writes.
using DatasetChecksums = std::array<uint64_t, 14>;

class EmbeddingFileWriter {
public:
  /// Creates (truncates) Path. Compress > 0 deflates the float64 data at that level (smaller,
  /// much slower); integer columns are always compressed (cheap and very effective). Modules:
  /// how many modules the file will hold (0: not known), which sizes its chunks.
  static llvm::Expected<EmbeddingFileWriter> create(const std::string &Path, const FileHeader &H,
                                                    unsigned Compress, uint64_t Modules = 0);
  /// Continues a partial file written with the same header (and Compress) from its
  /// checkpoint: the first Keep rows of every table are copied into a fresh file, which must
  /// have the checksums Expected (else an error: start over), and replaces Path.
  static llvm::Expected<EmbeddingFileWriter>
  resume(const std::string &Path, const FileHeader &H, unsigned Compress, uint64_t Modules,
         const RowCounts &Keep, const DatasetChecksums &Expected,
         double IsolatedSeconds = support::DefaultIsolatedSeconds);
  EmbeddingFileWriter(EmbeddingFileWriter &&) noexcept;
  EmbeddingFileWriter &operator=(EmbeddingFileWriter &&) noexcept;
  ~EmbeddingFileWriter();

  /// One module's rows; E is null for a module that failed (Error says why: its module row is
  /// failedModuleVector).
  llvm::Error append(const std::string &ModulePath, const std::string &Error,
                     const ModuleEmbedding *E);
  /// Makes everything appended so far durable on disk (a checkpoint).
  llvm::Error flush();
  llvm::Error close();
  RowCounts rows() const;
  DatasetChecksums checksums() const;

private:
  struct Impl;
  explicit EmbeddingFileWriter(std::unique_ptr<Impl> I);
  /// Reopens a file whose tables hold exactly Keep rows with the checksums Expected.
  static llvm::Expected<EmbeddingFileWriter> reopen(const std::string &Path, const FileHeader &H,
                                                    const RowCounts &Keep,
                                                    const DatasetChecksums &Expected);
  std::unique_ptr<Impl> P;
};

/// Reads a file back module by module (for `from-counts`, resuming and tests).
class EmbeddingFileReader {
public:
  /// Opens Path after a complete read of it behind a process boundary (support/Isolate.h):
  /// libhdf5 crashes or loops on some crafted files, which then give an error naming Path.
  static llvm::Expected<EmbeddingFileReader>
  open(const std::string &Path, double IsolatedSeconds = support::DefaultIsolatedSeconds);
  /// Opens Path without that check: for files this process wrote itself.
  static llvm::Expected<EmbeddingFileReader> openTrusted(const std::string &Path);
  EmbeddingFileReader(EmbeddingFileReader &&) noexcept;
  ~EmbeddingFileReader();

  const FileHeader &header() const;
  uint64_t numModules() const;
  struct Module {
    std::string Path, Error;
    ModuleEmbedding Rows; // function/block/instruction indices relative to this module;
                          // Rows.ModuleVector is the module row (of a version 1 file:
                          // computed from its function rows)
  };
  llvm::Expected<Module> module(uint64_t I);

private:
  struct Impl;
  explicit EmbeddingFileReader(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> P;
};

} // namespace wb::ir2vec
