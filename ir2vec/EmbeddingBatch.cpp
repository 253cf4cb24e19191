#include "ir2vec/EmbeddingBatch.h"
#include "vocab/VocabularyFile.h"

#include "corpus/ModuleReader.h"
#include "corpus/OptPipeline.h"
#include "support/Inputs.h"
#include "support/JSON.h"
#include "support/Files.h"
#include "support/Isolate.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"

namespace wb::ir2vec {

corpus::ContextPolicy contextPolicyFor(const EmbeddingJob &J) {
  return J.Source ? J.Source->Policy : contextPolicyFor(J.Granularity);
}

corpus::ContextPolicy contextPolicyFor(Level L) {
  corpus::ContextPolicy P;
  P.ReuseContext = L == Level::Inst ? 1 : 32;
  P.DiscardValueNames = L == Level::Func || L == Level::Module;
  return P;
}

const vocab::Vocabulary &countingVocabulary() {
  // Immutable after construction (thread-safe static initialisation).
  static const vocab::Vocabulary Identity = [] {
    return std::move(*vocab::Vocabulary::fromUnweightedRows(vocab::countingEntityVectors().Rows,
                                                            vocab::NumEntities,
                                                            vocab::Weights{1.0f, 1.0f, 1.0f}));
  }();
  return Identity;
}

void encode(const EmbeddedModule &M, support::WireWriter &W) {
  W.bytes(M.Error);
  W.strings(M.Warnings);
  const ModuleEmbedding &E = M.E;
  W.num<uint32_t>(E.Dim);
  W.strings(E.FunctionNames);
  W.array(E.FunctionVectors);
  W.strings(E.BlockNames);
  W.array(E.BlockFunction);
  W.array(E.BlockVectors);
  W.array(E.BlockLoopDepth);
  W.strings(E.InstTexts);
  W.array(E.InstOpcode);
  W.array(E.InstFunction);
  W.array(E.InstBlock);
  W.array(E.InstVectors);
  W.array(E.ModuleVector);
  W.num<uint8_t>(E.SelectedDeclaration);
  W.num<uint8_t>(E.SelectedNotFound);
}

void decode(support::WireReader &In, EmbeddedModule &M) {
  M.Error = In.bytes();
  M.Warnings = In.strings();
  ModuleEmbedding &E = M.E;
  E.Dim = In.num<uint32_t>();
  E.FunctionNames = In.strings();
  E.FunctionVectors = In.array<double>();
  E.BlockNames = In.strings();
  E.BlockFunction = In.array<int64_t>();
  E.BlockVectors = In.array<double>();
  E.BlockLoopDepth = In.array<int64_t>();
  E.InstTexts = In.strings();
  E.InstOpcode = In.array<int64_t>();
  E.InstFunction = In.array<int64_t>();
  E.InstBlock = In.array<int64_t>();
  E.InstVectors = In.array<double>();
  E.ModuleVector = In.array<double>();
  E.SelectedDeclaration = In.num<uint8_t>() != 0;
  E.SelectedNotFound = In.num<uint8_t>() != 0;
}

namespace {

EmbeddedModule embedOne(const EmbeddingJob &J, const LevelSet &Levels, bool Text,
                 const std::string &Path, llvm::LLVMContext &Ctx) {
  if (J.Source)
    return J.Source->Embed(Path, Ctx, Levels, Text, J.FunctionName);
  EmbeddedModule O;
  auto In = corpus::readModule(Path, Ctx);
  if (!In) {
    O.Error = llvm::toString(In.takeError());
    return O;
  }
  O.Warnings = std::move(In->Warnings);
  if (J.Header.Opt)
    if (llvm::Error E = corpus::runDefaultPipeline(*In->M, *J.Header.Opt)) {
      O.Error = llvm::toString(support::fileError(
          Path, "opt -" + corpus::optLevelName(*J.Header.Opt) + ": " + llvm::toString(std::move(E))));
      return O;
    }
  auto E = embedModule(*In->M, *J.Vocab, EmbedRequest{J.EmbeddingKind, Levels, J.FunctionName, Text});
  if (!E) {
    O.Error = llvm::toString(support::prefixError(Path, E.takeError()));
    return O;
  }
  O.E = std::move(*E);
  return O;
}

// ---- resume state ---------------------------------------------------------------------------

// Version 2: the checksum of /modules/<data> (schema ir2vec.embeddings/2) joined the list.
// Version 3: the fingerprint covers the mode, target and stage (schema 3).
// Version 4: the fingerprint covers every root attribute of the file (headerAttributes, the one
// list of the settings that change a vector), which the state also lists to name a change.
constexpr const char *ResumeSchema = "ir2vec.resume/4";

struct Checkpoint {
  uint64_t Modules = 0, Failed = 0;
  bool FunctionFound = false;
  RowCounts Rows;
  DatasetChecksums Sums{};
};

/// A root attribute's value as the state file records it (floats by their bits: a weight
/// that prints the same may not be the same).
std::string settingText(const HeaderAttribute &A) {
  return std::visit(
      [](const auto &V) -> std::string {
        using T = std::decay_t<decltype(V)>;
        if constexpr (std::is_same_v<T, std::string>)
          return V;
        else if constexpr (std::is_same_v<T, double>)
          return llvm::formatv("{0} ({1:x})", V, llvm::bit_cast<uint64_t>(V)).str();
        else
          return std::to_string(V);
      },
      A.Value);
}

/// The settings of J that change a vector, in order: the file's root attributes.
using Settings = std::vector<std::pair<std::string, std::string>>;
Settings settingsOf(const EmbeddingJob &J) {
  Settings S;
  for (const HeaderAttribute &A : headerAttributes(J.Header))
    S.emplace_back(A.Name, settingText(A));
  return S;
}

std::string fingerprint(const EmbeddingJob &J) {
  llvm::SHA256 H;
  auto Add = [&](llvm::StringRef S) {
    H.update(S);
    H.update(llvm::StringRef("\0", 1));
  };
  for (const auto &[Name, Value] : settingsOf(J)) {
    Add(Name);
    Add(Value);
  }
  Add(J.FunctionName ? "function:" + *J.FunctionName : "all functions");
  Add(std::to_string(J.Compress));
  for (const std::string &P : J.Inputs) {
    Add(P);
    Add(support::fileStamp(P)); // a module rewritten since: its rows are stale
  }
  return llvm::toHex(H.final(), /*LowerCase=*/true);
}

/// The first setting in which a state written with Recorded settings differs from Now's, said.
std::optional<std::string> settingChanged(const llvm::json::Object *Recorded, const Settings &Now) {
  for (const auto &[Name, Value] : Now) {
    std::optional<llvm::StringRef> Was = Recorded ? Recorded->getString(Name) : std::nullopt;
    if (!Was)
      return "the interrupted run recorded no " + Name;
    if (*Was != Value)
      return llvm::formatv("the interrupted run had {0} '{1}', this one has '{2}'", Name, *Was, Value)
          .str();
  }
  return std::nullopt;
}

llvm::Error writeState(const std::string &Path, const std::string &Fingerprint,
                       const Settings &Now, const Checkpoint &C) {
  llvm::json::Object Recorded;
  for (const auto &[Name, Value] : Now)
    Recorded[Name] = Value;
  llvm::json::Array Sums;
  for (uint64_t X : C.Sums)
    Sums.push_back(llvm::utohexstr(X, /*LowerCase=*/true));
  llvm::json::Object O{
      {"schema", ResumeSchema},
      {"fingerprint", Fingerprint},
      {"settings", std::move(Recorded)},
      {"modules", static_cast<int64_t>(C.Modules)},
      {"failed", static_cast<int64_t>(C.Failed)},
      {"function_found", C.FunctionFound},
      {"rows", llvm::json::Array{static_cast<int64_t>(C.Rows.Modules),
                                 static_cast<int64_t>(C.Rows.Functions),
                                 static_cast<int64_t>(C.Rows.Blocks),
                                 static_cast<int64_t>(C.Rows.Instructions)}},
      {"checksums", std::move(Sums)},
  };
  return support::writeFileAtomically(Path, [&](llvm::raw_ostream &OS) {
    OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(O))) << "\n";
  });
}

