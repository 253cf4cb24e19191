#include "mir/Mir2Vec.h"

#include "support/Error.h"
#include "support/Inputs.h"
#include "vocab/Vocabulary.h"

#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/MachineOperand.h"
#include "llvm/CodeGen/MachineRegisterInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace wb::mir {

// LLVM 22 indexes its CommonOperands section by MachineOperandType - 1 and declares 20 names
// for the 21 kinds after MO_Register: MO_LaneMask, the last, falls past the table.
static_assert(llvm::MachineOperand::MO_Last - 1 == NumCommonOperands,
              "LLVM's operand kinds changed: check MIR2Vec's CommonOperands");

std::string baseOpcodeName(llvm::StringRef Name) {
  auto IsWordChar = [](char C) { return llvm::isAlpha(C) || C == '_'; };
  const size_t Start = Name.find_if(IsWordChar);
  if (Start == llvm::StringRef::npos)
    return Name.str();
  llvm::StringRef Run = Name.drop_front(Start).take_while(IsWordChar);
  return Run.rtrim('_').str();
}

MirLayout MirLayout::of(const llvm::TargetMachine &TM) {
  const llvm::MCInstrInfo &II = *TM.getMCInstrInfo();
  const llvm::MCRegisterInfo &RI = *TM.getMCRegisterInfo();
  MirLayout L;
  std::set<std::string> Names;
  for (unsigned Op = 0; Op < II.getNumOpcodes(); ++Op)
    Names.insert(baseOpcodeName(II.getName(Op)));
  L.Keys.assign(Names.begin(), Names.end());
  L.OpcodeToEntity.resize(II.getNumOpcodes());
  for (unsigned Op = 0; Op < II.getNumOpcodes(); ++Op)
    L.OpcodeToEntity[Op] = unsigned(std::lower_bound(L.Keys.begin(), L.Keys.end(),
                                                     baseOpcodeName(II.getName(Op))) - L.Keys.begin());
  L.Base[unsigned(MirSection::CommonOperands)] = L.Keys.size();
  for (const char *N : CommonOperandNames)
    L.Keys.push_back(N);
  // Register classes by ID: LLVM's vocabulary indexes them by TargetRegisterClass::getID().
  std::vector<std::string> Classes;
  for (unsigned RC = 0; RC < RI.getNumRegClasses(); ++RC)
    Classes.push_back(RI.getRegClassName(&RI.getRegClass(RC)));
  for (MirSection S : {MirSection::PhysicalRegisters, MirSection::VirtualRegisters}) {
    L.Base[unsigned(S)] = L.Keys.size();
    L.Keys.insert(L.Keys.end(), Classes.begin(), Classes.end());
  }
  L.Base[NumMirSections] = L.Keys.size();
  return L;
}

MirSection MirLayout::sectionOf(unsigned Id) const {
  unsigned S = 0;
  while (S + 1 < NumMirSections && Id >= Base[S + 1])
    ++S;
  return MirSection(S);
}

std::string MirLayout::entityName(unsigned Id) const {
  return MirSections[unsigned(sectionOf(Id))].EntityPrefix + Keys[Id];
}

llvm::Expected<MirWeights> MirWeights::parse(llvm::StringRef Opcode, llvm::StringRef Common,
                                             llvm::StringRef Register) {
  MirWeights W;
  if (llvm::Error E = vocab::parseWeights({{"mir2vec-opc-weight", Opcode, &W.Opcode},
                                           {"mir2vec-common-operand-weight", Common, &W.CommonOperand},
                                           {"mir2vec-reg-operand-weight", Register, &W.Register}}))
    return E;
  return W;
}

