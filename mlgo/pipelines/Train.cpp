#include "mlgo/pipelines/Train.h"

#include "mlgo/pipelines/Records.h"

#include "mlgo/pipelines/ExplorationFile.h"
#include "learn/Random.h"
#include "support/Files.h"
#include "support/Interrupts.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <numeric>
#include <set>

namespace wb::mlgo {

using runners::ModelFile;
using runners::Normalization;

std::optional<std::string> hiddenProblem(const std::vector<unsigned> &Hidden) {
  // Widths are bounded so that a typo cannot ask for gigabytes of weights (an MLP of 100
  // million units ended the process by bad_alloc); the inliner's models use tens. Widths one
  // by one are not enough: [65536, 65536] asks for 4.3 billion weights (32 GB, an abort well
  // into a study), so the weights between hidden layers are bounded too (16.8 million: 128 MiB,
  // four times that with the optimizer's state).
  constexpr unsigned MaxWidth = 65536;
  constexpr uint64_t MaxHiddenWeights = uint64_t(1) << 24;
  // A model file holds at most runners::MaxModelLayers layers (the output layer is one of them):
  // 100,000 hidden layers trained and then failed on writing (issue 37's hostile try).
  if (Hidden.size() + 1 > runners::MaxModelLayers)
    return "at most " + std::to_string(runners::MaxModelLayers - 1) + " hidden layers";
  uint64_t Weights = 0;
  for (size_t I = 0; I < Hidden.size(); ++I) {
    if (Hidden[I] == 0 || Hidden[I] > MaxWidth)
      return "layer widths must be 1 to " + std::to_string(MaxWidth);
    if (I + 1 < Hidden.size())
      Weights += uint64_t(Hidden[I]) * Hidden[I + 1];
  }
  if (Weights > MaxHiddenWeights)
    return llvm::formatv("{0} weights between the hidden layers, more than this tool trains ({1})",
                         Weights, MaxHiddenWeights)
        .str();
  return std::nullopt;
}

llvm::Error TrainConfig::validate() const {
  if (Groups.empty() && Inputs.empty())
    return support::usageError("--features: name at least one feature group (or --inputs)");
  if (support::nameOf<runners::ModelKind>(runners::TrainedKindNames, Kind).empty())
    return support::usageError("--model: expected " +
                               support::choices<runners::ModelKind>(runners::TrainedKindNames) +
                               ", found '" + runners::kindName(Kind) + "'");
  if (Epochs == 0 || BatchSize == 0 || Quantiles == 0)
    return support::usageError("--epochs, --batch-size and the quantiles must be at least 1");
  if (std::optional<std::string> P = hiddenProblem(Hidden))
    return support::usageError("--hidden: " + *P);
  return Optimizer.validate();
}

std::vector<double> quantileEdges(std::vector<double> Values, unsigned Quantiles) {
  std::vector<double> Edges;
  if (Values.empty())
    return Edges;
  std::sort(Values.begin(), Values.end());
  const size_t N = Values.size();
  for (unsigned K = 0; K <= Quantiles; ++K)
    Edges.push_back(Values[size_t(std::llround(double(K) * double(N - 1) / Quantiles))]);
  Edges.erase(std::unique(Edges.begin(), Edges.end()), Edges.end());
  return Edges;
}

namespace {

/// The dataset features the model reads: those of the chosen groups and the named ones, in
/// the table's order.
llvm::Expected<std::vector<size_t>> selectInputs(const features::DatasetTable &D,
                                                 const std::vector<std::string> &Groups,
                                                 const std::vector<std::string> &Names) {
  auto Defs = Groups.empty() ? llvm::Expected<std::vector<const features::FeatureDef *>>(
                                   std::vector<const features::FeatureDef *>())
                             : features::featuresOfGroups(D.T, Groups);
  if (!Defs)
    return Defs.takeError();
  std::set<std::string> Want(Names.begin(), Names.end());
  for (const features::FeatureDef *F : *Defs)
    Want.erase(F->Name);
  for (const features::FeatureDef &F : features::taskInfo(D.T).Features)
    if (Want.erase(F.Name))
      Defs->push_back(&F);
  if (!Want.empty())
    return support::usageError("--inputs: unknown feature '" + *Want.begin() +
                               "' (ir2vec mlgo features --task inline lists them)");
  std::stable_sort(Defs->begin(), Defs->end(),
                   [&](const features::FeatureDef *A, const features::FeatureDef *B) {
                     return A < B; // the table is one array: addresses are its order
                   });
  std::vector<size_t> Out;
  for (const features::FeatureDef *F : *Defs) {
    std::optional<size_t> I = D.find(F->Name);
    if (!I)
      return support::usageError(
          llvm::Twine("feature group '") + F->Group + "' needs feature '" + F->Name +
          "', which these observations do not have (embedding features come from an "
          "exploration with --embeddings and --observations naming its vocabulary)");
    Out.push_back(*I);
  }
  return Out;
}

Normalization fit(const features::DatasetTable &D, size_t F, const TrainConfig &C) {
  const features::TensorSpec &S = D.Features[F];
  const size_t N = S.elementCount(), Rows = D.rows();
  const unsigned Quantiles = C.Quantiles;
  Normalization Z;
  if (C.Normalize == IntegerNormalization::None)
    return Z;
  if (S.Type != features::TensorType::Float && S.Type != features::TensorType::Double &&
      C.Normalize == IntegerNormalization::Quantile) {
    std::vector<double> Values;
    Values.reserve(Rows * N);
    for (size_t R = 0; R < Rows; ++R)
      for (size_t J = 0; J < N; ++J)
        Values.push_back(D.value(F, R, J));
    Z.K = Normalization::Quantile;
    Z.Edges = quantileEdges(std::move(Values), Quantiles);
    return Z;
  }
  Z.K = Normalization::ZScore;
  Z.Mean.assign(N, 0);
  Z.Std.assign(N, 0);
  for (size_t J = 0; J < N; ++J) {
    double Sum = 0, Sq = 0;
    for (size_t R = 0; R < Rows; ++R) {
      const double X = D.value(F, R, J);
      Sum += X;
      Sq += X * X;
    }
    const double Mean = Sum / double(Rows);
    const double Var = std::max(0.0, Sq / double(Rows) - Mean * Mean);
    Z.Mean[J] = Mean;
    // A constant element carries no information: any scale will do, and 1 keeps it finite.
    Z.Std[J] = std::sqrt(Var) > 1e-12 ? std::sqrt(Var) : 1.0;
  }
  return Z;
}

/// The network's input columns for every row of D, M's inputs being D's Features.
arma::mat selectedInputMatrix(const ModelFile &M, const std::vector<size_t> &Features,
                              const features::DatasetTable &D) {
  arma::mat X(runners::modelInputWidth(M), D.rows());
  for (size_t R = 0; R < D.rows(); ++R)
    runners::modelInputVector(
        M, [&](size_t I, size_t J) { return D.value(Features[I], R, J); }, 0, X.colptr(R));
  return X;
}

double sigmoid(double Z) { return 1 / (1 + std::exp(-Z)); }

/// Mean logistic loss and accuracy of the outputs Z against labels Y.
std::pair<double, double> lossAndAccuracy(const arma::mat &Z, const arma::rowvec &Y) {
  double Loss = 0, Right = 0;
  for (arma::uword I = 0; I < Z.n_cols; ++I) {
    const double P = sigmoid(Z(0, I));
    Loss -= Y(I) > 0 ? std::log(std::max(P, 1e-15)) : std::log(std::max(1 - P, 1e-15));
    Right += (Z(0, I) > 0) == (Y(I) > 0);
  }
  return {Loss / std::max<double>(1, Z.n_cols), Right / std::max<double>(1, Z.n_cols)};
}

} // namespace

namespace {

/// The model's inputs and their normalisation fitted on D; no layers yet.
llvm::Expected<std::pair<ModelFile, std::vector<size_t>>>
modelWithoutLayers(const features::DatasetTable &D, const TrainConfig &C) {
  if (llvm::Error E = C.validate())
    return E;
  if (D.T != runners::Task::Inline)
    return support::makeError("training is for the inliner (task inline)");
  if (D.rows() == 0)
    return support::makeError("no training rows: the training split's best trajectories hold "
                              "no decision");
  auto Features = selectInputs(D, C.Groups, C.Inputs);
  if (!Features)
    return Features.takeError();
  ModelFile M;
  M.ForTask = D.T;
  M.Kind = C.Kind;
  M.FeatureSet = D.Features;
  M.FeatureSetVersion = D.FeatureSetVersion;
  M.Groups = C.Groups;
  for (size_t F : *Features) {
    M.Inputs.push_back(D.Features[F]);
    M.Norms.push_back(fit(D, F, C));
  }
  return std::make_pair(std::move(M), std::move(*Features));
}

} // namespace

llvm::Expected<ModelFile> heuristicModel(const features::DatasetTable &D) {
  TrainConfig C;
  C.Kind = runners::ModelKind::Linear;
  C.Groups.clear();
  C.Inputs = {"threshold", "cost_estimate", "inlining_default"};
  C.Normalize = IntegerNormalization::None;
  auto MF = modelWithoutLayers(D, C);
  if (!MF)
    return MF.takeError();
  ModelFile &M = MF->first;
  ModelFile::Layer L;
  L.In = unsigned(runners::modelInputWidth(M));
  L.Out = 1;
  L.Weight.assign(L.In, 0.0);
  for (size_t I = 0; I < M.Inputs.size(); ++I) {
    const std::string &N = M.Inputs[I].Name;
    L.Weight[I] = N == "threshold" ? 1 : N == "cost_estimate" ? -1 : HeuristicWeight;
  }
  L.Bias = {HeuristicStartBias - HeuristicWeight};
  M.Layers = {L};
  return M;
}

llvm::Expected<ModelFile> trainPolicy(const features::DatasetTable &D, const TrainConfig &C,
                                      TrainingReport &Report) {
  auto MF = modelWithoutLayers(D, C);
  if (!MF)
    return MF.takeError();
  ModelFile &M = MF->first;
  const std::vector<size_t> &Features = MF->second;
  const arma::mat X = selectedInputMatrix(M, Features, D);
  arma::rowvec Y(D.rows());
  for (size_t R = 0; R < D.rows(); ++R)
    Y(R) = D.Decisions[R] != 0;

  // Glorot-uniform weights, zero biases, from the seed.
  learn::Rng G(C.Seed);
  runners::Network Net;
  std::vector<unsigned> Widths = {unsigned(X.n_rows)};
  if (C.Kind == runners::ModelKind::MLP)
    Widths.insert(Widths.end(), C.Hidden.begin(), C.Hidden.end());
  Widths.push_back(1);
  std::vector<arma::SizeMat> Shapes;
  for (size_t L = 0; L + 1 < Widths.size(); ++L) {
    const double Bound = std::sqrt(6.0 / double(Widths[L] + Widths[L + 1]));
    arma::mat W(Widths[L + 1], Widths[L]);
    for (double &V : W)
      V = (2 * learn::unit(G) - 1) * Bound;
    Net.W.push_back(std::move(W));
    Net.B.push_back(arma::vec(Widths[L + 1], arma::fill::zeros));
    Shapes.push_back(arma::size(Widths[L + 1], Widths[L]));
    Shapes.push_back(arma::size(Widths[L + 1], 1));
  }
  learn::Optimizer Opt(C.Optimizer, Shapes);
  std::vector<arma::uword> Order(D.rows());
  std::iota(Order.begin(), Order.end(), 0);
  std::vector<arma::mat> A;
  for (unsigned Epoch = 0; Epoch < C.Epochs; ++Epoch) {
    // Studies (ablate, benchmark) take SIGTERM as a request to stop: the training inside them
    // must heed it (issue 37's hostile try: ablate trained on past SIGTERM and SIGHUP).
    if (support::interruptReceived())
      return support::interruptedError("interrupted while training");
    for (size_t I = Order.size(); I > 1; --I)
      std::swap(Order[I - 1], Order[learn::below(G, uint32_t(I))]);
    for (size_t Lo = 0; Lo < Order.size(); Lo += C.BatchSize) {
      const arma::uvec Batch(std::vector<arma::uword>(
          Order.begin() + Lo, Order.begin() + std::min(Order.size(), Lo + C.BatchSize)));
      const arma::mat Z = Net.forward(X.cols(Batch), &A);
      // The logistic loss's gradient with respect to the output: sigmoid(z) - y.
      arma::mat Delta = Z;
      for (arma::uword K = 0; K < Batch.n_elem; ++K)
        Delta(0, K) = (sigmoid(Z(0, K)) - Y(Batch(K))) / double(Batch.n_elem);
      for (size_t L = Net.W.size(); L-- > 0;) {
        const arma::mat GW = Delta * A[L].t();
        const arma::mat GB = arma::sum(Delta, 1);
        if (L > 0) // through the ReLU of the layer below
          Delta = (Net.W[L].t() * Delta) % arma::conv_to<arma::mat>::from(A[L] > 0);
        Opt.step(2 * L, Net.W[L], GW);
        Opt.step(2 * L + 1, Net.B[L], GB);
      }
    }
    // As vocab train does: a model of NaNs is no model (it was written, and run, before).
    for (size_t L = 0; L < Net.W.size(); ++L)
      if (!Net.W[L].is_finite() || !Net.B[L].is_finite())
      {
        std::ostringstream Rate; // 1e+308, not 309 digits
        Rate << C.Optimizer.LearningRate;
        return support::makeError(llvm::formatv("training diverged at epoch {0} (the weights are "
                                                "not finite); lower the learning rate (now {1})",
                                                Epoch + 1, Rate.str())
                                      .str());
      }
  }
  Net.storeInto(M);
  std::tie(Report.Loss, Report.Accuracy) = lossAndAccuracy(Net.forward(X), Y);
  Report.Rows = D.rows();
  Report.Modules = std::set<int64_t>(D.RowModule.begin(), D.RowModule.end()).size();
  if (std::optional<size_t> H = D.find("inlining_default")) {
    size_t Same = 0;
    for (size_t R = 0; R < D.rows(); ++R)
      Same += (D.value(*H, R, 0) != 0) == (D.Decisions[R] != 0);
    Report.LabelsFromHeuristic = double(Same) / double(D.rows());
  }
  return M;
}

arma::mat inputMatrix(const ModelFile &M, const features::DatasetTable &D) {
  std::vector<size_t> Features;
  for (const features::TensorSpec &S : M.Inputs)
    Features.push_back(D.find(S.Name).value_or(0));
  return selectedInputMatrix(M, Features, D);
}

std::vector<int64_t> predict(const ModelFile &M, const features::DatasetTable &D) {
  const arma::mat Z = runners::Network::of(M).forward(inputMatrix(M, D));
  std::vector<int64_t> Out;
  for (arma::uword I = 0; I < Z.n_cols; ++I)
    Out.push_back(Z(0, I) > 0);
  return Out;
}

llvm::Expected<std::vector<int64_t>> predictOnLog(const ModelFile &M, const features::Log &L,
                                                  llvm::StringRef Name) {
  std::vector<size_t> Index, Offset;
  for (const features::TensorSpec &S : M.Inputs) {
    std::optional<size_t> I = L.Header.find(S.Name);
    if (!I || L.Header.Features[*I] != S)
      return support::fileError(Name, "the model reads '" + S.Name + "' " +
                                          features::shapeString(S) +
                                          ", which the log's observations do not have");
    Index.push_back(*I);
    Offset.push_back(L.Header.offsetOf(*I));
  }
  const runners::Network Net = runners::Network::of(M);
  arma::mat X(runners::modelInputWidth(M), L.Observations.size());
  for (size_t R = 0; R < L.Observations.size(); ++R) {
    const char *P = L.Observations[R].Payload.data();
    runners::modelInputVector(
        M,
        [&](size_t I, size_t J) {
          return features::elementAsDouble(M.Inputs[I].Type, P + Offset[I], J);
        },
        0, X.colptr(R));
  }
  const arma::mat Z = Net.forward(X);
  std::vector<int64_t> Out;
  for (arma::uword I = 0; I < Z.n_cols; ++I)
    Out.push_back(Z(0, I) > 0);
  return Out;
}

Provenance trainingProvenance(llvm::StringRef CreatedBy, const std::string &Exploration,
                              llvm::StringRef ExplorationSHA256, llvm::StringRef Observations,
                              llvm::StringRef EmbeddingsDigest, llvm::StringRef Split,
                              const TrainConfig &C, const TrainingReport &R) {
  llvm::json::Array Hidden;
  for (unsigned H : C.Hidden)
    Hidden.push_back(int64_t(H));
  std::string Hyper;
  llvm::raw_string_ostream(Hyper) << llvm::json::Value(llvm::json::Object{
      {"model", runners::kindName(C.Kind)},
      {"hidden", std::move(Hidden)},
      {"epochs", int64_t(C.Epochs)},
      {"batch_size", int64_t(C.BatchSize)},
      {"optimizer", learn::optimizerName(C.Optimizer.Kind)},
      {"learning_rate", C.Optimizer.LearningRate},
      {"seed", int64_t(C.Seed)},
      {"quantiles", int64_t(C.Quantiles)},
      {"normalize", support::nameOf<IntegerNormalization>(IntegerNormalizationNames, C.Normalize)},
      {"loss", "logistic"}});
  Provenance P = provenance(CreatedBy);
  P.insert(P.end(), {
          {"training_data", llvm::sys::path::filename(Exploration).str()},
          {"training_data_sha256", ExplorationSHA256.str()},
          {"observations", Observations.str()},
          {"embeddings_digest", EmbeddingsDigest.str()},
          {"split", Split.str()},
          {"hyperparameters", Hyper},
          {"train_rows", std::to_string(R.Rows)},
          {"train_accuracy", llvm::formatv("{0:f6}", R.Accuracy).str()},
          {"train_loss", llvm::formatv("{0:f6}", R.Loss).str()}});
  return P;
}

llvm::Expected<support::Outcome> runTraining(const std::string &Exploration,
                                             const std::string &Observations,
                                             const TrainConfig &C, const std::string &Output,
                                             const support::DiagnosticHandler &Report) {
  if (Output.empty() || Output == "-")
    return support::usageError("train needs an output file: -o MODEL.h5");
  if (llvm::Error E = C.validate())
    return E;
  if (llvm::Error E = support::checkOutputPath(Output))
    return E;
  // The observation set and the split the exploration recorded.
  llvm::Expected<ExplorationFile> X = readExplorationHeader(Exploration);
  if (!X)
    return X.takeError();
  if (llvm::Error E = refuseHeldOut(Exploration, X->Header, "train"))
    return E;
  const std::string Split = X->Header.trainedSplit();
  auto Set = std::find(X->ObservationSets.begin(), X->ObservationSets.end(), Observations);
  if (Set == X->ObservationSets.end())
    return support::usageError("--observations: '" + Observations + "' is not among the "
                               "exploration's observation sets (" +
                               llvm::join(X->ObservationSets, ", ") + ")");
  // Set 0 has no embeddings; set v the exploration's embeddings v - 1.
  const size_t V = size_t(Set - X->ObservationSets.begin());
  const std::string Digest =
      V > 0 && V - 1 < X->Header.VocabularyDigests.size() ? X->Header.VocabularyDigests[V - 1] : "";
  auto D = readObservations(Exploration, Observations);
  if (!D)
    return D.takeError();
  TrainingReport R;
  auto M = trainPolicy(*D, C, R);
  if (!M)
    return M.takeError();
  auto SHA = support::sha256OfFile(Exploration);
  if (!SHA)
    return SHA.takeError();
  M->Provenance = trainingProvenance("ir2vec mlgo train", Exploration, *SHA, Observations, Digest,
                                     Split, C, R);
  if (llvm::Error E = runners::writeModelFile(Output, *M))
    return E;
  std::vector<std::string> Reads(C.Groups);
  Reads.insert(Reads.end(), C.Inputs.begin(), C.Inputs.end());
  std::string Line = llvm::formatv("trained {0} on {1} decisions of {2} modules ({3}): "
                                   "accuracy {4:f4}, loss {5:f4}",
                                   runners::kindName(C.Kind), R.Rows, R.Modules, llvm::join(Reads, ","),
                                   R.Accuracy, R.Loss);
  if (R.LabelsFromHeuristic >= 0)
    Line += llvm::formatv("; the heuristic agrees with {0:f4} of the labels",
                          R.LabelsFromHeuristic)
                .str();
  Report({support::Diagnostic::Note, Line});
  return support::Outcome::complete();
}

} // namespace wb::mlgo
