#include "vocab/Vocabulary.h"

#include "support/JSON.h"
#include "support/Inputs.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace wb::vocab {

using support::fileError;
using support::makeError;

namespace {

const char *kindName(const llvm::json::Value &V) {
  switch (V.kind()) {
  case llvm::json::Value::Null: return "null";
  case llvm::json::Value::Boolean: return "a boolean";
  case llvm::json::Value::Number: return "a number";
  case llvm::json::Value::String: return "a string";
  case llvm::json::Value::Array: return "an array";
  case llvm::json::Value::Object: return "an object";
  }
  return "a value";
}

// LLVM's ParseError only exposes "[L:C, byte=B]: message"; turn it into the usual
// "file:L:C: message" form so editors can jump to it.
std::string describeJSONError(llvm::StringRef Source, llvm::Error E) {
  std::string Raw = llvm::toString(std::move(E));
  llvm::StringRef R(Raw);
  if (R.consume_front("[")) {
    auto [Pos, Msg] = R.split("]: ");
    auto [LineCol, Byte] = Pos.split(", byte=");
    if (!Msg.empty() && LineCol.contains(':'))
      return (Source + ":" + LineCol + ": invalid JSON: " + Msg).str();
  }
  return (Source + ": invalid JSON: " + Raw).str();
}

// The three sections LLVM 22 reads, in the order it checks them.
const llvm::StringRef JSONSections[] = {"Opcodes", "Types", "Arguments"};

llvm::Expected<JSONSection> parseSection(llvm::StringRef Source, const llvm::json::Object &Root,
                                           llvm::StringRef Name) {
  const llvm::json::Value *SecV = Root.get(Name);
  if (!SecV)
    return fileError(Source, llvm::formatv("missing section \"{0}\" (expected an object mapping "
                                      "entity names to arrays of numbers)",
                                      Name));
  const llvm::json::Object *Sec = SecV->getAsObject();
  if (!Sec)
    return fileError(Source, llvm::formatv("section \"{0}\" is {1}, expected an object mapping "
                                      "entity names to arrays of numbers",
                                      Name, kindName(*SecV)));
  if (Sec->empty())
    return fileError(Source, llvm::formatv("section \"{0}\" is empty (expected at least one key)",
                                      Name));
  JSONSection Out;
  for (const auto &[Key, Val] : *Sec) {
    const llvm::json::Array *Arr = Val.getAsArray();
    if (!Arr)
      return fileError(Source, llvm::formatv("section \"{0}\", key \"{1}\": found {2}, expected an "
                                        "array of numbers",
                                        Name, Key.str(), kindName(Val)));
    std::vector<double> Vec;
    Vec.reserve(Arr->size());
    for (size_t I = 0; I < Arr->size(); ++I) {
      std::optional<double> D = (*Arr)[I].getAsNumber();
      if (!D)
        return fileError(Source, llvm::formatv("section \"{0}\", key \"{1}\", element {2}: found {3}, "
                                          "expected a number",
                                          Name, Key.str(), I, kindName((*Arr)[I])));
      if (!std::isfinite(*D))
        return fileError(Source, llvm::formatv("section \"{0}\", key \"{1}\", element {2}: value is "
                                          "not finite (overflows a double)",
                                          Name, Key.str(), I));
      Vec.push_back(*D);
    }
    Out.Entries.emplace(Key.str(), std::move(Vec));
  }
  // Like LLVM, the section's dimension is that of its lexicographically first key.
  const auto &[FirstKey, FirstVec] = *Out.Entries.begin();
  if (FirstVec.empty())
    return fileError(Source, llvm::formatv("section \"{0}\", key \"{1}\": empty vector (dimension "
                                      "must be at least 1)",
                                      Name, FirstKey));
  Out.Dim = FirstVec.size();
  for (const auto &[Key, Vec] : Out.Entries)
    if (Vec.size() != Out.Dim)
      return fileError(Source, llvm::formatv("section \"{0}\", key \"{1}\": {2} elements, expected "
                                        "{3} like key \"{4}\" (all vectors must have one "
                                        "dimension)",
                                        Name, Key, Vec.size(), Out.Dim, FirstKey));
  return Out;
}

/// Keys a warning names before it says how many more there are: a warning printed on every run
/// of a vocabulary is one short line (LLVM's seed vocabulary lacks 48 keys).
constexpr size_t MaxKeysNamed = 3;

std::string someOf(const std::vector<std::string> &Keys) {
  std::string Out;
  for (size_t I = 0; I < Keys.size() && I < MaxKeysNamed; ++I)
    Out += (I ? ", " : "") + Keys[I];
  if (Keys.size() > MaxKeysNamed)
    Out += " and " + std::to_string(Keys.size() - MaxKeysNamed) + " more";
  return Out;
}

} // namespace

