#include "support/JSON.h"

#include "support/Error.h"

#include <cmath>

namespace wb::support {

llvm::json::Value numberOrNull(double X) {
  return std::isnan(X) ? llvm::json::Value(nullptr) : llvm::json::Value(X);
}

llvm::json::Object withKeys(llvm::json::Object O, llvm::json::Object More) {
  for (auto &KV : More)
    O[KV.first] = std::move(KV.second);
  return O;
}

llvm::Expected<llvm::json::Value> parseJSON(llvm::StringRef Text) {
  if (Text.size() > MaxJSONBytes)
    return makeError("JSON of " + llvm::Twine(Text.size()) + " bytes: more than the " +
                     llvm::Twine(MaxJSONBytes >> 20) + " MiB any JSON the workbench reads may hold");
  unsigned Depth = 0;
  bool InString = false, Escaped = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    const char C = Text[I];
    if (InString) {
      if (Escaped)
        Escaped = false;
      else if (C == '\\')
        Escaped = true;
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > MaxJSONDepth)
        return makeError("JSON nested more than " + llvm::Twine(MaxJSONDepth) +
                         " levels deep (byte " + llvm::Twine(I) + ")");
    } else if ((C == ']' || C == '}') && Depth) {
      --Depth;
    }
  }
  return llvm::json::parse(Text);
}

} // namespace wb::support
