#include "downstream/Devmap.h"

#include "support/Error.h"
#include "support/Inputs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace wb::downstream {

namespace {

/// Text from a file as a message shows it: at most Max bytes, control bytes (a NUL among them)
/// as \xNN.
std::string shown(llvm::StringRef T, size_t Max = 40) {
  std::string Out;
  for (char C : T.take_front(Max)) {
    if ((unsigned char)C < 0x20 || C == 0x7f)
      Out += llvm::formatv("\\x{0:x-2}", unsigned((unsigned char)C)).str();
    else
      Out += C;
  }
  return T.size() > Max ? Out + "..." : Out;
}

/// Bounds on what a dataset file may claim: the shipped CSVs hold 669 rows of 21 KB at most.
constexpr uint64_t MaxCSVBytes = uint64_t(256) << 20;
constexpr size_t MaxFieldBytes = size_t(1) << 20;

/// The columns every platform's CSV must have (more are allowed and ignored).
constexpr const char *RequiredColumns[] = {"benchmark", "dataset", "transfer", "wgsize", "oracle",
                                           "runtime_cpu", "runtime_gpu", "src"};

} // namespace

llvm::Expected<std::vector<std::vector<std::string>>>
parseCSV(llvm::StringRef Text, llvm::StringRef Path, std::vector<unsigned> &Lines) {
  std::vector<std::vector<std::string>> Records;
  Lines.clear();
  unsigned Line = 1;
  size_t I = 0;
  const size_t N = Text.size();
  while (I < N) {
    const unsigned Start = Line;
    std::vector<std::string> Rec;
    std::string Field;
    bool InQuotes = false, Quoted = false, EndOfRecord = false;
    auto tooLong = [&] {
      return support::fileError(Path, "line " + llvm::Twine(Start) + ": a field longer than " +
                                          llvm::Twine(MaxFieldBytes >> 20) + " MiB");
    };
    while (I < N && !EndOfRecord) {
      const char C = Text[I++];
      if (InQuotes) {
        if (C == '"') {
          if (I < N && Text[I] == '"') {
            Field += '"';
            ++I;
          } else {
            InQuotes = false;
          }
        } else {
          if (C == '\n')
            ++Line;
          Field += C;
        }
      } else if (C == '"') {
        if (!Field.empty() || Quoted)
          return support::fileError(Path, "line " + llvm::Twine(Line) +
                                              ": a quote inside an unquoted field (RFC 4180 CSV expected)");
        InQuotes = Quoted = true;
      } else if (C == ',') {
        Rec.push_back(std::move(Field));
        Field.clear();
        Quoted = false;
      } else if (C == '\n' || C == '\r') {
        if (C == '\r' && I < N && Text[I] == '\n')
          ++I;
        ++Line;
        EndOfRecord = true;
      } else {
        if (Quoted)
          return support::fileError(Path, "line " + llvm::Twine(Line) +
                                              ": text after a quoted field's closing quote");
        Field += C;
      }
      if (Field.size() > MaxFieldBytes)
        return tooLong();
    }
    if (InQuotes)
      return support::fileError(Path, "line " + llvm::Twine(Start) +
                                          ": a quoted field is not closed before the end of the file");
    Rec.push_back(std::move(Field));
    if (Rec.size() == 1 && Rec[0].empty() && !Quoted)
      continue; // an empty line
    Records.push_back(std::move(Rec));
    Lines.push_back(Start);
  }
  return Records;
}

std::string suiteOf(llvm::StringRef Benchmark) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Benchmark.split(Parts, '-');
  for (size_t I = 0; I < Parts.size(); ++I)
    if (!Parts[I].empty() && llvm::isDigit(Parts[I].front()))
      return llvm::join(Parts.begin(), Parts.begin() + I + 1, "-");
  return Benchmark.str();
}

std::string kernelFile(const std::string &Dir, const DevmapRow &R) {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, "kernels_ir",
                          R.Dataset == "default" ? R.Benchmark + ".ll" : R.Benchmark + "_" + R.Dataset + ".ll");
  return std::string(P);
}

