// A compact binary encoding for values that travel between the processes of one run (the ranks
// of an MPI job, support/Ranks.h): little-endian fixed-width numbers, length-prefixed bytes and
// arrays. Both ends are the same build of the same program, so there is no schema or version;
// the reader still trusts no length it reads (a short or corrupt message is an error, never a
// read past the end or an allocation the message cannot back).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace wb::support {

class WireWriter {
public:
  template <typename T> void num(T X) {
    static_assert(std::is_arithmetic_v<T>);
    const size_t At = Out.size();
    Out.resize(At + sizeof(T));
    std::memcpy(Out.data() + At, &X, sizeof(T)); // little-endian hosts only (x86-64, arm64)
  }
  void bytes(llvm::StringRef S) {
    num<uint64_t>(S.size());
    Out.append(S.data(), S.size());
  }
  template <typename T> void array(const std::vector<T> &V) {
    static_assert(std::is_arithmetic_v<T>);
    num<uint64_t>(V.size());
    const size_t At = Out.size();
    Out.resize(At + V.size() * sizeof(T));
    if (!V.empty())
      std::memcpy(Out.data() + At, V.data(), V.size() * sizeof(T));
  }
  void strings(const std::vector<std::string> &V) {
    num<uint64_t>(V.size());
    for (const std::string &S : V)
      bytes(S);
  }
  std::string take() { return std::move(Out); }
  const std::string &data() const { return Out; }

private:
  std::string Out;
};

class WireReader {
public:
  explicit WireReader(llvm::StringRef In) : In(In) {}

  template <typename T> T num() {
    static_assert(std::is_arithmetic_v<T>);
    T X{};
    if (take(sizeof(T)))
      std::memcpy(&X, In.data() + At - sizeof(T), sizeof(T));
    return X;
  }
  std::string bytes() {
    const uint64_t N = num<uint64_t>();
    if (!take(N))
      return {};
    return In.substr(At - N, N).str();
  }
  template <typename T> std::vector<T> array() {
    const uint64_t N = num<uint64_t>();
    std::vector<T> V;
    if (N > left() / sizeof(T) || !take(N * sizeof(T)))
      return fail(), V;
    V.resize(N);
    if (N)
      std::memcpy(V.data(), In.data() + At - N * sizeof(T), N * sizeof(T));
    return V;
  }
  std::vector<std::string> strings() {
    const uint64_t N = num<uint64_t>();
    std::vector<std::string> V;
    if (N > left() / sizeof(uint64_t)) // every string takes at least its length
      return fail(), V;
    V.reserve(N);
    for (uint64_t I = 0; I < N && Ok; ++I)
      V.push_back(bytes());
    return V;
  }

  /// Everything read so far was there.
  bool ok() const { return Ok; }

  /// Success when everything read was there and nothing is left over; else an error saying
  /// What could not be decoded.
  llvm::Error finish(llvm::StringRef What) const {
    if (Ok && At == In.size())
      return llvm::Error::success();
    return llvm::createStringError(
        std::errc::illegal_byte_sequence, "%s: a message of %zu bytes could not be decoded (%s)",
        What.str().c_str(), In.size(), Ok ? "bytes left over" : "truncated");
  }

private:
  uint64_t left() const { return In.size() - At; }
  bool take(uint64_t N) {
    if (!Ok || N > left())
      return fail();
    At += N;
    return true;
  }
  bool fail() {
    Ok = false;
    At = In.size();
    return false;
  }
  llvm::StringRef In;
  uint64_t At = 0;
  bool Ok = true;
};

} // namespace wb::support
