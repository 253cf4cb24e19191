#include "runners/Models.h"

#include "support/Isolate.h"

#include "corpus/H5.h"
#include "support/JSON.h"
#include "support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"

#include <armadillo>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace wb::runners {

namespace {

using features::TensorType;
namespace h5 = corpus::h5;
using support::fileError;
using support::makeError;

/// linear and mlp: the network of the model file over its normalised input vector.
/// Eviction scores each of the 33 columns with the same network and answers the best legal
/// one.
class NetworkPolicy : public Policy {
public:
  explicit NetworkPolicy(ModelFile M) : M(std::move(M)), Net(Network::of(this->M)) {
    In = this->M.Inputs;
    if (this->M.AbstainMargin) { // the heuristic's decision is bound, read or not by the network
      DefaultIdx = In.size();
      for (size_t I = 0; I < In.size(); ++I)
        if (In[I].Name == "inlining_default")
          DefaultIdx = I;
      if (DefaultIdx == In.size())
        In.push_back({"inlining_default", TensorType::Int64, 0, {1}});
    }
    if (this->M.ForTask == Task::Evict) {
      MaskIdx = In.size();
      for (size_t I = 0; I < In.size(); ++I)
        if (In[I].Name == "mask")
          MaskIdx = I;
      if (MaskIdx == In.size())
        In.push_back(evictionMaskSpec()); // bound for legality only, not fed to the network
    }
  }
  std::vector<TensorSpec> inputs() const override { return In; }
  std::string describe() const override { return kindName(M.Kind).str(); }

  llvm::Expected<std::string> advise(const Inputs &X) override {
    const size_t NCols = M.ForTask == Task::Evict ? EvictionColumns : 1;
    arma::mat A(modelInputWidth(M), NCols);
    for (size_t C = 0; C < NCols; ++C)
      modelInputVector(
          M, [&X](size_t I, size_t J) { return X.at(I, J); }, C, A.colptr(C));
    const arma::mat Out = Net.forward(A);
    switch (M.ForTask) {
    case Task::Inline:
      if (M.AbstainMargin) {
        const bool Default = X.at(DefaultIdx, 0) != 0;
        return int64Advice(Default ? !(Out(0, 0) < -*M.AbstainMargin)
                                   : Out(0, 0) > *M.AbstainMargin);
      }
      return int64Advice(Out(0, 0) > 0);
    case Task::Priority:
      return floatAdvice(static_cast<float>(Out(0, 0)));
    case Task::Evict: {
      std::vector<size_t> Legal = legalColumns(X, MaskIdx);
      if (Legal.empty())
        return int64Advice(NoEviction);
      size_t Best = Legal.front();
      for (size_t C : Legal)
        if (Out(0, C) > Out(0, Best))
          Best = C;
      return int64Advice(static_cast<int64_t>(Best));
    }
    }
    return makeError("unknown task");
  }

private:
  ModelFile M;
  Network Net;
  std::vector<TensorSpec> In;
  size_t MaskIdx = 0, DefaultIdx = 0;
};

bool perColumn(const ModelFile &M, const TensorSpec &S) {
  return M.ForTask == Task::Evict && S.Shape == std::vector<int64_t>{1, 33};
}

} // namespace

void ModelFile::setProvenance(const std::string &Key, const std::string &Value) {
  for (auto &[K, V] : Provenance)
    if (K == Key) {
      V = Value;
      return;
    }
  Provenance.emplace_back(Key, Value);
}

double *Normalization::apply(size_t J, double X, double *Out) const {
  switch (K) {
  case None:
    *Out++ = X;
    break;
  case Quantile: {
    const double Q = double(std::upper_bound(Edges.begin(), Edges.end(), X) - Edges.begin()) /
                     double(Edges.size());
    *Out++ = Q;
    *Out++ = Q * Q;
    break;
  }
  case ZScore:
    *Out++ = (X - Mean[J]) / Std[J];
    break;
  }
  return Out;
}

