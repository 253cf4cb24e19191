#include "ir2vec/EmbeddingBatch.h"

#include "vocab/IO.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"

namespace wb::ir2vec {

vocab::ContextPolicy contextPolicyFor(Level L) {
  vocab::ContextPolicy P;
  P.ReuseContext = L == Level::Inst ? 1 : 32;
  P.DiscardValueNames = L == Level::Func;
  return P;
}

const vocab::Vocabulary &countingVocabulary() {
  // Immutable after construction (thread-safe static initialisation).
  static const vocab::Vocabulary Identity = [] {
    std::vector<double> Rows(size_t(vocab::NumEntities) * vocab::NumEntities, 0.0);
    for (vocab::EntityId E = 0; E < vocab::NumEntities; ++E)
      Rows[size_t(E) * vocab::NumEntities + E] = 1.0;
    return std::move(*vocab::Vocabulary::fromUnweightedRows(std::move(Rows), vocab::NumEntities,
                                                            vocab::Weights{1.0f, 1.0f, 1.0f}));
  }();
  return Identity;
}

namespace {

struct Outcome {
  std::string Error;
  std::vector<std::string> Warnings;
  ModuleEmbedding E;
};

Outcome embedOne(const EmbeddingJob &J, const LevelSet &Levels, bool Text,
                 const std::string &Path, llvm::LLVMContext &Ctx) {
  Outcome O;
  auto In = vocab::readModule(Path, Ctx);
  if (!In) {
    O.Error = llvm::toString(In.takeError());
    return O;
  }
  O.Warnings = std::move(In->Warnings);
  O.E = embedModule(*In->M, *J.Vocab, EmbedRequest{J.EmbeddingKind, Levels, J.FunctionName, Text});
  return O;
}

// ---- resume state ---------------------------------------------------------------------------

struct Checkpoint {
  uint64_t Modules = 0, Failed = 0;
  bool FunctionFound = false;
  RowCounts Rows;
  DatasetChecksums Sums{};
};

std::string fingerprint(const EmbeddingJob &J) {
  llvm::SHA256 H;
  auto Add = [&](llvm::StringRef S) {
    H.update(S);
    H.update(llvm::StringRef("\0", 1));
  };
  const FileHeader &F = J.Header;
  Add(F.ToolVersion);
  Add(F.LLVMVersion);
  Add(F.Counts ? "counts" : "embeddings");
  Add(F.Method);
  Add(kindName(F.EmbeddingKind));
  Add(levelName(F.Granularity));
  Add(std::to_string(F.Dimension));
  Add(F.InstructionText ? "instruction text" : "no instruction text");
  for (float W : {F.W.Opcode, F.W.Type, F.W.Arg})
    Add(llvm::formatv("{0:x}", llvm::bit_cast<uint32_t>(W)).str());
  Add(F.VocabSHA256);
  Add(J.FunctionName ? "function:" + *J.FunctionName : "all functions");
  Add(std::to_string(J.Compress));
  for (const std::string &P : J.Inputs)
    Add(P);
  return llvm::toHex(H.final(), /*LowerCase=*/true);
}

llvm::Error writeState(const std::string &Path, const std::string &Fingerprint,
                       const Checkpoint &C) {
  llvm::json::Array Sums;
  for (uint64_t X : C.Sums)
    Sums.push_back(llvm::utohexstr(X, /*LowerCase=*/true));
  llvm::json::Object O{
      {"schema", "ir2vec.resume/1"},
      {"fingerprint", Fingerprint},
      {"modules", static_cast<int64_t>(C.Modules)},
      {"failed", static_cast<int64_t>(C.Failed)},
      {"function_found", C.FunctionFound},
      {"rows", llvm::json::Array{static_cast<int64_t>(C.Rows.Modules),
                                 static_cast<int64_t>(C.Rows.Functions),
                                 static_cast<int64_t>(C.Rows.Blocks),
                                 static_cast<int64_t>(C.Rows.Instructions)}},
      {"checksums", std::move(Sums)},
  };
  auto Out = vocab::AtomicOutput::create(Path);
  if (!Out)
    return Out.takeError();
  Out->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(O))) << "\n";
  return Out->commit();
}

llvm::Expected<Checkpoint> readState(const std::string &Path, const std::string &Fingerprint) {
  auto Bad = [&](const llvm::Twine &Why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), (Path + ": " + Why).str());
  };
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return Bad("cannot read: " + Buf.getError().message());
  auto J = llvm::json::parse((*Buf)->getBuffer());
  if (!J)
    return Bad("invalid JSON: " + llvm::toString(J.takeError()));
  const llvm::json::Object *O = J->getAsObject();
  if (!O || O->getString("schema") != llvm::StringRef("ir2vec.resume/1"))
    return Bad("not an ir2vec.resume/1 state file");
  if (O->getString("fingerprint") != llvm::StringRef(Fingerprint))
    return Bad("the interrupted run used different options or inputs");
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