llvm::Expected<Vocabulary> Vocabulary::fromUnweightedRows(std::vector<double> Rows, unsigned Dim,
                                                          Weights W,
                                                          const std::vector<bool> &Present) {
  if (Dim == 0)
    return makeError("vocabulary dimension must be at least 1");
  if (Rows.size() != size_t(NumEntities) * Dim)
    return makeError(llvm::formatv("vocabulary matrix has {0} values, expected {1} entities x {2}",
                                   Rows.size(), NumEntities, Dim));
  for (float F : {W.Opcode, W.Type, W.Arg})
    if (!std::isfinite(F))
      return makeError("vocabulary weights must be finite");
  for (EntityId Id = 0; Id < NumEntities; ++Id) {
    if (!Present.empty() && !Present[Id])
      continue;
    const double Factor = static_cast<double>(W.forSection(sectionOf(Id)));
    for (unsigned D = 0; D < Dim; ++D) {
      double &X = Rows[size_t(Id) * Dim + D];
      X = X * Factor;
      if (!std::isfinite(X))
        return makeError(llvm::formatv("entity \"{0}\", element {1}: weighted value is not finite",
                                       entityName(Id), D));
    }
  }
  return Vocabulary(std::move(Rows), Dim, W);
}

llvm::Expected<Vocabulary> Vocabulary::weigh(const EntityVectors &V, Weights W) {
  return fromUnweightedRows(V.Rows, V.Dim, W, V.Present);
}

llvm::Expected<Weights> Weights::parse(llvm::StringRef Opcode, llvm::StringRef Type,
                                       llvm::StringRef Arg) {
  Weights W;
  if (llvm::Error E = parseWeights({{"ir2vec-opc-weight", Opcode, &W.Opcode},
                                    {"ir2vec-type-weight", Type, &W.Type},
                                    {"ir2vec-arg-weight", Arg, &W.Arg}}))
    return E;
  return W;
}