const Normalization &ModelFile::norm(size_t Input) const {
  static const Normalization Identity;
  return Input < Norms.size() ? Norms[Input] : Identity;
}

unsigned modelInputWidth(const ModelFile &M) {
  unsigned N = 0;
  for (size_t I = 0; I < M.Inputs.size(); ++I)
    N += (perColumn(M, M.Inputs[I]) ? 1 : M.Inputs[I].elementCount()) * M.norm(I).width();
  return N;
}

void modelInputVector(const ModelFile &M, const std::function<double(size_t, size_t)> &Value,
                      size_t Column, double *Out) {
  for (size_t I = 0; I < M.Inputs.size(); ++I) {
    const Normalization &N = M.norm(I);
    if (perColumn(M, M.Inputs[I])) {
      Out = N.apply(0, Value(I, Column), Out);
      continue;
    }
    for (size_t J = 0; J < M.Inputs[I].elementCount(); ++J)
      Out = N.apply(J, Value(I, J), Out);
  }
}

Network Network::of(const ModelFile &M) {
  Network N;
  for (const ModelFile::Layer &L : M.Layers) {
    // Row-major Out x In is the column-major In x Out matrix: transposed once here.
    N.W.push_back(arma::mat(L.Weight.data(), L.In, L.Out).t());
    N.B.emplace_back(L.Bias);
  }
  return N;
}

void Network::storeInto(ModelFile &M) const {
  M.Layers.clear();
  for (size_t L = 0; L < W.size(); ++L) {
    ModelFile::Layer Ly;
    Ly.Out = unsigned(W[L].n_rows);
    Ly.In = unsigned(W[L].n_cols);
    const arma::mat T = W[L].t(); // column-major In x Out = row-major Out x In
    Ly.Weight.assign(T.begin(), T.end());
    Ly.Bias.assign(B[L].begin(), B[L].end());
    M.Layers.push_back(std::move(Ly));
  }
}

arma::mat Network::forward(const arma::mat &X, std::vector<arma::mat> *Activations) const {
  arma::mat A = X;
  if (Activations) {
    Activations->clear();
    Activations->push_back(A);
  }
  for (size_t L = 0; L < W.size(); ++L) {
    A = W[L] * A;
    A.each_col() += B[L];
    if (L + 1 < W.size())
      A.transform([](double V) { return V > 0 ? V : 0; });
    if (Activations)
      Activations->push_back(A);
  }
  return A;
}

std::unique_ptr<Policy> makeModelPolicy(ModelFile M) {
  if (M.Rule)
    return makeRulePolicy(*M.Rule);
  return std::make_unique<NetworkPolicy>(std::move(M));
}

ModelFile ruleModel(const InlineRule &Rule,
                    std::vector<std::pair<std::string, std::string>> Provenance) {
  ModelFile M;
  M.ForTask = Task::Inline;
  M.Kind = ModelKind::Rule;
  M.Inputs = InlineRule::inputs();
  M.FeatureSet = M.Inputs; // a rule was not trained on a feature set; it reads these
  M.FeatureSetVersion = features::featureSetVersion(Task::Inline, M.FeatureSet);
  M.Rule = Rule;
  M.Provenance = std::move(Provenance);
  return M;
}

llvm::Expected<std::unique_ptr<Policy>> loadModelPolicy(Task T, const PolicyOptions &O) {
  llvm::Expected<ModelFile> M = readModelFile(O.ModelPath);
  if (!M)
    return M.takeError();
  if (M->ForTask != T)
    return fileError(O.ModelPath, llvm::Twine("a model for task '") +
                                      features::taskInfo(M->ForTask).Name + "', not '" +
                                      features::taskInfo(T).Name + "'");
  // A policy named after a model kind reads only that kind; a shipped policy is what its
  // file says.
  const PolicyInfo *P = findPolicy(O.Name);
  if (P && P->Needs == PolicyNeeds::ModelFile && kindName(M->Kind) != O.Name)
    return fileError(O.ModelPath, "a " + kindName(M->Kind) + " model, not " + O.Name);
  return makeModelPolicy(std::move(*M));
}