llvm::Expected<Checkpoint> readState(const std::string &Path, const std::string &Fingerprint,
                                     const Settings &Now) {
  auto Bad = [&](const llvm::Twine &Why) { return support::fileError(Path, Why); };
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return Bad("cannot read: " + Buf.getError().message());
  auto J = support::parseJSON((*Buf)->getBuffer());
  if (!J)
    return Bad("invalid JSON: " + llvm::toString(J.takeError()));
  const llvm::json::Object *O = J->getAsObject();
  if (!O || O->getString("schema") != llvm::StringRef(ResumeSchema))
    return Bad(llvm::Twine("not an ") + ResumeSchema + " state file");
  if (O->getString("fingerprint") != llvm::StringRef(Fingerprint)) {
    // Another setting is most likely a slip of the command line: refused, and the partial file
    // kept, instead of thrown away for a run the user did not mean. Changed inputs make the
    // kept rows stale: that run starts over.
    if (std::optional<std::string> Why = settingChanged(O->getObject("settings"), Now))
      return support::usageError(Path + ": cannot resume: " + *Why + "; give the interrupted run's "
                                 "options, or leave --resume out to start over (which discards "
                                 "the partial file)");
    return Bad("the interrupted run used different inputs, --function or --compress");
  }
  Checkpoint C;
  const llvm::json::Array *Rows = O->getArray("rows");
  const llvm::json::Array *Sums = O->getArray("checksums");
  if (!Rows || Rows->size() != 4 || !Sums || Sums->size() != C.Sums.size() ||
      !O->getInteger("modules") || !O->getInteger("failed"))
    return Bad("incomplete state");
  C.Modules = *O->getInteger("modules");
  C.Failed = *O->getInteger("failed");
  C.FunctionFound = O->getBoolean("function_found").value_or(false);
  uint64_t *R[] = {&C.Rows.Modules, &C.Rows.Functions, &C.Rows.Blocks, &C.Rows.Instructions};
  for (size_t I = 0; I < 4; ++I)
    *R[I] = (*Rows)[I].getAsInteger().value_or(-1);
  for (size_t I = 0; I < C.Sums.size(); ++I) {
    std::optional<llvm::StringRef> Hex = (*Sums)[I].getAsString();
    if (!Hex || llvm::StringRef(*Hex).getAsInteger(16, C.Sums[I]))
      return Bad("bad checksum");
  }
  if (C.Rows.Modules != C.Modules)
    return Bad("inconsistent state");
  return C;
}

} // namespace

