// TransE trainer, link-prediction metrics and the OpenKE reader: planted models, values
// worked out by hand, determinism, and malformed inputs.
#include "vocab/KnowledgeGraph.h"
#include "vocab/LinkEval.h"
#include "vocab/TransE.h"
#include "vocab/VocabularyFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

using namespace wb::vocab;
using ::testing::HasSubstr;

namespace {

// A planted TransE world: entities are the points of an 8 x 8 lattice, relations are the
// moves +x, +y and +x+y; every move that stays on the lattice is a true triplet. A perfect
// TransE model exists (entity = its coordinates, relation = the move).
KnowledgeGraph lattice(uint64_t SplitSeed) {
  KnowledgeGraph G;
  const int N = 8;
  for (int I = 0; I < N * N; ++I)
    G.EntityNames.push_back("p" + std::to_string(I));
  G.RelationNames = {"x", "y", "xy"};
  const int DX[] = {1, 0, 1}, DY[] = {0, 1, 1};
  std::vector<Triplet> All;
  for (int X = 0; X < N; ++X)
    for (int Y = 0; Y < N; ++Y)
      for (uint32_t R = 0; R < 3; ++R)
        if (X + DX[R] < N && Y + DY[R] < N)
          All.push_back({EntityId(X * N + Y), EntityId((X + DX[R]) * N + Y + DY[R]), R});
  // Every tenth triplet (by a seeded rotation) is held out for testing.
  for (size_t I = 0; I < All.size(); ++I)
    ((I + SplitSeed) % 10 == 0 ? G.Test : G.Train).push_back(All[I]);
  G.TrainCount.assign(G.Train.size(), 1);
  return G;
}

TransEConfig smallConfig() {
  TransEConfig C;
  C.Dim = 16;
  C.Epochs = 1000;
  C.BatchSize = 32;
  C.Margin = 1.0;
  C.Optimizer.LearningRate = 0.02;
  // Lattice points are not unit vectors: the planted model needs free entity norms.
  C.NormalizeEntities = false;
  return C;
}

TEST(TransE, RecoversPlantedLatticeModel) {
  KnowledgeGraph G = lattice(3);
  auto R = trainTransE(G, smallConfig());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const TripletSet Known = tripletSet(G.Train, G.Test);
  // The planted facts are learned (a random model: Hits@10 ~ 10/63 = 0.16, MRR ~ 0.07) ...
  LinkReport Fit = evaluateLinks(R->Model, Distance::L1, G.Train, Known);
  EXPECT_GE(Fit.Filtered.Hits10, 0.95);
  EXPECT_GE(Fit.Filtered.MRR, 0.6);
  // ... and the structure generalises to held-out moves.
  LinkReport Rep = evaluateLinks(R->Model, Distance::L1, G.Test, Known);
  EXPECT_GE(Rep.Filtered.Hits10, 0.5);
  // The loss went down to (nearly) nothing: the planted model is representable.
  EXPECT_LT(R->FinalLoss, 0.1);
}

TEST(TransE, L2SGDUniformAlsoLearns) {
  KnowledgeGraph G = lattice(5);
  TransEConfig C = smallConfig();
  C.Dist = Distance::L2;
  C.Optimizer.Kind = wb::learn::OptimizerKind::SGD;
  C.Optimizer.LearningRate = 0.1;
  C.Corrupt = Corruption::Uniform;
  auto R = trainTransE(G, C);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  LinkReport Fit = evaluateLinks(R->Model, Distance::L2, G.Train, tripletSet(G.Train, G.Test));
  EXPECT_GE(Fit.Filtered.Hits10, 0.95);
  EXPECT_GE(Fit.Filtered.MRR, 0.3); // random: ~0.07
}

TEST(TransE, DeterministicForASeedWithOneThread) {
  KnowledgeGraph G = lattice(1);
  TransEConfig C = smallConfig();
  C.Epochs = 20;
  auto A = trainTransE(G, C), B = trainTransE(G, C);
  ASSERT_TRUE(A && B);
  EXPECT_TRUE(arma::all(arma::vectorise(A->Model.Entities == B->Model.Entities)));
  EXPECT_TRUE(arma::all(arma::vectorise(A->Model.Relations == B->Model.Relations)));
  C.Seed = 2;
  auto D = trainTransE(G, C);
  ASSERT_TRUE(bool(D));
  EXPECT_FALSE(arma::all(arma::vectorise(A->Model.Entities == D->Model.Entities)));
}

TEST(TransE, HogwildThreadsStillLearn) {
  KnowledgeGraph G = lattice(7);
  TransEConfig C = smallConfig();
  C.Threads = 2;
  auto R = trainTransE(G, C);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  LinkReport Fit = evaluateLinks(R->Model, Distance::L1, G.Train, tripletSet(G.Train, G.Test));
  EXPECT_GE(Fit.Filtered.Hits10, 0.95);
  EXPECT_GE(Fit.Filtered.MRR, 0.5);
}

TEST(TransE, EarlyStoppingKeepsTheBestValidationModel) {
  KnowledgeGraph G = lattice(2);
  G.Valid.assign(G.Test.begin(), G.Test.begin() + G.Test.size() / 2);
  TransEConfig C = smallConfig();
  C.EvalEvery = 5;
  C.Patience = 2;
  std::vector<double> MRR;
  auto R = trainTransE(G, C, [&](const EpochReport &E) {
    if (E.ValidMRR >= 0)
      MRR.push_back(E.ValidMRR);
    return llvm::Error::success();
  });
  ASSERT_TRUE(bool(R));
  ASSERT_FALSE(MRR.empty());
  EXPECT_DOUBLE_EQ(R->BestValidMRR, *std::max_element(MRR.begin(), MRR.end()));
  // An error from the callback stops the training at that epoch and is what it returns.
  unsigned Seen = 0;
  auto Stopped = trainTransE(G, C, [&](const EpochReport &E) -> llvm::Error {
    if (++Seen == 3)
      return llvm::createStringError("stop here");
    return llvm::Error::success();
  });
  ASSERT_FALSE(bool(Stopped));
  EXPECT_EQ(llvm::toString(Stopped.takeError()), "stop here");
  EXPECT_EQ(Seen, 3u);
  // The returned model is the best one: evaluating it again gives the best MRR.
  EXPECT_DOUBLE_EQ(
      evaluateLinks(R->Model, Distance::L1, G.Valid, tripletSet(G.Train, G.Valid, G.Test))
          .Filtered.MRR,
      R->BestValidMRR);
}

// A planted world that TransE's default mode can represent exactly: entities are the vertices
// of a K-dimensional hypercube scaled to unit length, (2b - 1)/sqrt(K) for bits b, and
// relation j sets bit j (t - h = 2/sqrt(K) e_j for every such pair). Every tenth triplet
// (by a seeded rotation) is held out.
KnowledgeGraph hypercube(unsigned K, uint64_t SplitSeed) {
  KnowledgeGraph G;
  for (unsigned I = 0; I < (1u << K); ++I)
    G.EntityNames.push_back("v" + std::to_string(I));
  for (unsigned J = 0; J < K; ++J)
    G.RelationNames.push_back("set" + std::to_string(J));
  size_t N = 0;
  for (unsigned J = 0; J < K; ++J)
    for (unsigned I = 0; I < (1u << K); ++I)
      if (!((I >> J) & 1))
        ((N++ + SplitSeed) % 10 == 0 ? G.Test : G.Train)
            .push_back({EntityId(I), EntityId(I | (1u << J)), J});
  G.TrainCount.assign(G.Train.size(), 1);
  return G;
}

// The configuration the shipped vocabulary was trained with (entity normalisation on, L1,
// Adam, Bernoulli corruption, filtered negatives), at a size for a unit test.
TransEConfig defaultMode(uint64_t Seed) {
  TransEConfig C;
  EXPECT_TRUE(C.NormalizeEntities && C.Dist == Distance::L1 &&
              C.Optimizer.Kind == wb::learn::OptimizerKind::Adam &&
              C.Corrupt == Corruption::Bernoulli && C.FilterNegatives);
  C.Dim = 16;
  C.Epochs = 300;
  C.BatchSize = 32;
  C.Seed = Seed;
  return C;
}

TEST(TransE, DefaultModeRecoversAPlantedUnitNormWorld) {
  for (uint64_t Seed : {1, 2, 3}) {
    KnowledgeGraph G = hypercube(6, Seed);
    auto R = trainTransE(G, defaultMode(Seed));
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    const TripletSet Known = tripletSet(G.Train, G.Test);
    // A random model: MRR ~ 0.07, Hits@10 ~ 10/63.
    LinkReport Fit = evaluateLinks(R->Model, Distance::L1, G.Train, Known);
    EXPECT_GE(Fit.Filtered.Hits10, 0.95) << "seed " << Seed;
    EXPECT_GE(Fit.Filtered.MRR, 0.9) << "seed " << Seed;
    LinkReport Held = evaluateLinks(R->Model, Distance::L1, G.Test, Known);
    EXPECT_GE(Held.Filtered.Hits10, 0.9) << "seed " << Seed;
    EXPECT_GE(Held.Filtered.MRR, 0.5) << "seed " << Seed;
    // The model is returned as it scores: unit-length entities.
    for (arma::uword E = 0; E < R->Model.Entities.n_cols; ++E)
      EXPECT_NEAR(arma::norm(R->Model.Entities.col(E), 2), 1.0, 1e-12);
  }
}

TEST(TransE, LossWeightsByHand) {
  // Counts 1 and 3: unique 1, 1; frequency 1, 3 scaled to mean 1: 0.5, 1.5; log
  // log 2, log 4 = 2 log 2 scaled to mean 1: 2/3, 4/3.
  const std::vector<uint64_t> Counts = {1, 3};
  EXPECT_THAT(tripletLossWeights(Counts, TripletWeights::Unique), testing::ElementsAre(1.0, 1.0));
  EXPECT_THAT(tripletLossWeights(Counts, TripletWeights::Frequency),
              testing::ElementsAre(testing::DoubleNear(0.5, 1e-15), testing::DoubleNear(1.5, 1e-15)));
  EXPECT_THAT(tripletLossWeights(Counts, TripletWeights::Log),
              testing::ElementsAre(testing::DoubleNear(2.0 / 3, 1e-15),
                                   testing::DoubleNear(4.0 / 3, 1e-15)));
}

TEST(TransE, FrequencyAndLogWeightingFollowTheCounts) {
  // Relation 0 occurs 1000 times as often as the others. Unique weighting learns every
  // relation; frequency weighting spends nearly all of the loss on relation 0, so the rare
  // ones stay nearly unlearned in the same epochs; log weighting lies in between.
  auto MRR = [](const TransEModel &M, const KnowledgeGraph &G, bool Rel0) {
    std::vector<Triplet> Sub;
    for (const Triplet &T : G.Train)
      if ((T.Relation == 0) == Rel0)
        Sub.push_back(T);
    return evaluateLinks(M, Distance::L1, Sub, tripletSet(G.Train, G.Test)).Filtered.MRR;
  };
  for (uint64_t Seed : {1, 2}) {
    KnowledgeGraph G = hypercube(6, Seed);
    for (size_t I = 0; I < G.Train.size(); ++I)
      G.TrainCount[I] = G.Train[I].Relation == 0 ? 1000 : 1;
    G.HasCounts = true;
    double Rare[3], Frequent[3];
    for (TripletWeights W : {TripletWeights::Unique, TripletWeights::Frequency, TripletWeights::Log}) {
      TransEConfig C = defaultMode(Seed);
      C.Epochs = 100;
      C.Weights = W;
      auto R = trainTransE(G, C);
      ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
      Frequent[int(W)] = MRR(R->Model, G, true);
      Rare[int(W)] = MRR(R->Model, G, false);
    }
    const int U = int(TripletWeights::Unique), F = int(TripletWeights::Frequency),
              L = int(TripletWeights::Log);
    for (int W : {U, F, L})
      EXPECT_GE(Frequent[W], 0.9) << "seed " << Seed << " weighting " << W;
    EXPECT_GE(Rare[U], 0.9) << "seed " << Seed;
    EXPECT_LE(Rare[F], 0.4) << "seed " << Seed;
    EXPECT_GE(Rare[L], 0.6) << "seed " << Seed;
    EXPECT_GT(Rare[L], Rare[F] + 0.3) << "seed " << Seed;
  }
}

TEST(TransE, RejectsBadSettings) {
  KnowledgeGraph G = lattice(1);
  TransEConfig C = smallConfig();
  C.Margin = -1;
  auto R = trainTransE(G, C);
  ASSERT_FALSE(bool(R));
  EXPECT_THAT(llvm::toString(R.takeError()), HasSubstr("--margin"));
  G.Train.clear();
  auto E = trainTransE(G, smallConfig());
  ASSERT_FALSE(bool(E));
  EXPECT_THAT(llvm::toString(E.takeError()), HasSubstr("no training triplets"));
}

// Four entities on a line (dimension 1): e_i = i, one relation r = 1.
TransEModel line() {
  TransEModel M;
  M.Entities = arma::mat(1, 4);
  M.Entities = {0.0, 1.0, 2.0, 3.0};
  M.Entities.reshape(1, 4);
  M.Relations = arma::mat(1, 1, arma::fill::ones);
  return M;
}

TEST(LinkEval, HandCheckedRanksWithTies) {
  // Test triplet (1, 3, r). Tail side: |1 + 1 - e| = 2, 1, 0, 1 for e = 0..3; the true
  // e = 3 is at distance 1, e = 2 is closer, e = 1 ties: expected rank 1 + 1 + 1/2 = 2.5,
  // reciprocal rank (1/2 + 1/3) / 2, Hits@1 = 0, Hits@3 = 1. Head side: |e + 1 - 3| =
  // 2, 1, 0, 1; the true e = 1 ties with e = 3 and e = 2 is closer: the same numbers.
  const TransEModel M = line();
  const std::vector<Triplet> Test = {{1, 3, 0}};
  LinkReport Raw = evaluateLinks(M, Distance::L1, Test, tripletSet(Test));
  EXPECT_DOUBLE_EQ(Raw.Raw.MR, 2.5);
  EXPECT_DOUBLE_EQ(Raw.Raw.MRR, (1.0 / 2 + 1.0 / 3) / 2);
  EXPECT_DOUBLE_EQ(Raw.Raw.Hits1, 0.0);
  EXPECT_DOUBLE_EQ(Raw.Raw.Hits3, 1.0);
  EXPECT_EQ(Raw.Raw.Queries, 2u);
  // Nothing else known: filtered equals raw.
  EXPECT_DOUBLE_EQ(Raw.Filtered.MR, 2.5);
  // Known (1, 2, r) and (2, 3, r): the closer candidates are filtered out on both sides,
  // leaving one tie: rank 1.5, reciprocal rank (1 + 1/2) / 2, Hits@1 = 1/2.
  const std::vector<Triplet> Train = {{1, 2, 0}, {2, 3, 0}};
  LinkReport F = evaluateLinks(M, Distance::L1, Test, tripletSet(Train, Test));
  EXPECT_DOUBLE_EQ(F.Filtered.MR, 1.5);
  EXPECT_DOUBLE_EQ(F.Filtered.MRR, 0.75);
  EXPECT_DOUBLE_EQ(F.Filtered.Hits1, 0.5);
  EXPECT_DOUBLE_EQ(F.Filtered.Hits10, 1.0);
  EXPECT_DOUBLE_EQ(F.Raw.MR, 2.5);
}

TEST(LinkEval, FittedRelationsAreMedianForL1AndMeanForL2) {
  arma::rowvec Row = {0.0, 1.0, 3.0, 10.0};
  arma::mat E = Row;
  // t - h over the three triplets of relation 0: 1, 2, 10.
  const std::vector<Triplet> T = {{0, 1, 0}, {1, 2, 0}, {0, 3, 0}};
  EXPECT_DOUBLE_EQ(fitRelations(E, T, 2, Distance::L1)(0, 0), 2.0);
  EXPECT_DOUBLE_EQ(fitRelations(E, T, 2, Distance::L2)(0, 0), 13.0 / 3);
  EXPECT_DOUBLE_EQ(fitRelations(E, T, 2, Distance::L1)(0, 1), 0.0); // no triplets
}

TEST(LinkEval, AnalogiesByCosine) {
  // a = (1,0,0), b = (1,1,0), c = (0,0,1): b - a + c = (0,1,1), which is d exactly; the
  // distractor (0,1,0) has cosine 1/sqrt(2) and the zero vector has similarity 0.
  arma::mat E = {{1, 1, 0, 0, 0, 0}, {0, 1, 0, 1, 1, 0}, {0, 0, 1, 1, 0, 0}};
  std::vector<std::string> Names = {"a", "b", "c", "d", "x", "z"};
  const Analogy Q[] = {{"a", "b", "c", "d"}, {"a", "b", "c", "x"}};
  auto R = evaluateAnalogies(E, Names, Q);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->Questions, 2u);
  EXPECT_DOUBLE_EQ(R->Top1, 0.5); // d is first for question 1; x is second for question 2
  EXPECT_DOUBLE_EQ(R->Top5, 1.0);
  const Analogy Bad[] = {{"a", "b", "c", "nope"}};
  auto E2 = evaluateAnalogies(E, Names, Bad);
  ASSERT_FALSE(bool(E2));
  EXPECT_THAT(llvm::toString(E2.takeError()), HasSubstr("'nope'"));
}