namespace {
llvm::Expected<ModelFile> readModelFileDirect(llvm::StringRef Path);
} // namespace

std::function<llvm::Expected<std::unique_ptr<Policy>>(Task, const PolicyOptions &)>
cachingModelLoader() {
  struct Cache {
    std::mutex Mu;
    std::map<std::pair<Task, std::string>, ModelFile> Models;
  };
  auto C = std::make_shared<Cache>();
  return [C](Task T, const PolicyOptions &O) -> llvm::Expected<std::unique_ptr<Policy>> {
    std::lock_guard<std::mutex> L(C->Mu);
    const auto Key = std::make_pair(T, O.ModelPath + "\n" + O.Name);
    auto It = C->Models.find(Key);
    if (It == C->Models.end()) {
      // loadModelPolicy's checks, once; the policy it makes is not needed.
      llvm::Expected<std::unique_ptr<Policy>> P = loadModelPolicy(T, O);
      if (!P)
        return P.takeError();
      llvm::Expected<ModelFile> M = readModelFileDirect(O.ModelPath); // just checked
      if (!M)
        return M.takeError();
      It = C->Models.emplace(Key, std::move(*M)).first;
    }
    return makeModelPolicy(It->second);
  };
}

// ---------------------------------------------------------------------------------------------
// Model files (docs/formats/mlgo-model.md).

