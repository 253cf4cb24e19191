#include "runners/ModelRunner.h"

#include "support/Error.h"

#include "llvm/Support/FormatVariadic.h"

namespace wb::runners {

double Inputs::at(size_t I, size_t J) const {
  return features::elementAsDouble(Specs[I].Type, Ptrs[I], J);
}

llvm::Expected<ModelRunner> ModelRunner::create(std::unique_ptr<Policy> P, Task T,
                                                const std::vector<TensorSpec> &Available,
                                                const TensorSpec &Advice, BindOptions O) {
  ModelRunner R;
  R.Specs = P->readsEverything() ? Available : P->inputs();
  R.AdviceSize = Advice.byteSize();
  size_t MaxZero = 0;
  std::vector<bool> Used(Available.size());
  for (const TensorSpec &S : R.Specs) {
    long Off = 0, Found = -1;
    for (size_t I = 0; I < Available.size(); ++I) {
      if (Available[I].Name == S.Name) {
        Found = Off;
        Used[I] = true;
        if (Available[I].Type != S.Type || Available[I].Shape != S.Shape)
          return support::makeError("policy " + P->describe() + ": feature '" + S.Name +
                                    "' is " + features::shapeString(S) +
                                    " in the model but " + features::shapeString(Available[I]) +
                                    " in the observation");
        break;
      }
      Off += Available[I].byteSize();
    }
    if (Found < 0) {
      if (!O.ZeroMissing)
        return support::makeError("policy " + P->describe() + " needs feature '" + S.Name +
                                  "' (" + features::shapeString(S) +
                                  "), which the compiler does not send for task '" +
                                  features::taskInfo(T).Name +
                                  "' with these flags (--zero-missing feeds zeros instead)");
      R.ZeroFilled.push_back(S.Name);
      MaxZero = std::max(MaxZero, S.byteSize());
    }
    R.Offsets.push_back(Found);
  }
  for (size_t I = 0; I < Available.size(); ++I) {
    R.PayloadSize += Available[I].byteSize();
    if (!Used[I])
      R.Ignored.push_back(Available[I].Name);
  }
  R.Zeros.assign(MaxZero, '\0');
  R.P = std::move(P);
  return R;
}

llvm::Expected<std::string> ModelRunner::evaluate(llvm::StringRef Payload) {
  if (Payload.size() != PayloadSize)
    return support::makeError("observation has " + llvm::Twine(Payload.size()) +
                              " bytes, the bound layout " + llvm::Twine(PayloadSize));
  std::vector<const char *> Ptrs;
  Ptrs.reserve(Offsets.size());
  for (long Off : Offsets)
    Ptrs.push_back(Off < 0 ? Zeros.data() : Payload.data() + Off);
  llvm::Expected<std::string> A = P->advise(Inputs(std::move(Ptrs), Specs));
  if (A && A->size() != AdviceSize)
    return support::makeError("policy " + P->describe() + " answered " + llvm::Twine(A->size()) +
                              " bytes, the advice needs " + llvm::Twine(AdviceSize));
  return A;
}

} // namespace wb::runners
