// Fine-tuning of an inliner policy on the .text it gives, the objective itself, on the
// training side of an exploration (`ir2vec mlgo finetune`; shared doc policy-training.md,
// sections 1 and 6). Behavioural cloning imitates the best decisions exploration found, but
// those labels are sparse (most decisions were never flipped), so a cloned policy mostly
// copies the heuristic. Two black-box methods compile training modules with candidate
// policies (the heuristic's sizes come from the exploration: cached baselines; modules
// without decisions are not compiled) and keep what shrinks the training side:
//
//  * bias: a line search over the output bias, the policy's operating point. Candidates flip
//    the least confident of its inlining decisions (the lowest positive outputs over the
//    training observations; 0.5% to 64% of them) or of its refusals, then refine around the
//    best. From the heuristic (--from-heuristic, mlgo/pipelines/Train.h heuristicModel) this tunes the
//    margin below the heuristic's threshold at which it still inlines.
//  * es: evolution strategies on every parameter: each step draws Pairs antithetic
//    perturbations, compiles a sample of modules with each, and moves along the
//    fitness-weighted perturbations (Adam). First-layer weights are perturbed relative to the
//    robust spread of their input over the training observations.
//
// The fitness of a policy on modules S is the total reduction 1 - Σ policy / Σ heuristic over
// S (the headline metric). The result is the tuned model if it reduces the whole training
// side more than the start model, else the start model ("where it helps"); both figures and
// the search are in the output's provenance.
#pragma once

#include "features/Dataset.h"
#include "learn/Optimizer.h"
#include "learn/Random.h"
#include "mlgo/pipelines/Compile.h"
#include "mlgo/pipelines/Train.h"
#include "runners/Models.h"
#include "support/Diagnostics.h"
#include "support/RunSettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb::mlgo {

enum class TuneMethod { Bias, ES };
inline constexpr support::Named<TuneMethod> TuneMethodNames[] = {{TuneMethod::Bias, "bias"},
                                                                {TuneMethod::ES, "es"}};

/// The settings of evolution strategies, the one set every run of them takes (`finetune
/// --method es`, `train-evict`, eviction ablations): steps, antithetic pairs per step, modules
/// sampled per step, the perturbation size and the optimizer.
struct ESSettings {
  unsigned Steps = 20, Pairs = 8, ModulesPerStep = 64;
  double Sigma = 0.1;
  learn::OptimizerConfig Optimizer{learn::OptimizerKind::Adam, 0.05};

  /// Eviction's defaults: each evaluation is a whole llc run per module, so fewer of them.
  static ESSettings evict() {
    ESSettings S;
    S.Steps = 12;
    S.Pairs = 6;
    S.ModulesPerStep = 24;
    return S;
  }
};

/// Under MPI (Run.Dist), the compilations of every step spread over the ranks; rank 0 shares
/// the perturbation scales and each step's fitness, so every rank moves the policy alike.
struct FineTuneConfig : ESSettings, CompileSetup {
  TuneMethod Method = TuneMethod::Bias;
  uint64_t Seed = 1;
  /// es: where rank 0 keeps each finished step's fitness (docs/formats/es-steps.md) for an
  /// interrupted run to resume from: steps made with the same start, modules, scales and
  /// settings are replayed (the same updates, no compilation). "" = none.
  std::string StepsFile;
  /// The workbench's embedding features for the policies (an eviction model that reads
  /// function_embedding).
  ir2vec::EmbeddingChoice Embeddings; // none: null

  llvm::Error validate() const;
};

/// A training module as the exploration recorded it.
struct TuneModule {
  std::string Path;
  /// The measure with the compiler's own decisions: the inliner's .text bytes, or (eviction)
  /// the register allocation cost of the default advisor (features/RegallocScore.h).
  double Baseline = -1;
  size_t Decisions = 0;  // questions the compiler asked with the heuristic (0: not compiled)
};

struct FineTuneResult {
  runners::ModelFile Model;
  std::vector<double> StepFitness; // es: mean fitness of each step's perturbed policies
  /// bias: each candidate (the share of decisions it flips, negative for refusals turned into
  /// inlines; its bias shift; the training-side reduction).
  struct Candidate {
    double Flipped, Shift, Reduction;
  };
  std::vector<Candidate> Searched;
  double StartReduction = 0, TunedReduction = 0; // over the whole training side
  bool Kept = false;                              // the tuned model is better and returned
  size_t Compilations = 0, Failed = 0;
};

/// Records in M what tuning it gave over the whole training side: the reduction with the start
/// model and tuned (finetune_training_reduction_start, _tuned) and whether the tuned one was kept.
void stampTuningOutcome(runners::ModelFile &M, const FineTuneResult &R);

/// Fine-tunes Start on Modules (those without decisions count with their heuristic size).
/// Observations (the exploration's, with every input Start reads) give the perturbation
/// scales (none: every parameter's scale is 1). An eviction model (es only) is scored by the
/// register allocation cost of the modules it compiles instead of their .text.
llvm::Expected<FineTuneResult> fineTune(const runners::ModelFile &Start,
                                        const std::vector<TuneModule> &Modules,
                                        const features::DatasetTable &Observations,
                                        const FineTuneConfig &C);

/// Evolution strategies' core on parameters u. A step draws Pairs standard normal vectors
/// eps_p from G; F[2p] and F[2p+1] are the fitness of u + sigma eps_p and u - sigma eps_p;
/// esUpdate moves U (N x 1) up the antithetic estimate of the smoothed fitness's gradient, in
/// units of the fitness's spread over the step (no move when it does not vary).
std::vector<arma::vec> esPerturbations(learn::Rng &G, unsigned Pairs, arma::uword N);
void esUpdate(arma::mat &U, learn::Optimizer &Opt, const std::vector<arma::vec> &Eps,
              const std::vector<double> &F, const ESSettings &S);

/// Robust spread of each row of X (input-vector elements by observations) over its finite
/// values: IQR / 1.349 (the standard deviation for normal data, unmoved by outliers), else the
/// standard deviation, else 1 (a constant input). ES perturbs first-layer weights relative
/// to it.
std::vector<double> inputSpreads(const arma::mat &X);

/// Where fine-tuning starts: a model file, or the heuristic (mlgo/pipelines/Train.h heuristicModel).
struct FineTuneStart {
  std::string ModelPath;
  bool Heuristic = false;
};

/// `ir2vec mlgo finetune`: the training modules and observations of Exploration, the start
/// model, the result (with provenance) in Output. CorpusArgs are the corpus inputs the
/// exploration was made from when its modules have recorded command lines (the toolchain
/// must be the exploration's).
llvm::Expected<support::Outcome> runFineTune(const std::string &Exploration,
                                             const FineTuneStart &From,
                                             const std::vector<std::string> &CorpusArgs,
                                             FineTuneConfig C, const std::string &Output);

} // namespace wb::mlgo
