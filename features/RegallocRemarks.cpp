// The greedy allocator's remarks, read with LLVM's remark parser (features/RegallocScore.h).
#include "features/RegallocScore.h"

#include "support/Error.h"
#include "support/Inputs.h"

#include "llvm/Remarks/Remark.h"
#include "llvm/Remarks/RemarkFormat.h"
#include "llvm/Remarks/RemarkParser.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

namespace wb::features {

namespace {

/// The first line of a remark parser's message, made printable (support::printableText).
std::string firstLine(llvm::Error E) {
  return support::printableText(llvm::toString(std::move(E)), /*FirstLine=*/true);
}

} // namespace

llvm::Expected<std::vector<FunctionRegalloc>> parseRegallocRemarks(llvm::StringRef Bytes,
                                                                   llvm::StringRef Name) {
  std::vector<FunctionRegalloc> Out;
  if (Bytes.trim().empty()) // no remark at all: the compiler had nothing to report
    return Out;
  llvm::Expected<std::unique_ptr<llvm::remarks::RemarkParser>> P =
      llvm::remarks::createRemarkParser(llvm::remarks::Format::YAML, Bytes);
  if (!P)
    return support::fileError(Name, "not a YAML remarks file: " + firstLine(P.takeError()));
  while (true) {
    llvm::Expected<std::unique_ptr<llvm::remarks::Remark>> R = (*P)->next();
    if (!R) {
      llvm::Error E = R.takeError();
      if (E.isA<llvm::remarks::EndOfFileError>()) {
        llvm::consumeError(std::move(E));
        return Out;
      }
      return support::fileError(Name, "remark " + llvm::Twine(Out.size() + 1) + ": " +
                                          firstLine(std::move(E)) + " (not a YAML remarks file?)");
    }
    const llvm::remarks::Remark &M = **R;
    if (M.PassName != "regalloc" || M.RemarkName != "SpillReloadCopies")
      continue;
    FunctionRegalloc F;
    F.Function = M.FunctionName.str();
    for (const llvm::remarks::Argument &A : M.Args) {
      auto Bad = [&](const char *What) {
        return support::fileError(Name, "function '" + llvm::Twine(F.Function) + "': " + A.Key +
                                            " = '" + A.Val + "' is not " + What);
      };
      for (const RegallocKey &K : RegallocKeys) {
        if (A.Key == K.CountKey) {
          int64_t V;
          if (A.Val.getAsInteger(10, V) || V < 0)
            return Bad("a count (a non-negative integer)");
          F.Counts.*K.Count = V;
        } else if (A.Key == K.CostKey) {
          double V;
          if (A.Val.getAsDouble(V) || !std::isfinite(V) || V < 0)
            return Bad("a cost (a finite non-negative number)");
          F.Counts.*K.Cost = V;
        }
      }
    }
    Out.push_back(std::move(F));
  }
}

llvm::Expected<std::vector<FunctionRegalloc>> readRegallocRemarks(llvm::StringRef Path) {
  // A device or FIFO is read up to support::MaxStreamedInput (/dev/zero grew to 22.9 GB).
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> B = support::readInput(Path, /*IsText=*/true);
  if (!B)
    return support::fileError(Path, "cannot read: " + support::readErrorMessage(B.getError()));
  return parseRegallocRemarks((*B)->getBuffer(), Path);
}

} // namespace wb::features