llvm::Error checkResumeState(const std::string &Path, const std::string &Fingerprint) {
  return readState(Path, Fingerprint, Settings()).takeError();
}

llvm::Expected<OutputFormat> parseOutputFormat(llvm::StringRef Name) {
  return support::parseNamed<OutputFormat>(OutputFormatNames, Name, "format");
}

std::string commandLineSpelling(JobSetting S, llvm::StringRef Value) {
  switch (S) {
  case JobSetting::Function:
    return "--function";
  case JobSetting::Level:
    return ("--level " + Value).str();
  case JobSetting::InstructionText:
    return "--inst-text";
  case JobSetting::Counts:
    return "--counts";
  case JobSetting::Mode:
    return ("--mode=" + Value).str();
  case JobSetting::Kind:
    return ("--ir2vec-kind " + Value).str();
  }
  llvm_unreachable("a setting of the table");
}

llvm::Error EmbeddingJob::validateSelection(const SettingSpelling &Say, IRMode Mode) const {
  using support::usageError;
  const std::string ModeName = modeInfo(Mode).Name;
  if (FunctionName && Granularity == Level::Module)
    return usageError(Say(JobSetting::Function, "") + " selects a function: it does not go with " +
                      Say(JobSetting::Level, "module"));
  if (Header.InstructionText && Granularity != Level::Inst)
    return usageError(Say(JobSetting::InstructionText, "") + " applies to " +
                      Say(JobSetting::Level, "inst"));
  if (Header.Counts && Mode != IRMode::LLVM)
    return usageError(Say(JobSetting::Counts, "") +
                      " counts LLVM IR's entities: it does not go with " +
                      Say(JobSetting::Mode, ModeName));
  if (EmbeddingKind != Kind::Symbolic && Mode != IRMode::LLVM)
    return usageError(Say(JobSetting::Mode, ModeName) + " embeddings are symbolic (MIR2Vec's "
                      "only kind), not " + Say(JobSetting::Kind, kindName(EmbeddingKind)));
  return llvm::Error::success();
}