llvm::Expected<MirVocabulary> MirVocabulary::parse(llvm::StringRef Text, llvm::StringRef Source,
                                                   MirLayout Layout, MirWeights W) {
  std::vector<llvm::StringRef> Names;
  for (const MirSectionInfo &S : MirSections)
    Names.push_back(S.JSONKey);
  auto Sections = vocab::parseJSONSections(Text, Source, Names);
  if (!Sections)
    return Sections.takeError();
  MirVocabulary V;
  V.Layout = std::move(Layout);
  V.Dim = Sections->front().Dim;
  if (uint64_t(V.Layout.size()) * V.Dim * sizeof(double) > vocab::MaxMatrixBytes)
    return support::fileError(Source, llvm::formatv("dimension {0} would make a {1} MiB matrix for "
                                                    "this target's {2} entities (at most {3} MiB)",
                                                    V.Dim, uint64_t(V.Layout.size()) * V.Dim * 8 >> 20,
                                                    V.Layout.size(), vocab::MaxMatrixBytes >> 20));
  V.Rows.assign(size_t(V.Layout.size()) * V.Dim, 0.0);
  std::vector<std::set<std::string>> Used(NumMirSections);
  for (unsigned Id = 0; Id < V.Layout.size(); ++Id) {
    const unsigned S = unsigned(V.Layout.sectionOf(Id));
    const std::string Key = V.Layout.key(Id).str();
    const auto &Entries = (*Sections)[S].Entries;
    if (auto It = Entries.find(Key); It != Entries.end()) {
      std::copy(It->second.begin(), It->second.end(), V.Rows.begin() + size_t(Id) * V.Dim);
      Used[S].insert(Key);
    } else {
      V.MissingKeys.push_back(std::string(MirSections[S].JSONKey) + "." + Key);
    }
    // LLVM scales every row of a section, zero rows of missing keys too (0 * -w is -0.0).
    const double Factor = static_cast<double>(W.of(MirSection(S)));
    for (unsigned D = 0; D < V.Dim; ++D) {
      double &X = V.Rows[size_t(Id) * V.Dim + D];
      X = X * Factor;
      if (!std::isfinite(X))
        return support::fileError(Source, llvm::formatv("section \"{0}\", key \"{1}\", element {2}: "
                                                        "weighted value is not finite",
                                                        MirSections[S].JSONKey, Key, D));
    }
  }
  for (unsigned S = 0; S < NumMirSections; ++S)
    for (const auto &[Key, Vec] : (*Sections)[S].Entries)
      if (!Used[S].count(Key))
        V.UnknownKeys.push_back(std::string(MirSections[S].JSONKey) + "." + Key);
  return V;
}

llvm::Expected<MirVocabulary> MirVocabulary::read(const std::string &Path, MirLayout Layout, MirWeights W) {
  auto Buf = support::readInput(Path, /*IsText=*/true);
  if (!Buf)
    return support::fileError(Path, "cannot read the MIR vocabulary: " +
                                        support::readErrorMessage(Buf.getError()));
  return parse((*Buf)->getBuffer(), Path, std::move(Layout), W);
}

bool hasDefaultMirVocabulary(const llvm::TargetMachine &TM) {
  return TM.getTargetTriple().getArch() == llvm::Triple::x86_64;
}

std::vector<std::string> MirVocabulary::warnings(llvm::StringRef Source) const {
  // Keys a MIR vocabulary lacks are the norm, not news: a target has thousands of register
  // classes and opcodes no corpus shows, and vocabularies (LLVM's, `vocab train --mode=mir`'s,
  // the default) leave them out as zero vectors. Keys of another target are worth saying.
  return vocab::keyWarnings(Source, {}, UnknownKeys, Layout.size(), "MIR2Vec (this target's)");
}

namespace {

/// The register class entity of a register operand's register (as a local index into the
/// register sections), or none for a register without a class.
std::optional<unsigned> registerClass(const llvm::MachineFunction &MF, llvm::Register Reg) {
  const llvm::TargetRegisterClass *RC =
      Reg.isPhysical() ? MF.getSubtarget().getRegisterInfo()->getMinimalPhysRegClass(Reg.asMCReg())
                       : MF.getRegInfo().getRegClassOrNull(Reg);
  if (!RC)
    return std::nullopt;
  return RC->getID();
}

void addRow(std::vector<double> &Acc, const double *Row) {
  for (size_t D = 0; D < Acc.size(); ++D)
    Acc[D] += Row[D];
}

} // namespace