llvm::Expected<EmbeddingRun> runEmbeddingsText(const EmbeddingJob &J, llvm::raw_ostream &OS,
                                               const vocab::BatchIO &IO) {
  const LevelSet Levels = textLevels(J.Granularity);
  std::atomic<bool> Found{false};
  auto S = vocab::runTextBatch(
      J.Inputs, OS, IO, [&](const std::string &Path, llvm::LLVMContext &Ctx) {
        Outcome O = embedOne(J, Levels, /*Text=*/true, Path, Ctx);
        vocab::ModuleText T{std::move(O.Error), std::move(O.Warnings), {}};
        if (T.Error.empty()) {
          if (!O.E.SelectedNotFound)
            Found = true;
          renderText(T.Text, O.E, J.Granularity, J.Precision, J.FunctionName);
        }
        return T;
      });
  if (!S)
    return S.takeError();
  return EmbeddingRun{*S, Found.load(), false, 0};
}

llvm::Expected<EmbeddingRun> runEmbeddingsHDF5(const EmbeddingJob &J, const vocab::BatchIO &IO) {
  const std::string Partial = J.Output + ".partial", StatePath = J.Output + ".resume";
  const std::string Print = fingerprint(J);
  const LevelSet Levels = J.Header.levels();
  EmbeddingRun Run;
  Checkpoint Done;

  std::optional<EmbeddingFileWriter> W;
  if (J.Resume && llvm::sys::fs::exists(StatePath)) {
    auto C = readState(StatePath, Print);
    llvm::Expected<EmbeddingFileWriter> R =
        C ? EmbeddingFileWriter::resume(Partial, J.Header, C->Rows, C->Sums)
          : llvm::Expected<EmbeddingFileWriter>(C.takeError());
    if (R) {
      W.emplace(std::move(*R));
      Done = *C;
      Run.Resumed = true;
      Run.ResumedModules = Done.Modules;
    } else {
      IO.Report({false, "cannot resume (" + llvm::toString(R.takeError()) + "); starting over"});
    }
  } else if (!J.Resume && llvm::sys::fs::exists(StatePath)) {
    IO.Report({false, StatePath + ": discarding an interrupted run (use --resume to continue "
                                  "one)"});
  }
  if (!W) {
    Done = Checkpoint{};
    llvm::sys::fs::remove(StatePath); // a stale state must not describe the new partial file
    auto C = EmbeddingFileWriter::create(Partial, J.Header, J.Compress);
    if (!C)
      return C.takeError();
    W.emplace(std::move(*C));
  }

  vocab::Progress P("modules", J.Inputs.size(), IO.ShowProgress);
  P.update(Done.Modules);
  Checkpoint Now = Done;
  uint64_t SinceCheckpoint = 0, BytesSinceCheckpoint = 0;
  auto SaveCheckpoint = [&]() -> llvm::Error {
    if (llvm::Error E = W->flush())
      return E;
    Now.Rows = W->rows();
    Now.Sums = W->checksums();
    SinceCheckpoint = BytesSinceCheckpoint = 0;
    return writeState(StatePath, Print, Now);
  };

  vocab::OrderedPipeline<Outcome> Pipe(IO.Jobs, vocab::defaultWindow(IO.Jobs), IO.Policy);
  llvm::Error E = Pipe.run(
      Done.Modules, J.Inputs.size(),
      [&](size_t I, llvm::LLVMContext &Ctx) {
        return embedOne(J, Levels, J.Header.InstructionText, J.Inputs[I], Ctx);
      },
      [&](size_t I, Outcome &&O) -> llvm::Error {
        if (vocab::reportModule(IO, P, O.Warnings, O.Error)) {
          ++Now.Failed;
        } else if (!O.E.SelectedNotFound) {
          Now.FunctionFound = true;
        }
        const bool OK = O.Error.empty();
        if (llvm::Error X = W->append(J.Inputs[I], O.Error, OK ? &O.E : nullptr))
          return X;
        ++Now.Modules;
        P.update(Now.Modules);
        BytesSinceCheckpoint += 8 * (O.E.FunctionVectors.size() + O.E.BlockVectors.size() +
                                     O.E.InstVectors.size());
        if (++SinceCheckpoint >= 64 || BytesSinceCheckpoint >= (64u << 20))
          return SaveCheckpoint();
        return llvm::Error::success();
      });
  if (E)
    return E; // the partial file and state stay for --resume
  P.clear();
  if (llvm::Error X = W->close())
    return X;
  Run.Summary = vocab::BatchSummary{Now.Modules, Now.Failed};
  Run.FunctionFound = Now.FunctionFound;
  llvm::sys::fs::remove(StatePath);
  if (Now.Failed == Now.Modules || (J.FunctionName && !Now.FunctionFound)) {
    llvm::sys::fs::remove(Partial); // nothing usable: leave no output behind
    return Run;
  }
  if (std::error_code EC = llvm::sys::fs::rename(Partial, J.Output))
    return llvm::createStringError(EC, J.Output + ": cannot move output into place: " +
                                           EC.message());
  return Run;
}

} // namespace wb::ir2vec
