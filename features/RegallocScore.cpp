#include "features/RegallocScore.h"

#include "support/Error.h"

#include "llvm/Support/FormatVariadic.h"

namespace wb::features {

RegallocCounts &RegallocCounts::operator+=(const RegallocCounts &O) {
  for (const RegallocKey &K : RegallocKeys) {
    this->*K.Count += O.*K.Count;
    this->*K.Cost += O.*K.Cost;
  }
  return *this;
}

double RegallocWeights::cost(const RegallocCounts &C) const {
  return Copy * C.CopiesCost + Load * (C.ReloadsCost + C.FoldedReloadsCost) +
         Store * (C.SpillsCost + C.FoldedSpillsCost);
}

std::string RegallocWeights::describe() const {
  return llvm::formatv("{0} x copies + {1} x (reloads + folded reloads) + {2} x (spills + folded "
                       "spills), each the sum of the block frequencies (relative to the entry "
                       "block) of what the greedy allocator inserted",
                       Copy, Load, Store)
      .str();
}

llvm::json::Array regallocToJSON(const std::vector<FunctionRegalloc> &Fs) {
  llvm::json::Array A;
  for (const FunctionRegalloc &F : Fs) {
    llvm::json::Object O{{"function", F.Function}};
    for (const RegallocKey &K : RegallocKeys) {
      O[K.CountKey] = F.Counts.*K.Count;
      O[K.CostKey] = F.Counts.*K.Cost;
    }
    A.push_back(std::move(O));
  }
  return A;
}

llvm::json::Array regallocCostJSON(const std::vector<FunctionRegalloc> &Fs,
                                   const RegallocWeights &W) {
  llvm::json::Array A = regallocToJSON(Fs);
  for (size_t I = 0; I < Fs.size(); ++I)
    (*A[I].getAsObject())["cost"] = W.cost(Fs[I].Counts);
  return A;
}

llvm::Expected<std::vector<FunctionRegalloc>> regallocFromJSON(const llvm::json::Value *V,
                                                               llvm::StringRef Where) {
  auto Bad = [&](const llvm::Twine &What) {
    return support::fileError(Where, "register allocation record: " + What);
  };
  const llvm::json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A)
    return Bad("expected an array");
  std::vector<FunctionRegalloc> Out;
  for (const llvm::json::Value &E : *A) {
    const llvm::json::Object *O = E.getAsObject();
    std::optional<llvm::StringRef> Name = O ? O->getString("function") : std::nullopt;
    if (!Name)
      return Bad("expected objects with a \"function\" name");
    FunctionRegalloc F;
    F.Function = Name->str();
    for (const RegallocKey &K : RegallocKeys) {
      std::optional<int64_t> N = O->getInteger(K.CountKey);
      std::optional<double> C = O->getNumber(K.CostKey);
      if (!N || !C || *N < 0 || !(*C >= 0))
        return Bad("function '" + F.Function + "': expected " + K.CountKey + " and " +
                   K.CostKey + " (non-negative numbers)");
      F.Counts.*K.Count = *N;
      F.Counts.*K.Cost = *C;
    }
    Out.push_back(std::move(F));
  }
  return Out;
}

} // namespace wb::features
