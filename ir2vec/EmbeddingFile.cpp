#include "ir2vec/EmbeddingFile.h"

#include "llvm/Support/MathExtras.h"

#include "corpus/H5.h"
#include "support/Files.h"
#include "support/Error.h"
#include "vocab/EntityLayout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstring>
#include <unistd.h>

namespace wb::ir2vec {
namespace {

using namespace wb::corpus::h5;

// ---- the schema, as one table ----------------------------------------------------------

enum class Table { Modules, Functions, Blocks, Instructions };
enum class ColType { Str, I64, F64 };
struct ColumnSpec {
  Table T;
  const char *Path; // "<data>" stands for "embedding" or "counts"
  ColType Type;
};
constexpr ColumnSpec Columns[] = {
    {Table::Modules, "/modules/path", ColType::Str},
    {Table::Modules, "/modules/error", ColType::Str},
    {Table::Modules, "/modules/<data>", ColType::F64}, // from schema version 2
    {Table::Functions, "/functions/name", ColType::Str},
    {Table::Functions, "/functions/module", ColType::I64},
    {Table::Functions, "/functions/<data>", ColType::F64},
    {Table::Blocks, "/blocks/name", ColType::Str},
    {Table::Blocks, "/blocks/function", ColType::I64},
    {Table::Blocks, "/blocks/<data>", ColType::F64},
    {Table::Instructions, "/instructions/text", ColType::Str},
    {Table::Instructions, "/instructions/opcode", ColType::I64},
    {Table::Instructions, "/instructions/function", ColType::I64},
    {Table::Instructions, "/instructions/block", ColType::I64},
    {Table::Instructions, "/instructions/<data>", ColType::F64},
};
constexpr size_t NumColumns = std::size(Columns);
static_assert(NumColumns == std::tuple_size<DatasetChecksums>::value);
enum ColumnIndex : size_t {
  ModPath, ModError, ModData, FnName, FnModule, FnData, BBName, BBFunction, BBData,
  InstText, InstOpcode, InstFunction, InstBlock, InstData
};
constexpr const char *Groups[] = {"/modules", "/functions", "/blocks", "/instructions"};

std::string columnPath(const ColumnSpec &C, bool Counts) {
  std::string P = C.Path;
  size_t At = P.find("<data>");
  if (At != std::string::npos)
    P.replace(At, 6, Counts ? "counts" : "embedding");
  return P;
}

bool tablePresent(Table T, const FileHeader &H) {
  const LevelSet L = H.levels();
  switch (T) {
  case Table::Modules: return true;
  case Table::Functions: return hasFunctionRows(H.Granularity);
  case Table::Blocks: return L.Blocks;
  case Table::Instructions: return L.Instructions;
  }
  return false;
}

// Whether column C exists in a file with header H.
bool columnPresent(size_t C, const FileHeader &H) {
  return tablePresent(Columns[C].T, H) && (C != InstText || H.InstructionText) &&
         (C != ModData || H.SchemaVersion >= 2);
}

uint64_t chain(uint64_t H, const void *Row, size_t Bytes) {
  const uint64_t R =
      llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(static_cast<const uint8_t *>(Row), Bytes));
  return (H ^ R) * 0x9E3779B97F4A7C15ull + 1; // order-dependent combination
}

uint64_t hashRows(uint64_t H, const void *Data, size_t Rows, size_t RowBytes) {
  const char *P = static_cast<const char *>(Data);
  for (size_t I = 0; I < Rows; ++I)
    H = chain(H, P + I * RowBytes, RowBytes);
  return H;
}

void writeHeader(H5::H5File &F, const FileHeader &H) {
  for (const HeaderAttribute &A : headerAttributes(H))
    std::visit([&](const auto &V) { writeAttr(F, A.Name.c_str(), V); }, A.Value);
}

llvm::Expected<FileHeader> readHeader(H5::H5File &F, const std::string &Path) {
  FileHeader H;
  const std::string Schema = readStrAttr(F, "schema");
  bool Known = false;
  for (unsigned Version = 1; Version <= CurrentSchemaVersion; ++Version)
    for (bool Counts : {false, true}) {
      FileHeader X;
      X.SchemaVersion = Version;
      X.Counts = Counts;
      if (Schema == X.schema()) {
        Known = true;
        H.SchemaVersion = Version;
        H.Counts = Counts;
      }
    }
  if (!Known)
    return support::fileError(Path, "unknown schema '" + Schema + "' (expected " +
                                        EmbeddingsSchema + " or " + CountsSchema +
                                        ", or their versions 1 and 2)");
  if (H.SchemaVersion >= 3) {
    auto M = parseIRMode(readStrAttr(F, "mode"));
    if (!M)
      return support::fileError(Path, llvm::toString(M.takeError()));
    H.Mode = *M;
    if (H.Mode == IRMode::MIR) {
      H.Target = readStrAttr(F, "target");
      H.Stage = readStrAttr(F, "mir_stage");
    }
  }
  if (H.SchemaVersion >= 4) {
    if (H.Mode == IRMode::MIR) {
      H.CPU = readStrAttr(F, "mcpu");
      H.Features = readStrAttr(F, "mattr");
    }
    auto Opt = corpus::parseOptChoice(readStrAttr(F, "opt_level"));
    if (!Opt)
      return support::fileError(Path, "attribute opt_level: " + llvm::toString(Opt.takeError()));
    H.Opt = *Opt;
  }
  const IRModeInfo &Mode = modeInfo(H.Mode);
  auto K = parseKind(readStrAttr(F, "kind"));
  if (!K)
    return K.takeError();
  auto L = parseLevel(readStrAttr(F, "level"));
  if (!L)
    return L.takeError();
  H.EmbeddingKind = *K;
  H.Granularity = *L;
  if (H.SchemaVersion < 2 && H.Granularity == Level::Module)
    return support::fileError(Path, "level 'module' in a version 1 file (it came with version 2)");
  H.Dimension = static_cast<unsigned>(readNumAttr<int64_t>(F, "dimension", H5::PredType::NATIVE_INT64));
  H.InstructionText = readNumAttr<int64_t>(F, "instruction_text", H5::PredType::NATIVE_INT64) != 0;
  if (!H.Counts) {
    H.Method = readStrAttr(F, "method");
    float *Slots[] = {&H.W.Opcode, &H.W.Type, &H.W.Arg};
    for (size_t I = 0; I < 3; ++I)
      *Slots[I] = static_cast<float>(
          readNumAttr<double>(F, Mode.WeightAttributes[I], H5::PredType::NATIVE_DOUBLE));
    H.VocabSHA256 = readStrAttr(F, "vocab_sha256");
  }
  H.LLVMVersion = readStrAttr(F, "llvm_version");
  H.ToolVersion = readStrAttr(F, "tool_version");
  return H;
}

// ---- reading rows -----------------------------------------------------------------------

uint64_t hashString(uint64_t H, const std::string &S) { return chain(H, S.data(), S.size()); }

} // namespace

