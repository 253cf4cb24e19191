// The vocabulary calls of the Python module: ir2vec.Vocabulary (load, inspect, export),
// train_vocabulary and evaluate_vocabulary (`ir2vec vocab train` / `vocab eval`), and
// triplets. The C++ work runs without the GIL.
#include "python/Vocab.h"
#include "python/Parts.h"

#include "corpus/Batch.h"
#include "corpus/ModuleReader.h"
#include "support/Names.h"
#include "vocab/EntityLayout.h"
#include "vocab/Triplets.h"
#include "vocab/VocabTraining.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/JSON.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

namespace wb::python {

std::shared_ptr<PyVocabulary> PyVocabulary::load(const std::optional<std::filesystem::path> &File,
                                                 float Opc, float Type, float Arg) {
  const std::string P = File ? File->string() : std::string();
  if (File && P.empty())
    throw py::value_error("the vocabulary path is empty (no path: the default vocabulary)");
  std::optional<llvm::Expected<ir2vec::EmbeddingChoice>> E;
  {
    py::gil_scoped_release Unlocked;
    ir2vec::EmbeddingRequest R;
    R.W = vocab::Weights{Opc, Type, Arg};
    if (!P.empty())
      R.From = ir2vec::VocabSource::File, R.File = P;
    E.emplace(ir2vec::EmbeddingChoice::resolve(R));
  }
  auto V = std::make_shared<PyVocabulary>(PyVocabulary{P, valueOrRaise(std::move(*E))});
  warnAll(V->E.warnings());
  return V;
}

namespace {

/// A vocabulary made in memory (trained here): LLVM's default weights; no file, so no SHA-256.
std::shared_ptr<PyVocabulary> fromEntityVectors(vocab::EntityVectors V) {
  const std::string Name = "<trained in memory>";
  return std::make_shared<PyVocabulary>(PyVocabulary{
      Name, valueOrRaise(ir2vec::EmbeddingChoice::fromEntityVectors(
                std::move(V), Name, ir2vec::Kind::Symbolic, vocab::Weights{}))});
}

py::array_t<double> matrixCopy(const std::vector<double> &Rows, unsigned Dim) {
  std::vector<double> Copy(Rows);
  const size_t N = Dim ? Copy.size() / Dim : 0;
  return adopt(std::move(Copy), N, Dim);
}

} // namespace

py::list entityNames() {
  py::list L;
  for (vocab::EntityId E = 0; E < vocab::NumEntities; ++E)
    L.append(py::str(std::string(vocab::entityName(E))));
  return L;
}

std::shared_ptr<PyVocabulary> vocabularyArg(const py::object &V) {
  if (V.is_none())
    return PyVocabulary::load(std::nullopt, 1.0f, 0.5f, 0.2f);
  if (py::isinstance<PyVocabulary>(V))
    return V.cast<std::shared_ptr<PyVocabulary>>();
  // pybind11's own message ("Unable to cast Python instance to C++ type") names nothing.
  if (!py::isinstance<py::str>(V) && !py::isinstance<py::bytes>(V) &&
      !py::hasattr(V, "__fspath__"))
    throw py::type_error("vocab: expected an ir2vec.Vocabulary, a path or None, not " +
                         py::str(py::type::of(V).attr("__name__")).cast<std::string>());
  return PyVocabulary::load(V.cast<std::filesystem::path>(), 1.0f, 0.5f, 0.2f);
}

void addVocab(py::module_ &Mod) {
  py::class_<PyVocabulary, std::shared_ptr<PyVocabulary>>(
      Mod, "Vocabulary",
      "An IR2Vec vocabulary: LLVM's JSON, the workbench's HDF5, or the default vocabulary "
      "(no path). Weights are applied as LLVM applies them.")
      .def(py::init(&PyVocabulary::load), py::arg("path") = py::none(),
           py::arg("opc_weight") = 1.0f, py::arg("type_weight") = 0.5f,
           py::arg("arg_weight") = 0.2f)
      .def_property_readonly("source", &PyVocabulary::source)
      .def_property_readonly("dimension",
                             [](const PyVocabulary &V) { return V.raw().Dim; })
      .def_property_readonly(
          "weights",
          [](const PyVocabulary &V) {
            const vocab::Weights &W = V.E.weights();
            return py::make_tuple(double(W.Opcode), double(W.Type), double(W.Arg));
          },
          "(opcode, type, argument), the float32 values LLVM uses, widened to double")
      .def_property_readonly(
          "matrix",
          [](const PyVocabulary &V) {
            const auto M = V.E.vocabulary().matrix();
            return matrixCopy(std::vector<double>(M.begin(), M.end()), V.raw().Dim);
          },
          "The weighted 110 x D float64 matrix embeddings use (rows in entity order).")
      .def_property_readonly(
          "unweighted", [](const PyVocabulary &V) { return matrixCopy(V.raw().Rows, V.raw().Dim); },
          "The 110 x D float64 matrix as the file holds it.")
      .def_property_readonly("entities", [](const PyVocabulary &) { return entityNames(); },
                             "The 110 entity names, in row order.")
      .def_property_readonly(
          "relations",
          [](const PyVocabulary &V) -> py::object {
            if (V.raw().RelationNames.empty())
              return py::none();
            return py::make_tuple(V.raw().RelationNames, matrixCopy(V.raw().Relations, V.raw().Dim));
          },
          "(names, R x D matrix) of a vocabulary the workbench trained; None otherwise.")
      .def_property_readonly("sha256", [](const PyVocabulary &V) { return V.sha256(); })
      .def(
          "export",
          [](const PyVocabulary &V, const std::filesystem::path &Out) {
            // Raised with the GIL held, after the write that needs it not.
            raiseIf([&] {
              py::gil_scoped_release Unlocked;
              return vocab::writeVocabularyFile(Out.string(), V.raw());
            }());
          },
          py::arg("path"),
          "Writes the (unweighted) vocabulary: LLVM JSON for .json, the workbench's HDF5 for "
          ".h5; complete or not at all.")
      .def("__repr__", [](const PyVocabulary &V) {
        return "<ir2vec.Vocabulary " + V.source() + ", " + std::to_string(V.raw().Dim) + "-D>";
      });
  Mod.def(
      "triplets",
      [](const std::filesystem::path &File, bool Extended) {
        std::vector<int64_t> Rows;
        uint32_t MaxRelation = 0;
        {
          py::gil_scoped_release Unlocked;
          auto Ctx = std::make_unique<llvm::LLVMContext>();
          llvm::Expected<corpus::ModuleInput> In =
              corpus::readModuleRecoverable(File.string(), Ctx);
          if (!In) {
            py::gil_scoped_acquire Locked;
            raiseValueError(llvm::toString(In.takeError()));
          }
          vocab::TripletList T = vocab::collectTriplets(*In->M, vocab::TripletOptions{Extended});
          MaxRelation = T.MaxRelation;
          for (const vocab::Triplet &X : T.Triplets)
            Rows.insert(Rows.end(), {int64_t(X.Head), int64_t(X.Tail), int64_t(X.Relation)});
        }
        const size_t N = Rows.size() / 3;
        return py::make_tuple(adopt(std::move(Rows), N, 3), MaxRelation);
      },
      py::arg("path"), py::arg("extended") = false,
      "One module's triplets as `ir2vec triplets` (and llvm-ir2vec) writes them: "
      "(int64 array [T, 3] of head, tail, relation; MAX_RELATION).");
  Mod.def(
      "train_vocabulary",
      [](const std::filesystem::path &Dir, unsigned Dim, unsigned Epochs, unsigned BatchSize,
         unsigned Negatives, double Margin, double LearningRate, const std::string &Dist,
         unsigned Threads, uint64_t Seed, unsigned EvalEvery, unsigned Patience, double Valid,
         double Test, uint64_t SplitSeed, const py::object &Progress,
         const std::optional<std::filesystem::path> &InitPath) {
        vocab::TransEConfig C;
        C.Dim = Dim;
        C.Epochs = Epochs;
        C.BatchSize = BatchSize;
        C.Negatives = Negatives;
        C.Margin = Margin;
        C.Optimizer.LearningRate = LearningRate;
        C.Dist = valueOrRaise(support::parseNamed<vocab::Distance>(vocab::DistanceNames, Dist,
                                                                  "distance"));
        C.Threads = Threads;
        C.Seed = Seed;
        C.EvalEvery = EvalEvery;
        C.Patience = Patience;
        raiseIf(C.validate());
        std::optional<vocab::InitialEntities> Init;
        if (InitPath)
          Init = valueOrRaise(vocab::initialEntitiesFrom(InitPath->string(), C.Dim));
        const vocab::SplitOptions Split{Valid, Test, SplitSeed};
        std::optional<py::error_already_set> Raised;
        std::optional<llvm::Expected<vocab::TrainedVocabulary>> T;
        {
          py::gil_scoped_release Unlocked;
          auto G = vocab::readOpenKE(Dir.string(), Split);
          if (!G) {
            T.emplace(G.takeError());
          } else {
            // Between epochs: the progress callback, and Python's chance to see a Ctrl-C.
            T.emplace(vocab::trainVocabulary(
                Dir.string(), *G, C, Split, [&](const vocab::EpochReport &R) -> llvm::Error {
                  py::gil_scoped_acquire Locked;
                  try {
                    if (PyErr_CheckSignals() != 0)
                      throw py::error_already_set();
                    if (!Progress.is_none())
                      Progress(R.Epoch, R.Loss,
                               R.ValidMRR >= 0 ? py::object(py::float_(R.ValidMRR))
                                               : py::object(py::none()));
                  } catch (py::error_already_set &X) {
                    Raised.emplace(std::move(X));
                    return llvm::createStringError("stopped by Python");
                  }
                  return llvm::Error::success();
                }, Init ? &*Init : nullptr));
          }
        }
        if (Raised) {
          llvm::consumeError(T->takeError()); // "stopped by Python": the exception says more
          throw *Raised;
        }
        vocab::TrainedVocabulary R = valueOrRaise(std::move(*T));
        py::object Report = jsonToPython(
            llvm::json::Value(vocab::evaluationJSON("<trained in memory>", R.Eval)));
        return py::make_tuple(fromEntityVectors(std::move(R.Vocab)), Report);
      },
      // The command line's defaults (the documented recipe), from the one config.
      py::arg("openke_dir"), py::arg("dim") = vocab::TransEConfig().Dim,
      py::arg("epochs") = vocab::TransEConfig().Epochs,
      py::arg("batch_size") = vocab::TransEConfig().BatchSize,
      py::arg("negatives") = vocab::TransEConfig().Negatives,
      py::arg("margin") = vocab::TransEConfig().Margin,
      py::arg("learning_rate") = vocab::TransEConfig().Optimizer.LearningRate,
      py::arg("distance") = "l1", py::arg("threads") = 1u,
      py::arg("seed") = vocab::TransEConfig().Seed,
      py::arg("eval_every") = vocab::TransEConfig().EvalEvery,
      py::arg("patience") = vocab::TransEConfig().Patience,
      py::arg("valid") = vocab::SplitOptions().Valid, py::arg("test") = vocab::SplitOptions().Test,
      py::arg("split_seed") = vocab::SplitOptions().Seed,
      py::arg("progress") = py::none(), py::arg("init") = py::none(),
      "Trains a TransE vocabulary on an OpenKE directory (`ir2vec triplets --format openke`) "
      "as `ir2vec vocab train` does, and returns (Vocabulary, evaluation on the test split: "
      "the `vocab eval --json` entry). progress(epoch, loss, valid_mrr or None) is called "
      "after every epoch; Ctrl-C or an exception of progress stops the training. init: a "
      "vocabulary file to start from (`vocab train --init`).");
  Mod.def(
      "evaluate_vocabulary",
      [](const std::filesystem::path &Dir, const py::object &Vocab, const std::string &Dist,
         double Valid, double Test, uint64_t SplitSeed) {
        std::shared_ptr<PyVocabulary> V = vocabularyArg(Vocab);
        const vocab::Distance D = valueOrRaise(
            support::parseNamed<vocab::Distance>(vocab::DistanceNames, Dist, "distance"));
        std::optional<llvm::Expected<vocab::VocabEvaluation>> E;
        {
          py::gil_scoped_release Unlocked;
          auto G = vocab::readOpenKE(Dir.string(), vocab::SplitOptions{Valid, Test, SplitSeed});
          if (!G)
            E.emplace(G.takeError());
          else
            E.emplace(vocab::evaluateVocabulary(*G, V->raw(), D));
        }
        return jsonToPython(llvm::json::Value(
            vocab::evaluationJSON(V->source(), valueOrRaise(std::move(*E)))));
      },
      py::arg("openke_dir"), py::arg("vocab") = py::none(), py::arg("distance") = "l1",
      py::arg("valid") = 0.1, py::arg("test") = 0.1, py::arg("split_seed") = uint64_t(1),
      "Link prediction (MR, MRR, Hits@k) on the directory's held-out split and the project's "
      "analogies, for any vocabulary: the `ir2vec vocab eval --json` entry as a dict.");
}

} // namespace wb::python