TEST(LinkEval, DefaultAnalogiesNameLLVMEntities) {
  std::vector<std::string> Names;
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    Names.emplace_back(entityName(Id));
  arma::mat E(4, NumEntities, arma::fill::randu);
  auto R = evaluateAnalogies(E, Names, defaultAnalogies());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Questions, defaultAnalogies().size());
}

// ---- OpenKE reader -------------------------------------------------------------------

class OpenKEDir : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> P;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("openke", P));
    Dir = std::string(P);
    write("entity2id.txt", "3\na\t0\nb\t1\nc\t2\n");
    write("relation2id.txt", "2\nType\t0\nNext\t1\n");
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }
  void write(const char *Name, const std::string &Text) {
    std::ofstream(path(Name)) << Text;
  }
  std::string path(const char *Name) {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
  std::string error(SplitOptions S = {0, 0, 1}) {
    auto G = readOpenKE(Dir, S);
    return G ? std::string("no error") : llvm::toString(G.takeError());
  }
  std::string Dir;
};

TEST_F(OpenKEDir, ReadsTripletsCountsAndRepeats) {
  write("train2id.txt", "4\n0\t1\t0\n1 2 1\n0\t1\t0\n2\t0\t1\n");
  auto G = readOpenKE(Dir, {0, 0, 1});
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  ASSERT_EQ(G->Train.size(), 3u); // unique
  EXPECT_TRUE(G->HasCounts);      // (0, 1, 0) appears twice
  EXPECT_EQ(G->Train[0], (Triplet{0, 1, 0}));
  EXPECT_EQ(G->TrainCount[0], 2u);
  write("triplet_counts.txt", "# ir2vec.triplet-counts/1\n0\t1\t0\t7\n1\t2\t1\t1\n2\t0\t1\t3\n");
  G = readOpenKE(Dir, {0, 0, 1});
  ASSERT_TRUE(bool(G));
  EXPECT_EQ(G->TrainCount[0], 7u);
  EXPECT_EQ(G->TrainCount[2], 3u);
}

