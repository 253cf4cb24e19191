#include "runners/ModelRunner.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

namespace wb::runners {

using features::TensorType;

template <typename T> static double load(const char *P, size_t J) {
  T V;
  std::memcpy(&V, P + J * sizeof(T), sizeof(T));
  return static_cast<double>(V);
}

static double elementAt(TensorType Ty, const char *P, size_t J) {
  switch (Ty) {
#define WB_CASE(C, E)                                                                            \
  case TensorType::E:                                                                            \
    return load<C>(P, J);
    WB_TENSOR_TYPES(WB_CASE)
#undef WB_CASE
  }
  return 0;
}

double Inputs::at(size_t I, size_t J) const { return elementAt(Specs[I].Type, Ptrs[I], J); }

std::string tensorToString(const TensorSpec &Advice, llvm::StringRef Bytes) {
  std::string Out;
  for (size_t J = 0; J < Advice.elementCount() && (J + 1) * features::elementSize(Advice.Type) <=
                                                      Bytes.size();
       ++J) {
    // Integers exactly; floats with enough digits to read back the same value.
    double V = elementAt(Advice.Type, Bytes.data(), J);
    bool Float = Advice.Type == TensorType::Float || Advice.Type == TensorType::Double;
    Out += (J ? "," : "") + (Float ? llvm::formatv("{0}", llvm::format("%.9g", V)).str()
                                   : std::to_string(static_cast<long long>(V)));
  }
  return Out;
}

llvm::Expected<ModelRunner> ModelRunner::create(std::unique_ptr<Policy> P, Task T,
                                                const std::vector<TensorSpec> &Available,
                                                const TensorSpec &Advice, BindOptions O) {
  ModelRunner R;
  R.Specs = P->inputs();
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
          return llvm::createStringError(
              llvm::inconvertibleErrorCode(),
              "policy %s: feature '%s' is %s in the model but %s in the observation",
              P->describe().c_str(), S.Name.c_str(), features::shapeString(S).c_str(),
              features::shapeString(Available[I]).c_str());
        break;
      }
      Off += Available[I].byteSize();
    }
    if (Found < 0) {
      if (!O.ZeroMissing)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "policy %s needs feature '%s' (%s), which the compiler does not send for task "
            "'%s' with these flags (--zero-missing feeds zeros instead)",
            P->describe().c_str(), S.Name.c_str(), features::shapeString(S).c_str(),
            features::taskInfo(T).Name);
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
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "observation has %zu bytes, the bound layout %zu",
                                   Payload.size(), PayloadSize);
  std::vector<const char *> Ptrs;
  Ptrs.reserve(Offsets.size());
  for (long Off : Offsets)
    Ptrs.push_back(Off < 0 ? Zeros.data() : Payload.data() + Off);
  llvm::Expected<std::string> A = P->advise(Inputs(std::move(Ptrs), Specs));
  if (A && A->size() != AdviceSize)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "policy %s answered %zu bytes, the advice needs %zu",
                                   P->describe().c_str(), A->size(), AdviceSize);
  return A;
}

} // namespace wb::runners