LevelSet FileHeader::levels() const { return levelsAt(Granularity); }

std::vector<HeaderAttribute> headerAttributes(const FileHeader &H) {
  const IRModeInfo &Mode = modeInfo(H.Mode);
  std::vector<HeaderAttribute> A;
  auto Add = [&](const char *Name, std::variant<std::string, int64_t, double> V) {
    A.push_back({Name, std::move(V)});
  };
  Add("schema", H.schema());
  Add("mode", std::string(Mode.Name));
  Add("opt_level", corpus::optChoiceName(H.Opt));
  if (H.Mode == IRMode::MIR) {
    Add("target", H.Target);
    Add("mcpu", H.CPU);
    Add("mattr", H.Features);
    Add("mir_stage", H.Stage);
  }
  if (!H.Counts)
    Add("method", H.Method);
  Add("kind", kindName(H.EmbeddingKind).str());
  Add("level", levelName(H.Granularity).str());
  Add("dimension", static_cast<int64_t>(H.Dimension));
  Add("instruction_text", static_cast<int64_t>(H.InstructionText));
  if (!H.Counts) {
    const float Slots[] = {H.W.Opcode, H.W.Type, H.W.Arg};
    for (size_t I = 0; I < 3; ++I)
      Add(Mode.WeightAttributes[I], static_cast<double>(Slots[I]));
    Add("vocab_sha256", H.VocabSHA256);
  }
  Add("llvm_version", H.LLVMVersion);
  Add("tool_version", H.ToolVersion);
  return A;
}

bool FileHeader::sameRows(const FileHeader &H) const {
  return Dimension == H.Dimension && Counts == H.Counts && SchemaVersion == H.SchemaVersion &&
         Granularity == H.Granularity && EmbeddingKind == H.EmbeddingKind && Mode == H.Mode &&
         Target == H.Target && Stage == H.Stage && CPU == H.CPU && Features == H.Features &&
         Opt == H.Opt;
}

std::string FileHeader::schema() const {
  return std::string(Counts ? "ir2vec.counts/" : "ir2vec.embeddings/") +
         std::to_string(SchemaVersion);
}

// ---- writer -----------------------------------------------------------------------------

