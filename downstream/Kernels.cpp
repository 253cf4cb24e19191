// The kernels a study judges and their embeddings (Kernels.h).
#include "downstream/Kernels.h"

#include "ir2vec/EmbeddingBatch.h"
#include "mir/MirCorpus.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/Process.h"
#include "vocab/EntityLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include <unistd.h>

namespace wb::downstream {

namespace {

/// The element-wise maximum of Dim-wide rows (every block of a module, unreachable ones too);
/// zeros for a module without blocks.
std::vector<double> blockMaximum(const std::vector<double> &Rows, unsigned Dim) {
  std::vector<double> Max(Dim, 0.0);
  const size_t N = Dim ? Rows.size() / Dim : 0;
  for (size_t R = 0; R < N; ++R)
    for (unsigned D = 0; D < Dim; ++D)
      Max[D] = R == 0 ? Rows[D] : std::max(Max[D], Rows[R * Dim + D]);
  return Max;
}

/// Sum over blocks of Weight^depth times the block's row (every block, in layout order).
std::vector<double> loopWeighted(const std::vector<double> &Rows, const std::vector<int64_t> &Depth,
                                 unsigned Dim, double Weight) {
  std::vector<double> Sum(Dim, 0.0);
  for (size_t R = 0; Dim && R < Rows.size() / Dim; ++R) {
    const double W = std::pow(Weight, double(Depth[R]));
    for (unsigned D = 0; D < Dim; ++D)
      Sum[D] += W * Rows[R * Dim + D];
  }
  return Sum;
}

} // namespace

void overInstructions(std::vector<std::vector<double>> &Rows,
                      const std::vector<std::vector<double>> &Counts) {
  for (size_t D = 0; D < Rows.size(); ++D) {
    const std::vector<double> &Count = Counts[D];
    if (Count.size() != vocab::NumEntities)
      continue;
    const double N = std::accumulate(Count.begin(), Count.begin() + vocab::NumOpcodes, 0.0);
    for (double &X : Rows[D])
      X /= std::max(N, 1.0);
  }
}

llvm::Expected<KernelVectors> embedFiles(const std::vector<std::string> &Files, const vocab::Vocabulary &V,
                                         ir2vec::Kind K, const DevmapConfig &C,
                                         const mir::MirSource *Machine, const DevmapArm *Arm) {
  const Aggregation Agg = Arm ? Arm->Aggregate : Aggregation::Sum;
  const bool FromBlocks = Agg == Aggregation::Max || Agg == Aggregation::Loop;
  ir2vec::EmbeddingJob J;
  J.Inputs = Files;
  J.Vocab = &V;
  J.EmbeddingKind = K;
  if (Machine)
    J.Source = &Machine->source();
  const unsigned Dim = Machine ? Machine->vocabulary().Dim : V.dimension();
  J.Granularity = ir2vec::Level::Module;
  corpus::BatchIO IO;
  IO.Run = C.Run;
  IO.Run.ShowProgress = false;
  IO.Run.Report = [](const support::Diagnostic &) {}; // failures are the study's to report
  IO.ModuleSeconds = C.ModuleSeconds;
  KernelVectors Out;
  Out.Rows.resize(Files.size());
  Out.Errors.resize(Files.size());
  ir2vec::LevelSet Levels;
  Levels.Blocks = FromBlocks;
  Levels.BlockLoopDepths = Agg == Aggregation::Loop;
  Levels.Functions = !FromBlocks;
  llvm::Error E = ir2vec::embedModules(J, Levels, /*InstructionText=*/false, 0, IO,
                                       [&](size_t I, ir2vec::EmbeddedModule &&M) -> llvm::Error {
                                         if (!M.Error.empty())
                                           Out.Errors[I] = M.Error;
                                         else if (Agg == Aggregation::Max)
                                           Out.Rows[I] = blockMaximum(M.E.BlockVectors, Dim);
                                         else if (Agg == Aggregation::Loop)
                                           Out.Rows[I] = loopWeighted(M.E.BlockVectors, M.E.BlockLoopDepth,
                                                                      Dim, Arm->LoopWeight);
                                         else if (M.E.ModuleVector.size() != Dim)
                                           Out.Rows[I].assign(Dim, 0.0); // no functions
                                         else
                                           Out.Rows[I] = std::move(M.E.ModuleVector);
                                         // A kernel vector XGBoost cannot use (a loop weight
                                         // to a deep nest's power, LLVM's flow-aware kind on
                                         // a doubling chain) fails the kernel, named.
                                         if (M.Error.empty() &&
                                             !llvm::all_of(Out.Rows[I], [](double X) { return std::isfinite(X); }))
                                           Out.Errors[I] = "its vector is not finite (it overflows a double" +
                                                           std::string(Agg == Aggregation::Loop ? ": loop_weight to the power of its loop depth" : "") + ")";
                                         return llvm::Error::success();
                                       });
  if (E)
    return E;
  if (C.Run.cancelled())
    return support::interruptedError("interrupted while embedding the kernels");
  return Out;
}

namespace {

/// Compiles an OpenCL kernel's source with clang-22 as LLVM IR for the dataset's target
/// (x86-64 macOS, as the shipped IR), into Dir; the file, or clang's first error line.
llvm::Expected<std::string> recompile(const DevmapRow &R, const support::TempDir &Dir, size_t Index,
                                      const DevmapConfig &C) {
  const std::string Src = Dir.file("k" + std::to_string(Index) + ".cl"),
                    Out = Dir.file("k" + std::to_string(Index) + ".ll"),
                    Err = Dir.file("k" + std::to_string(Index) + ".err");
  if (llvm::Error E = support::writeFileAtomically(Src, [&](llvm::raw_ostream &OS) { OS << R.Source; }))
    return E;
  int ErrFd = -1;
  if (std::error_code EC = llvm::sys::fs::openFileForWrite(Err, ErrFd))
    return support::fileError(Err, "cannot write: " + EC.message());
  auto Child = support::Child::spawn({C.Clang, "-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header",
                                      "-O2", "-emit-llvm", "-S", "--target=x86_64-apple-macosx10.13.0",
                                      "-w", "-o", Out, Src},
                                     -1, ErrFd);
  ::close(ErrFd);
  if (!Child)
    return support::makeError("cannot run " + C.Clang + ": " + llvm::toString(Child.takeError()));
  auto [St, TimedOut] = Child->wait(C.ModuleSeconds, C.Run.CancelFd);
  if (TimedOut || St.Signaled || St.Code) {
    std::string First = "clang " + St.describe();
    if (auto B = llvm::MemoryBuffer::getFile(Err)) {
      llvm::StringRef T = (*B)->getBuffer();
      size_t P = T.find("error:");
      if (P != llvm::StringRef::npos)
        First = T.substr(P).split('\n').first.str();
    }
    return support::makeError("recompiling its src with " + C.Clang + " failed: " + First);
  }
  return Out;
}

} // namespace

llvm::Error readKernels(const DevmapData &Data, DevmapKernels &K) {
  std::vector<std::string> Files;
  std::vector<const DevmapRow *> FirstRow;
  for (const DevmapPlatform &P : Data.Platforms)
    for (const DevmapRow &Row : P.Rows) {
      const std::string F = kernelFile(Data.Dir, Row);
      if (K.FileIndex.emplace(F, Files.size()).second) {
        Files.push_back(F);
        FirstRow.push_back(&Row);
      }
    }
  std::map<std::string, size_t> ByContent;
  K.ContentOf.resize(Files.size());
  for (size_t I = 0; I < Files.size(); ++I) {
    auto B = support::readInput(Files[I]);
    if (!B)
      return support::fileError(Files[I], "cannot read: " + support::readErrorMessage(B.getError()));
    auto [It, New] = ByContent.emplace(support::sha256Hex((*B)->getBuffer()), K.Distinct.size());
    if (New) {
      K.Distinct.push_back(Files[I]);
      K.DistinctRow.push_back(FirstRow[I]);
    }
    K.ContentOf[I] = It->second;
  }
  return llvm::Error::success();
}

llvm::Error embedHistograms(const DevmapSpec &Spec, const DevmapConfig &C, DevmapKernels &K,
                            DevmapResult &R) {
  auto Counts = embedFiles(K.Distinct, ir2vec::countingVocabulary(), ir2vec::Kind::Symbolic, C);
  if (!Counts)
    return Counts.takeError();
  K.Counts = std::move(*Counts);
  K.Effective = K.Distinct;
  K.Usable.assign(K.Distinct.size(), true);
  for (size_t D = 0; D < K.Distinct.size(); ++D) {
    if (K.Counts.Errors[D].empty())
      continue;
    // LLVM's diagnostics quote the line and mark the column below it: the first line says it.
    std::string Why = llvm::StringRef(K.Counts.Errors[D]).split('\n').first.str();
    if (Spec.Recompile) {
      if (!K.Tmp) {
        auto T = support::TempDir::create("ir2vec-eval");
        if (!T)
          return T.takeError();
        K.Tmp.emplace(std::move(*T));
      }
      auto Out = recompile(*K.DistinctRow[D], *K.Tmp, D, C);
      if (C.Run.cancelled())
        return support::interruptedError("interrupted while recompiling kernels");
      if (Out) {
        auto Again = embedFiles({*Out}, ir2vec::countingVocabulary(), ir2vec::Kind::Symbolic, C);
        if (!Again)
          return Again.takeError();
        if (Again->Errors[0].empty()) {
          K.Effective[D] = *Out;
          K.Counts.Rows[D] = std::move(Again->Rows[0]);
          K.Counts.Errors[D].clear();
          R.Recompiled.emplace_back(K.Distinct[D], Why);
          continue;
        }
        Why += "; recompiled, LLVM 22 still cannot read it: " +
               llvm::StringRef(Again->Errors[0]).split('\n').first.str();
      } else {
        Why += "; " + llvm::toString(Out.takeError());
      }
    }
    K.Usable[D] = false;
    R.LeftOut.emplace_back(K.Distinct[D], Why);
  }
  return llvm::Error::success();
}

namespace {

/// What the protocols need of one platform's rows, before any work (scikit-learn's
/// StratifiedKFold refuses more folds than rows, or than every class has rows).
llvm::Error checkProtocols(const DevmapSpec &Spec, const std::vector<DevmapRow> &Rows,
                           const std::string &CSV) {
  const size_t N = Rows.size(), GPU = size_t(llvm::count_if(Rows, [](const DevmapRow &X) { return X.GPU; }));
  std::set<std::string> Kernels, Suites;
  for (const DevmapRow &Row : Rows) {
    Kernels.insert(Row.Benchmark);
    Suites.insert(suiteOf(Row.Benchmark));
  }
  for (FoldProtocol Pr : Spec.Protocols) {
    const std::string What = support::nameOf<FoldProtocol>(FoldProtocolNames, Pr).str() + " protocol: ";
    if (Pr == FoldProtocol::Paper && (Spec.Folds > N || (Spec.Folds > GPU && Spec.Folds > N - GPU)))
      return support::fileError(CSV, What + llvm::Twine(Spec.Folds) + " folds, but " + llvm::Twine(N) +
                                         " rows (" + llvm::Twine(GPU) + " GPU, " + llvm::Twine(N - GPU) +
                                         " CPU): stratified folds need at least as many rows of one device");
    if (Pr == FoldProtocol::Kernel && Spec.Folds > Kernels.size())
      return support::fileError(CSV, What + llvm::Twine(Spec.Folds) + " folds, but " +
                                         llvm::Twine(Kernels.size()) + " kernels");
    if (Pr == FoldProtocol::Suite && Suites.size() < 2)
      return support::fileError(CSV, What + "leaving one suite out needs at least 2 suites, the "
                                         "rows have " + llvm::Twine(Suites.size()) + " (" + *Suites.begin() + ")");
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error judgedRows(const DevmapData &Data, const DevmapSpec &Spec, DevmapKernels &K,
                       DevmapResult &R) {
  const size_t NP = Data.Platforms.size();
  std::map<std::string, int> KernelIndex;
  for (size_t P = 0; P < NP; ++P) {
    R.Platforms.push_back(Data.Platforms[P].Name);
    R.CSVs.push_back(Data.Platforms[P].CSV);
    R.Used.emplace_back();
    R.Rows.emplace_back();
    for (size_t I = 0; I < Data.Platforms[P].Rows.size(); ++I) {
      const DevmapRow &Row = Data.Platforms[P].Rows[I];
      if (!K.Usable[K.contentOf(Data.Dir, Row)])
        continue;
      auto [It, New] = KernelIndex.emplace(Row.Benchmark, int(R.Kernels.size()));
      if (New) {
        R.Kernels.push_back(Row.Benchmark);
        R.Suites.push_back(suiteOf(Row.Benchmark));
      }
      R.Used[P].push_back({I, It->second});
      R.Rows[P].push_back(Row);
    }
    if (R.Used[P].size() < 2)
      return support::fileError(Data.Platforms[P].CSV, "fewer than 2 rows have a kernel LLVM 22 can read");
  }
  for (size_t P = 0; P < NP; ++P)
    if (llvm::Error E = checkProtocols(Spec, R.Rows[P], R.CSVs[P]))
      return E;
  std::vector<std::string> Names = R.Suites;
  std::sort(Names.begin(), Names.end());
  Names.erase(std::unique(Names.begin(), Names.end()), Names.end());
  R.SuiteNames = Names;
  for (const std::string &S : R.Suites)
    R.SuiteOf.push_back(int(std::lower_bound(Names.begin(), Names.end(), S) - Names.begin()));
  K.KernelOfRow.assign(NP, {});
  for (size_t P = 0; P < NP; ++P)
    for (const DevmapRow &Row : R.Rows[P])
      K.KernelOfRow[P].push_back(K.contentOf(Data.Dir, Row));
  return llvm::Error::success();
}

} // namespace wb::downstream
