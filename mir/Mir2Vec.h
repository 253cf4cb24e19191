// MIR2Vec as LLVM 22.1.8 defines it (llvm/CodeGen/MIR2Vec.h, docs/mir2vec.md), computed here
// instead of by libLLVM's SymbolicMIREmbedder, which crashes on registers without a class: the
// target's entity layout, a vocabulary read from LLVM's MIR vocabulary JSON, symbolic vectors
// of instructions, blocks and functions, and the triplets of llvm-ir2vec's MIR mode. Equal bit
// for bit to libLLVM's on every function where libLLVM does not crash (tests/mir_test.py).
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class MachineBasicBlock;
class MachineFunction;
class MachineInstr;
class MachineOperand;
class TargetMachine;
} // namespace llvm

namespace wb::mir {

/// The four sections of a MIR vocabulary, in entity order; one table drives the JSON keys and
/// the entity names' prefixes.
enum class MirSection : unsigned { Opcodes, CommonOperands, PhysicalRegisters, VirtualRegisters };
struct MirSectionInfo {
  MirSection S;
  const char *JSONKey;     // the section of LLVM's vocabulary JSON
  const char *EntityPrefix; // what `entities` prints before a key
};
inline constexpr MirSectionInfo MirSections[] = {
    {MirSection::Opcodes, "Opcodes", ""},
    {MirSection::CommonOperands, "CommonOperands", ""},
    {MirSection::PhysicalRegisters, "PhysicalRegisters", "PhyReg_"},
    {MirSection::VirtualRegisters, "VirtualRegisters", "VirtReg_"},
};
inline constexpr size_t NumMirSections = std::size(MirSections);

/// The operand kinds of the CommonOperands section, indexed by MachineOperandType - 1.
inline constexpr const char *CommonOperandNames[] = {
    "Immediate",      "CImmediate",    "FPImmediate",  "MBB",       "FrameIndex",
    "ConstantPoolIndex", "TargetIndex", "JumpTableIndex", "ExternalSymbol", "GlobalAddress",
    "BlockAddress",   "RegisterMask",  "RegisterLiveOut", "Metadata", "MCSymbol",
    "CFIIndex",       "IntrinsicID",   "Predicate",    "ShuffleMask", "LaneMask"};
inline constexpr unsigned NumCommonOperands = std::size(CommonOperandNames);

/// "ADD32rr" -> "ADD": the first run of letters and underscores, trailing underscores
/// trimmed; the whole name when it has no letter (LLVM's extractBaseOpcodeName).
std::string baseOpcodeName(llvm::StringRef InstrName);

/// A target's entities: canonical opcode names (sorted), the common operand kinds, and the
/// register classes twice (as physical, then as virtual registers).
class MirLayout {
public:
  static MirLayout of(const llvm::TargetMachine &TM);

  unsigned size() const { return Base[NumMirSections]; }
  unsigned base(MirSection S) const { return Base[unsigned(S)]; }
  unsigned sectionSize(MirSection S) const { return Base[unsigned(S) + 1] - Base[unsigned(S)]; }
  /// The key of entity Id within its section's JSON object ("ADD", "Immediate", "GR32").
  llvm::StringRef key(unsigned Id) const { return Keys[Id]; }
  /// The name `entities` prints ("PhyReg_GR32").
  std::string entityName(unsigned Id) const;
  MirSection sectionOf(unsigned Id) const;
  /// The entity of a target opcode.
  unsigned opcodeEntity(unsigned Opcode) const { return OpcodeToEntity[Opcode]; }

private:
  std::vector<std::string> Keys;         // per entity
  std::vector<unsigned> OpcodeToEntity;  // per target opcode
  unsigned Base[NumMirSections + 1] = {};
};

/// Section weights: cl::opt<float> in LLVM, widened to double when the vocabulary is scaled.
struct MirWeights {
  float Opcode = 1.0f, CommonOperand = 1.0f, Register = 1.0f;
  float of(MirSection S) const {
    switch (S) {
    case MirSection::Opcodes: return Opcode;
    case MirSection::CommonOperands: return CommonOperand;
    case MirSection::PhysicalRegisters:
    case MirSection::VirtualRegisters: return Register;
    }
    return 0.0f;
  }
  /// Parses --mir2vec-opc-weight, --mir2vec-common-operand-weight, --mir2vec-reg-operand-weight
  /// as LLVM's cl::opt<float> reads them.
  static llvm::Expected<MirWeights> parse(llvm::StringRef Opcode, llvm::StringRef Common,
                                          llvm::StringRef Register);
};

/// LLVM's MIR vocabulary JSON, laid out for one target: size() x dimension() doubles,
/// row-major, weights applied to every row (missing keys too, as LLVM scales its zero rows).
struct MirVocabulary {
  MirLayout Layout;
  unsigned Dim = 0;
  std::vector<double> Rows;
  std::vector<std::string> MissingKeys, UnknownKeys; // "Section.Key", for warnings