struct EmbeddingFileWriter::Impl {
  // A write failed (a full disk, a file-size limit): libhdf5 1.10 then cannot close the file,
  // and closing it again (our destructors, its own termination) crashes it. Such a file is
  // abandoned as it is: its last checkpoint is what --resume continues from.
  bool Broken = false;
  std::string Path;
  FileHeader H;
  H5::H5File File;
  struct Col {
    bool Present = false;
    H5::DataSet DS;
    uint64_t Rows = 0;    // appended (on disk or pending)
    uint64_t Written = 0; // on disk
    uint64_t Sum = 0;
    // Rows appended but not written yet, of the column's type.
    std::vector<std::string> PendingStr;
    std::vector<int64_t> PendingInt;
    std::vector<double> PendingF64;
  };
  std::array<Col, NumColumns> Cols;
  // Rows are gathered and written a few MiB at a time: one HDF5 write per dataset and module
  // cost more than the rows themselves at function level (6 writes of a few hundred bytes per
  // module; the consumer of a run competes with its workers for the cores).
  static constexpr size_t PendingLimit = size_t(4) << 20;
  // Vectors of a module at least this large go to the file at once (one write of them is
  // efficient, and copying them into the pending rows first cost a copy of every byte).
  static constexpr size_t DirectWrite = size_t(256) << 10;
  size_t PendingBytes = 0;
  std::vector<const char *> StrBuf;
  std::vector<int64_t> IntBuf;
  // Type-conversion buffers handed to HDF5: without them every string write makes HDF5
  // calloc and zero a 1 MiB buffer, which cost more than everything else we write.
  std::vector<char> Tconv, Bkg;

  unsigned width(size_t C) const { return Columns[C].Type == ColType::F64 ? H.Dimension : 1; }

  void extendTo(size_t C, uint64_t NewRows) {
    hsize_t Dims[2] = {NewRows, width(C)};
    Cols[C].DS.extend(Dims);
  }

  /// Writes N rows after the written ones (the pending ones first).
  void writeRows(size_t C, const void *Data, uint64_t N, const H5::DataType &MemType) {
    Col &X = Cols[C];
    extendTo(C, X.Written + N);
    H5::DataSpace FS = X.DS.getSpace();
    hsize_t Off[2] = {X.Written, 0}, Cnt[2] = {N, width(C)};
    const int Rank = Columns[C].Type == ColType::F64 ? 2 : 1;
    FS.selectHyperslab(H5S_SELECT_SET, Cnt, Off);
    H5::DataSpace MS(Rank, Cnt);
    H5::DSetMemXferPropList DXPL;
    const size_t Bytes = std::max<size_t>(4096, N * width(C) * 16);
    if (Tconv.size() < Bytes) {
      Tconv.resize(Bytes);
      Bkg.resize(Bytes);
    }
    DXPL.setBuffer(Bytes, Tconv.data(), Bkg.data());
    X.DS.write(Data, MemType, MS, FS, DXPL);
    X.Written += N;
  }

  /// Writes every pending row (before a checkpoint, at the end, or when they fill the buffer).
  void writePending() {
    for (size_t C = 0; C < NumColumns; ++C) {
      Col &X = Cols[C];
      if (!X.PendingStr.empty()) {
        StrBuf.clear();
        for (const std::string &S : X.PendingStr)
          StrBuf.push_back(S.c_str());
        writeRows(C, StrBuf.data(), StrBuf.size(), stringType());
        X.PendingStr.clear();
      }
      if (!X.PendingInt.empty()) {
        writeRows(C, X.PendingInt.data(), X.PendingInt.size(), H5::PredType::NATIVE_INT64);
        X.PendingInt.clear();
      }
      if (!X.PendingF64.empty()) {
        writeRows(C, X.PendingF64.data(), X.PendingF64.size() / H.Dimension,
                  H5::PredType::NATIVE_DOUBLE);
        X.PendingF64.clear();
      }
    }
    PendingBytes = 0;
  }

  void pend(size_t C, size_t Rows, size_t Bytes) {
    Cols[C].Rows += Rows;
    PendingBytes += Bytes;
    if (PendingBytes >= PendingLimit)
      writePending();
  }

  void appendStrings(size_t C, const std::vector<std::string> &V) {
    size_t Bytes = 0;
    for (const std::string &S : V) {
      Cols[C].Sum = hashString(Cols[C].Sum, S);
      Cols[C].PendingStr.push_back(S);
      Bytes += S.size() + sizeof(std::string);
    }
    pend(C, V.size(), Bytes);
  }

  void appendInts(size_t C, const std::vector<int64_t> &V) {
    Cols[C].Sum = hashRows(Cols[C].Sum, V.data(), V.size(), sizeof(int64_t));
    Cols[C].PendingInt.insert(Cols[C].PendingInt.end(), V.begin(), V.end());
    pend(C, V.size(), V.size() * sizeof(int64_t));
  }

  void appendDoubles(size_t C, const std::vector<double> &V) {
    const size_t N = V.size() / H.Dimension;
    Cols[C].Sum = hashRows(Cols[C].Sum, V.data(), N, H.Dimension * sizeof(double));
    if (V.size() * sizeof(double) >= DirectWrite) { // a large module: written without a copy
      writePending();
      writeRows(C, V.data(), N, H5::PredType::NATIVE_DOUBLE);
      Cols[C].Rows += N;
      return;
    }
    Cols[C].PendingF64.insert(Cols[C].PendingF64.end(), V.begin(), V.end());
    pend(C, N, V.size() * sizeof(double));
  }

