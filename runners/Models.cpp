#include "runners/Models.h"

#include "corpus/H5.h"
#include "support/Error.h"

#include "llvm/Support/FileSystem.h"

#include <armadillo>

namespace wb::runners {

namespace {

using features::TensorType;
namespace h5 = corpus::h5;
using support::fileError;
using support::makeError;

/// linear and mlp: forward pass with Armadillo. Eviction scores each of the 33 columns with
/// the same network and answers the best legal one.
class NetworkPolicy : public Policy {
public:
  explicit NetworkPolicy(ModelFile M) : M(std::move(M)) {
    In = this->M.Inputs;
    if (this->M.ForTask == Task::Evict) {
      MaskIdx = In.size();
      for (size_t I = 0; I < In.size(); ++I)
        if (In[I].Name == "mask")
          MaskIdx = I;
      if (MaskIdx == In.size())
        In.push_back(evictionMaskSpec()); // bound for legality only, not fed to the network
    }
    for (const ModelFile::Layer &L : this->M.Layers) {
      W.emplace_back(L.Weight.data(), L.In, L.Out); // column-major view of Out x In, transposed
      W.back() = W.back().t();
      B.emplace_back(L.Bias);
    }
  }
  std::vector<TensorSpec> inputs() const override { return In; }
  std::string describe() const override { return M.Kind; }

  llvm::Expected<std::string> advise(const Inputs &X) override {
    const size_t NCols = M.ForTask == Task::Evict ? EvictionColumns : 1;
    arma::mat A(modelInputWidth(M), NCols);
    for (size_t C = 0; C < NCols; ++C) {
      size_t R = 0;
      for (size_t I = 0; I < M.Inputs.size(); ++I) {
        const TensorSpec &S = M.Inputs[I];
        if (M.ForTask == Task::Evict && S.Shape == std::vector<int64_t>{1, 33})
          A(R++, C) = X.at(I, C);
        else
          for (size_t J = 0; J < S.elementCount(); ++J)
            A(R++, C) = X.at(I, J);
      }
    }
    for (size_t L = 0; L < W.size(); ++L) {
      A = W[L] * A;
      A.each_col() += B[L];
      if (L + 1 < W.size())
        A.transform([](double V) { return V > 0 ? V : 0; });
    }
    switch (M.ForTask) {
    case Task::Inline:
      return int64Advice(A(0, 0) > 0);
    case Task::Priority:
      return floatAdvice(static_cast<float>(A(0, 0)));
    case Task::Evict: {
      std::vector<size_t> Legal = legalColumns(X, MaskIdx);
      if (Legal.empty())
        return int64Advice(NoEviction);
      size_t Best = Legal.front();
      for (size_t C : Legal)
        if (A(0, C) > A(0, Best))
          Best = C;
      return int64Advice(static_cast<int64_t>(Best));
    }
    }
    return makeError("unknown task");
  }

private:
  ModelFile M;
  std::vector<TensorSpec> In;
  size_t MaskIdx = 0;
  std::vector<arma::mat> W;
  std::vector<arma::vec> B;
};

} // namespace

unsigned modelInputWidth(const ModelFile &M) {
  unsigned N = 0;
  for (const TensorSpec &S : M.Inputs)
    N += (M.ForTask == Task::Evict && S.Shape == std::vector<int64_t>{1, 33}) ? 1
                                                                               : S.elementCount();
  return N;
}

llvm::Expected<std::unique_ptr<Policy>> loadModelPolicy(Task T, const PolicyOptions &O) {
  llvm::Expected<ModelFile> M = readModelFile(O.ModelPath);
  if (!M)
    return M.takeError();
  if (M->ForTask != T)
    return fileError(O.ModelPath, llvm::Twine("a model for task '") +
                                      features::taskInfo(M->ForTask).Name + "', not '" +
                                      features::taskInfo(T).Name + "'");
  if (M->Kind != O.Name)
    return fileError(O.ModelPath, "a " + M->Kind + " model, not " + O.Name);
  return std::make_unique<NetworkPolicy>(std::move(*M));
}

// ---------------------------------------------------------------------------------------------
// Model files (docs/formats/mlgo-model.md).

static constexpr const char *ModelSchema = "ir2vec.mlgo-model/1";

llvm::Expected<ModelFile> readModelFile(llvm::StringRef Path) {
  auto Bad = [&](const llvm::Twine &What) { return fileError(Path, What); };
  if (!llvm::sys::fs::exists(Path))
    return Bad("no such file");
  ModelFile M;
  try {
    H5::Exception::dontPrint();
    H5::H5File F(Path.str(), H5F_ACC_RDONLY);
    if (!F.attrExists("schema") || h5::readStrAttr(F, "schema") != ModelSchema)
      return Bad(std::string("not a model file (expected attribute schema = ") + ModelSchema +
                 ")");
    std::optional<Task> T = features::taskFromName(h5::readStrAttr(F, "task"));
    if (!T)
      return Bad("attribute task: expected inline, evict or priority");
    M.ForTask = *T;
    M.Kind = h5::readStrAttr(F, "kind");
    if (M.Kind != "linear" && M.Kind != "mlp")
      return Bad("attribute kind: expected linear or mlp, found '" + M.Kind + "'");
    M.FeatureSetVersion = h5::readStrAttr(F, "feature_set_version");
    for (auto [Attr, Dest] : {std::pair{"inputs", &M.Inputs}, {"feature_set", &M.FeatureSet}}) {
      llvm::Expected<std::vector<TensorSpec>> S =
          features::specsFromJSON(h5::readStrAttr(F, Attr), Attr);
      if (!S)
        return Bad(llvm::toString(S.takeError()));
      *Dest = std::move(*S);
    }
    int64_t NLayers = h5::readNumAttr<int64_t>(F, "layers", H5::PredType::NATIVE_INT64);
    if (NLayers < 1 || NLayers > 64)
      return Bad("attribute layers: expected 1..64");
    if (M.Kind == "linear" && NLayers != 1)
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

llvm::Error writeModelFile(llvm::StringRef Path, const ModelFile &M) {
  return h5::writeFileAtomically(Path, [&](H5::H5File &F) {
    h5::writeAttr(F, "schema", std::string(ModelSchema));
    h5::writeAttr(F, "task", std::string(features::taskInfo(M.ForTask).Name));
    h5::writeAttr(F, "kind", M.Kind);
    h5::writeAttr(F, "feature_set_version", M.FeatureSetVersion);
    h5::writeAttr(F, "feature_set", features::specsJSON(M.FeatureSet));
    h5::writeAttr(F, "inputs", features::specsJSON(M.Inputs));
    h5::writeAttr(F, "layers", static_cast<int64_t>(M.Layers.size()));
    for (size_t L = 0; L < M.Layers.size(); ++L) {
      H5::Group G = h5::createGroup(F, "layer" + std::to_string(L));
      h5::writeMatrix(G, "weight", M.Layers[L].Weight.data(), M.Layers[L].Out, M.Layers[L].In);
      h5::writeMatrix(G, "bias", M.Layers[L].Bias.data(), M.Layers[L].Out, 1);
    }
  });
}

} // namespace wb::runners
