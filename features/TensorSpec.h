// TensorSpec: a named, typed, shaped tensor, as LLVM 22's llvm/Analysis/TensorSpec.h defines
// it. The JSON form is byte-identical to LLVM's toJSON (compact, keys name, type, port,
// shape), because the compiler's interactive header and training logs are made of it.
#pragma once

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb::features {

// The element types, in LLVM's SUPPORTED_TENSOR_TYPES order; the name is the C type.
#define WB_TENSOR_TYPES(X)                                                                       \
  X(float, Float)                                                                                \
  X(double, Double)                                                                              \
  X(int8_t, Int8)                                                                                \
  X(uint8_t, UInt8)                                                                              \
  X(int16_t, Int16)                                                                              \
  X(uint16_t, UInt16)                                                                            \
  X(int32_t, Int32)                                                                              \
  X(uint32_t, UInt32)                                                                            \
  X(int64_t, Int64)                                                                              \
  X(uint64_t, UInt64)

enum class TensorType {
#define WB_ENUM(C, E) E,
  WB_TENSOR_TYPES(WB_ENUM)
#undef WB_ENUM
};

/// The element type of the C type T (from the same table), e.g. TensorTypeOf<int64_t>::Value.
template <typename T> struct TensorTypeOf;
#define WB_TYPE_OF(C, E)                                                                         \
  template <> struct TensorTypeOf<C> {                                                           \
    static constexpr TensorType Value = TensorType::E;                                           \
  };
WB_TENSOR_TYPES(WB_TYPE_OF)
#undef WB_TYPE_OF

const char *typeName(TensorType T);
size_t elementSize(TensorType T);
/// Parses "float", "int64_t", ... (the C type spelled exactly).
std::optional<TensorType> typeFromName(llvm::StringRef Name);
/// Element J of a tensor of type T stored at Data, converted to double.
double elementAsDouble(TensorType T, const char *Data, size_t J);

struct TensorSpec {
  std::string Name;
  TensorType Type = TensorType::Float;
  int Port = 0;
  std::vector<int64_t> Shape;

  size_t elementCount() const; // product of the shape (1 for an empty shape)
  /// Specs read from outside data are at most this large (tensorSpecFromJSON refuses more),
  /// so elementCount() and byteSize() cannot overflow for them.
  static constexpr uint64_t MaxTensorBytes = uint64_t(1) << 30;
  size_t byteSize() const { return elementCount() * elementSize(Type); }
  /// LLVM's compact JSON: {"name":"…","type":"…","port":0,"shape":[…]}.
  std::string toJSON() const;
  void toJSON(llvm::json::OStream &J) const;
  /// Equality as LLVM defines it: name, port, type and shape.
  bool operator==(const TensorSpec &O) const {
    return Name == O.Name && Port == O.Port && Type == O.Type && Shape == O.Shape;
  }
  bool operator!=(const TensorSpec &O) const { return !(*this == O); }
};

/// Parses one spec object; every key is required, as in LLVM's getTensorSpecFromJSON. Where
/// names the place for the error message (e.g. "features[3]").
llvm::Expected<TensorSpec> tensorSpecFromJSON(const llvm::json::Value &V, llvm::StringRef Where);

/// "int64_t[1]", "float[1,33]": a short form for messages and docs.
std::string shapeString(const TensorSpec &S);

/// A tensor's values for people, comma-separated ("1", "0.25,3"): integers exactly, floats
/// with enough digits (%.9g) to read back the same float. Bytes shorter than the spec give
/// the complete elements only.
std::string formatTensor(const TensorSpec &S, llvm::StringRef Bytes);

} // namespace wb::features