llvm::Error parseWeights(std::initializer_list<WeightOption> Options) {
  for (const WeightOption &O : Options) {
    double D;
    if (!llvm::to_float(O.Text, D))
      return support::usageError(llvm::Twine("--") + O.Option + ": '" + O.Text + "' is not a number");
    *O.Out = static_cast<float>(D);
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<JSONSection>> parseJSONSections(llvm::StringRef Text, llvm::StringRef Source,
                                                          llvm::ArrayRef<llvm::StringRef> Names) {
  llvm::Expected<llvm::json::Value> Parsed = support::parseJSON(Text);
  if (!Parsed)
    return makeError(describeJSONError(Source, Parsed.takeError()));
  const llvm::json::Object *Root = Parsed->getAsObject();
  if (!Root) {
    std::string Quoted;
    for (size_t I = 0; I < Names.size(); ++I)
      Quoted += (I == 0 ? "\"" : I + 1 == Names.size() ? " and \"" : ", \"") + Names[I].str() + "\"";
    return fileError(Source, llvm::formatv("top-level JSON value is {0}, expected an object with "
                                           "sections {1}",
                                           kindName(*Parsed), Quoted));
  }
  std::vector<JSONSection> Out;
  for (llvm::StringRef Name : Names) {
    auto Sec = parseSection(Source, *Root, Name);
    if (!Sec)
      return Sec.takeError();
    Out.push_back(std::move(*Sec));
  }
  if (llvm::any_of(Out, [&](const JSONSection &S) { return S.Dim != Out.front().Dim; })) {
    std::string Dims;
    for (size_t I = 0; I < Names.size(); ++I)
      Dims += (I ? ", " : "") + Names[I].str() + " " + std::to_string(Out[I].Dim);
    return fileError(Source, "sections have different dimensions: " + Dims + " (expected one dimension)");
  }
  if (!Out.empty() && Out.front().Dim > MaxDimension)
    return fileError(Source, llvm::formatv("dimension {0} is more than this tool takes ({1})",
                                           Out.front().Dim, MaxDimension));
  return Out;
}

std::vector<std::string> keyWarnings(llvm::StringRef Source,
                                     const std::vector<std::string> &MissingKeys,
                                     const std::vector<std::string> &UnknownKeys, size_t Entities,
                                     llvm::StringRef Kind) {
  if (MissingKeys.empty() && UnknownKeys.empty())
    return {};
  std::string Line = Source.str() + ":";
  if (!MissingKeys.empty())
    Line += llvm::formatv(" {0} of {1} entities have no key and are zero vectors, as in LLVM ({2})",
                          MissingKeys.size(), Entities, someOf(MissingKeys));
  if (!UnknownKeys.empty())
    Line += llvm::formatv("{0} {1} {2} LLVM {3} {4} {5} and ignored ({6})",
                          MissingKeys.empty() ? "" : ";", UnknownKeys.size(),
                          UnknownKeys.size() == 1 ? "key is not an" : "keys are not", WB_LLVM_VERSION,
                          Kind, UnknownKeys.size() == 1 ? "entity" : "entities", someOf(UnknownKeys));
  return {Line + "; `ir2vec entities` lists every entity"};
}

llvm::Expected<EntityVectors> parseVocabularyJSON(llvm::StringRef Text, llvm::StringRef Source) {
  auto Parsed = parseJSONSections(Text, Source, JSONSections);
  if (!Parsed)
    return Parsed.takeError();
  std::map<llvm::StringRef, JSONSection> Sections;
  for (size_t I = 0; I < std::size(JSONSections); ++I)
    Sections.emplace(JSONSections[I], std::move((*Parsed)[I]));
  EntityVectors V;
  V.Dim = Sections["Opcodes"].Dim;
  V.Rows.assign(size_t(NumEntities) * V.Dim, 0.0);
  V.Present.assign(NumEntities, false);
  std::map<llvm::StringRef, std::vector<bool>> Used;
  for (auto &[Name, Sec] : Sections)
    Used[Name].assign(Sec.Entries.size(), false);
  for (EntityId Id = 0; Id < NumEntities; ++Id) {
    llvm::StringRef SecName(jsonSectionOf(Id).data(), jsonSectionOf(Id).size());
    const std::string Key(entityName(Id));
    const JSONSection &Sec = Sections[SecName];
    auto It = Sec.Entries.find(Key);
    if (It == Sec.Entries.end()) {
      V.MissingKeys.push_back((SecName + "." + Key).str());
      continue;
    }
    Used[SecName][std::distance(Sec.Entries.begin(), It)] = true;
    V.Present[Id] = true;
    std::copy(It->second.begin(), It->second.end(), V.Rows.begin() + size_t(Id) * V.Dim);
  }
  for (llvm::StringRef Name : JSONSections) {
    size_t I = 0;
    for (const auto &Entry : Sections[Name].Entries)
      if (!Used[Name][I++])
        V.UnknownKeys.push_back((Name + "." + Entry.first).str());
  }
  return V;
}

llvm::Expected<EntityVectors> readVocabularyJSON(llvm::StringRef Path) {
  auto Buf = support::readInput(Path, /*IsText=*/true);
  if (!Buf)
    return fileError(Path, "cannot read vocabulary file: " + support::readErrorMessage(Buf.getError()));
  return parseVocabularyJSON((*Buf)->getBuffer(), Path);
}

namespace {
/// V weighed by W, or V's error; a weighing error names Source.
llvm::Expected<Vocabulary> weighed(llvm::Expected<EntityVectors> V, llvm::StringRef Source,
                                   Weights W) {
  if (!V)
    return V.takeError();
  auto Weighed = Vocabulary::weigh(*V, W);
  if (!Weighed)
    return fileError(Source, llvm::toString(Weighed.takeError()));
  return Weighed;
}
} // namespace

llvm::Expected<Vocabulary> parseVocabularyJSON(llvm::StringRef Text, llvm::StringRef Source,
                                               Weights W) {
  return weighed(parseVocabularyJSON(Text, Source), Source, W);
}

llvm::Expected<Vocabulary> readVocabularyJSON(llvm::StringRef Path, Weights W) {
  return weighed(readVocabularyJSON(Path), Path, W);
}

} // namespace wb::vocab
