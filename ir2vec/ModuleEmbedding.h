// All embeddings of one module as dense rows: the unit of work of the batch engine and the
// one source every output format (llvm-ir2vec text, HDF5) is rendered from.
//
// Each level is computed exactly as llvm-ir2vec computes that level, so the rows of a level
// equal llvm-ir2vec's output for it bit for bit (flow-aware levels differ from each other):
//   functions:    a fresh embedder per function, one function query
//   blocks:       a fresh embedder per function, blocks queried in layout order
//   instructions: a fresh embedder per function, all instructions queried in layout order
// Only defined functions get rows (declarations have no vectors), in module order.
// Flow-aware-rd rows read one solution of the module (ReachingFlow.h), so its levels agree:
// a block is the sum of its instructions, a function the depth-first sum of its blocks.
//   module:       the sum of its function rows, in module order, starting from +0.0 (IITH
//                 IR2Vec's "program vector"; LLVM 22 has no module level). Function rows are
//                 the same at every level, so a module's vector is too.
#pragma once

#include "ir2vec/Embedder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace wb::ir2vec {

struct LevelSet {
  bool Functions = true;
  bool Blocks = false;
  bool Instructions = false;
  /// With Blocks: each block's loop nesting depth too (LoopInfo; 0 outside loops), for
  /// weighting blocks by how often they may run (downstream aggregation "loop").
  bool BlockLoopDepths = false;
};

struct EmbedRequest {
  Kind EmbeddingKind = Kind::Symbolic;
  LevelSet Levels;
  /// Only this function (exact IR name), when set.
  std::optional<std::string> FunctionName;
  /// Print each instruction as LLVM does (AsmWriter: about 2 us per instruction, more than
  /// parsing it); without it instructions are identified by opcode and position only.
  bool InstructionText = true;
};

struct ModuleEmbedding {
  unsigned Dim = 0;
  // functions (row i = i-th defined function selected)
  std::vector<std::string> FunctionNames;
  std::vector<double> FunctionVectors; // rows x Dim, row-major
  // blocks, layout order within each function
  std::vector<std::string> BlockNames;
  std::vector<int64_t> BlockFunction; // row in FunctionNames
  std::vector<double> BlockVectors;
  std::vector<int64_t> BlockLoopDepth; // with LevelSet::BlockLoopDepths, per block row
  // instructions, layout order within each function; text as LLVM prints it, without the
  // two-space indentation
  std::vector<std::string> InstTexts;  // empty unless EmbedRequest::InstructionText
  std::vector<int64_t> InstOpcode;    // opcode entity id (vocabulary row 0..67)
  std::vector<int64_t> InstFunction; // row in FunctionNames
  std::vector<int64_t> InstBlock;    // row in BlockNames (-1 when blocks were not requested)
  std::vector<double> InstVectors;
  /// Dim values, the sum of the FunctionVectors rows (moduleVector); empty when function
  /// vectors were not computed. With EmbedRequest::FunctionName, the sum of the rows kept.
  std::vector<double> ModuleVector;
  /// FunctionName was given and names a declaration (llvm-ir2vec prints a note for it).
  bool SelectedDeclaration = false;
  /// FunctionName was given and names no function of the module.
  bool SelectedNotFound = false;
};

/// The module level: the rows of FunctionVectors (Dim wide) added in order to a vector of
/// +0.0, as LLVM adds Embeddings (element by element, one row after the other).
std::vector<double> moduleVector(const std::vector<double> &FunctionVectors, unsigned Dim);
/// The module row of a module that could not be embedded: NaN in every element, so that no
/// statistic over a table mistakes it for an empty module (whose row is +0.0).
std::vector<double> failedModuleVector(unsigned Dim);

/// Function rows are listed even when Levels.Functions is false (names are needed to group
/// the finer levels); their vectors (and the module's) are then left empty. Fails only for
/// flow-aware-rd, when a dependency cycle has no solution (ReachingFlow.h).
llvm::Expected<ModuleEmbedding> embedModule(const llvm::Module &M, const vocab::Vocabulary &V,
                                            const EmbedRequest &R);

} // namespace wb::ir2vec