  // Global row numbers: local index + the table's first row for this module.
  const std::vector<int64_t> &offset(const std::vector<int64_t> &Local, int64_t Base) {
    IntBuf.resize(Local.size());
    for (size_t I = 0; I < Local.size(); ++I)
      IntBuf[I] = Local[I] < 0 ? -1 : Local[I] + Base;
    return IntBuf;
  }
};

EmbeddingFileWriter::EmbeddingFileWriter(std::unique_ptr<Impl> I) : P(std::move(I)) {}
EmbeddingFileWriter::EmbeddingFileWriter(EmbeddingFileWriter &&) noexcept = default;
EmbeddingFileWriter &EmbeddingFileWriter::operator=(EmbeddingFileWriter &&) noexcept = default;
EmbeddingFileWriter::~EmbeddingFileWriter() {
  if (P)
    llvm::consumeError(close());
}

llvm::Expected<EmbeddingFileWriter> EmbeddingFileWriter::create(const std::string &Path,
                                                                const FileHeader &H,
                                                                unsigned Compress,
                                                                uint64_t Modules) {
  H5::Exception::dontPrint();
  auto I = std::make_unique<Impl>();
  I->Path = Path;
  I->H = H;
  try {
    H5::FileCreatPropList FCPL;
    // Never reuse freed file space: data a checkpoint recorded is then never overwritten by
    // later writes, so an interrupted run can be resumed from its last checkpoint.
    H5Pset_file_space_strategy(FCPL.getId(), H5F_FSPACE_STRATEGY_NONE, false, 1);
    noTimes(FCPL.getId()); // the root group's times (it holds the attributes)
    I->File = H5::H5File(Path, H5F_ACC_TRUNC, FCPL);
    writeHeader(I->File, H);
    hid_t GCPL = H5Pcreate(H5P_GROUP_CREATE);
    noTimes(GCPL);
    for (size_t T = 0; T < 4; ++T)
      if (tablePresent(static_cast<Table>(T), H))
        H5Gclose(H5Gcreate2(I->File.getId(), Groups[T], H5P_DEFAULT, GCPL, H5P_DEFAULT));
    H5Pclose(GCPL);
    for (size_t C = 0; C < NumColumns; ++C) {
      if (!columnPresent(C, H))
        continue;
      const ColType Ty = Columns[C].Type;
      const hsize_t W = Ty == ColType::F64 ? H.Dimension : 1;
      // About 256 KiB per chunk of data, 64 KiB per chunk of an index column; fewer rows when
      // the run holds fewer (HDF5 allocates whole chunks: a 7-module file took 541 KB). Rows
      // per module, from the shared corpus: functions 14, blocks 60, instructions 490.
      constexpr hsize_t PerModule[] = {1, 16, 64, 512};
      hsize_t ChunkRows = Ty == ColType::F64 ? std::max<hsize_t>(16, (256 * 1024) / (W * 8)) : 8192;
      if (Modules)
        ChunkRows = std::min(ChunkRows, std::max<hsize_t>(16, llvm::PowerOf2Ceil(
                                                                  Modules * PerModule[size_t(Columns[C].T)])));
      hsize_t Dims[2] = {0, W}, Max[2] = {H5S_UNLIMITED, W}, Chunk[2] = {ChunkRows, W};
      const int Rank = Ty == ColType::F64 ? 2 : 1;
      H5::DataSpace Space(Rank, Dims, Max);
      H5::DSetCreatPropList DCPL;
      DCPL.setChunk(Rank, Chunk);
      noTimes(DCPL.getId());
      // Every row is written before it becomes visible: don't pre-fill new chunks (HDF5
      // insists on filling variable-length strings).
      if (Ty != ColType::Str)
        H5Pset_fill_time(DCPL.getId(), H5D_FILL_TIME_NEVER);
      if (Ty == ColType::I64 || (Ty == ColType::F64 && Compress > 0)) {
        DCPL.setShuffle();
        DCPL.setDeflate(Ty == ColType::I64 ? 1 : std::min(Compress, 9u));
      }
      const H5::DataType &FileType =
          Ty == ColType::Str ? static_cast<const H5::DataType &>(stringType())
          : Ty == ColType::I64 ? static_cast<const H5::DataType &>(H5::PredType::STD_I64LE)
                               : static_cast<const H5::DataType &>(H5::PredType::IEEE_F64LE);
      I->Cols[C].Present = true;
      I->Cols[C].DS = I->File.createDataSet(columnPath(Columns[C], H.Counts), FileType, Space, DCPL);
    }
    {
      // Names of entity ids (instructions/opcode) and of the columns of counts.
      hid_t G = H5Pcreate(H5P_GROUP_CREATE);
      noTimes(G);
      H5Gclose(H5Gcreate2(I->File.getId(), "/entities", H5P_DEFAULT, G, H5P_DEFAULT));
      H5Pclose(G);
      std::vector<std::string> Names = H.EntityNames;
      if (Names.empty())
        for (vocab::EntityId E = 0; E < vocab::NumEntities; ++E)
          Names.emplace_back(vocab::entityName(E));
      std::vector<const char *> Ptrs;
      for (const std::string &N : Names)
        Ptrs.push_back(N.c_str());
      hsize_t N[1] = {Names.size()};
      H5::DSetCreatPropList DCPL;
      noTimes(DCPL.getId());
      I->File.createDataSet("/entities/name", stringType(), H5::DataSpace(1, N), DCPL)
          .write(Ptrs.data(), stringType());
    }
  } catch (const H5::Exception &E) {
    return h5Error(Path, E);
  }
  return EmbeddingFileWriter(std::move(I));
}

