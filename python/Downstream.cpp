// ir2vec.evaluate_devmap: `ir2vec evaluate devmap` from Python (docs/python.md), returning the
// tables as numpy arrays. The study runs without the GIL; Ctrl-C stops it (WakeupPipe) and
// raises KeyboardInterrupt.
#include "python/Convert.h"
#include "python/Parts.h"

#include "downstream/Study.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <mutex>
#include <thread>

namespace wb::python {

namespace {

py::object evaluateDevmap(const py::object &Data, const py::object &Spec,
                          const std::vector<py::object> &Vocabularies, const py::object &Output,
                          unsigned Jobs) {
  if (!Spec.is_none() && !Vocabularies.empty())
    throw py::value_error("vocabularies add arms to the built-in spec; with spec, name the "
                          "vocabularies in the spec's arms");
  // Each vocabulary resolved once, before any work.
  std::vector<ir2vec::EmbeddingChoice> Vs;
  for (const py::object &V : Vocabularies) {
    ir2vec::EmbeddingRequest R;
    R.From = ir2vec::VocabSource::File;
    R.File = pathBytes(V);
    Vs.push_back(valueOrRaise(ir2vec::EmbeddingChoice::resolve(R)));
  }
  downstream::DevmapSpec S = valueOrRaise(Spec.is_none() ? downstream::defaultDevmapSpec(Vs)
                                                         : downstream::readDevmapSpec(pathBytes(Spec)));
  downstream::DevmapData D = valueOrRaise(downstream::readDevmap(pathBytes(Data)));
  downstream::DevmapConfig C;
  C.Run.Jobs = Jobs ? Jobs : std::max(1u, std::thread::hardware_concurrency());
  std::mutex M;
  std::vector<std::string> Warnings;
  C.Run.Report = [&](const support::Diagnostic &Di) {
    if (Di.Kind == support::Diagnostic::Warning || Di.Kind == support::Diagnostic::Error) {
      std::lock_guard<std::mutex> L(M);
      Warnings.push_back(Di.Message);
    }
  };
  WakeupPipe Wakeup;
  C.Run.CancelFd = Wakeup.readEnd();
  const std::string Out = Output.is_none() ? "" : pathBytes(Output);
  std::optional<llvm::Expected<downstream::DevmapResult>> R;
  llvm::Error Written = llvm::Error::success();
  {
    py::gil_scoped_release Unlocked;
    R.emplace(downstream::runDevmapStudy(D, S, C));
    if (*R && !Out.empty())
      Written = downstream::writeDevmapOutputs(**R, Out, "gnuplot", C.Run.CancelFd);
  }
  if (!*R && PyErr_CheckSignals() != 0) {
    llvm::consumeError(R->takeError());
    throw py::error_already_set();
  }
  downstream::DevmapResult Res = valueOrRaise(std::move(*R));
  raiseIf(std::move(Written));
  for (const auto &[F, Why] : Res.LeftOut)
    Warnings.push_back(F + ": left out of every arm: " + Why);
  warnAll(Warnings);
  const size_t NA = Res.Arms.size(), NR = S.Protocols.size(), NP = Res.Platforms.size(),
               NS = S.Seeds.size();
  // [arm, protocol, platform (and the mean last), mean/low/high]
  auto table = [&](auto Of) {
    py::array_t<double> A({NA, NR, NP + 1, size_t(3)});
    auto V = A.mutable_unchecked<4>();
    for (size_t I = 0; I < NA; ++I)
      for (size_t Pr = 0; Pr < NR; ++Pr)
        for (size_t P = 0; P <= NP; ++P) {
          const downstream::Interval &X = Of(Res.Arms[I].Cells[Pr])[P];
          V(I, Pr, P, 0) = X.Mean, V(I, Pr, P, 1) = X.Low, V(I, Pr, P, 2) = X.High;
        }
    return A;
  };
  py::dict Out_;
  py::list Arms, Protocols, Platforms;
  for (const downstream::DevmapArm &A : S.Arms)
    Arms.append(A.Name);
  for (downstream::FoldProtocol P : S.Protocols)
    Protocols.append(support::nameOf<downstream::FoldProtocol>(downstream::FoldProtocolNames, P).str());
  for (const std::string &P : Res.Platforms)
    Platforms.append(P);
  Platforms.append("mean");
  Out_["arms"] = Arms;
  Out_["protocols"] = Protocols;
  Out_["platforms"] = Platforms;
  Out_["accuracy"] = table([](const downstream::CellResult &C) -> const std::vector<downstream::Interval> & { return C.Accuracy; });
  Out_["speedup"] = table([](const downstream::CellResult &C) -> const std::vector<downstream::Interval> & { return C.Speedup; });
  Out_["vs_histogram"] = table([](const downstream::CellResult &C) -> const std::vector<downstream::Interval> & { return C.VsHistogram; });
  py::dict Predictions, Folds;
  for (size_t P = 0; P < NP; ++P) {
    const size_t N = Res.Rows[P].size();
    py::array_t<uint8_t> Pr({NA, NR, NS, N});
    auto V = Pr.mutable_unchecked<4>();
    py::array_t<int32_t> F({NR, NS, N});
    auto FV = F.mutable_unchecked<3>();
    for (size_t Q = 0; Q < NR; ++Q)
      for (size_t Si = 0; Si < NS; ++Si)
        for (size_t I = 0; I < N; ++I) {
          FV(Q, Si, I) = Res.Folds[P][Q][Si][I];
          for (size_t A = 0; A < NA; ++A)
            V(A, Q, Si, I) = Res.Arms[A].Predictions[P][Q][Si][I];
        }
    Predictions[py::str(Res.Platforms[P])] = Pr;
    Folds[py::str(Res.Platforms[P])] = F;
  }
  Out_["predictions"] = Predictions;
  Out_["folds"] = Folds;
  Out_["report"] = jsonToPython(downstream::devmapReportJSON(Res));
  return Out_;
}

} // namespace

void addDownstream(py::module_ &M) {
  M.def("evaluate_devmap", &evaluateDevmap, py::arg("data"), py::arg("spec") = py::none(),
        py::arg("vocabularies") = std::vector<py::object>(), py::arg("output") = py::none(),
        py::arg("jobs") = 0u,
        "`ir2vec evaluate devmap DATA` (docs/downstream.md): each arm classifies the device-mapping "
        "rows with XGBoost under the paper's protocol, folds by kernel and leave one suite out, "
        "against the static mapping, Grewe's features and the entity histogram. Returns a dict: "
        "arms, protocols, platforms (the last is 'mean'); accuracy, speedup and vs_histogram as "
        "arrays [arm, protocol, platform, (mean, low, high)]; predictions[platform] "
        "[arm, protocol, seed, row] (1 = GPU) and folds[platform] [protocol, seed, row]; report "
        "(report.json's content). With output, also writes the report files there.");
}

} // namespace wb::python
