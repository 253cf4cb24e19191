// Reading JSON specs (studies, benchmarks, the performance track's results): unknown keys are
// errors, every error names the spec file and the key, paths are relative to the spec's
// directory. What a spec's keys mean is the reader's caller's (mlgo/studies/StudySpec.h,
// downstream/Study.cpp).
#pragma once

#include "support/Error.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <string>
#include <vector>

namespace wb::support {

class SpecReader {
public:
  explicit SpecReader(std::string Path) : Path(std::move(Path)) {}

  llvm::Error error(const llvm::Twine &Where, const llvm::Twine &What) const {
    return support::fileError(Path, Where + ": " + What);
  }
  /// Unknown keys are errors: a misspelt key must not silently fall back to a default.
  llvm::Error onlyKeys(const llvm::json::Object &O, const llvm::Twine &Where,
                       std::initializer_list<llvm::StringRef> Known) const {
    for (const auto &[K, V] : O)
      if (std::find(Known.begin(), Known.end(), llvm::StringRef(K)) == Known.end())
        return error(Where, "unknown key \"" + llvm::StringRef(K).str() + "\" (expected " +
                                llvm::join(std::vector<std::string>(Known.begin(), Known.end()), ", ") +
                                ")");
    return llvm::Error::success();
  }
  llvm::Error number(const llvm::json::Object &O, llvm::StringRef Key, const llvm::Twine &Where,
                     double &Out) const {
    if (const llvm::json::Value *V = O.get(Key)) {
      std::optional<double> D = V->getAsNumber();
      if (!D)
        return error(Where + "." + Key, "expected a number");
      Out = *D;
    }
    return llvm::Error::success();
  }
  template <typename T>
  llvm::Error integer(const llvm::json::Object &O, llvm::StringRef Key, const llvm::Twine &Where,
                      T &Out, int64_t Min = 0) const {
    if (const llvm::json::Value *V = O.get(Key)) {
      std::optional<int64_t> I = V->getAsInteger();
      if (!I || *I < Min)
        return error(Where + "." + Key, "expected an integer of at least " + llvm::Twine(Min));
      Out = T(*I);
    }
    return llvm::Error::success();
  }
  llvm::Error strings(const llvm::json::Value *V, const llvm::Twine &Where,
                      std::vector<std::string> &Out) const {
    Out.clear();
    if (!V)
      return llvm::Error::success();
    if (std::optional<llvm::StringRef> S = V->getAsString()) {
      Out.push_back(S->str());
      return llvm::Error::success();
    }
    const llvm::json::Array *A = V->getAsArray();
    if (!A)
      return error(Where, "expected a string or an array of strings");
    for (const llvm::json::Value &E : *A) {
      std::optional<llvm::StringRef> S = E.getAsString();
      if (!S)
        return error(Where, "expected an array of strings");
      Out.push_back(S->str());
    }
    return llvm::Error::success();
  }
  /// The spec's top-level JSON object, read and parsed (errors name the file); SHA256 is then
  /// the hash of the bytes read (a spec that is a FIFO or /dev/fd/N is read once).
  /// What names the file in a read error ("the spec", "the performance track's results").
  llvm::Expected<llvm::json::Value> load(llvm::StringRef What = "the spec");
  /// "timeout": seconds, not negative.
  llvm::Error timeout(const llvm::json::Object &O, double &Out) const {
    if (llvm::Error E = number(O, "timeout", "spec", Out))
      return E;
    if (!(Out >= 0))
      return error("spec.timeout", "expected seconds, 0 or more (0: no limit)");
    return llvm::Error::success();
  }
  /// "corpus": inputs as on the command line, relative to the spec's directory; required.
  llvm::Error corpus(const llvm::json::Object &O, std::vector<std::string> &Out) const;
  /// A non-empty array of objects under Key (What names them in the error), each given to Each
  /// with where it is ("arms[2]").
  llvm::Error objects(const llvm::json::Object &O, llvm::StringRef Key, llvm::StringRef What,
                      llvm::function_ref<llvm::Error(const llvm::json::Object &, const std::string &)> Each) const;
  /// A path of the spec, relative to the spec's directory.
  std::string resolve(const std::string &P) const {
    if (P.empty() || llvm::sys::path::is_absolute(P))
      return P;
    llvm::SmallString<256> Out(llvm::sys::path::parent_path(Path));
    llvm::sys::path::append(Out, P);
    return std::string(Out);
  }

  std::string Path;
  std::string SHA256;
};

} // namespace wb::support
