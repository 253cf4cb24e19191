// LLVM's training-log format (llvm/Analysis/Utils/TrainingLogger.h, LLVM 22), byte-exact:
//
//   {"features":[<spec>,...][,"score":<spec>][,"advice":<spec>]}\n      header
//   {"context":"<name>"}\n                                              context switch
//   {"observation":<n>}\n<raw tensor bytes, header order>\n             n counts per context
//   {"outcome":<n>}\n<raw score bytes>\n                                only with a score
//
// It is also the compiler->host stream of the interactive protocol. Payload bytes may
// contain '\n', so every read is sized from the header. The parser is incremental (the host
// feeds it pipe reads as they come); errors give the byte offset.
#pragma once

#include "features/FeatureSets.h"
#include "features/TensorSpec.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb::features {

struct LogHeader {
  std::vector<TensorSpec> Features;
  std::optional<TensorSpec> Score;
  std::optional<TensorSpec> Advice;

  /// Bytes of one observation's payload (all features, no newline).
  size_t observationBytes() const;
  /// Byte offset of feature I within an observation's payload.
  size_t offsetOf(size_t I) const;
  /// Index of the feature named Name, if any.
  std::optional<size_t> find(llvm::StringRef Name) const;
  /// The header line, without its newline.
  std::string toJSON() const;
};

/// Writes a log. The header is written by the constructor; observation ids count per
/// context, as LLVM's Logger counts them.
class LogWriter {
public:
  LogWriter(llvm::raw_ostream &OS, LogHeader H);
  const LogHeader &header() const { return H; }
  void switchContext(llvm::StringRef Name);
  /// Payload must be exactly header().observationBytes() long (else an error, nothing written).
  llvm::Error observation(llvm::StringRef Payload);
  /// The score of the current context's latest observation (header must have a score).
  llvm::Error outcome(llvm::StringRef ScoreBytes);

private:
  llvm::raw_ostream &OS;
  LogHeader H;
  std::string Context;
  llvm::StringMap<int64_t> NextId;
  int64_t LastId = -1;
};

/// One parsed record.
struct LogEvent {
  enum Kind { Header, ContextSwitch, Observation, Outcome } K;
  uint64_t Offset = 0;     // byte offset of the record's first byte
  std::string Context;     // Context: the new name; Observation/Outcome: the current one
  int64_t Id = 0;          // Observation/Outcome
  llvm::StringRef Payload; // Observation/Outcome: the tensor bytes (valid until next feed)
};

class LogParser {
public:
  /// Name is used in error messages (a file name, or "compiler stream").
  explicit LogParser(std::string Name) : Name(std::move(Name)) {}
  /// Streams may follow each other: a header where a record is expected starts a new stream
  /// (its own contexts and observation ids). The interactive channel needs it: one clang
  /// command with several source files runs one compiler per file, each writing its stream to
  /// the same channel. A file holds one stream.
  void allowRestarts() { Restarts = true; }
  /// Appends bytes. Invalidates Payload references of earlier events.
  void feed(llvm::StringRef Bytes);
  /// The next complete record, std::nullopt when more bytes are needed, or an error.
  llvm::Expected<std::optional<LogEvent>> next();
  /// At end of input: an error when a record is incomplete.
  llvm::Error finish() const;
  const LogHeader &header() const { return H; }
  bool hasHeader() const { return HaveHeader; }
  uint64_t offset() const { return Consumed + Pos; }

private:
  llvm::Error error(uint64_t At, const llvm::Twine &What) const;
  std::string Name;
  std::string Buf;
  size_t Pos = 0;        // next unparsed byte in Buf
  uint64_t Consumed = 0; // bytes dropped from the front of Buf
  bool HaveHeader = false, Restarts = false;
  LogHeader H;
  std::string Context;
  llvm::StringMap<int64_t> NextId;
  int64_t LastId = -1;
};

/// A whole log in memory.
struct LogObservation {
  std::string Context;
  int64_t Id = 0;
  std::string Payload;
  std::optional<std::string> Score;
};
struct Log {
  LogHeader Header;
  std::vector<std::string> Contexts; // every context line, in order (may repeat)
  std::vector<LogObservation> Observations;
  /// Where each context line came, as an index into Observations (for byte-exact rewrite).
  std::vector<size_t> ContextAt;
};

llvm::Expected<Log> parseLog(llvm::StringRef Bytes, llvm::StringRef Name);
llvm::Expected<Log> readLogFile(llvm::StringRef Path);
/// L as text for people (`ir2vec mlgo log dump`): the header's specs, then one line per
/// observation with every feature's values and the score.
void dumpLog(llvm::raw_ostream &OS, const Log &L);
/// Writes L so that parseLog(writeLog(L)) == L and a log read from LLVM comes out byte-exact.
llvm::Error writeLog(llvm::raw_ostream &OS, const Log &L);

} // namespace wb::features
