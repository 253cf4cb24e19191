#include "features/TensorSpec.h"

#include "support/Error.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace wb::features {

const char *typeName(TensorType T) {
  switch (T) {
#define WB_CASE(C, E)                                                                            \
  case TensorType::E:                                                                            \
    return #C;
    WB_TENSOR_TYPES(WB_CASE)
#undef WB_CASE
  }
  return "INVALID";
}

size_t elementSize(TensorType T) {
  switch (T) {
#define WB_CASE(C, E)                                                                            \
  case TensorType::E:                                                                            \
    return sizeof(C);
    WB_TENSOR_TYPES(WB_CASE)
#undef WB_CASE
  }
  return 0;
}

std::optional<TensorType> typeFromName(llvm::StringRef Name) {
#define WB_CASE(C, E)                                                                            \
  if (Name == #C)                                                                                \
    return TensorType::E;
  WB_TENSOR_TYPES(WB_CASE)
#undef WB_CASE
  return std::nullopt;
}

template <typename T> static double load(const char *P, size_t J) {
  T V;
  std::memcpy(&V, P + J * sizeof(T), sizeof(T));
  return static_cast<double>(V);
}

double elementAsDouble(TensorType T, const char *Data, size_t J) {
  switch (T) {
#define WB_CASE(C, E)                                                                            \
  case TensorType::E:                                                                            \
    return load<C>(Data, J);
    WB_TENSOR_TYPES(WB_CASE)
#undef WB_CASE
  }
  return 0;
}

std::string formatTensor(const TensorSpec &S, llvm::StringRef Bytes) {
  std::string Out;
  const bool Float = S.Type == TensorType::Float || S.Type == TensorType::Double;
  const size_t Size = elementSize(S.Type);
  for (size_t J = 0; J < S.elementCount() && (J + 1) * Size <= Bytes.size(); ++J) {
    const double V = elementAsDouble(S.Type, Bytes.data(), J);
    if (J)
      Out += ',';
    if (Float)
      llvm::raw_string_ostream(Out) << llvm::format("%.9g", V);
    else
      Out += std::to_string(static_cast<long long>(V));
  }
  return Out;
}

size_t TensorSpec::elementCount() const {
  size_t N = 1;
  for (int64_t D : Shape)
    N *= static_cast<size_t>(D);
  return N;
}

void TensorSpec::toJSON(llvm::json::OStream &J) const {
  J.object([&] {
    J.attribute("name", Name);
    J.attribute("type", typeName(Type));
    J.attribute("port", Port);
    J.attributeArray("shape", [&] {
      for (int64_t D : Shape)
        J.value(D);
    });
  });
}

std::string TensorSpec::toJSON() const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  llvm::json::OStream J(OS);
  toJSON(J);
  return S;
}

static llvm::Error specError(llvm::StringRef Where, const llvm::Twine &What) {
  return support::makeError("tensor spec " + Where + ": " + What);
}

llvm::Expected<TensorSpec> tensorSpecFromJSON(const llvm::json::Value &V, llvm::StringRef Where) {
  const llvm::json::Object *O = V.getAsObject();
  if (!O)
    return specError(Where, "expected an object");
  TensorSpec S;
  std::optional<llvm::StringRef> Name = O->getString("name");
  if (!Name)
    return specError(Where, "missing or non-string property 'name'");
  S.Name = Name->str();
  std::optional<llvm::StringRef> Type = O->getString("type");
  if (!Type)
    return specError(Where, "'" + S.Name + "': missing or non-string property 'type'");
  std::optional<TensorType> T = typeFromName(*Type);
  if (!T)
    return specError(Where, "'" + S.Name + "': unknown element type '" + *Type + "'");
  S.Type = *T;
  std::optional<int64_t> Port = O->getInteger("port");
  if (!Port)
    return specError(Where, "'" + S.Name + "': missing or non-integer property 'port'");
  S.Port = static_cast<int>(*Port);
  const llvm::json::Array *Shape = O->getArray("shape");
  if (!Shape)
    return specError(Where, "'" + S.Name + "': missing or non-array property 'shape'");
  for (const llvm::json::Value &D : *Shape) {
    std::optional<int64_t> N = D.getAsInteger();
    if (!N || *N < 0)
      return specError(Where, "'" + S.Name + "': shape must be non-negative integers");
    S.Shape.push_back(*N);
  }
  // A shape is a claim about sizes the reader then trusts: refuse products that overflow or
  // that no compiler sends (a crafted header would otherwise size payloads as 0 bytes).
  uint64_t Bytes = elementSize(S.Type);
  for (int64_t D : S.Shape)
    if (__builtin_mul_overflow(Bytes, uint64_t(D), &Bytes) || Bytes > TensorSpec::MaxTensorBytes)
      return specError(Where, "'" + S.Name + "': shape " + shapeString(S) + " is more than " +
                                  llvm::Twine(TensorSpec::MaxTensorBytes >> 20) + " MiB");
  return S;
}

std::string shapeString(const TensorSpec &S) {
  std::string Out = typeName(S.Type);
  Out += "[";
  for (size_t I = 0; I < S.Shape.size(); ++I)
    Out += (I ? "," : "") + std::to_string(S.Shape[I]);
  return Out + "]";
}

} // namespace wb::features
