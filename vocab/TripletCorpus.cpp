#include "vocab/TripletCorpus.h"

#include "corpus/ModuleReader.h"
#include "support/Files.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
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

// How a module's counts travel from a rank to rank 0 of an MPI run.
void encode(const ModuleTriplets &R, support::WireWriter &W) {
  W.bytes(R.Error);
  W.strings(R.Warnings);
  std::vector<uint64_t> Flat;
  Flat.reserve(2 * R.Counts.size());
  for (auto [K, N] : R.Counts)
    Flat.insert(Flat.end(), {K, N});
  W.array(Flat);
  W.num<uint32_t>(R.MaxRelation);
  W.num<uint32_t>(R.Runs);
}

void decode(support::WireReader &In, ModuleTriplets &R) {
  R.Error = In.bytes();
  R.Warnings = In.strings();
  const std::vector<uint64_t> Flat = In.array<uint64_t>();
  for (size_t I = 0; I + 1 < Flat.size(); I += 2)
    R.Counts.emplace_back(Flat[I], Flat[I + 1]);
  R.MaxRelation = In.num<uint32_t>();
  R.Runs = In.num<uint32_t>();
}

ModuleTriplets extract(const TripletCorpusJob &J, size_t Index, llvm::LLVMContext &Ctx) {
  ModuleTriplets R;
  const std::string &Path = J.Inputs[Index];
  auto In = corpus::readModule(Path, Ctx);
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
  const std::vector<corpus::OptLevel> Levels = levelsForModule(J, Index);
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
    if (llvm::Error E = corpus::runDefaultPipeline(*M, Levels[I])) {
      R.Error = Path + ": " + corpus::optLevelName(Levels[I]).str() + ": " + llvm::toString(std::move(E));
      return R;
    }
    Count(*M);
  }
  R.Counts.assign(Counts.begin(), Counts.end());
  return R;
}

} // namespace

llvm::Error TripletCorpusJob::validate() const {
  if (Sample && Levels.empty())
    return support::usageError("--opt-sample needs --opt-levels");
  return llvm::Error::success();
}

corpus::ContextPolicy TripletCorpusJob::contextPolicy() const {
  return corpus::ContextPolicy{Levels.empty() ? 32u : 1u, /*DiscardValueNames=*/true};
}

std::array<uint64_t, NumEntities> TripletCorpus::entityOccurrences() const {
  std::array<uint64_t, NumEntities> N{};
  for (const TripletCount &C : Unique) {
    N[C.T.Head] += C.Count;
    N[C.T.Tail] += C.Count;
  }
  return N;
}

std::vector<corpus::OptLevel> levelsForModule(const TripletCorpusJob &J, size_t ModuleIndex) {
  if (J.Sample == 0 || J.Sample >= J.Levels.size())
    return J.Levels;
  std::mt19937_64 Gen(J.Seed * 0x9E3779B97F4A7C15ull + ModuleIndex);
  std::vector<corpus::OptLevel> L = J.Levels;
  for (size_t I = 0; I < J.Sample; ++I) // partial Fisher-Yates
    std::swap(L[I], L[I + Gen() % (L.size() - I)]);
  L.resize(J.Sample);
  return L;
}

