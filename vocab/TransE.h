// TransE (Bordes et al., 2013) for IR2Vec vocabularies: entities and relations are vectors,
// a true triplet (h, r, t) should have h + r close to t. Trained with the margin ranking
// loss  max(0, margin + d(h + r, t) - d(h' + r, t'))  over corrupted triplets (h', r, t').
//
// Data contract: entity vectors are the columns of a Dim x NumEntities Armadillo matrix
// (the same memory as our row-major NumEntities x Dim vocabulary), relations likewise.
#pragma once

#include "learn/Optimizer.h"
#include "support/Names.h"
#include "vocab/KnowledgeGraph.h"

#include "llvm/Support/Error.h"

#include <armadillo>

#include <cstdint>
#include <functional>
#include <string>

namespace wb::vocab {

enum class Distance { L1, L2 };
enum class Corruption { Uniform, Bernoulli };
/// How each training triplet counts in the loss: once (deduplicated), in proportion to
/// how often it occurs in the corpus, or in proportion to log(1 + occurrences). Weights are
/// normalised to mean 1, so the learning rate means the same in every mode.
enum class TripletWeights { Unique, Frequency, Log };

inline constexpr support::Named<Distance> DistanceNames[] = {{Distance::L1, "l1"},
                                                            {Distance::L2, "l2"}};
inline constexpr support::Named<Corruption> CorruptionNames[] = {
    {Corruption::Uniform, "uniform"}, {Corruption::Bernoulli, "bernoulli"}};
inline constexpr support::Named<TripletWeights> TripletWeightsNames[] = {
    {TripletWeights::Unique, "unique"},
    {TripletWeights::Frequency, "frequency"},
    {TripletWeights::Log, "log"}};

struct TransEConfig {
  static constexpr unsigned MaxNegatives = 4096;
  unsigned Dim = 75;
  unsigned Epochs = 1000;
  unsigned BatchSize = 256;
  unsigned Negatives = 1; // corrupted triplets per true one
  double Margin = 4.0; // the documented recipe (docs/vocabulary-training.md)
  learn::OptimizerConfig Optimizer; // Adam, learning rate 0.01; sparse (touched columns)
  Distance Dist = Distance::L1;
  Corruption Corrupt = Corruption::Bernoulli;
  bool FilterNegatives = true; // never use a known training triplet as a negative
  bool NormalizeEntities = true; // entity vectors kept at unit L2 norm
  TripletWeights Weights = TripletWeights::Unique;
  unsigned Threads = 1; // >1: Hogwild (lock-free, not bit-reproducible)
  uint64_t Seed = 1;
  unsigned EvalEvery = 10; // >0: filtered validation MRR every so many epochs ...
  unsigned Patience = 10;  // ... stop after this many checks without improvement

  /// Fails with a message naming the bad setting.
  llvm::Error validate() const;
};

struct TransEModel {
  arma::mat Entities;  // Dim x NumEntities
  arma::mat Relations; // Dim x NumRelations
};

struct EpochReport {
  unsigned Epoch;       // 1-based
  double Loss;          // mean weighted margin loss per training triplet
  double ValidMRR = -1; // filtered, when evaluated this epoch
  bool Best = false;    // this epoch's model is the best so far
};

/// Called after every epoch; an error stops the training and is returned by it (a caller
/// that was interrupted, a progress callback that failed).
using EpochCallback = std::function<llvm::Error(const EpochReport &)>;

struct TrainingResult {
  TransEModel Model;        // the best model (by validation MRR when evaluated)
  unsigned Epochs = 0;      // epochs run
  unsigned BestEpoch = 0;
  double FinalLoss = 0;
  double BestValidMRR = -1;
  double SecondsPerEpoch = 0;
};

/// Entity vectors to start from (a warm start: `vocab train --init`): column E of Vectors
/// (Dim x NumEntities) where Present[E], the usual random start elsewhere.
struct InitialEntities {
  arma::mat Vectors;
  std::vector<bool> Present;
  std::string Source; // what they are, for provenance (a file and its SHA-256)
};

/// Trains on G.Train. With Threads == 1 the result is a function of (G, Config, Init) only.
llvm::Expected<TrainingResult>
trainTransE(const KnowledgeGraph &G, const TransEConfig &C,
            const EpochCallback &OnEpoch = {}, const InitialEntities *Init = nullptr);

/// Which entities some triplet of G names (train, validation or test): training never moves
/// the others.
std::vector<bool> entitiesMentioned(const KnowledgeGraph &G);

/// The loss weight of each training triplet from its occurrence count: 1 (Unique), the count
/// (Frequency) or log(1 + count) (Log), normalised to mean 1.
std::vector<double> tripletLossWeights(const std::vector<uint64_t> &Counts, TripletWeights W);

/// d(h + r, t) for the configured distance.
double transEDistance(const double *H, const double *R, const double *T, unsigned Dim,
                      Distance D);

} // namespace wb::vocab