/// One platform's CSV, every row checked.
static llvm::Expected<DevmapPlatform> readPlatform(const std::string &Dir, const std::string &Path,
                                                   std::string Name) {
  uint64_t Size = 0;
  if (!llvm::sys::fs::file_size(Path, Size) && Size > MaxCSVBytes)
    return support::fileError(Path, "more than " + llvm::Twine(MaxCSVBytes >> 20) +
                                        " MiB: not a device-mapping table");
  auto Buf = support::readInput(Path, /*IsText=*/true);
  if (!Buf)
    return support::fileError(Path, "cannot read: " + support::readErrorMessage(Buf.getError()));
  std::vector<unsigned> Lines;
  auto Records = parseCSV((*Buf)->getBuffer(), Path, Lines);
  if (!Records)
    return Records.takeError();
  if (Records->empty())
    return support::fileError(Path, "empty: expected a header line and rows");
  std::vector<std::string> &Header = Records->front();
  // A UTF-8 byte-order mark (spreadsheets write one) is not part of the first column's name.
  if (!Header.empty() && llvm::StringRef(Header[0]).starts_with("\xEF\xBB\xBF"))
    Header[0].erase(0, 3);
  std::map<std::string, size_t> Col;
  for (size_t I = 0; I < Header.size(); ++I)
    if (!Col.emplace(Header[I], I).second && !Header[I].empty())
      return support::fileError(Path, "line 1: column '" + shown(Header[I]) + "' twice");
  std::vector<const char *> Needed(std::begin(RequiredColumns), std::end(RequiredColumns));
  Needed.insert(Needed.end(), GreweColumns.begin(), GreweColumns.end());
  for (const char *C : Needed)
    if (!Col.count(C))
      return support::fileError(Path, "line 1: no column '" + llvm::Twine(C) + "' (the header has " +
                                          shown(llvm::join(Header, ","), 300) + ")");
  DevmapPlatform P;
  P.Name = std::move(Name);
  P.CSV = Path;
  std::map<std::pair<std::string, std::string>, unsigned> Seen;
  for (size_t RI = 1; RI < Records->size(); ++RI) {
    const std::vector<std::string> &F = (*Records)[RI];
    const unsigned Line = Lines[RI];
    auto At = [&](const llvm::Twine &What) {
      return support::fileError(Path, "line " + llvm::Twine(Line) + ": " + What);
    };
    if (F.size() != Header.size())
      return At(llvm::Twine(F.size()) + " fields, the header has " + llvm::Twine(Header.size()));
    auto number = [&](const char *C, double &Out, bool Positive) -> llvm::Error {
      llvm::StringRef T = llvm::StringRef(F[Col[C]]).trim();
      double V = 0;
      if (T.empty() || T.getAsDouble(V) || !std::isfinite(V) || V < 0 || (Positive && V == 0))
        return At("column '" + llvm::Twine(C) + "': expected a " +
                  (Positive ? "positive" : "non-negative") + " number, found '" + shown(F[Col[C]]) + "'");
      Out = V;
      return llvm::Error::success();
    };
    DevmapRow R;
    R.Line = Line;
    R.Benchmark = F[Col["benchmark"]];
    R.Dataset = F[Col["dataset"]];
    // The names become file names: nothing that could leave kernels_ir.
    for (const std::string *S : {&R.Benchmark, &R.Dataset})
      if (S->empty() || S->size() > 200 || S->find('/') != std::string::npos || *S == "." ||
          *S == ".." || llvm::any_of(*S, [](char C) { return (unsigned char)C < 0x20; }))
        return At("column '" + llvm::Twine(S == &R.Benchmark ? "benchmark" : "dataset") +
                  "': expected a name of 1 to 200 characters without slashes or control "
                  "characters, found '" + shown(*S) + "'");
    for (size_t G = 0; G < GreweColumns.size(); ++G)
      if (llvm::Error E = number(GreweColumns[G], R.Grewe[G], false))
        return E;
    if (llvm::Error E = number("transfer", R.Transfer, false))
      return E;
    if (llvm::Error E = number("wgsize", R.WorkGroupSize, false))
      return E;
    if (llvm::Error E = number("runtime_cpu", R.CpuSeconds, true))
      return E;
    if (llvm::Error E = number("runtime_gpu", R.GpuSeconds, true))
      return E;
    const std::string &Oracle = F[Col["oracle"]];
    if (Oracle != "CPU" && Oracle != "GPU")
      return At("column 'oracle': expected CPU or GPU, found '" + shown(Oracle) + "'");
    R.GPU = Oracle == "GPU";
    // Accuracy is judged against the label and speedup against the runtimes: they must agree.
    if (R.GPU ? R.GpuSeconds > R.CpuSeconds : R.CpuSeconds > R.GpuSeconds)
      return At("column 'oracle': " + Oracle + ", but runtime_cpu " + F[Col["runtime_cpu"]] + " and runtime_gpu " +
                F[Col["runtime_gpu"]] + " say the other device is faster");
    R.Source = F[Col["src"]];
    if (auto [It, New] = Seen.emplace(std::make_pair(R.Benchmark, R.Dataset), Line); !New)
      return At("kernel " + R.Benchmark + " with data set " + R.Dataset + " again (first on line " +
                llvm::Twine(It->second) + ")");
    const std::string K = kernelFile(Dir, R);
    llvm::sys::fs::file_status St;
    if (llvm::sys::fs::status(K, St))
      return At("kernel " + R.Benchmark + " (data set " + R.Dataset + "): no LLVM IR file " + K);
    if (St.type() != llvm::sys::fs::file_type::regular_file)
      return At("kernel " + R.Benchmark + " (data set " + R.Dataset + "): " + K +
                " is not a regular file (a directory, device or FIFO)");
    P.Rows.push_back(std::move(R));
  }
  if (P.Rows.empty())
    return support::fileError(Path, "no rows after the header");
  return P;
}

llvm::Expected<DevmapData> readDevmap(const std::string &Dir) {
  if (!llvm::sys::fs::is_directory(Dir))
    return support::fileError(Dir, "not a directory: expected a device-mapping dataset (cgo17-*.csv "
                                   "and kernels_ir/)");
  std::vector<std::pair<std::string, std::string>> CSVs; // name, path
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    llvm::StringRef F = llvm::sys::path::filename(It->path());
    if (F.starts_with("cgo17-") && F.ends_with(".csv") && F.size() > 10)
      CSVs.emplace_back(F.drop_front(6).drop_back(4).str(), It->path());
  }
  if (EC)
    return support::fileError(Dir, "cannot list: " + EC.message());
  if (CSVs.empty())
    return support::fileError(Dir, "no cgo17-PLATFORM.csv: not a device-mapping dataset");
  std::sort(CSVs.begin(), CSVs.end());
  DevmapData D;
  D.Dir = Dir;
  for (auto &[Name, Path] : CSVs) {
    auto P = readPlatform(Dir, Path, Name);
    if (!P)
      return P.takeError();
    D.Platforms.push_back(std::move(*P));
  }
  return D;
}

} // namespace wb::downstream