llvm::Error EmbeddingJob::validate() const {
  using support::usageError;
  if (llvm::Error E =
          validateSelection(commandLineSpelling, Source ? Source->Mode : IRMode::LLVM))
    return E;
  const bool HDF5 = Format == OutputFormat::HDF5;
  if (Header.Counts && !HDF5)
    return usageError("--counts needs --format hdf5");
  if (HDF5 && Output == "-")
    return usageError("--format hdf5 needs an output file: -o FILE.h5");
  if (Resume && !HDF5)
    return usageError("--resume applies to --format hdf5 runs");
  if (Compress && !HDF5)
    return usageError("--compress applies to --format hdf5");
  if (Header.InstructionText && !HDF5)
    return usageError("--inst-text applies to --format hdf5 (the text format always prints "
                      "instructions)");
  return llvm::Error::success();
}

llvm::Error embedModules(const EmbeddingJob &J, LevelSet Levels, bool InstructionText,
                         size_t Begin, const corpus::BatchIO &IO,
                         const std::function<llvm::Error(size_t Index, EmbeddedModule &&)> &Take) {
  return corpus::runModules<EmbeddedModule>(
      IO, contextPolicyFor(J), J.Inputs, Begin,
      [&](size_t I, llvm::LLVMContext &Ctx) {
        return embedOne(J, Levels, InstructionText, J.Inputs[I], Ctx);
      },
      Take);
}

llvm::Expected<EmbeddingRun> runEmbeddingsText(const EmbeddingJob &J, llvm::raw_ostream &OS,
                                               const corpus::BatchIO &IO) {
  const LevelSet Levels = textLevels(J.Granularity);
  std::atomic<bool> Found{false};
  auto S = corpus::runTextBatch(
      J.Inputs, OS, IO, contextPolicyFor(J),
      [&](const std::string &Path, llvm::LLVMContext &Ctx) {
        EmbeddedModule O = embedOne(J, Levels, /*Text=*/true, Path, Ctx);
        corpus::ModuleText T{std::move(O.Error), std::move(O.Warnings), {}};
        if (T.Error.empty()) {
          if (!O.E.SelectedNotFound)
            Found = true;
          renderText(T.Text, O.E, J.Granularity, J.Precision, J.FunctionName,
                     J.Source ? J.Source->Mode : IRMode::LLVM);
        }
        return T;
      },
      J.Granularity == Level::Module ? corpus::ModuleHeaders::Always
                                     : corpus::ModuleHeaders::WhenSeveral);
  if (!S)
    return S.takeError();
  EmbeddingRun R;
  R.Summary = *S;
  R.FunctionFound = Found.load();
  return R;
}