void MirEmbedder::addOperand(std::vector<double> &Acc, const llvm::MachineOperand &MO, MirOddities &Odd) const {
  const MirLayout &L = V.Layout;
  if (MO.isReg()) {
    const llvm::Register Reg = MO.getReg();
    // LLVM adds a zero vector for $noreg and stack slots; +0.0 is added, not skipped, so that
    // a -0.0 element becomes +0.0 exactly as there.
    std::optional<unsigned> RC;
    if (Reg.isValid() && !Reg.isStack()) {
      RC = registerClass(MF, Reg);
      if (!RC)
        ++Odd.ClasslessRegisters;
    }
    if (!RC) {
      for (double &X : Acc)
        X += 0.0;
      return;
    }
    addRow(Acc, V.row(L.base(Reg.isPhysical() ? MirSection::PhysicalRegisters : MirSection::VirtualRegisters) + *RC));
    return;
  }
  const unsigned Kind = unsigned(MO.getType()) - 1;
  if (Kind >= NumCommonOperands) {
    ++Odd.UnknownOperandKinds;
    for (double &X : Acc)
      X += 0.0;
    return;
  }
  addRow(Acc, V.row(L.base(MirSection::CommonOperands) + Kind));
}

std::vector<double> MirEmbedder::instruction(const llvm::MachineInstr &MI, MirOddities &Odd) const {
  if (MI.isDebugInstr())
    return std::vector<double>(V.Dim, 0.0);
  const double *Op = V.row(V.Layout.opcodeEntity(MI.getOpcode()));
  std::vector<double> Acc(Op, Op + V.Dim);
  for (const llvm::MachineOperand &MO : MI.operands())
    addOperand(Acc, MO, Odd);
  return Acc;
}

std::vector<double> MirEmbedder::block(const llvm::MachineBasicBlock &MBB, MirOddities &Odd) const {
  std::vector<double> Acc(V.Dim, 0.0);
  for (const llvm::MachineInstr &MI : MBB) {
    if (MI.isDebugInstr())
      continue;
    const std::vector<double> I = instruction(MI, Odd);
    addRow(Acc, I.data());
  }
  return Acc;
}

MirOddities MirEmbedder::oddities() const {
  MirOddities Odd;
  std::vector<double> Scratch(V.Dim, 0.0);
  for (const llvm::MachineBasicBlock &MBB : MF)
    for (const llvm::MachineInstr &MI : MBB)
      if (!MI.isDebugInstr())
        for (const llvm::MachineOperand &MO : MI.operands())
          addOperand(Scratch, MO, Odd);
  return Odd;
}

std::vector<double> MirEmbedder::function(MirOddities &Odd) const {
  std::vector<double> Acc(V.Dim, 0.0);
  if (MF.empty())
    return Acc;
  for (const llvm::MachineBasicBlock *MBB : llvm::depth_first(&MF)) {
    const std::vector<double> B = block(*MBB, Odd);
    addRow(Acc, B.data());
  }
  return Acc;
}

unsigned operandEntity(const MirLayout &L, const llvm::MachineFunction &MF, const llvm::MachineOperand &MO,
                       MirOddities &Odd) {
  if (!MO.isReg())
    return L.base(MirSection::CommonOperands) + unsigned(MO.getType()) - 1;
  const llvm::Register Reg = MO.getReg();
  if (!Reg.isValid() || Reg.isStack())
    return L.base(MirSection::VirtualRegisters);
  std::optional<unsigned> RC = registerClass(MF, Reg);
  if (!RC) {
    ++Odd.ClasslessRegisters;
    return L.base(MirSection::VirtualRegisters);
  }
  return L.base(Reg.isPhysical() ? MirSection::PhysicalRegisters : MirSection::VirtualRegisters) + *RC;
}

void functionTriplets(const MirLayout &L, const llvm::MachineFunction &MF, std::vector<MirTriplet> &Out,
                      unsigned &MaxRelation, MirOddities &Odd) {
  bool HasPrev = false;
  unsigned Prev = 0;
  for (const llvm::MachineBasicBlock &MBB : MF)
    for (const llvm::MachineInstr &MI : MBB) {
      if (MI.isDebugInstr())
        continue;
      const unsigned Op = L.opcodeEntity(MI.getOpcode());
      if (HasPrev)
        Out.push_back({Prev, Op, MirNextRelation});
      unsigned Arg = 0;
      for (const llvm::MachineOperand &MO : MI.operands())
        Out.push_back({Op, operandEntity(L, MF, MO, Odd), MirArgRelation + Arg++});
      if (Arg)
        MaxRelation = std::max(MaxRelation, MirArgRelation + Arg - 1);
      Prev = Op;
      HasPrev = true;
    }
}

} // namespace wb::mir
