// llvm-ir2vec's `embeddings` text format (LLVM 22.1.8), byte for byte, with a choice of
// precision (llvm-ir2vec always prints "%.2f"). See docs/formats/embeddings-text.md.
//
//   --level=func   "Function: <name>\n" then the vector, per defined function
//   --level=bb     "Function: <name>\n" then "<block name>:" + vector per block, layout order
//   --level=inst   "Function: <name>\n" then the printed instruction + vector per instruction
//   --level=module the module's vector (the workbench's level: LLVM 22 has none; the sum of
//                  its function vectors, ModuleEmbedding.h), after the "Module: <path>\n"
//                  header a batch prints (always, at this level)
// A vector is " [" then " <%.Nf> " per element then "]\n". When a selected function is a
// declaration: "Function <name> is a declaration, skipping.\n".
#pragma once

#include "ir2vec/ModuleEmbedding.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace wb::ir2vec {

enum class Level { Inst, BB, Func, Module };
/// The spellings of --level: llvm-ir2vec's three, and the module level.
inline constexpr support::Named<Level> LevelNames[] = {
    {Level::Inst, "inst"}, {Level::BB, "bb"}, {Level::Func, "func"}, {Level::Module, "module"}};
llvm::Expected<Level> parseLevel(llvm::StringRef Name);
llvm::StringRef levelName(Level L);
/// The rows llvm-ir2vec prints at level L: that level only (function vectors at module level,
/// whose vector is their sum).
LevelSet textLevels(Level L);
/// The rows a file or an array set of granularity L holds (and computes): levels accumulate
/// from the module down, so an inst file also has blocks, functions and modules. Function
/// vectors are computed at every level (a module's vector is their sum) but kept as rows only
/// from level func down (hasFunctionRows).
LevelSet levelsAt(Level L);
bool hasFunctionRows(Level L);

inline constexpr unsigned MaxPrecision = 100;
/// Appends X as printf("%.*f", Precision, X) would (precision capped at MaxPrecision).
void formatFixed(std::string &Out, double X, unsigned Precision);
/// Appends " [ x  y ... ]\n" with Precision digits after the decimal point.
void formatVector(std::string &Out, llvm::ArrayRef<double> V, unsigned Precision);

/// What llvm-ir2vec prints around the rows of a function in one IR mode (IRModes): the
/// function's name, then the function row, or its blocks, or its instructions.
struct TextStyle {
  const char *FunctionOpen, *FunctionClose; // around the function's name
  const char *FunctionRow;                  // before the function's vector
  const char *BlocksOpen, *BlockOpen, *BlockClose; // before the blocks; around a block's name
  const char *InstsOpen, *InstOpen, *InstClose;    // before the instructions; around a text
};

/// The IR a run embeds (--mode): LLVM IR, or machine IR (MIR2Vec, mir/MirCorpus.h). One table
/// drives the names, the text of each and the names of the HDF5 file's weight attributes.
enum class IRMode { LLVM, MIR };
struct IRModeInfo {
  IRMode M;
  const char *Name;
  TextStyle Style;
  const char *WeightAttributes[3]; // vocab::Weights' Opcode, Type and Arg slots
};
inline constexpr IRModeInfo IRModes[] = {
    {IRMode::LLVM, "llvm",
     {"Function: ", "\n", "", "", "", ":", "", "  ", ""},
     {"opc_weight", "type_weight", "arg_weight"}},
    // Machine instructions print with a newline of their own (MachineInstr::print); rows keep
    // the text without it.
    {IRMode::MIR, "mir",
     {"MIR2Vec embeddings for machine function ", ":\n", "Function vector: ",
      "Basic block vectors:\n", "MBB ", ": ", "Instruction vectors:\n", "", "\n -> "},
     {"opc_weight", "common_operand_weight", "reg_operand_weight"}},
};
llvm::Expected<IRMode> parseIRMode(llvm::StringRef Name);
const IRModeInfo &modeInfo(IRMode M);

/// Renders E (computed with textLevels(L)) as llvm-ir2vec prints it in mode M. SelectedName
/// is the --function argument, if any (named in the declaration note).
void renderText(std::string &Out, const ModuleEmbedding &E, Level L, unsigned Precision,
                const std::optional<std::string> &SelectedName, IRMode M = IRMode::LLVM);

} // namespace wb::ir2vec