namespace {

/// A run that failed writing (a full disk, a file-size limit) may leave a file shorter than the
/// end its superblock (version 2 or 3, as 1.10 writes ours) records: the failed flush wrote the
/// superblock but could not extend the file. libhdf5 refuses to open such a file ("truncated
/// file"); the checkpointed rows are all inside it, so the file is extended with zeros to the
/// recorded end. Only ever applied to our own partial file.
void extendToRecordedEnd(const std::string &Path) {
  auto Head = llvm::MemoryBuffer::getFileSlice(Path, 36, 0);
  if (!Head || (*Head)->getBufferSize() < 36)
    return;
  const llvm::StringRef B = (*Head)->getBuffer();
  if (!B.starts_with("\x89HDF\r\n\x1a\n") || (B[8] != 2 && B[8] != 3) || B[9] != 8)
    return;
  auto LE64 = [&](size_t At) {
    uint64_t V = 0;
    for (int I = 7; I >= 0; --I)
      V = V << 8 | uint8_t(B[At + I]);
    return V;
  };
  const uint64_t End = LE64(12) + LE64(28); // base address + end-of-file address
  uint64_t Size = 0;
  if (!llvm::sys::fs::file_size(Path, Size) && Size < End && End - Size < (uint64_t(1) << 40))
    (void)::truncate(Path.c_str(), off_t(End));
}

} // namespace

llvm::Expected<EmbeddingFileWriter>
EmbeddingFileWriter::resume(const std::string &Path, const FileHeader &H, unsigned Compress,
                            uint64_t Modules, const RowCounts &Keep,
                            const DatasetChecksums &Expected, double IsolatedSeconds) {
  // Rows past the checkpoint may be half-written (the run was killed mid-write), and cutting
  // them off in place made libhdf5 fail ("H5Dwrite failed") or crash in H5HG_remove on the
  // variable-length strings of a few percent of killed runs. So the checkpointed rows are
  // copied into a fresh file, in a child process (the damaged file is outside data now), and
  // the copy replaces the partial file only when its checksums are the checkpoint's.
  //
  // The copy is a pending file beside the partial file (PATH.tmp-XXXXXXXX, removed on failure
  // and by an interrupt) that the child writes through its inherited descriptor: an interrupt
  // that removes the name before the child has opened it cannot leave a file the child would
  // then create under that name.
  auto Fail = [&](const llvm::Twine &Why) {
    return support::fileError(Path, "cannot resume: " + Why);
  };
  llvm::Expected<support::PendingFile> CopyFile =
      support::PendingFile::create(Path, support::PendingFile::Use::Path);
  if (!CopyFile)
    return CopyFile.takeError();
  const std::string Copy = "/proc/self/fd/" + std::to_string(CopyFile->fd());
  extendToRecordedEnd(Path);
  llvm::Error Copied = support::checkIsolated(Path, IsolatedSeconds, [&]() -> llvm::Error {
    H5::Exception::dontPrint();
    try {
      H5::H5File Old(Path, H5F_ACC_RDONLY);
      auto Got = readHeader(Old, Path);
      if (!Got)
        return Got.takeError();
      if (!Got->sameRows(H))
        return Fail("the partial file was written with different options");
      auto W = create(Copy, H, Compress, Modules);
      if (!W)
        return W.takeError();
      Impl &I = *W->P;
      const uint64_t KeepRows[] = {Keep.Modules, Keep.Functions, Keep.Blocks, Keep.Instructions};
      for (size_t C = 0; C < NumColumns; ++C) {
        if (!I.Cols[C].Present)
          continue;
        H5::DataSet DS = Old.openDataSet(columnPath(Columns[C], H.Counts));
        const uint64_t Want = KeepRows[static_cast<size_t>(Columns[C].T)];
        if (extentOf(DS) < Want)
          return Fail(llvm::formatv("{0} has fewer rows than the checkpoint recorded",
                                    columnPath(Columns[C], H.Counts)));
        for (uint64_t R = 0, Block = 65536; R < Want; R += Block) {
          const uint64_t N = std::min(Block, Want - R);
          switch (Columns[C].Type) {
          case ColType::Str:
            I.appendStrings(C, readStrings(DS, R, N));
            break;
          case ColType::I64:
            I.appendInts(C, readNumbers<int64_t>(DS, H5::PredType::NATIVE_INT64, R, N, 1));
            break;
          case ColType::F64:
            I.appendDoubles(C, readNumbers<double>(DS, H5::PredType::NATIVE_DOUBLE, R, N,
                                                   H.Dimension));
            break;
          }
        }
        if (I.Cols[C].Sum != Expected[C])
          return Fail(columnPath(Columns[C], H.Counts) +
                      " does not match its checkpoint checksum");
      }
      return W->close();
    } catch (const H5::Exception &E) {
      return Fail(E.getDetailMsg());
    }
  });
  if (Copied)
    return Copied; // the pending copy goes with CopyFile
  if (llvm::Error E = CopyFile->commit())
    return Fail("cannot replace the partial file: " + llvm::toString(std::move(E)));
  return reopen(Path, H, Keep, Expected);
}

