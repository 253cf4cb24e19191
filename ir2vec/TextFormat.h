// llvm-ir2vec's `embeddings` text format (LLVM 22.1.8), byte for byte, with a choice of
// precision (llvm-ir2vec always prints "%.2f").
//
//   --level=func   "Function: <name>\n" then the vector, per defined function
//   --level=bb     "Function: <name>\n" then "<block name>:" + vector per block, layout order;
//                  a fresh embedder per function, blocks queried in layout order
//   --level=inst   "Function: <name>\n" then the printed instruction + vector per instruction
//                  (all instructions, layout order); fresh embedder, queried in layout order
// A vector is " [" then " <%.Nf> " per element then "]\n".
// With a function name, only that function; a declaration prints
// "Function <name> is a declaration, skipping.\n".
#pragma once

#include "ir2vec/Embedder.h"

#include "llvm/IR/ModuleSlotTracker.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class Module;
}

namespace wb::ir2vec {

enum class Level { Inst, BB, Func };
llvm::Expected<Level> parseLevel(llvm::StringRef Name);
llvm::StringRef levelName(Level L);

/// Prints " [ x  y ... ]\n" with Precision digits after the decimal point.
void printVector(llvm::raw_ostream &OS, llvm::ArrayRef<double> V, unsigned Precision);
/// Appends X as printf("%.*f", Precision, X) would (precision capped at MaxPrecision).
void formatFixed(std::string &Out, double X, unsigned Precision);
inline constexpr unsigned MaxPrecision = 100;

/// Prints instructions exactly as Instruction::print(OS) does, but without rebuilding a slot
/// tracker for the whole module on every call (which makes printing every instruction of a
/// module quadratic). Instruction::print numbers metadata differently depending on whether
/// the instruction is an intrinsic call with an MDNode argument, and its trackers are fresh
/// per call; we keep one tracker of each flavour per function, which gives identical text.
class InstructionPrinter {
public:
  void print(llvm::raw_ostream &OS, const llvm::Instruction &I);

private:
  const llvm::Function *Current = nullptr;
  std::unique_ptr<llvm::ModuleSlotTracker> Trackers[2];
};

struct TextOptions {
  Kind EmbeddingKind = Kind::Symbolic;
  Level Granularity = Level::Func;
  unsigned Precision = 2;
  /// Only this function (exact IR name), when set.
  std::optional<std::string> FunctionName;
};

/// Writes the embeddings of M. Fails only when FunctionName names no function of M.
llvm::Error writeEmbeddingsText(llvm::raw_ostream &OS, const llvm::Module &M,
                                const vocab::Vocabulary &V, const TextOptions &Opts);

} // namespace wb::ir2vec