namespace {

// Attributes with a meaning of their own; any other string attribute is provenance.
const std::set<std::string> KnownAttributes = {"schema", "task", "kind", "feature_set_version",
                                               "feature_set", "inputs", "layers", "groups", "rule"};
const char *const NormalizationNames[] = {"none", "quantile", "zscore"};

llvm::Error readNormalizations(H5::H5File &F, ModelFile &M, llvm::StringRef Path) {
  auto Bad = [&](const llvm::Twine &What) { return fileError(Path, "normalization: " + What); };
  if (!F.nameExists("normalization"))
    return llvm::Error::success();
  H5::Group NG = F.openGroup("normalization");
  for (size_t I = 0; I < M.Inputs.size(); ++I) {
    const std::string Name = std::to_string(I);
    if (!NG.nameExists(Name))
      return Bad("missing group " + Name + " (input '" + M.Inputs[I].Name + "')");
    H5::Group G = NG.openGroup(Name);
    const std::string Kind = h5::readStrAttr(G, "kind");
    Normalization N;
    auto Column = [&](const char *D, std::vector<double> &Out, uint64_t Want) -> llvm::Error {
      if (!G.nameExists(D))
        return Bad(Name + "/" + D + " is missing");
      H5::DataSet DS = G.openDataSet(D);
      const uint64_t Have = h5::extentOf(DS);
      if (DS.getSpace().getSimpleExtentNdims() > 2 || (Want && Have != Want) || Have == 0 ||
          Have > (1u << 20))
        return Bad(Name + "/" + D + ": " + llvm::Twine(Have) + " values, expected " +
                   (Want ? llvm::Twine(Want) : llvm::Twine("1 or more")));
      Out = h5::readNumbers<double>(DS, H5::PredType::NATIVE_DOUBLE, 0, Have, 1);
      for (double X : Out)
        if (!std::isfinite(X))
          return Bad(Name + "/" + D + " holds a value that is not finite");
      return llvm::Error::success();
    };
    if (Kind == "quantile") {
      N.K = Normalization::Quantile;
      if (llvm::Error E = Column("edges", N.Edges, 0))
        return E;
      for (size_t J = 1; J < N.Edges.size(); ++J)
        if (!(N.Edges[J - 1] < N.Edges[J]))
          return Bad(Name + "/edges must increase strictly");
    } else if (Kind == "zscore") {
      N.K = Normalization::ZScore;
      const uint64_t Want = M.Inputs[I].elementCount();
      if (llvm::Error E = Column("mean", N.Mean, Want))
        return E;
      if (llvm::Error E = Column("std", N.Std, Want))
        return E;
      for (double X : N.Std)
        if (!(X > 0))
          return Bad(Name + "/std must be positive");
    } else if (Kind != "none") {
      return Bad(Name + ": kind '" + Kind + "', expected none, quantile or zscore");
    }
    M.Norms.push_back(std::move(N));
  }
  return llvm::Error::success();
}

llvm::Expected<ModelFile> readModelFileDirect(llvm::StringRef Path) {
  // Worker threads read models while others fork for isolated reads (support/Isolate.h).
  support::ForkGuard Guard;
  auto Bad = [&](const llvm::Twine &What) { return fileError(Path, What); };
  llvm::sys::fs::file_status St;
  if (llvm::sys::fs::status(Path, St))
    return Bad("no such file (or a symbolic link that leads nowhere)");
  // HDF5 reads by seeking: a FIFO or device would block or be read twice; only a regular
  // file is a model.
  if (St.type() != llvm::sys::fs::file_type::regular_file)
    return Bad("not a regular file (a model is an HDF5 file)");
  ModelFile M;
  try {
    H5::Exception::dontPrint();
    H5::H5File F(Path.str(), H5F_ACC_RDONLY);
    const std::string Schema = F.attrExists("schema") ? h5::readStrAttr(F, "schema") : "";
    if (Schema != ModelSchema && Schema != ModelSchemaV2 && Schema != ModelSchemaV1)
      return Bad(std::string("not a model file (expected attribute schema = ") + ModelSchema +
                 ", " + ModelSchemaV2 + " or " + ModelSchemaV1 + ")");
    for (const char *Required : {"task", "kind", "inputs", "feature_set", "feature_set_version"})
      if (!F.attrExists(Required))
        return Bad(llvm::Twine("missing attribute ") + Required);
    std::optional<Task> T = features::taskFromName(h5::readStrAttr(F, "task"));
    if (!T)
      return Bad("attribute task: expected inline, evict or priority");
    M.ForTask = *T;
    const std::string Kind = h5::readStrAttr(F, "kind");
    std::optional<ModelKind> K = support::findNamed<ModelKind>(ModelKindNames, Kind);
    if (!K)
      return Bad("attribute kind: expected " + support::choices<ModelKind>(ModelKindNames) +
                 ", found '" + Kind + "'");
    M.Kind = *K;
    if (M.Kind == ModelKind::Rule && Schema != ModelSchema)
      return Bad(llvm::Twine("attribute kind: rules are schema ") + ModelSchema + ", not " + Schema);
    M.FeatureSetVersion = h5::readStrAttr(F, "feature_set_version");
    for (auto [Attr, Dest] : {std::pair{"inputs", &M.Inputs}, {"feature_set", &M.FeatureSet}}) {
      llvm::Expected<std::vector<TensorSpec>> S =
          features::specsFromJSON(h5::readStrAttr(F, Attr), Attr);
      if (!S)
        return Bad(llvm::toString(S.takeError()));
      *Dest = std::move(*S);
    }
    if (Schema != ModelSchemaV1) {
      if (llvm::Error E = readNormalizations(F, M, Path))
        return E;
      if (F.attrExists("groups")) {
        auto G = support::parseJSON(h5::readStrAttr(F, "groups"));
        const llvm::json::Array *A = G ? G->getAsArray() : nullptr;
        if (!A) {
          if (!G)
            llvm::consumeError(G.takeError());
          return Bad("attribute groups: expected a JSON array of group names");
        }
        for (const llvm::json::Value &V : *A)
          if (std::optional<llvm::StringRef> S = V.getAsString())
            M.Groups.push_back(S->str());
      }
      for (unsigned I = 0, N = unsigned(F.getNumAttrs()); I < N; ++I) {
        H5::Attribute A = F.openAttribute(I);
        const std::string Name = A.getName();
        if (A.getTypeClass() == H5T_STRING && !KnownAttributes.count(Name)) {
          std::string V;
          A.read(A.getStrType(), V);
          M.Provenance.emplace_back(Name, V);
        }
      }
    }
    if (Schema == ModelSchema && F.attrExists("abstain_margin")) {
      const double A = h5::readNumAttr<double>(F, "abstain_margin", H5::PredType::NATIVE_DOUBLE);
      if (!(A >= 0) || !std::isfinite(A))
        return Bad("attribute abstain_margin: expected a finite number >= 0");
      if (M.ForTask != Task::Inline)
        return Bad("attribute abstain_margin: only inliner models abstain");
      M.AbstainMargin = A;
    }
    if (M.Kind == ModelKind::Rule) {
      if (M.ForTask != Task::Inline)
        return Bad("a rule model is for task inline");
      if (!F.attrExists("rule"))
        return Bad("a rule model needs attribute rule (JSON)");
      auto V = support::parseJSON(h5::readStrAttr(F, "rule"));
      if (!V)
        return Bad("attribute rule: " + llvm::toString(V.takeError()));
      auto R = InlineRule::fromJSON(*V);
      if (!R)
        return Bad("attribute " + llvm::toString(R.takeError()));
      if (M.Inputs != InlineRule::inputs())
        return Bad("attribute inputs: a rule model reads " +
                   features::specsJSON(InlineRule::inputs()));
      if (!F.attrExists("layers") ||
          h5::readNumAttr<int64_t>(F, "layers", H5::PredType::NATIVE_INT64) != 0)
        return Bad("attribute layers: 0 for a rule");
      M.Rule = *R;
      return M;
    }
    int64_t NLayers = h5::readNumAttr<int64_t>(F, "layers", H5::PredType::NATIVE_INT64);
    if (NLayers < 1 || NLayers > int64_t(MaxModelLayers))
      return Bad("attribute layers: expected 1.." + llvm::Twine(MaxModelLayers));
    if (M.Kind == ModelKind::Linear && NLayers != 1)
      return Bad("a linear model has exactly one layer");
    unsigned Width = modelInputWidth(M);
    for (int64_t L = 0; L < NLayers; ++L) {
      std::string WN = "layer" + std::to_string(L) + "/weight",
                  BN = "layer" + std::to_string(L) + "/bias";
      if (!F.nameExists(WN) || !F.nameExists(BN))
        return Bad("missing dataset " + WN + " or " + BN);
      H5::DataSet WD = F.openDataSet(WN), BD = F.openDataSet(BN);
      hsize_t Dims[2] = {0, 0};
      if (WD.getSpace().getSimpleExtentNdims() != 2)
        return Bad(WN + ": expected a 2-D [out, in] dataset");
      WD.getSpace().getSimpleExtentDims(Dims);
      ModelFile::Layer Ly;
      Ly.Out = Dims[0];
      Ly.In = Dims[1];
      if (Ly.In != Width)
        return Bad(WN + ": " + llvm::Twine(Ly.In) + " inputs, expected " + llvm::Twine(Width) +
                   (L ? " (the previous layer's outputs)" : " (the width of the model's inputs)"));
      if (h5::extentOf(BD) != Ly.Out)
        return Bad(BN + ": expected " + llvm::Twine(Ly.Out) + " values");
      Ly.Weight = h5::readNumbers<double>(WD, H5::PredType::NATIVE_DOUBLE, 0, Ly.Out, Ly.In);
      Ly.Bias = h5::readNumbers<double>(BD, H5::PredType::NATIVE_DOUBLE, 0, Ly.Out, 1);
      // A model of NaNs answers something for every decision (NaN > 0 is false): refused here
      // rather than deployed (issue 37's hostile try: one trained at --lr 1e308 was run).
      for (const auto &[Name, Values] : {std::pair(&WN, &Ly.Weight), std::pair(&BN, &Ly.Bias)})
        if (std::find_if_not(Values->begin(), Values->end(),
                             [](double X) { return std::isfinite(X); }) != Values->end())
          return Bad(*Name + " holds a value that is not finite (a training that diverged?)");
      Width = Ly.Out;
      M.Layers.push_back(std::move(Ly));
    }
    if (Width != 1)
      return Bad("the last layer must have one output, it has " + llvm::Twine(Width));
  } catch (const H5::Exception &E) {
    return h5::h5Error(Path.str(), E);
  }
  return M;
}

} // namespace

