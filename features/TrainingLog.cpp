#include "features/TrainingLog.h"

#include "support/JSON.h"
#include "support/Inputs.h"
#include "support/Error.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace wb::features {

size_t LogHeader::observationBytes() const {
  size_t N = 0;
  for (const TensorSpec &S : Features)
    N += S.byteSize();
  return N;
}

size_t LogHeader::offsetOf(size_t I) const {
  size_t N = 0;
  for (size_t J = 0; J < I; ++J)
    N += Features[J].byteSize();
  return N;
}

std::optional<size_t> LogHeader::find(llvm::StringRef Name) const {
  for (size_t I = 0; I < Features.size(); ++I)
    if (Features[I].Name == Name)
      return I;
  return std::nullopt;
}

std::string LogHeader::toJSON() const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  llvm::json::OStream J(OS);
  // Key order as LLVM's Logger writes it: features, score, advice.
  J.object([&] {
    J.attributeArray("features", [&] {
      for (const TensorSpec &F : Features)
        F.toJSON(J);
    });
    for (auto [Key, Spec] : {std::pair{"score", &Score}, {"advice", &Advice}})
      if (*Spec) {
        J.attributeBegin(Key);
        (*Spec)->toJSON(J);
        J.attributeEnd();
      }
  });
  return S;
}

// ---------------------------------------------------------------------------------------------

static void jsonLine(llvm::raw_ostream &OS, llvm::StringRef Key, const llvm::json::Value &V) {
  llvm::json::OStream J(OS);
  J.object([&] { J.attribute(Key, V); });
  OS << '\n';
}

LogWriter::LogWriter(llvm::raw_ostream &OS, LogHeader Header) : OS(OS), H(std::move(Header)) {
  OS << H.toJSON() << '\n';
}

void LogWriter::switchContext(llvm::StringRef Name) {
  Context = Name.str();
  jsonLine(OS, "context", Context);
}

llvm::Error LogWriter::observation(llvm::StringRef Payload) {
  // Checked in every build: a wrong size would desynchronise every reader of the log.
  if (Payload.size() != H.observationBytes())
    return support::makeError(llvm::formatv("observation payload of {0} bytes, the header "
                                            "says {1}", Payload.size(), H.observationBytes())
                                  .str());
  LastId = NextId[Context]++;
  jsonLine(OS, "observation", LastId);
  OS << Payload << '\n';
  return llvm::Error::success();
}

llvm::Error LogWriter::outcome(llvm::StringRef ScoreBytes) {
  if (!H.Score)
    return support::makeError("an outcome, but the log's header has no score");
  if (ScoreBytes.size() != H.Score->byteSize())
    return support::makeError(llvm::formatv("outcome payload of {0} bytes, the score is {1}",
                                            ScoreBytes.size(), H.Score->byteSize())
                                  .str());
  jsonLine(OS, "outcome", LastId);
  OS << ScoreBytes << '\n';
  return llvm::Error::success();
}

// ---------------------------------------------------------------------------------------------

llvm::Error LogParser::error(uint64_t At, const llvm::Twine &What) const {
  return support::byteError(Name, At, What);
}

void LogParser::feed(llvm::StringRef Bytes) {
  // Drop parsed bytes now and then, so a long stream does not accumulate in memory.
  if (Pos > (1u << 16) && Pos * 2 > Buf.size()) {
    Consumed += Pos;
    Buf.erase(0, Pos);
    Pos = 0;
  }
  Buf.append(Bytes.data(), Bytes.size());
}

static llvm::Expected<TensorSpec> specAt(const llvm::json::Object &O, llvm::StringRef Key) {
  return tensorSpecFromJSON(*O.get(Key), Key);
}