TEST_F(OpenKEDir, SplitsAndKeepsUnseenEntitiesInTraining) {
  std::string T = "6\n0\t1\t0\n1\t2\t0\n2\t0\t0\n0\t2\t1\n1\t0\t1\n2\t1\t1\n";
  write("train2id.txt", T);
  auto G = readOpenKE(Dir, {0.2, 0.2, 4});
  ASSERT_TRUE(bool(G));
  EXPECT_EQ(G->Train.size() + G->Valid.size() + G->Test.size(), 6u);
  EXPECT_EQ(G->Test.size(), 1u);
  auto Again = readOpenKE(Dir, {0.2, 0.2, 4});
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ(Again->Test, G->Test); // the split is a function of the seed
}

TEST_F(OpenKEDir, MalformedLineNamesFileAndLine) {
  write("train2id.txt", "2\n0\t1\t0\n0\tx\t1\n");
  EXPECT_THAT(error(), HasSubstr("train2id.txt:3: expected 'head tail relation'"));
}

TEST_F(OpenKEDir, UnknownIdsAreErrors) {
  write("train2id.txt", "1\n0\t9\t0\n");
  EXPECT_THAT(error(), HasSubstr("train2id.txt:2: entity id 9 is unknown (entity2id.txt has 3"));
  write("train2id.txt", "1\n0\t1\t5\n");
  EXPECT_THAT(error(), HasSubstr("train2id.txt:2: relation id 5 is unknown"));
}