llvm::Expected<EmbeddingFileWriter>
EmbeddingFileWriter::reopen(const std::string &Path, const FileHeader &H, const RowCounts &Keep,
                            const DatasetChecksums &Expected) {
  H5::Exception::dontPrint();
  auto I = std::make_unique<Impl>();
  I->Path = Path;
  I->H = H;
  auto Fail = [&](const llvm::Twine &Why) {
    return support::fileError(Path, "cannot resume: " + Why);
  };
  try {
    I->File = H5::H5File(Path, H5F_ACC_RDWR);
    auto Got = readHeader(I->File, Path);
    if (!Got)
      return Got.takeError();
    if (!Got->sameRows(H))
      return Fail("the partial file was written with different options");
    const uint64_t KeepRows[] = {Keep.Modules, Keep.Functions, Keep.Blocks, Keep.Instructions};
    for (size_t C = 0; C < NumColumns; ++C) {
      if (!columnPresent(C, H))
        continue;
      Impl::Col &X = I->Cols[C];
      X.Present = true;
      X.DS = I->File.openDataSet(columnPath(Columns[C], H.Counts));
      const uint64_t Want = KeepRows[static_cast<size_t>(Columns[C].T)];
      if (extentOf(X.DS) < Want)
        return Fail(llvm::formatv("{0} has fewer rows than the checkpoint recorded",
                                  columnPath(Columns[C], H.Counts)));
      if (extentOf(X.DS) != Want)
        return Fail(llvm::formatv("{0} does not have the checkpoint's rows",
                                  columnPath(Columns[C], H.Counts)));
      X.Rows = X.Written = Want;
      // Re-read the kept rows and check them against the checkpoint's checksum.
      const uint64_t Block = 65536;
      for (uint64_t R = 0; R < Want; R += Block) {
        const uint64_t N = std::min(Block, Want - R);
        switch (Columns[C].Type) {
        case ColType::Str:
          for (const std::string &S : readStrings(X.DS, R, N))
            X.Sum = hashString(X.Sum, S);
          break;
        case ColType::I64: {
          auto V = readNumbers<int64_t>(X.DS, H5::PredType::NATIVE_INT64, R, N, 1);
          X.Sum = hashRows(X.Sum, V.data(), N, sizeof(int64_t));
          break;
        }
        case ColType::F64: {
          auto V = readNumbers<double>(X.DS, H5::PredType::NATIVE_DOUBLE, R, N, H.Dimension);
          X.Sum = hashRows(X.Sum, V.data(), N, H.Dimension * sizeof(double));
          break;
        }
        }
      }
      if (X.Sum != Expected[C])
        return Fail(columnPath(Columns[C], H.Counts) + " does not match its checkpoint checksum");
    }
  } catch (const H5::Exception &E) {
    return Fail(E.getDetailMsg());
  }
  return EmbeddingFileWriter(std::move(I));
}