llvm::Expected<std::optional<LogEvent>> LogParser::next() {
  size_t NL = Buf.find('\n', Pos);
  if (NL == std::string::npos) {
    // Record lines are short JSON; a long run of bytes without a newline is not a log.
    size_t Limit = HaveHeader ? 4096 : (64u << 20);
    if (Buf.size() - Pos > Limit)
      return error(offset(), "expected a JSON record line, found " +
                                 llvm::Twine(Buf.size() - Pos) + " bytes without a newline");
    return std::nullopt;
  }
  uint64_t At = offset();
  llvm::StringRef Line(Buf.data() + Pos, NL - Pos);
  llvm::Expected<llvm::json::Value> V = support::parseJSON(Line);
  if (!V)
    return error(At, "expected a JSON line (" + llvm::toString(V.takeError()) + ")");
  const llvm::json::Object *O = V->getAsObject();
  if (!O)
    return error(At, "expected a JSON object");
  LogEvent E;
  E.Offset = At;
  if (HaveHeader && Restarts && O->getArray("features")) { // the next compiler's stream
    HaveHeader = false;
    H = LogHeader();
    Context.clear();
    NextId.clear();
    LastId = -1;
  }
  if (!HaveHeader) {
    const llvm::json::Array *F = O->getArray("features");
    if (!F)
      return error(At, "expected the header, a JSON object with a \"features\" array");
    for (size_t I = 0; I < F->size(); ++I) {
      llvm::Expected<TensorSpec> S =
          tensorSpecFromJSON((*F)[I], ("features[" + llvm::Twine(I) + "]").str());
      if (!S)
        return error(At, llvm::toString(S.takeError()));
      H.Features.push_back(std::move(*S));
      if (H.observationBytes() > TensorSpec::MaxTensorBytes)
        return error(At, "the features add up to more than " +
                             llvm::Twine(TensorSpec::MaxTensorBytes >> 20) +
                             " MiB per observation");
    }
    for (const char *Key : {"score", "advice"}) {
      if (!O->get(Key))
        continue;
      llvm::Expected<TensorSpec> S = specAt(*O, Key);
      if (!S)
        return error(At, llvm::toString(S.takeError()));
      (Key[0] == 's' ? H.Score : H.Advice) = std::move(*S);
    }
    HaveHeader = true;
    Pos = NL + 1;
    E.K = LogEvent::Header;
    return E;
  }
  if (O->size() != 1)
    return error(At, "expected {\"context\":…}, {\"observation\":…} or {\"outcome\":…}");
  if (std::optional<llvm::StringRef> C = O->getString("context")) {
    Context = C->str();
    Pos = NL + 1;
    E.K = LogEvent::ContextSwitch;
    E.Context = Context;
    return E;
  }
  bool IsObservation = O->get("observation") != nullptr;
  if (!IsObservation && !O->get("outcome"))
    return error(At, "expected {\"context\":…}, {\"observation\":…} or {\"outcome\":…}");
  std::optional<int64_t> Id = O->getInteger(IsObservation ? "observation" : "outcome");
  if (!Id)
    return error(At, "the record's id is not an integer");
  if (!IsObservation && !H.Score)
    return error(At, "an outcome record, but the header has no score");
  size_t Size = IsObservation ? H.observationBytes() : H.Score->byteSize();
  if (Buf.size() < NL + 1 + Size + 1)
    return std::nullopt; // the payload has not arrived yet
  if (Buf[NL + 1 + Size] != '\n')
    return error(Consumed + NL + 1 + Size,
                 llvm::formatv("expected '\\n' after the {0}-byte {1} payload", Size,
                               IsObservation ? "observation" : "outcome"));
  if (IsObservation) {
    int64_t Expected = NextId.lookup(Context);
    if (*Id != Expected)
      return error(At, llvm::formatv("observation {0} in context \"{1}\", expected {2}", *Id,
                                     Context, Expected));
    NextId[Context] = Expected + 1;
    LastId = *Id;
  } else if (*Id != LastId) {
    return error(At, llvm::formatv("outcome {0}, but the latest observation is {1}", *Id,
                                   LastId));
  }
  E.K = IsObservation ? LogEvent::Observation : LogEvent::Outcome;
  E.Context = Context;
  E.Id = *Id;
  E.Payload = llvm::StringRef(Buf.data() + NL + 1, Size);
  Pos = NL + 1 + Size + 1;
  return E;
}

llvm::Error LogParser::finish() const {
  if (!HaveHeader)
    return error(offset(), Buf.size() == Pos ? "empty: expected the header line"
                                             : "truncated header line");
  if (Pos != Buf.size())
    return error(offset(), "truncated record (" + llvm::Twine(Buf.size() - Pos) +
                               " bytes after the last complete record)");
  return llvm::Error::success();
}

llvm::Expected<Log> parseLog(llvm::StringRef Bytes, llvm::StringRef Name) {
  LogParser P(Name.str());
  P.feed(Bytes);
  Log L;
  while (true) {
    llvm::Expected<std::optional<LogEvent>> E = P.next();
    if (!E)
      return E.takeError();
    if (!*E)
      break;
    switch ((*E)->K) {
    case LogEvent::Header:
      break;
    case LogEvent::ContextSwitch:
      L.Contexts.push_back((*E)->Context);
      L.ContextAt.push_back(L.Observations.size());
      break;
    case LogEvent::Observation:
      L.Observations.push_back({(*E)->Context, (*E)->Id, (*E)->Payload.str(), std::nullopt});
      break;
    case LogEvent::Outcome:
      if (L.Observations.empty() || L.Observations.back().Score)
        return support::byteError(Name, (*E)->Offset, "a second outcome for one observation");
      L.Observations.back().Score = (*E)->Payload.str();
      break;
    }
  }
  if (llvm::Error Err = P.finish())
    return Err;
  L.Header = P.header();
  return L;
}

llvm::Expected<Log> readLogFile(llvm::StringRef Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> B = support::readInput(Path);
  if (!B)
    return support::fileError(Path, support::readErrorMessage(B.getError()));
  return parseLog((*B)->getBuffer(), Path);
}

void dumpLog(llvm::raw_ostream &OS, const Log &L) {
  const LogHeader &H = L.Header;
  OS << "features " << specsJSON(H.Features) << "\n";
  if (H.Score)
    OS << "score " << H.Score->toJSON() << "\n";
  if (H.Advice)
    OS << "advice " << H.Advice->toJSON() << "\n";
  for (const LogObservation &Ob : L.Observations) {
    OS << "observation \"" << Ob.Context << "\" " << Ob.Id;
    for (size_t I = 0; I < H.Features.size(); ++I)
      OS << " " << H.Features[I].Name << "="
         << formatTensor(H.Features[I], llvm::StringRef(Ob.Payload).substr(H.offsetOf(I)));
    if (Ob.Score)
      OS << " score=" << formatTensor(*H.Score, *Ob.Score);
    OS << "\n";
  }
}

llvm::Error writeLog(llvm::raw_ostream &OS, const Log &L) {
  LogWriter W(OS, L.Header);
  size_t C = 0;
  for (size_t I = 0; I <= L.Observations.size(); ++I) {
    for (; C < L.Contexts.size() && L.ContextAt[C] == I; ++C)
      W.switchContext(L.Contexts[C]);
    if (I == L.Observations.size())
      break;
    if (llvm::Error E = W.observation(L.Observations[I].Payload))
      return E;
    if (L.Observations[I].Score)
      if (llvm::Error E = W.outcome(*L.Observations[I].Score))
        return E;
  }
  return llvm::Error::success();
}

} // namespace wb::features