llvm::Expected<ModelFile> readModelFile(llvm::StringRef Path, double IsolatedSeconds) {
  if (!llvm::sys::fs::exists(Path))
    return fileError(Path, "no such file");
  if (IsolatedSeconds == support::BoundBySize)
    IsolatedSeconds = support::isolatedSecondsForFile(Path);
  if (llvm::Error E = support::checkIsolated(Path, IsolatedSeconds, [&] {
        return readModelFileDirect(Path).takeError();
      }))
    return E;
  return readModelFileDirect(Path);
}

llvm::Error writeModelFile(llvm::StringRef Path, const ModelFile &M) {
  return h5::writeFileAtomically(Path, [&](H5::H5File &F) {
    h5::writeAttr(F, "schema", std::string(ModelSchema));
    h5::writeAttr(F, "task", std::string(features::taskInfo(M.ForTask).Name));
    h5::writeAttr(F, "kind", kindName(M.Kind).str());
    h5::writeAttr(F, "feature_set_version", M.FeatureSetVersion);
    h5::writeAttr(F, "feature_set", features::specsJSON(M.FeatureSet));
    h5::writeAttr(F, "inputs", features::specsJSON(M.Inputs));
    h5::writeAttr(F, "layers", static_cast<int64_t>(M.Layers.size()));
    llvm::json::Array Groups;
    for (const std::string &G : M.Groups)
      Groups.push_back(G);
    std::string GroupText;
    llvm::raw_string_ostream(GroupText) << llvm::json::Value(std::move(Groups));
    h5::writeAttr(F, "groups", GroupText);
    if (M.AbstainMargin)
      h5::writeAttr(F, "abstain_margin", *M.AbstainMargin);
    if (M.Rule) {
      std::string RuleText;
      llvm::raw_string_ostream(RuleText) << llvm::json::Value(M.Rule->toJSON());
      h5::writeAttr(F, "rule", RuleText);
    }
    for (const auto &[K, V] : M.Provenance)
      if (!KnownAttributes.count(K))
        h5::writeAttr(F, K.c_str(), V);
    H5::Group NG = h5::createGroup(F, "normalization");
    for (size_t I = 0; I < M.Inputs.size(); ++I) {
      const Normalization &N = M.norm(I);
      H5::Group G = h5::createGroup(NG, std::to_string(I));
      h5::writeAttr(G, "kind", std::string(NormalizationNames[N.K]));
      if (N.K == Normalization::Quantile)
        h5::writeMatrix(G, "edges", N.Edges.data(), N.Edges.size(), 1);
      if (N.K == Normalization::ZScore) {
        h5::writeMatrix(G, "mean", N.Mean.data(), N.Mean.size(), 1);
        h5::writeMatrix(G, "std", N.Std.data(), N.Std.size(), 1);
      }
    }
    for (size_t L = 0; L < M.Layers.size(); ++L) {
      H5::Group G = h5::createGroup(F, "layer" + std::to_string(L));
      h5::writeMatrix(G, "weight", M.Layers[L].Weight.data(), M.Layers[L].Out, M.Layers[L].In);
      h5::writeMatrix(G, "bias", M.Layers[L].Bias.data(), M.Layers[L].Out, 1);
    }
  });
}

} // namespace wb::runners