llvm::Error EmbeddingFileWriter::append(const std::string &ModulePath, const std::string &Error,
                                        const ModuleEmbedding *E) {
  Impl &I = *P;
  try {
    const int64_t ModRow = static_cast<int64_t>(I.Cols[ModPath].Rows);
    I.appendStrings(ModPath, {ModulePath});
    I.appendStrings(ModError, {Error});
    I.appendDoubles(ModData, E ? E->ModuleVector : failedModuleVector(I.H.Dimension));
    if (!E || !I.Cols[FnName].Present)
      return llvm::Error::success();
    const int64_t FnBase = static_cast<int64_t>(I.Cols[FnName].Rows);
    const int64_t BBBase = I.Cols[BBName].Present ? static_cast<int64_t>(I.Cols[BBName].Rows) : 0;
    I.appendStrings(FnName, E->FunctionNames);
    I.appendInts(FnModule, std::vector<int64_t>(E->FunctionNames.size(), ModRow));
    I.appendDoubles(FnData, E->FunctionVectors);
    if (I.Cols[BBName].Present) {
      I.appendStrings(BBName, E->BlockNames);
      I.appendInts(BBFunction, I.offset(E->BlockFunction, FnBase));
      I.appendDoubles(BBData, E->BlockVectors);
    }
    if (I.Cols[InstFunction].Present) {
      if (I.Cols[InstText].Present)
        I.appendStrings(InstText, E->InstTexts);
      I.appendInts(InstOpcode, E->InstOpcode);
      I.appendInts(InstFunction, I.offset(E->InstFunction, FnBase));
      I.appendInts(InstBlock, I.offset(E->InstBlock, BBBase));
      I.appendDoubles(InstData, E->InstVectors);
    }
  } catch (const H5::Exception &X) {
    I.Broken = true;
    return h5Error(I.Path, X);
  }
  return llvm::Error::success();
}

llvm::Error EmbeddingFileWriter::flush() {
  try {
    P->writePending();
    P->File.flush(H5F_SCOPE_GLOBAL);
  } catch (const H5::Exception &E) {
    P->Broken = true;
    return h5Error(P->Path, E);
  }
  return llvm::Error::success();
}

llvm::Error EmbeddingFileWriter::close() {
  if (!P)
    return llvm::Error::success();
  if (P->Broken) {
    // See Impl::Broken: the HDF5 objects are left unclosed, on purpose.
    const std::string Path = P->Path;
    (void)P.release();
    return support::fileError(Path, "left unclosed after a failed write");
  }
  try {
    P->writePending();
  } catch (const H5::Exception &E) {
    P->Broken = true; // as for a failed write of append: left unclosed
    const std::string Path = P->Path;
    (void)P.release();
    return h5Error(Path, E);
  }
  try {
    for (Impl::Col &C : P->Cols)
      if (C.Present)
        C.DS.close();
    P->File.close();
  } catch (const H5::Exception &E) {
    auto Err = h5Error(P->Path, E);
    P.reset();
    return Err;
  }
  P.reset();
  return llvm::Error::success();
}

RowCounts EmbeddingFileWriter::rows() const {
  return RowCounts{P->Cols[ModPath].Rows, P->Cols[FnName].Rows, P->Cols[BBName].Rows,
                   P->Cols[InstFunction].Rows};
}

DatasetChecksums EmbeddingFileWriter::checksums() const {
  DatasetChecksums Out{};
  for (size_t C = 0; C < NumColumns; ++C)
    Out[C] = P->Cols[C].Sum;
  return Out;
}

// ---- reader -----------------------------------------------------------------------------

struct EmbeddingFileReader::Impl {
  std::string Path;
  H5::H5File File;
  FileHeader H;
  std::array<H5::DataSet, NumColumns> DS;
  std::array<bool, NumColumns> Present{};
  // First row of each module / function in the next table (CSR offsets).
  std::vector<uint64_t> ModFirstFn, FnFirstBB, FnFirstInst;
};

EmbeddingFileReader::EmbeddingFileReader(std::unique_ptr<Impl> I) : P(std::move(I)) {}
EmbeddingFileReader::EmbeddingFileReader(EmbeddingFileReader &&) noexcept = default;
EmbeddingFileReader::~EmbeddingFileReader() = default;
const FileHeader &EmbeddingFileReader::header() const { return P->H; }
uint64_t EmbeddingFileReader::numModules() const { return P->ModFirstFn.size() - 1; }

namespace {
// Offsets from a nondecreasing owner column: First[o] = first row owned by o.
std::vector<uint64_t> firstRows(const std::vector<int64_t> &Owner, uint64_t Owners) {
  std::vector<uint64_t> First(Owners + 1, Owner.size());
  uint64_t Row = 0;
  for (uint64_t O = 0; O < Owners; ++O) {
    while (Row < Owner.size() && Owner[Row] < static_cast<int64_t>(O))
      ++Row;
    First[O] = Row;
  }
  return First;
}
} // namespace

llvm::Expected<EmbeddingFileReader> EmbeddingFileReader::open(const std::string &Path,
                                                              double IsolatedSeconds) {
  if (llvm::Error E = support::checkIsolated(Path, IsolatedSeconds, [&]() -> llvm::Error {
        auto R = openTrusted(Path);
        if (!R)
          return R.takeError();
        for (uint64_t I = 0; I < R->numModules(); ++I)
          if (auto M = R->module(I); !M)
            return M.takeError();
        return llvm::Error::success();
      }))
    return E;
  return openTrusted(Path);
}

