#include "vocab/TripletCorpus.h"

#include "vocab/IO.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <random>

namespace wb::vocab {
namespace {

struct ModuleTriplets {
  std::string Error;
  std::vector<std::string> Warnings;
  std::vector<std::pair<uint64_t, uint64_t>> Counts; // key, count
  uint32_t MaxRelation = NextRelation;
  unsigned Runs = 0;
};

ModuleTriplets extract(const TripletCorpusJob &J, size_t Index, llvm::LLVMContext &Ctx) {
  ModuleTriplets R;
  const std::string &Path = J.Inputs[Index];
  auto In = readModule(Path, Ctx);
  if (!In) {
    R.Error = llvm::toString(In.takeError());
    return R;
  }
  R.Warnings = std::move(In->Warnings);
  llvm::DenseMap<uint64_t, uint64_t> Counts;
  auto Count = [&](const llvm::Module &M) {
    TripletList L = collectTriplets(M, J.Opts);
    R.MaxRelation = std::max(R.MaxRelation, L.MaxRelation);
    for (const Triplet &T : L.Triplets)
      ++Counts[tripletKey(T)];
    ++R.Runs;
  };
  const std::vector<OptLevel> Levels = levelsForModule(J, Index);
  if (Levels.empty())
    Count(*In->M);
  for (size_t I = 0; I < Levels.size(); ++I) {
    // The last level may consume the module itself; the others work on copies.
    std::unique_ptr<llvm::Module> Copy;
    llvm::Module *M = In->M.get();
    if (I + 1 < Levels.size()) {
      Copy = llvm::CloneModule(*In->M);
      M = Copy.get();
    }
    if (llvm::Error E = runDefaultPipeline(*M, Levels[I])) {
      R.Error = Path + ": " + optLevelName(Levels[I]).str() + ": " + llvm::toString(std::move(E));
      return R;
    }
    Count(*M);
  }
  R.Counts.assign(Counts.begin(), Counts.end());
  return R;
}

} // namespace

std::array<uint64_t, NumEntities> TripletCorpus::entityOccurrences() const {
  std::array<uint64_t, NumEntities> N{};
  for (const TripletCount &C : Unique) {
    N[C.T.Head] += C.Count;
    N[C.T.Tail] += C.Count;
  }
  return N;
}

std::vector<OptLevel> levelsForModule(const TripletCorpusJob &J, size_t ModuleIndex) {
  if (J.Sample == 0 || J.Sample >= J.Levels.size())
    return J.Levels;
  std::mt19937_64 Gen(J.Seed * 0x9E3779B97F4A7C15ull + ModuleIndex);
  std::vector<OptLevel> L = J.Levels;
  for (size_t I = 0; I < J.Sample; ++I) // partial Fisher-Yates
    std::swap(L[I], L[I + Gen() % (L.size() - I)]);
  L.resize(J.Sample);
  return L;
}

llvm::Expected<TripletCorpus> collectTripletCorpus(const TripletCorpusJob &J, const BatchIO &IO) {
  TripletCorpus C;
  C.Extended = J.Opts.Extended;
  llvm::DenseMap<uint64_t, uint64_t> Counts;
  Progress P("modules", J.Inputs.size(), IO.ShowProgress);
  OrderedPipeline<ModuleTriplets> Pipe(IO.Jobs, defaultWindow(IO.Jobs), IO.Policy);
  llvm::Error E = Pipe.run(
      0, J.Inputs.size(),
      [&](size_t I, llvm::LLVMContext &Ctx) { return extract(J, I, Ctx); },
      [&](size_t I, ModuleTriplets &&R) {
        ++C.Modules;
        if (reportModule(IO, P, R.Warnings, R.Error)) {
          ++C.Failed;
          C.FailedModules.push_back(J.Inputs[I]);
        } else {
          C.MaxRelation = std::max(C.MaxRelation, R.MaxRelation);
          C.Runs += R.Runs;
          for (auto [K, N] : R.Counts) {
            Counts[K] += N;
            C.Total += N;
          }
        }
        P.update(C.Modules);
        return llvm::Error::success();
      });
  if (E)
    return E;
  std::vector<std::pair<uint64_t, uint64_t>> Sorted(Counts.begin(), Counts.end());
  std::sort(Sorted.begin(), Sorted.end());
  C.Unique.reserve(Sorted.size());
  for (auto [K, N] : Sorted) {
    Triplet T = tripletOfKey(K);
    T.Relation = finalRelation(T.Relation, C.MaxRelation);
    C.Unique.push_back({T, N});
  }
  return C;
}

std::string inputListSHA256(const std::vector<std::string> &Inputs) {
  llvm::SHA256 H;
  for (const std::string &P : Inputs) {
    H.update(P);
    H.update("\n");
  }
  return llvm::toHex(H.final(), /*LowerCase=*/true);
}

llvm::Error writeOpenKE(const std::string &Dir, const TripletCorpus &C,
                        const OpenKEWriteOptions &W) {
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return llvm::createStringError(EC, Dir + ": cannot create output directory: " + EC.message());
  auto In = [&](const char *Name) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  };
  const bool Frequency = W.Weighting == TripletWeighting::Frequency;
  // generateTriplets.py: first line is the number of triplet lines that follow.
  if (llvm::Error E = writeFileAtomically(In("train2id.txt"), [&](llvm::raw_ostream &OS) {
        OS << (Frequency ? C.Total : C.Unique.size()) << '\n';
        for (const TripletCount &X : C.Unique)
          for (uint64_t I = 0, N = Frequency ? X.Count : 1; I < N; ++I)
            OS << X.T.Head << '\t' << X.T.Tail << '\t' << X.T.Relation << '\n';
      }))
    return E;
  if (llvm::Error E = writeFileAtomically(In("entity2id.txt"), writeEntitiesText))
    return E;
  if (llvm::Error E = writeFileAtomically(In("relation2id.txt"), [&](llvm::raw_ostream &OS) {
        OS << C.numRelations() << '\n';
        for (uint32_t R = 0; R < C.numRelations(); ++R)
          OS << relationName(R, C.MaxRelation) << '\t' << R << '\n';
      }))
    return E;
  if (llvm::Error E = writeFileAtomically(In("triplet_counts.txt"), [&](llvm::raw_ostream &OS) {
        OS << "# " << TripletCountsSchema << " unique=" << C.Unique.size()
           << " total=" << C.Total << '\n';
        for (const TripletCount &X : C.Unique)
          OS << X.T.Head << '\t' << X.T.Tail << '\t' << X.T.Relation << '\t' << X.Count << '\n';
      }))
    return E;
  const auto Occ = C.entityOccurrences();
  return writeFileAtomically(In("manifest.json"), [&](llvm::raw_ostream &OS) {
    llvm::json::OStream J(OS, 2);
    J.object([&] {
      J.attribute("schema", TripletManifestSchema);
      J.attribute("llvm_version", WB_LLVM_VERSION);
      J.attribute("tool_version", WB_VERSION);
      J.attribute("modules", int64_t(C.Modules));
      J.attribute("modules_failed", int64_t(C.Failed));
      J.attributeArray("failed", [&] {
        for (const std::string &F : C.FailedModules)
          J.value(F);
      });
      J.attribute("input_list_sha256", W.CorpusListSHA256);
      J.attributeArray("opt_levels", [&] {
        for (const std::string &L : W.LevelNames)
          J.value(L);
      });
      J.attribute("opt_sample", int64_t(W.Sample));
      J.attribute("seed", int64_t(W.Seed));
      J.attribute("extractions", int64_t(C.Runs));
      J.attribute("extended_relations", C.Extended);
      J.attribute("weighting", Frequency ? "frequency" : "unique");
      J.attribute("unique_triplets", int64_t(C.Unique.size()));
      J.attribute("total_triplets", int64_t(C.Total));
      J.attribute("max_relation", int64_t(C.MaxRelation));
      J.attributeObject("entity_occurrences", [&] {
        for (EntityId Id = 0; Id < NumEntities; ++Id)
          J.attribute(llvm::StringRef(entityName(Id)), int64_t(Occ[Id]));
      });
      J.attributeArray("never_occurring", [&] {
        for (EntityId Id = 0; Id < NumEntities; ++Id)
          if (!Occ[Id])
            J.value(llvm::StringRef(entityName(Id)));
      });
    });
    OS << '\n';
  });
}

} // namespace wb::vocab
