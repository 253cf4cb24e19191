// Enumerations spelled on the command line and in files: one table per enumeration gives the
// spelling of each value, and everything else (parsing, printing, the list of choices in help
// and in errors, the values the command line accepts) is derived from it.
//
//   constexpr support::Named<Distance> DistanceNames[] = {{Distance::L1, "l1"}, ...};
//   support::parseNamed(DistanceNames, Text, "distance");   // Expected<Distance>
#pragma once

#include "support/Error.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace wb::support {

template <typename E> struct Named {
  E Value;
  const char *Name;
};

/// "a, b or c".
template <typename E> std::string choices(llvm::ArrayRef<Named<E>> Table) {
  std::string Out;
  for (size_t I = 0; I < Table.size(); ++I)
    Out += std::string(I == 0 ? "" : I + 1 == Table.size() ? " or " : ", ") + Table[I].Name;
  return Out;
}

/// The spellings, for the command line's list of accepted values.
template <typename E> std::vector<std::string> names(llvm::ArrayRef<Named<E>> Table) {
  std::vector<std::string> Out;
  for (const Named<E> &N : Table)
    Out.push_back(N.Name);
  return Out;
}

/// The value spelled Text, if the table has it (for readers whose errors say where: a file's
/// attribute, a spec's key).
template <typename E> std::optional<E> findNamed(llvm::ArrayRef<Named<E>> Table, llvm::StringRef Text) {
  for (const Named<E> &N : Table)
    if (Text == N.Name)
      return N.Value;
  return std::nullopt;
}

/// The value spelled Text; a usage error naming What and the choices otherwise.
template <typename E>
llvm::Expected<E> parseNamed(llvm::ArrayRef<Named<E>> Table, llvm::StringRef Text,
                             llvm::StringRef What) {
  if (std::optional<E> V = findNamed(Table, Text))
    return *V;
  return usageError("unknown " + What + " '" + Text + "' (expected " + choices(Table) + ")");
}

template <typename E> llvm::StringRef nameOf(llvm::ArrayRef<Named<E>> Table, E Value) {
  for (const Named<E> &N : Table)
    if (N.Value == Value)
      return N.Name;
  return "";
}

} // namespace wb::support