llvm::Expected<EmbeddingRun> runEmbeddingsHDF5(const EmbeddingJob &J, const corpus::BatchIO &IO) {
  // OUT.partial survives an interruption (with OUT.resume describing its last checkpoint) and
  // becomes OUT when the run is done. A directory or unwritable place fails now, not after the
  // corpus.
  // The run holds OUT's state for its whole length: a second run on the same output is
  // refused instead of truncating this one's partial file.
  llvm::Expected<support::OutputState> State = support::OutputState::acquire(J.Output);
  if (!State)
    return State.takeError();
  if (J.Resume && !State->resumable())
    return support::usageError(J.Output + ": --resume needs an output that is a regular file "
                                          "(a device or FIFO keeps no partial file)");
  support::PendingFile Out = support::PendingFile::resumable(*State);
  const std::string StatePath = State->file(".resume");
  const std::string Print = fingerprint(J);
  const Settings Recorded = settingsOf(J);
  const LevelSet Levels = J.Header.levels();
  EmbeddingRun Run;
  Checkpoint Done;

  // A run killed while it replaced OUT.resume (SIGKILL cannot be caught) leaves that write's
  // temporary file beside it; it belongs to this output, and no other run writes it now.
  support::removeStaleTemporaries(StatePath);
  support::removeStaleTemporaries(Out.path()); // a copy of a resume killed the same way

  std::optional<EmbeddingFileWriter> W;
  if (J.Resume && llvm::sys::fs::exists(StatePath)) {
    auto C = readState(StatePath, Print, Recorded);
    uint64_t Bytes = 0;
    (void)llvm::sys::fs::file_size(Out.path(), Bytes);
    llvm::Expected<EmbeddingFileWriter> R =
        C ? EmbeddingFileWriter::resume(Out.path(), J.Header, J.Compress, J.Inputs.size(), C->Rows, C->Sums,
                                        support::isolatedSecondsFor(Bytes))
          : llvm::Expected<EmbeddingFileWriter>(C.takeError());
    if (R) {
      W.emplace(std::move(*R));
      Done = *C;
      Run.Resumed = true;
      Run.ResumedModules = Done.Modules;
      IO.Run.Report({support::Diagnostic::Note,
                 "resumed after " + std::to_string(Done.Modules) + " modules"});
    } else {
      llvm::Error E = R.takeError();
      if (support::failureKind(E) == support::FailureKind::Usage)
        return E; // refused: the partial file and its state stay as they were
      IO.Run.Report({support::Diagnostic::Warning,
                 "cannot resume (" + llvm::toString(std::move(E)) + "); starting over"});
    }
  } else if (!J.Resume && llvm::sys::fs::exists(StatePath)) {
    IO.Run.Report({support::Diagnostic::Warning,
               StatePath + ": discarding an interrupted run (use --resume to continue one)"});
  }
  if (!W) {
    Done = Checkpoint{};
    llvm::sys::fs::remove(StatePath); // a stale state must not describe the new partial file
    if (llvm::Error E = Out.startUntilCheckpoint([&]() -> llvm::Error {
          auto C = EmbeddingFileWriter::create(Out.path(), J.Header, J.Compress, J.Inputs.size());
          if (!C)
            return C.takeError();
          W.emplace(std::move(*C));
          return llvm::Error::success();
        }))
      return E;
  }

  support::Progress P("modules", J.Inputs.size(), IO.Run.ShowProgress);
  P.update(Done.Modules);
  Checkpoint Now = Done;
  uint64_t SinceCheckpoint = 0, BytesSinceCheckpoint = 0;
  support::InterruptNote Note; // a signal after a checkpoint: where the work is, and how to go on
  auto SaveCheckpoint = [&]() -> llvm::Error {
    if (llvm::Error E = W->flush())
      return E;
    Now.Rows = W->rows();
    Now.Sums = W->checksums();
    SinceCheckpoint = BytesSinceCheckpoint = 0;
    if (llvm::Error E = writeState(StatePath, Print, Recorded, Now))
      return E;
    Out.checkpointed();
    Note.set("interrupted: " + Out.path() + " keeps the first " + std::to_string(Now.Modules) +
             " modules; the same command with --resume continues from there");
    return llvm::Error::success();
  };

  llvm::Error E = embedModules(
      J, Levels, J.Header.InstructionText, Done.Modules, IO,
      [&](size_t I, EmbeddedModule &&O) -> llvm::Error {
        if (corpus::reportModule(IO, P, O.Warnings, O.Error)) {
          ++Now.Failed;
        } else if (!O.E.SelectedNotFound) {
          Now.FunctionFound = true;
        }
        const bool OK = O.Error.empty();
        if (llvm::Error X = W->append(J.Inputs[I], O.Error, OK ? &O.E : nullptr))
          return X;
        ++Now.Modules;
        P.update(Now.Modules);
        BytesSinceCheckpoint += 8 * (O.E.ModuleVector.size() + O.E.FunctionVectors.size() +
                                     O.E.BlockVectors.size() + O.E.InstVectors.size());
        if (++SinceCheckpoint >= 64 || BytesSinceCheckpoint >= (64u << 20))
          return SaveCheckpoint();
        return llvm::Error::success();
      });
  if (E) {
    // The partial file and state stay for --resume, once there is a checkpoint to resume
    // from; before the first, the partial file is of no use.
    if (!llvm::sys::fs::exists(StatePath))
      Out.discard();
    return E;
  }
  P.clear();
  Run.Rows = W->rows();
  if (llvm::Error X = W->close())
    return X;
  Run.Summary = corpus::BatchSummary{Now.Modules, Now.Failed};
  Run.FunctionFound = Now.FunctionFound;
  llvm::sys::fs::remove(StatePath);
  if (Now.Failed == Now.Modules || (J.FunctionName && !Now.FunctionFound)) {
    Out.discard(); // nothing usable: leave no output behind
    return Run;
  }
  if (llvm::Error X = Out.commit())
    return X;
  return Run;
}

