// JSON from outside files, parsed with LLVM's parser after a check it does not make itself.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

namespace wb::support {

/// The deepest nesting of arrays and objects parseJSON accepts. LLVM's parser recurses once per
/// level: 50,000 levels overflow a thread's stack (and LLVM's crash handler then deadlocks in
/// malloc). Every format the workbench reads nests a few levels.
inline constexpr unsigned MaxJSONDepth = 256;

/// The largest JSON text parseJSON accepts: far above any spec, vocabulary, corpus description
/// or report the workbench reads, and a file the size of a disk is refused before its bytes are
/// touched (they are mapped, not read, until parsed).
inline constexpr uint64_t MaxJSONBytes = uint64_t(256) << 20;

/// llvm::json::parse, after checking that Text holds at most MaxJSONBytes and nests at most
/// MaxJSONDepth levels ("JSON nested more than 256 levels deep (byte N)" otherwise). The check
/// is one pass over the bytes.
llvm::Expected<llvm::json::Value> parseJSON(llvm::StringRef Text);

/// A number that may be undefined (NaN: a ratio with nothing to divide) as JSON: null then.
llvm::json::Value numberOrNull(double X);

/// O with the members of More added (a report's object built on a settings' own JSON).
llvm::json::Object withKeys(llvm::json::Object O, llvm::json::Object More);

} // namespace wb::support