  const double *row(unsigned Id) const { return Rows.data() + size_t(Id) * Dim; }
  /// Parses the JSON text (Source names it in errors) for Layout.
  static llvm::Expected<MirVocabulary> parse(llvm::StringRef Text, llvm::StringRef Source,
                                             MirLayout Layout, MirWeights W);
  static llvm::Expected<MirVocabulary> read(const std::string &Path, MirLayout Layout, MirWeights W);
  std::vector<std::string> warnings(llvm::StringRef Source) const;
};

/// The project's default MIR vocabulary (mir/default/, compiled in): x86-64, 75 dimensions,
/// trained on the shared corpus's machine IR (scripts/train-default-mir-vocab.sh). It has the
/// entities that corpus shows; the others are missing keys (zero vectors, as in LLVM).
llvm::StringRef defaultMirVocabularyJSON();
/// What names it in messages and provenance.
inline constexpr const char *DefaultMirVocabularyName = "the default MIR vocabulary (x86-64)";
/// Whether the default covers TM's target.
bool hasDefaultMirVocabulary(const llvm::TargetMachine &TM);

/// Operands LLVM 22.1.8 cannot embed: registers without a class (x86's $ssp, $mxcsr, $fpcw;
/// generic virtual registers with only a bank or a type), on which it crashes, and an operand
/// kind past its table (MO_LaneMask), which it reads out of bounds. Here they add a zero vector
/// (upstream's later fix for the registers) and are counted.
struct MirOddities {
  uint64_t ClasslessRegisters = 0, UnknownOperandKinds = 0;
  MirOddities &operator+=(const MirOddities &O) {
    ClasslessRegisters += O.ClasslessRegisters;
    UnknownOperandKinds += O.UnknownOperandKinds;
    return *this;
  }
};

/// Symbolic vectors of one machine function (LLVM's SymbolicMIREmbedder).
class MirEmbedder {
public:
  MirEmbedder(const llvm::MachineFunction &MF, const MirVocabulary &V) : MF(MF), V(V) {}
  /// The opcode's vector plus every operand's (defs, uses, implicit); zero for a debug
  /// instruction.
  std::vector<double> instruction(const llvm::MachineInstr &MI, MirOddities &Odd) const;
  /// The sum over the block's instructions but debug ones.
  std::vector<double> block(const llvm::MachineBasicBlock &MBB, MirOddities &Odd) const;
  /// The sum over the blocks reachable from the entry, in depth-first order.
  std::vector<double> function(MirOddities &Odd) const;
  /// The oddities of every operand of every instruction but debug ones, each counted once.
  MirOddities oddities() const;

private:
  void addOperand(std::vector<double> &Acc, const llvm::MachineOperand &MO, MirOddities &Odd) const;
  const llvm::MachineFunction &MF;
  const MirVocabulary &V;
};

/// The entity an operand is related to in triplets: its register class (invalid, stack and
/// classless registers: the first virtual register class, as LLVM's fixed triplets) or its kind.
unsigned operandEntity(const MirLayout &L, const llvm::MachineFunction &MF, const llvm::MachineOperand &MO,
                       MirOddities &Odd);

/// Relations of MIR triplets: Next = 0, Arg i = 1 + i (no Type relation).
inline constexpr unsigned MirNextRelation = 0, MirArgRelation = 1;
struct MirTriplet {
  unsigned Head, Tail, Relation;
};
/// The triplets of one machine function in llvm-ir2vec's order; MaxRelation grows to the
/// largest relation used.
void functionTriplets(const MirLayout &L, const llvm::MachineFunction &MF, std::vector<MirTriplet> &Out,
                      unsigned &MaxRelation, MirOddities &Odd);

} // namespace wb::mir