namespace {

// How a run ended, for the exit status: an unknown --function is an error of its own (when
// some module could be read to look for it).
llvm::Expected<support::Outcome> outcomeOf(const EmbeddingJob &J, const EmbeddingRun &R) {
  if (J.FunctionName && !R.FunctionFound && R.Summary.Failed < R.Summary.Modules)
    return support::makeError("function '" + *J.FunctionName + "' not found in " +
                              (J.Inputs.size() == 1
                                   ? "'" + J.Inputs[0] + "'"
                                   : "any of the " + std::to_string(J.Inputs.size()) +
                                         " inputs"));
  return corpus::outcomeOf(R.Summary);
}

std::string rowSummary(const EmbeddingJob &J, const EmbeddingRun &R) {
  std::string S = J.Output + ": " + std::to_string(R.Rows.Modules) + " modules";
  if (R.Summary.Failed)
    S += " (" + std::to_string(R.Summary.Failed) + " failed)";
  if (hasFunctionRows(J.Granularity))
    S += ", " + std::to_string(R.Rows.Functions) + " functions";
  if (J.Header.levels().Blocks)
    S += ", " + std::to_string(R.Rows.Blocks) + " blocks";
  if (J.Header.levels().Instructions)
    S += ", " + std::to_string(R.Rows.Instructions) + " instructions";
  return S + (J.Header.Counts ? " (entity counts)" : "");
}

} // namespace

llvm::Expected<support::Outcome> runEmbeddings(const EmbeddingJob &J, const corpus::BatchIO &IO) {
  if (llvm::Error E = J.validate())
    return E;
  if (corpus::serving(IO)) { // another rank of an MPI run: works for rank 0, writes nothing
    if (J.Format == OutputFormat::HDF5)
      return support::outcomeOf(embedModules(
          J, J.Header.levels(), J.Header.InstructionText, 0, IO,
          [](size_t, EmbeddedModule &&) { return llvm::Error::success(); }));
    return support::outcomeOf(runEmbeddingsText(J, llvm::nulls(), IO).takeError());
  }
  if (J.Format == OutputFormat::HDF5) {
    auto R = runEmbeddingsHDF5(J, IO);
    if (!R)
      return R.takeError();
    auto O = outcomeOf(J, *R);
    if (O)
      IO.Run.Report({support::Diagnostic::Summary, rowSummary(J, *R)});
    return O;
  }
  auto Out = support::AtomicOutput::create(J.Output);
  if (!Out)
    return Out.takeError();
  auto R = runEmbeddingsText(J, Out->os(), IO);
  if (!R)
    return R.takeError();
  auto O = outcomeOf(J, *R);
  if (!O)
    return O.takeError(); // no output under J.Output
  if (llvm::Error E = Out->commit())
    return E;
  return O;
}

} // namespace wb::ir2vec
