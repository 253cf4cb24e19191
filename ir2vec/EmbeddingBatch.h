// Embedding many modules: llvm-ir2vec text or the HDF5 file, in parallel, in input order.
//
// HDF5 runs are resumable. While running, data goes to OUT.partial and, every checkpoint
// (64 modules or 64 MiB of vectors), the file is flushed and OUT.resume records how many
// modules and rows are safely on disk, with a checksum of every dataset and a fingerprint of
// the options and inputs. `--resume` reopens OUT.partial, cuts it back to the checkpoint,
// verifies the checksums and continues; the result has the same content as an uninterrupted
// run. On success OUT.partial is renamed to OUT and OUT.resume removed. See
// docs/formats/embeddings-hdf5.md.
#pragma once

#include "ir2vec/EmbeddingFile.h"
#include "vocab/Batch.h"

#include <string>
#include <vector>

namespace wb::ir2vec {

struct EmbeddingJob {
  std::vector<std::string> Inputs;
  const vocab::Vocabulary *Vocab = nullptr; // the identity vocabulary for counts files
  Kind EmbeddingKind = Kind::Symbolic;
  Level Granularity = Level::Func;
  std::optional<std::string> FunctionName;
  // text
  unsigned Precision = 2;
  // HDF5
  std::string Output;
  FileHeader Header;
  unsigned Compress = 0;
  bool Resume = false;
};

struct EmbeddingRun {
  vocab::BatchSummary Summary;
  bool FunctionFound = false; // meaningful with FunctionName
  bool Resumed = false;       // continued from a checkpoint
  uint64_t ResumedModules = 0;
};

/// How contexts are used at a level: reused at func/bb level (faster), fresh per module at
/// inst level (printed instructions name struct types, which context reuse would rename);
/// local names are dropped at func level, where nothing prints them.
vocab::ContextPolicy contextPolicyFor(Level L);

llvm::Expected<EmbeddingRun> runEmbeddingsText(const EmbeddingJob &J, llvm::raw_ostream &OS,
                                               const vocab::BatchIO &IO);
/// Writes J.Output (HDF5). Leaves no file under J.Output unless at least one module worked.
llvm::Expected<EmbeddingRun> runEmbeddingsHDF5(const EmbeddingJob &J, const vocab::BatchIO &IO);

/// The vocabulary whose rows are the unit vectors: embedding with it yields entity counts.
const vocab::Vocabulary &countingVocabulary();

} // namespace wb::ir2vec
