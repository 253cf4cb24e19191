#include "ir2vec/TextFormat.h"

#include "support/Error.h"

#include <algorithm>
#include <charconv>

namespace wb::ir2vec {

llvm::Expected<Level> parseLevel(llvm::StringRef Name) {
  return support::parseNamed<Level>(LevelNames, Name, "level");
}

llvm::StringRef levelName(Level L) { return support::nameOf<Level>(LevelNames, L); }

LevelSet textLevels(Level L) {
  return LevelSet{L == Level::Func || L == Level::Module, L == Level::BB, L == Level::Inst};
}

LevelSet levelsAt(Level L) {
  return LevelSet{true, L == Level::BB || L == Level::Inst, L == Level::Inst};
}

bool hasFunctionRows(Level L) { return L != Level::Module; }

void formatFixed(std::string &Out, double X, unsigned Precision) {
  // std::to_chars with a precision prints the exact binary value rounded half-to-even, which
  // is what glibc's printf("%.*f") prints, at a fraction of the cost (tested against snprintf).
  char Buf[512];
  auto R = std::to_chars(Buf, Buf + sizeof Buf, X, std::chars_format::fixed,
                         static_cast<int>(std::min(Precision, MaxPrecision)));
  Out.append(Buf, R.ptr);
}

void formatVector(std::string &Out, llvm::ArrayRef<double> V, unsigned Precision) {
  Out += " [";
  for (double X : V) {
    Out += ' ';
    formatFixed(Out, X, Precision);
    Out += ' ';
  }
  Out += "]\n";
}

llvm::Expected<IRMode> parseIRMode(llvm::StringRef Name) {
  for (const IRModeInfo &I : IRModes)
    if (Name == I.Name)
      return I.M;
  return support::usageError("unknown mode '" + Name + "' (llvm or mir)");
}

const IRModeInfo &modeInfo(IRMode M) {
  for (const IRModeInfo &I : IRModes)
    if (I.M == M)
      return I;
  return IRModes[0];
}

void renderText(std::string &Out, const ModuleEmbedding &E, Level L, unsigned Precision,
                const std::optional<std::string> &SelectedName, IRMode M) {
  const TextStyle &S = modeInfo(M).Style;
  if (E.SelectedDeclaration && SelectedName) {
    Out += "Function " + *SelectedName + " is a declaration, skipping.\n";
    return;
  }
  if (L == Level::Module) { // the batch's "Module: <path>" header names it
    formatVector(Out, E.ModuleVector, Precision);
    return;
  }
  const unsigned D = E.Dim;
  auto Row = [D](const std::vector<double> &Rows, size_t I) {
    return llvm::ArrayRef<double>(Rows.data() + I * D, D);
  };
  size_t Block = 0, Inst = 0;
  for (size_t F = 0; F < E.FunctionNames.size(); ++F) {
    Out += S.FunctionOpen;
    Out += E.FunctionNames[F];
    Out += S.FunctionClose;
    switch (L) {
    case Level::Func:
      Out += S.FunctionRow;
      formatVector(Out, Row(E.FunctionVectors, F), Precision);
      break;
    case Level::BB:
      Out += S.BlocksOpen;
      for (; Block < E.BlockNames.size() && E.BlockFunction[Block] == int64_t(F); ++Block) {
        Out += S.BlockOpen;
        Out += E.BlockNames[Block];
        Out += S.BlockClose;
        formatVector(Out, Row(E.BlockVectors, Block), Precision);
      }
      break;
    case Level::Module: // rendered above
      break;
    case Level::Inst:
      Out += S.InstsOpen;
      for (; Inst < E.InstFunction.size() && E.InstFunction[Inst] == int64_t(F); ++Inst) {
        Out += S.InstOpen;
        Out += E.InstTexts[Inst];
        Out += S.InstClose;
        formatVector(Out, Row(E.InstVectors, Inst), Precision);
      }
      break;
    }
  }
}

} // namespace wb::ir2vec
