#include "vocab/KnowledgeGraph.h"

#include "support/Error.h"
#include "support/Inputs.h"
#include "support/Files.h"
#include "vocab/TripletCorpus.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <optional>
#include <random>

namespace wb::vocab {
namespace {

using support::lineError;

struct Lines {
  std::string File;
  std::vector<llvm::StringRef> Text; // without the line ends
  std::unique_ptr<llvm::MemoryBuffer> Buf;
};

llvm::Expected<std::optional<Lines>> readLines(const std::string &Dir, const char *Name,
                                               bool Required) {
  Lines L;
  L.File = support::pathIn(Dir, Name);
  auto Buf = support::readInput(L.File, /*IsText=*/true);
  if (!Buf) {
    if (!Required && Buf.getError() == std::errc::no_such_file_or_directory)
      return std::nullopt;
    return support::fileError(L.File, "cannot read: " + support::readErrorMessage(Buf.getError()));
  }
  L.Buf = std::move(*Buf);
  llvm::SmallVector<llvm::StringRef, 0> Parts;
  L.Buf->getBuffer().split(Parts, '\n');
  for (llvm::StringRef S : Parts)
    L.Text.push_back(S.rtrim("\r"));
  while (!L.Text.empty() && L.Text.back().trim().empty())
    L.Text.pop_back();
  return std::optional<Lines>(std::move(L));
}

// Fields separated by tabs or spaces (OpenKE reads with fscanf("%d")).
llvm::SmallVector<llvm::StringRef, 4> fields(llvm::StringRef Line) {
  llvm::SmallVector<llvm::StringRef, 4> F;
  Line.split(F, ' ', -1, false);
  llvm::SmallVector<llvm::StringRef, 4> Out;
  for (llvm::StringRef P : F) {
    llvm::SmallVector<llvm::StringRef, 4> G;
    P.split(G, '\t', -1, false);
    Out.append(G.begin(), G.end());
  }
  return Out;
}

llvm::Expected<uint64_t> countLine(const Lines &L) {
  uint64_t N;
  if (L.Text.empty())
    return lineError(L.File, 1, "empty file: expected the number of entries on the first line");
  if (llvm::StringRef(L.Text[0]).trim().getAsInteger(10, N))
    return lineError(L.File, 1, "expected the number of entries, found '" + L.Text[0] + "'");
  if (L.Text.size() - 1 != N)
    return lineError(L.File, 1,
                     "the first line says " + llvm::Twine(N) + " entries but " +
                         llvm::Twine(L.Text.size() - 1) + " follow");
  return N;
}

// entity2id.txt / relation2id.txt: count, then "name<TAB>id" with ids 0..count-1.
llvm::Expected<std::vector<std::string>> readNames(const Lines &L) {
  auto N = countLine(L);
  if (!N)
    return N.takeError();
  std::vector<std::string> Names(*N);
  std::vector<bool> Seen(*N);
  for (size_t I = 1; I < L.Text.size(); ++I) {
    auto F = fields(L.Text[I]);
    uint64_t Id;
    if (F.size() != 2 || F[1].getAsInteger(10, Id))
      return lineError(L.File, I + 1, "expected 'name<TAB>id', found '" + L.Text[I] + "'");
    if (Id >= *N || Seen[Id])
      return lineError(L.File, I + 1,
                       "id " + llvm::Twine(Id) +
                           (Id >= *N ? " is out of range (the file declares " +
                                           llvm::Twine(*N) + ")"
                                     : llvm::Twine(" appears twice")));
    Seen[Id] = true;
    Names[Id] = F[0].str();
  }
  return Names;
}

struct TripletLine {
  Triplet T;
  uint64_t Count;
};

// head, tail, relation[, count], checked against the entity and relation counts.
llvm::Expected<std::vector<TripletLine>> readTriplets(const Lines &L, size_t First,
                                                      bool WithCount, uint32_t NE,
                                                      uint32_t NR) {
  std::vector<TripletLine> Out;
  Out.reserve(L.Text.size());
  const size_t Want = WithCount ? 4 : 3;
  for (size_t I = First; I < L.Text.size(); ++I) {
    auto F = fields(L.Text[I]);
    uint64_t V[4] = {0, 0, 0, 1};
    bool Bad = F.size() != Want;
    for (size_t K = 0; !Bad && K < Want; ++K)
      Bad = F[K].getAsInteger(10, V[K]);
    if (Bad)
      return lineError(L.File, I + 1,
                       llvm::Twine("expected '") +
                           (WithCount ? "head tail relation count" : "head tail relation") +
                           "' (integers), found '" + L.Text[I] + "'");
    if (V[0] >= NE || V[1] >= NE)
      return lineError(L.File, I + 1,
                       "entity id " + llvm::Twine(V[0] >= NE ? V[0] : V[1]) +
                           " is unknown (entity2id.txt has " + llvm::Twine(NE) + " entities)");
    if (V[2] >= NR)
      return lineError(L.File, I + 1,
                       "relation id " + llvm::Twine(V[2]) + " is unknown (relation2id.txt has " +
                           llvm::Twine(NR) + " relations)");
    if (WithCount && V[3] == 0)
      return lineError(L.File, I + 1, "a count must be at least 1");
    Out.push_back({{EntityId(V[0]), EntityId(V[1]), uint32_t(V[2])}, V[3]});
  }
  return Out;
}

std::vector<Triplet> uniqueOf(const std::vector<TripletLine> &V) {
  std::vector<Triplet> T;
  for (const TripletLine &X : V)
    T.push_back(X.T);
  std::sort(T.begin(), T.end(), [](const Triplet &A, const Triplet &B) {
    return tripletKey(A) < tripletKey(B);
  });
  T.erase(std::unique(T.begin(), T.end()), T.end());
  return T;
}

} // namespace

TripletSet tripletSet(const std::vector<Triplet> &A, const std::vector<Triplet> &B,
                      const std::vector<Triplet> &C) {
  TripletSet S;
  S.reserve(A.size() + B.size() + C.size());
  for (const auto *V : {&A, &B, &C})
    for (const Triplet &T : *V)
      S.insert(tripletKey(T));
  return S;
}

llvm::Expected<KnowledgeGraph> readOpenKE(const std::string &Dir, const SplitOptions &Split) {
  if (!llvm::sys::fs::is_directory(Dir))
    return support::fileError(Dir, "not a directory (expected OpenKE files: train2id.txt, "
                                   "entity2id.txt, relation2id.txt)");
  if (!(Split.Valid >= 0 && Split.Test >= 0 && Split.Valid + Split.Test < 1))
    return support::usageError("the validation and test fractions must be >= 0 and sum to "
                               "less than 1");
  KnowledgeGraph G;
  for (auto [Name, Dest] : {std::pair{"entity2id.txt", &G.EntityNames},
                            std::pair{"relation2id.txt", &G.RelationNames}}) {
    auto L = readLines(Dir, Name, true);
    if (!L)
      return L.takeError();
    auto N = readNames(**L);
    if (!N)
      return N.takeError();
    if (N->empty())
      return lineError((*L)->File, 1, "no entries");
    *Dest = std::move(*N);
  }
  const uint32_t NE = G.numEntities(), NR = G.numRelations();

  auto TrainL = readLines(Dir, "train2id.txt", true);
  if (!TrainL)
    return TrainL.takeError();
  auto N = countLine(**TrainL);
  if (!N)
    return N.takeError();
  auto TrainLines = readTriplets(**TrainL, 1, false, NE, NR);
  if (!TrainLines)
    return TrainLines.takeError();
  if (TrainLines->empty())
    return lineError((*TrainL)->File, 1, "no triplets to train on");
  std::vector<Triplet> All = uniqueOf(*TrainLines);

  // Occurrences: triplet_counts.txt when present, else repetitions in train2id.txt.
  std::map<uint64_t, uint64_t> Count;
  auto CountsL = readLines(Dir, "triplet_counts.txt", false);
  if (!CountsL)
    return CountsL.takeError();
  if (*CountsL) {
    auto C = readTriplets(**CountsL, 1, true, NE, NR);
    if (!C)
      return C.takeError();
    for (const TripletLine &X : *C)
      Count[tripletKey(X.T)] = X.Count;
    G.HasCounts = true;
  } else {
    for (const TripletLine &X : *TrainLines)
      ++Count[tripletKey(X.T)];
    G.HasCounts = TrainLines->size() != All.size();
  }

  // Held-out sets: given files, or a seeded split.
  std::vector<Triplet> Held[2];
  bool Given = false;
  for (auto [I, Name] : {std::pair{0, "valid2id.txt"}, std::pair{1, "test2id.txt"}}) {
    auto L = readLines(Dir, Name, false);
    if (!L)
      return L.takeError();
    if (!*L)
      continue;
    Given = true;
    const Lines &F = **L;
    if (auto N = countLine(F); !N)
      return N.takeError();
    auto T = readTriplets(F, 1, false, NE, NR);
    if (!T)
      return T.takeError();
    Held[I] = uniqueOf(*T);
  }
  if (!Given) {
    std::vector<Triplet> Order = All;
    std::mt19937_64 Gen(Split.Seed);
    for (size_t I = Order.size(); I > 1; --I) // Fisher-Yates, same on every platform
      std::swap(Order[I - 1], Order[Gen() % I]);
    const size_t NT = size_t(Split.Test * Order.size()), NV = size_t(Split.Valid * Order.size());
    Held[1].assign(Order.begin(), Order.begin() + NT);
    Held[0].assign(Order.begin() + NT, Order.begin() + NT + NV);
  }
  TripletSet HeldSet = tripletSet(Held[0], Held[1]);
  std::vector<uint32_t> EntSeen(NE), RelSeen(NR);
  for (const Triplet &T : All)
    if (!HeldSet.count(tripletKey(T))) {
      G.Train.push_back(T);
      ++EntSeen[T.Head], ++EntSeen[T.Tail], ++RelSeen[T.Relation];
    }
  for (int I = 0; I < 2; ++I) {
    std::vector<Triplet> &Dest = I == 0 ? G.Valid : G.Test;
    for (const Triplet &T : Held[I]) {
      if (EntSeen[T.Head] && EntSeen[T.Tail] && RelSeen[T.Relation])
        Dest.push_back(T);
      else if (!Given)
        G.Train.push_back(T);
    }
  }
  std::sort(G.Train.begin(), G.Train.end(),
            [](const Triplet &A, const Triplet &B) { return tripletKey(A) < tripletKey(B); });
  for (const Triplet &T : G.Train) {
    auto It = Count.find(tripletKey(T));
    G.TrainCount.push_back(It == Count.end() ? 1 : It->second);
  }
  return G;
}

llvm::Error writeOpenKESplit(const std::string &Dir, const KnowledgeGraph &G) {
  llvm::Expected<support::OutputDirectory> Out = support::OutputDirectory::prepare(Dir);
  if (!Out)
    return Out.takeError();
  auto Triplets = [](const std::vector<Triplet> &V) {
    return [&V](llvm::raw_ostream &OS) {
      OS << V.size() << '\n';
      for (const Triplet &T : V)
        OS << T.Head << '\t' << T.Tail << '\t' << T.Relation << '\n';
    };
  };
  auto Names = [](const std::vector<std::string> &V) {
    return [&V](llvm::raw_ostream &OS) {
      OS << V.size() << '\n';
      for (size_t I = 0; I < V.size(); ++I)
        OS << V[I] << '\t' << I << '\n';
    };
  };
  std::vector<std::pair<std::string, support::FileBody>> Files = {
      {"train2id.txt", Triplets(G.Train)},
      {"valid2id.txt", Triplets(G.Valid)},
      {"test2id.txt", Triplets(G.Test)},
      {"entity2id.txt", Names(G.EntityNames)},
      {"relation2id.txt", Names(G.RelationNames)}};
  if (G.HasCounts)
    Files.push_back({"triplet_counts.txt", [&](llvm::raw_ostream &OS) {
                       uint64_t Total = 0;
                       for (uint64_t C : G.TrainCount)
                         Total += C;
                       OS << "# " << TripletCountsSchema << " unique=" << G.Train.size()
                          << " total=" << Total << '\n';
                       for (size_t I = 0; I < G.Train.size(); ++I)
                         OS << G.Train[I].Head << '\t' << G.Train[I].Tail << '\t'
                            << G.Train[I].Relation << '\t' << G.TrainCount[I] << '\n';
                     }});
  // All of them or none: a split half written over an older one would mix two splits.
  return support::writeFilesTogether(*Out, Files);
}

} // namespace wb::vocab