TEST_F(OpenKEDir, CountMismatchAndEmptyData) {
  write("train2id.txt", "3\n0\t1\t0\n");
  EXPECT_THAT(error(), HasSubstr("train2id.txt:1: the first line says 3 entries but 1 follow"));
  write("train2id.txt", "0\n");
  EXPECT_THAT(error(), HasSubstr("train2id.txt:1: no triplets to train on"));
  write("train2id.txt", "");
  EXPECT_THAT(error(), HasSubstr("train2id.txt:1: empty file"));
}

TEST_F(OpenKEDir, MissingFilesAndBadNames) {
  EXPECT_THAT(error(), HasSubstr("train2id.txt: cannot read"));
  write("train2id.txt", "1\n0\t1\t0\n");
  write("entity2id.txt", "2\na\t0\nb\t0\n");
  EXPECT_THAT(error(), HasSubstr("entity2id.txt:3: id 0 appears twice"));
  EXPECT_THAT(llvm::toString(readOpenKE(Dir + "/nope", {}).takeError()),
              HasSubstr("not a directory"));
}

// ---- vocabulary files ----------------------------------------------------------------

TEST(VocabularyFile, JSONAndHDF5RoundTripExactly) {
  EntityVectors V;
  V.Dim = 3;
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    for (unsigned K = 0; K < V.Dim; ++K)
      V.Rows.push_back(1.0 / (3.0 + Id) - 0.1 * K + 1e-17 * Id);
  V.RelationNames = {"Type", "Next"};
  V.Relations = {0.1, 0.2, 0.3, -0.4, -0.5, -0.6};
  V.Provenance = {{"seed", "7"}};
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("vocabfile", Dir));
  const std::string J = (Dir + "/v.json").str(), H = (Dir + "/v.h5").str();
  ASSERT_FALSE(bool(writeVocabularyFile(J, V)));
  ASSERT_FALSE(bool(writeVocabularyFile(H, V)));
  auto FromJ = readEntityVectors(J), FromH = readEntityVectors(H);
  ASSERT_TRUE(FromJ && FromH);
  EXPECT_EQ(FromJ->Rows, V.Rows); // bit for bit: %.17g
  EXPECT_TRUE(FromJ->MissingKeys.empty());
  EXPECT_EQ(FromH->Rows, V.Rows);
  EXPECT_EQ(FromH->Relations, V.Relations);
  EXPECT_EQ(FromH->RelationNames, V.RelationNames);
  EXPECT_THAT(FromH->Provenance, ::testing::Contains(std::pair<std::string, std::string>(
                                     "seed", "7")));
  llvm::sys::fs::remove_directories(Dir);
}

TEST(VocabularyFile, DefaultVocabularyHasEveryEntityNonZero) {
  auto V = readEntityVectors("");
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  EXPECT_EQ(V->Dim, 75u);
  EXPECT_TRUE(V->MissingKeys.empty());
  EXPECT_TRUE(V->UnknownKeys.empty());
  for (EntityId Id = 0; Id < NumEntities; ++Id) {
    bool NonZero = false;
    for (unsigned K = 0; K < V->Dim; ++K)
      NonZero |= V->row(Id)[K] != 0;
    EXPECT_TRUE(NonZero) << entityName(Id);
  }
}

} // namespace