llvm::Expected<TripletCorpus> collectTripletCorpus(const TripletCorpusJob &J,
                                                   const corpus::BatchIO &IO) {
  TripletCorpus C;
  C.Extended = J.Opts.Extended;
  llvm::DenseMap<uint64_t, uint64_t> Counts;
  support::Progress P("modules", J.Inputs.size(), IO.Run.ShowProgress);
  llvm::Error E = corpus::runModules<ModuleTriplets>(
      IO, J.contextPolicy(), J.Inputs, 0,
      [&](size_t I, llvm::LLVMContext &Ctx) { return extract(J, I, Ctx); },
      [&](size_t I, ModuleTriplets &&R) {
        ++C.Modules;
        if (corpus::reportModule(IO, P, R.Warnings, R.Error)) {
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
  std::string List;
  for (const std::string &P : Inputs)
    List += P + "\n";
  return support::sha256Hex(List);
}

llvm::Error writeOpenKE(support::OutputDirectory &Dir, const TripletCorpus &C,
                        const TripletCorpusJob &Job) {
  const bool Frequency = Job.Weighting == TripletWeighting::Frequency;
  const auto Occ = C.entityOccurrences();
  // The five files appear together or not at all.
  return support::writeFilesTogether(Dir, {
  // generateTriplets.py: first line is the number of triplet lines that follow.
  {"train2id.txt", [&](llvm::raw_ostream &OS) {
        OS << (Frequency ? C.Total : C.Unique.size()) << '\n';
        for (const TripletCount &X : C.Unique)
          for (uint64_t I = 0, N = Frequency ? X.Count : 1; I < N; ++I)
            OS << X.T.Head << '\t' << X.T.Tail << '\t' << X.T.Relation << '\n';
      }},
  {"entity2id.txt", writeEntitiesText},
  {"relation2id.txt", [&](llvm::raw_ostream &OS) {
        OS << C.numRelations() << '\n';
        for (uint32_t R = 0; R < C.numRelations(); ++R)
          OS << relationName(R, C.MaxRelation) << '\t' << R << '\n';
      }},
  {"triplet_counts.txt", [&](llvm::raw_ostream &OS) {
        OS << "# " << TripletCountsSchema << " unique=" << C.Unique.size()
           << " total=" << C.Total << '\n';
        for (const TripletCount &X : C.Unique)
          OS << X.T.Head << '\t' << X.T.Tail << '\t' << X.T.Relation << '\t' << X.Count << '\n';
      }},
  {"manifest.json", [&](llvm::raw_ostream &OS) {
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
      J.attribute("input_list_sha256", inputListSHA256(Job.Inputs));
      J.attributeArray("opt_levels", [&] {
        for (corpus::OptLevel L : Job.Levels)
          J.value(corpus::optLevelName(L));
      });
      J.attribute("opt_sample", int64_t(Job.Sample));
      J.attribute("seed", int64_t(Job.Seed));
      J.attribute("extractions", int64_t(C.Runs));
      J.attribute("extended_relations", C.Extended);
      J.attribute("weighting",
                  support::nameOf<TripletWeighting>(TripletWeightingNames, Job.Weighting));
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
  }}});
}

std::string coverageSummary(const TripletCorpus &C) {
  const auto Occ = C.entityOccurrences();
  std::string Never;
  unsigned Seen = 0;
  for (EntityId Id = 0; Id < NumEntities; ++Id) {
    if (Occ[Id]) {
      ++Seen;
      continue;
    }
    Never += Never.empty() ? " " : ", ";
    Never += entityName(Id);
  }
  std::string S = std::to_string(C.Unique.size()) + " unique triplets (" +
                  std::to_string(C.Total) + " in all) from " + std::to_string(C.Runs) +
                  " extractions; " + std::to_string(Seen) + " of " +
                  std::to_string(NumEntities) + " entities occur";
  if (!Never.empty())
    S += "; never:" + Never;
  // LLVM's triplets relate no compare to its predicate: without the extension every predicate
  // is listed above, whatever the code.
  if (!C.Extended)
    S += " (predicates occur in triplets only with --extended-relations)";
  return S;
}

llvm::Expected<support::Outcome> runTripletCorpus(const TripletCorpusJob &J,
                                                  const std::string &Dir,
                                                  const corpus::BatchIO &IO) {
  if (llvm::Error E = J.validate())
    return E;
  if (Dir == "-")
    return support::usageError("--format openke needs an output directory: -o DIR");
  if (corpus::serving(IO)) // another rank of an MPI run: works for rank 0, writes nothing
    return support::outcomeOf(collectTripletCorpus(J, IO).takeError());
  // Checked before the work: a long extraction must not end in a missing directory. A
  // directory made here goes again when the run fails.
  llvm::Expected<support::OutputDirectory> Out = support::OutputDirectory::prepare(Dir);
  if (!Out)
    return Out.takeError();
  auto C = collectTripletCorpus(J, IO);
  if (!C)
    return C.takeError();
  auto O = corpus::outcomeOf(corpus::BatchSummary{C->Modules, C->Failed});
  if (!O)
    return O.takeError();
  if (llvm::Error E = writeOpenKE(*Out, *C, J))
    return E;
  IO.Run.Report({support::Diagnostic::Note, coverageSummary(*C)});
  return O;
}

llvm::Expected<support::Outcome> runTripletsText(const TripletCorpusJob &J,
                                                 const std::string &Output,
                                                 const corpus::BatchIO &IO) {
  if (!J.Levels.empty() || J.Sample || J.Weighting != TripletWeighting::Unique)
    return support::usageError(
        "--opt-levels, --opt-sample and --weighting apply to --format openke");
  const TripletOptions Opts = J.Opts;
  auto Work = [Opts](const std::string &Path, llvm::LLVMContext &Ctx) {
    corpus::ModuleText T;
    auto In = corpus::readModule(Path, Ctx);
    if (!In) {
      T.Error = llvm::toString(In.takeError());
      return T;
    }
    T.Warnings = std::move(In->Warnings);
    llvm::raw_string_ostream OS(T.Text);
    writeTripletsText(OS, collectTriplets(*In->M, Opts));
    return T;
  };
  if (corpus::serving(IO)) // another rank of an MPI run: works for rank 0, writes nothing
    return support::outcomeOf(
        corpus::runTextBatch(J.Inputs, llvm::nulls(), IO, J.contextPolicy(), Work).takeError());
  auto Out = support::AtomicOutput::create(Output);
  if (!Out)
    return Out.takeError();
  auto S = corpus::runTextBatch(J.Inputs, Out->os(), IO, J.contextPolicy(), Work);
  if (!S)
    return S.takeError();
  auto O = corpus::outcomeOf(*S);
  if (!O)
    return O.takeError(); // nothing usable: no output under Output
  if (llvm::Error E = Out->commit())
    return E;
  return O;
}

} // namespace wb::vocab