llvm::Expected<EmbeddingFileReader> EmbeddingFileReader::openTrusted(const std::string &Path) {
  H5::Exception::dontPrint();
  auto I = std::make_unique<Impl>();
  I->Path = Path;
  try {
    I->File = H5::H5File(Path, H5F_ACC_RDONLY);
    auto H = readHeader(I->File, Path);
    if (!H)
      return H.takeError();
    I->H = *H;
    for (size_t C = 0; C < NumColumns; ++C)
      if ((I->Present[C] = columnPresent(C, I->H)))
        I->DS[C] = I->File.openDataSet(columnPath(Columns[C], I->H.Counts));
    const uint64_t M = extentOf(I->DS[ModPath]);
    if (extentOf(I->DS[ModError]) != M ||
        (I->Present[ModData] && extentOf(I->DS[ModData]) != M))
      return support::fileError(Path, "the /modules datasets differ in length");
    const uint64_t N = I->Present[FnName] ? extentOf(I->DS[FnName]) : 0;
    I->ModFirstFn = I->Present[FnName]
                        ? firstRows(readNumbers<int64_t>(I->DS[FnModule],
                                                         H5::PredType::NATIVE_INT64, 0, N, 1), M)
                        : std::vector<uint64_t>(M + 1, 0);
    if (I->Present[BBName])
      I->FnFirstBB = firstRows(readNumbers<int64_t>(I->DS[BBFunction], H5::PredType::NATIVE_INT64,
                                                    0, extentOf(I->DS[BBName]), 1), N);
    if (I->Present[InstFunction])
      I->FnFirstInst = firstRows(readNumbers<int64_t>(I->DS[InstFunction], H5::PredType::NATIVE_INT64,
                                                      0, extentOf(I->DS[InstFunction]), 1), N);
  } catch (const H5::Exception &E) {
    return h5Error(Path, E);
  }
  return EmbeddingFileReader(std::move(I));
}

llvm::Expected<EmbeddingFileReader::Module> EmbeddingFileReader::module(uint64_t MI) {
  Impl &I = *P;
  Module Out;
  try {
    Out.Path = readStrings(I.DS[ModPath], MI, 1).at(0);
    Out.Error = readStrings(I.DS[ModError], MI, 1).at(0);
    ModuleEmbedding &E = Out.Rows;
    E.Dim = I.H.Dimension;
    const uint64_t F0 = I.ModFirstFn.at(MI), F1 = I.ModFirstFn.at(MI + 1);
    if (I.Present[FnName]) {
      E.FunctionNames = readStrings(I.DS[FnName], F0, F1 - F0);
      E.FunctionVectors = readNumbers<double>(I.DS[FnData], H5::PredType::NATIVE_DOUBLE, F0, F1 - F0, E.Dim);
    }
    if (I.Present[ModData])
      E.ModuleVector = readNumbers<double>(I.DS[ModData], H5::PredType::NATIVE_DOUBLE, MI, 1, E.Dim);
    else // version 1: the module row as version 2 defines it
      E.ModuleVector = Out.Error.empty() ? moduleVector(E.FunctionVectors, E.Dim)
                                         : failedModuleVector(E.Dim);
    auto Local = [](std::vector<int64_t> V, int64_t Base) {
      for (int64_t &X : V)
        X = X < 0 ? -1 : X - Base;
      return V;
    };
    uint64_t B0 = 0;
    if (I.Present[BBName]) {
      B0 = I.FnFirstBB[F0];
      const uint64_t B1 = I.FnFirstBB[F1];
      E.BlockNames = readStrings(I.DS[BBName], B0, B1 - B0);
      E.BlockFunction = Local(readNumbers<int64_t>(I.DS[BBFunction], H5::PredType::NATIVE_INT64, B0, B1 - B0, 1), F0);
      E.BlockVectors = readNumbers<double>(I.DS[BBData], H5::PredType::NATIVE_DOUBLE, B0, B1 - B0, E.Dim);
    }
    if (I.Present[InstFunction]) {
      const uint64_t I0 = I.FnFirstInst[F0], I1 = I.FnFirstInst[F1];
      if (I.Present[InstText])
        E.InstTexts = readStrings(I.DS[InstText], I0, I1 - I0);
      E.InstOpcode = readNumbers<int64_t>(I.DS[InstOpcode], H5::PredType::NATIVE_INT64, I0, I1 - I0, 1);
      E.InstFunction = Local(readNumbers<int64_t>(I.DS[InstFunction], H5::PredType::NATIVE_INT64, I0, I1 - I0, 1), F0);
      E.InstBlock = Local(readNumbers<int64_t>(I.DS[InstBlock], H5::PredType::NATIVE_INT64, I0, I1 - I0, 1), B0);
      E.InstVectors = readNumbers<double>(I.DS[InstData], H5::PredType::NATIVE_DOUBLE, I0, I1 - I0, E.Dim);
    }
  } catch (const H5::Exception &X) {
    return h5Error(I.Path, X);
  } catch (const std::out_of_range &) {
    return support::fileError(I.Path, "module row " + std::to_string(MI) + " is missing");
  }
  return Out;
}

} // namespace wb::ir2vec
