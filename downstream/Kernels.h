// The kernels a device-mapping study judges and their embeddings (Kernels.cpp): the kernel
// files' distinct contents, each embedded once per arm; their entity histograms, which also
// tell which kernels LLVM 22 reads (the others recompiled from their source, or left out); and
// the rows every arm judges.
#pragma once

#include "downstream/Devmap.h"
#include "downstream/DevmapResult.h"
#include "downstream/DevmapSpec.h"
#include "ir2vec/Embedder.h"
#include "support/Files.h"
#include "vocab/Vocabulary.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wb::mir {
class MirSource;
} // namespace wb::mir

namespace wb::downstream {

/// A module vector per distinct kernel file (NaN-free), or why there is none.
struct KernelVectors {
  std::vector<std::vector<double>> Rows; // [distinct file]
  std::vector<std::string> Errors;       // [distinct file]: "" = embedded
};

/// Each kernel's vector over its instruction count (each instruction has one opcode: the
/// histogram's opcode columns count them); kernels left out (no counts) untouched.
void overInstructions(std::vector<std::vector<double>> &Rows,
                      const std::vector<std::vector<double>> &Counts);

/// Embeds Files with V and K, or with Machine's source, aggregated as Arm says (module level:
/// the sum of the function vectors; Max and Loop from the block vectors; Mean is the caller's).
llvm::Expected<KernelVectors> embedFiles(const std::vector<std::string> &Files, const vocab::Vocabulary &V,
                                         ir2vec::Kind K, const DevmapConfig &C,
                                         const mir::MirSource *Machine = nullptr,
                                         const DevmapArm *Arm = nullptr);

/// What a study judges, set up once: the kernel files' distinct contents, what the arms embed
/// of each (the file, or its recompilation where LLVM 22 cannot read it), their entity
/// histograms, and each judged row's content.
struct DevmapKernels {
  std::map<std::string, size_t> FileIndex; // kernel file -> its index among the files
  std::vector<size_t> ContentOf;           // [file]: its distinct content
  std::vector<std::string> Distinct;       // [content]: the first file with it
  std::vector<const DevmapRow *> DistinctRow;
  std::vector<std::string> Effective;      // [content]: what the arms embed
  std::vector<bool> Usable;                // [content]: embedded (else left out)
  KernelVectors Counts;                    // [content]: the entity histogram
  std::vector<std::vector<size_t>> KernelOfRow; // [platform][judged row]: its content
  std::optional<support::TempDir> Tmp;     // the recompiled kernels

  size_t contentOf(const std::string &Dir, const DevmapRow &Row) const {
    return ContentOf[FileIndex.at(kernelFile(Dir, Row))];
  }
};

/// The distinct kernel files and contents: each content is embedded once per arm.
llvm::Error readKernels(const DevmapData &Data, DevmapKernels &K);

/// The histogram first: it tells which kernels LLVM 22 reads; those it cannot are recompiled
/// from their source (or left out) before any arm embeds them.
llvm::Error embedHistograms(const DevmapSpec &Spec, const DevmapConfig &C, DevmapKernels &K,
                            DevmapResult &R);

/// The rows every arm judges (those whose kernel is embedded), their kernels and suites
/// (numbered by name: the leave-one-suite-out folds).
llvm::Error judgedRows(const DevmapData &Data, const DevmapSpec &Spec, DevmapKernels &K,
                       DevmapResult &R);

} // namespace wb::downstream
