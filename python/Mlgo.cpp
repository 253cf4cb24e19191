// ir2vec.mlgo: the workbench's interactive host with a policy written in Python, and training
// logs read into numpy. The host is the C++ one (runners::runSession: FIFOs opened safely,
// the compiler in its own process group, timeouts, nothing left behind); only the decision
// is Python's: the callable gets the observation as a dict of feature name -> numpy array
// (every tensor the compiler sent, plus the workbench's extras) and returns the advice.
#include "python/Convert.h"
#include "python/Parts.h"

#include "features/Dataset.h"
#include "mlgo/studies/OpenBenchmark.h"
#include "features/TrainingLog.h"
#include "runners/InteractiveHost.h"
#include "runners/Models.h"
#include "support/Error.h"
#include "support/Isolate.h"
#include "support/Process.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace wb::python {

namespace {

using features::TensorSpec;
using features::TensorType;

py::dtype dtypeOf(TensorType T) {
  switch (T) {
#define WB_DTYPE(C, E)                                                                           \
  case TensorType::E:                                                                            \
    return py::dtype::of<C>();
    WB_TENSOR_TYPES(WB_DTYPE)
#undef WB_DTYPE
  }
  return py::dtype::of<float>();
}

/// A fresh array of S's type and shape holding a copy of its bytes at Data.
py::array tensorArray(const TensorSpec &S, const char *Data) {
  std::vector<py::ssize_t> Shape(S.Shape.begin(), S.Shape.end());
  py::array A(dtypeOf(S.Type), Shape);
  std::memcpy(A.mutable_data(), Data, S.byteSize());
  return A;
}

/// The observation's tensors by name.
py::dict observationDict(const std::vector<TensorSpec> &Specs, llvm::function_ref<const char *(size_t)> At) {
  py::dict D;
  for (size_t I = 0; I < Specs.size(); ++I)
    D[py::str(Specs[I].Name)] = tensorArray(Specs[I], At(I));
  return D;
}

/// Calls a Python callable for every observation. Its exception stops the session and is
/// raised again by mlgo.run once the host has cleaned up.
class PythonPolicy : public runners::Policy {
public:
  // Fn is borrowed: the caller's frame holds it for the whole session, and the host makes and
  // drops policies without the GIL, so no reference count may change there.
  /// StopFd: written to when the callable raises, so that a run of many sessions (the
  /// benchmark) stops at once instead of judging the other modules with a broken policy.
  PythonPolicy(PyObject *Fn, TensorSpec Advice, std::optional<py::error_already_set> &Raised,
               int StopFd = -1)
      : Fn(Fn), Advice(std::move(Advice)), Raised(Raised), StopFd(StopFd) {}

  std::vector<TensorSpec> inputs() const override { return {}; }
  bool readsEverything() const override { return true; }
  std::string describe() const override { return "python"; }

  llvm::Expected<std::string> advise(const runners::Inputs &In) override {
    py::gil_scoped_acquire Locked;
    try {
      std::vector<TensorSpec> Specs;
      for (size_t I = 0; I < In.size(); ++I)
        Specs.push_back(In.spec(I));
      py::object R = py::handle(Fn)(observationDict(Specs, [&](size_t I) { return In.raw(I); }));
      if (py::hasattr(R, "item"))
        R = R.attr("item")(); // numpy scalars and one-element arrays
      if (Advice.Type == TensorType::Float)
        return runners::floatAdvice(R.cast<float>());
      if (Advice.Type == TensorType::Int64)
        return runners::int64Advice(R.cast<int64_t>());
      return support::makeError("advice of type " + features::shapeString(Advice) +
                                " is not supported");
    } catch (py::error_already_set &E) {
      if (!Raised)
        Raised.emplace(std::move(E));
    } catch (const py::cast_error &) {
      PyErr_SetString(PyExc_TypeError,
                      ("the policy must return a number (the " + Advice.Name + " advice)").c_str());
      if (!Raised)
        Raised.emplace();
    }
    if (StopFd >= 0)
      (void)!::write(StopFd, "x", 1);
    return support::makeError("the Python policy raised an exception");
  }

private:
  PyObject *Fn;
  TensorSpec Advice;
  std::optional<py::error_already_set> &Raised;
  int StopFd;
};

const char *outcomeName(runners::SessionResult::Kind K) {
  switch (K) {
  case runners::SessionResult::Exited:
    return "exited";
  case runners::SessionResult::TimedOut:
    return "timed out";
  case runners::SessionResult::Cancelled:
    return "cancelled";
  case runners::SessionResult::HostError:
    return "host error";
  }
  return "?";
}

py::object logToPython(const features::Log &L) {
  const auto &Specs = L.Header.Features;
  py::list Obs;
  for (const features::LogObservation &O : L.Observations) {
    py::dict Row;
    Row["context"] = text(O.Context);
    Row["id"] = O.Id;
    Row["features"] = observationDict(Specs, [&](size_t I) {
      return O.Payload.data() + L.Header.offsetOf(I);
    });
    Row["score"] = O.Score && L.Header.Score
                       ? py::object(tensorArray(*L.Header.Score, O.Score->data()))
                       : py::object(py::none());
    Obs.append(py::module_::import("types").attr("SimpleNamespace")(**Row));
  }
  py::list Names;
  for (const TensorSpec &S : Specs)
    Names.append(py::str(S.Name));
  py::dict Out;
  Out["features"] = Names;
  Out["specs"] = [&] {
    py::list J;
    for (const TensorSpec &S : Specs)
      J.append(py::str(S.toJSON()));
    return J;
  }();
  Out["score"] = L.Header.Score ? py::object(py::str(L.Header.Score->toJSON())) : py::none();
  Out["observations"] = Obs;
  return py::module_::import("types").attr("SimpleNamespace")(**Out);
}

/// Functions of the register allocator's remarks: one dict each, with the remark's keys, the
/// function's name and its cost under the default weights (as `mlgo regalloc-cost` prints them).
py::list regallocToPython(const std::vector<features::FunctionRegalloc> &Fs) {
  return py::list(jsonToPython(llvm::json::Value(features::regallocCostJSON(Fs, {}))));
}

py::object run(const std::vector<std::string> &Command, const py::object &Policy,
               const std::string &TaskName, double Timeout, const std::optional<std::string> &Log,
               bool ZeroMissing, const std::optional<std::string> &Model, bool Reward) {
  if (Command.empty())
    throw py::value_error("no compiler command given");
  runners::SessionConfig C;
  C.T = valueOrRaise(features::parseTask(TaskName));
  C.Command = Command;
  raiseIf(support::checkSeconds(Timeout, "timeout"));
  C.TimeoutSeconds = Timeout;
  C.Bind.ZeroMissing = ZeroMissing;
  if (Reward) {
    if (C.T == runners::Task::Inline)
      throw py::value_error("reward scores register allocation (task 'evict' or 'priority')");
    C.Costs = features::RegallocWeights{};
    C.ReadRemarks = features::readRegallocRemarks;
  }
  std::optional<py::error_already_set> Raised;
  if (py::isinstance<py::str>(Policy)) {
    C.Policy.Name = Policy.cast<std::string>();
    // Policies with a model (linear, mlp, the shipped size policy) read it as the CLI does.
    C.Policy.LoadModel = runners::cachingModelLoader();
    if (Model)
      C.Policy.ModelPath = *Model;
    C.Policy.Say = {"policy", "model", nullptr, "run() takes none", '='};
    raiseIf(runners::checkPolicyOptions(C.T, C.Policy));
  } else if (PyCallable_Check(Policy.ptr())) {
    if (Model)
      throw py::value_error("model is read by a built-in policy (policy='linear', 'mlp' or "
                            "'size'); a Python policy reads its own");
    const TensorSpec Advice = features::taskInfo(C.T).Advice;
    C.MakePolicy = [&, Advice]() -> llvm::Expected<std::unique_ptr<runners::Policy>> {
      return std::make_unique<PythonPolicy>(Policy.ptr(), Advice, Raised);
    };
  } else {
    throw py::type_error("policy must be a callable (observation dict -> advice) or the name "
                         "of a built-in policy");
  }
  WakeupPipe Wakeup;
  C.CancelFd = Wakeup.readEnd();
  std::optional<llvm::Expected<runners::SessionResult>> R;
  {
    py::gil_scoped_release Unlocked;
    R.emplace(runners::runSessionToFiles(C, Log ? *Log : std::string(), ""));
  }
  runners::SessionResult S = valueOrRaise(std::move(*R));
  if (Raised)
    throw *Raised;
  if (S.Outcome == runners::SessionResult::Cancelled && PyErr_CheckSignals() != 0)
    throw py::error_already_set();
  warnAll(S.Warnings);
  py::dict Out;
  Out["outcome"] = outcomeName(S.Outcome);
  Out["exit_status"] = S.exitStatus();
  Out["clean"] = S.clean();
  Out["observations"] = S.Observations;
  Out["error"] = S.Error;
  Out["feature_set"] = S.FeatureSetVersion;
  Out["ignored"] = S.Ignored;
  Out["zero_filled"] = S.ZeroFilled;
  Out["summary"] = S.summary();
  Out["log"] = Log ? py::object(py::none()) : logToPython(S.SessionLog);
  Out["regalloc"] = S.Regalloc ? py::object(regallocToPython(*S.Regalloc)) : py::object(py::none());
  Out["regalloc_cost"] = S.Regalloc ? py::object(py::float_(features::totalCost({}, *S.Regalloc)))
                                    : py::object(py::none());
  return py::module_::import("types").attr("SimpleNamespace")(**Out);
}

/// ir2vec.mlgo.benchmark: the CLI's benchmark with Python callables as further fixed policies.
py::object benchmark(const std::string &Spec, const std::string &Output, const py::dict &Policies,
                     unsigned Jobs, const std::string &PerfResults) {
  mlgo::OpenBenchmarkSpec S = valueOrRaise(mlgo::readOpenBenchmarkSpec(Spec));
  std::optional<py::error_already_set> Raised;
  const TensorSpec Advice = features::taskInfo(runners::Task::Inline).Advice;
  std::vector<py::object> Held; // the callables outlive the run
  WakeupPipe Wakeup;
  const int Stop = Wakeup.writeEnd();
  for (const auto &[Name, Fn] : Policies) {
    if (!PyCallable_Check(Fn.ptr()))
      throw py::type_error("policies: '" + py::str(Name).cast<std::string>() +
                           "' is not a callable (observation dict -> advice)");
    Held.push_back(py::reinterpret_borrow<py::object>(Fn));
    PyObject *Ptr = Fn.ptr();
    if (llvm::Error E = mlgo::addMadePolicy(
            S, py::str(Name).cast<std::string>(), "python",
            [Ptr, Advice, &Raised, Stop]() -> llvm::Expected<std::unique_ptr<runners::Policy>> {
              return std::make_unique<PythonPolicy>(Ptr, Advice, Raised, Stop);
            }))
      valueOrRaise(llvm::Expected<int>(std::move(E)));
  }
  mlgo::OpenBenchmarkConfig C;
  C.PerfResults = PerfResults;
  C.Run.Jobs = Jobs ? Jobs : std::max(1u, std::thread::hardware_concurrency());
  std::mutex M;
  std::vector<std::string> Warnings;
  C.Run.Report = [&](const support::Diagnostic &D) {
    if (D.Kind == support::Diagnostic::Warning || D.Kind == support::Diagnostic::Error) {
      std::lock_guard<std::mutex> L(M);
      Warnings.push_back(D.Message);
    }
  };
  C.Run.CancelFd = Wakeup.readEnd();
  std::optional<llvm::Expected<support::Outcome>> R;
  {
    py::gil_scoped_release Unlocked;
    R.emplace(mlgo::runOpenBenchmark(S, Output, C));
  }
  if (Raised) {
    if (!*R)
      llvm::consumeError(R->takeError());
    throw *Raised;
  }
  if (!*R && PyErr_CheckSignals() != 0) {
    llvm::consumeError(R->takeError());
    throw py::error_already_set();
  }
  support::Outcome O = valueOrRaise(std::move(*R));
  warnAll(Warnings);
  py::dict Out;
  Out["complete"] = O.K == support::Outcome::Complete;
  Out["results"] = (std::filesystem::path(Output) / "results.json").string();
  Out["page"] = (std::filesystem::path(Output) / "index.html").string();
  return py::module_::import("types").attr("SimpleNamespace")(**Out);
}

} // namespace

void addMlgo(py::module_ &M) {
  py::module_ Mlgo = M.def_submodule("mlgo", "MLGO: the interactive host, training logs");
  Mlgo.def("benchmark", &benchmark, py::arg("spec"), py::arg("output"),
           py::arg("policies") = py::dict(), py::arg("jobs") = 0u, py::arg("perf_results") = "",
           "The open benchmark (docs/benchmark.md) as `ir2vec mlgo benchmark SPEC -o OUTPUT "
           "[--perf-results PERF_RESULTS]`, with each callable of `policies` (name -> observation "
           "dict -> advice) judged as a further fixed policy on every package of the corpus. Returns the paths of "
           "results.json and index.html and whether every evaluation succeeded.");
  Mlgo.def("run", &run, py::arg("command"), py::arg("policy"), py::arg("task") = "inline",
           py::arg("timeout") = 0.0, py::arg("log") = py::none(),
           py::arg("zero_missing") = false, py::arg("model") = py::none(),
           py::arg("reward") = false,
           "Runs the compiler command (opt-22, llc-22, clang-22 and its arguments) under the "
           "workbench's host (`ir2vec mlgo run`) and answers every observation with policy: "
           "a callable taking the observation (dict: feature name -> numpy array) and "
           "returning the advice (a number), or a built-in policy's name (model: the model "
           "file of linear or mlp, or another for size). timeout: seconds "
           "(0: none), then the compiler's process group is killed. log: a file for the "
           "session's training log (written only after a clean session); without it the log "
           "comes back as .log. Returns the outcome ('exited', 'timed out', 'cancelled', "
           "'host error'), exit_status (as `ir2vec mlgo run` exits), observations, ... An "
           "exception raised by the policy stops the compiler and is raised here; Ctrl-C "
           "kills the compiler and raises KeyboardInterrupt. reward (evict, priority): score "
           "the allocation from the compiler's remarks: .regalloc (per function) and "
           ".regalloc_cost (their sum), and the log's 'reward' scores (docs/regalloc.md).");
  Mlgo.def(
      "read_regalloc_remarks",
      [](const std::filesystem::path &P) {
        std::optional<llvm::Expected<std::vector<features::FunctionRegalloc>>> R;
        {
          py::gil_scoped_release Unlocked;
          R.emplace(features::readRegallocRemarks(P.string()));
        }
        return regallocToPython(valueOrRaise(std::move(*R)));
      },
      py::arg("path"),
      "Reads a YAML remarks file (llc-22 -pass-remarks-output=F -pass-remarks-filter=regalloc) "
      "with LLVM's remark parser: one dict per function with a SpillReloadCopies remark (its "
      "counts and block-frequency-weighted costs) and its cost: 0.2 x copies + 4 x (reloads + "
      "folded reloads) + 1 x (spills + folded spills), RegAllocScore's weights "
      "(docs/regalloc.md).");
  Mlgo.def(
      "read_log",
      [](const std::filesystem::path &P) {
        std::optional<llvm::Expected<features::Log>> L;
        {
          py::gil_scoped_release Unlocked;
          L.emplace(features::readLogFile(P.string()));
        }
        return logToPython(valueOrRaise(std::move(*L)));
      },
      py::arg("path"),
      "Reads an LLVM training log (the compiler's -training-log, or a session log) with the "
      "workbench's byte-exact reader: .features (names), .specs (TensorSpec JSON), "
      ".observations (context, id, features as numpy arrays, score).");
  Mlgo.def(
      "read_dataset",
      [](const std::filesystem::path &P, const std::string &Group) {
        std::optional<llvm::Expected<features::DatasetTable>> T;
        {
          py::gil_scoped_release Unlocked;
          // libhdf5 crashes on some crafted files (docs/robustness.md): a read in a child
          // process first, so that such a file is an error and not the interpreter's end.
          if (llvm::Error E = support::checkIsolated(
                  P.string(), support::DefaultIsolatedSeconds,
                  [&] { return features::readDataset(P.string(), Group).takeError(); }))
            T.emplace(std::move(E));
          else
            T.emplace(features::readDataset(P.string(), Group));
        }
        features::DatasetTable D = valueOrRaise(std::move(*T));
        py::dict Features;
        for (size_t F = 0; F < D.Features.size(); ++F) {
          const TensorSpec &S = D.Features[F];
          std::vector<py::ssize_t> Shape{static_cast<py::ssize_t>(D.rows())};
          Shape.insert(Shape.end(), S.Shape.begin(), S.Shape.end());
          py::array A(dtypeOf(S.Type), Shape);
          std::memcpy(A.mutable_data(), D.Columns[F].data(), D.Columns[F].size());
          Features[py::str(S.Name)] = A;
        }
        py::dict Out;
        Out["task"] = features::taskInfo(D.T).Name;
        Out["feature_set"] = D.FeatureSetVersion;
        Out["features"] = Features;
        Out["decisions"] = py::array_t<int64_t>(D.Decisions.size(), D.Decisions.data());
        Out["module"] = py::array_t<int64_t>(D.RowModule.size(), D.RowModule.data());
        py::list Paths;
        for (const std::string &M : D.ModulePaths)
          Paths.append(text(M));
        Out["module_paths"] = Paths;
        auto Namespace = py::module_::import("types").attr("SimpleNamespace");
        auto Rows = [](const auto &V) -> py::object {
          using T = typename std::decay_t<decltype(V)>::value_type;
          return py::array_t<T>(V.size(), V.data());
        };
        Out["reward"] = Rows(D.RowReward);
        Out["context"] = Rows(D.RowContext);
        Out["observation"] = Rows(D.RowObservation);
        Out["contexts"] = texts(D.Contexts);
        // The per-module and per-context numbers the file holds (DatasetNumberColumns).
        py::dict Modules, Contexts;
        Modules["path"] = Paths;
        Modules["error"] = texts(D.ModuleErrors);
        if (!D.ModuleSHA256.empty())
          Modules["sha256"] = texts(D.ModuleSHA256);
        for (size_t I = 0; I < D.Numbers.size(); ++I) {
          const features::DatasetNumbers &N = features::DatasetNumberColumns[I];
          const auto [Sub, Name] = llvm::StringRef(N.Path).split('/');
          py::dict &Into = Sub == "context" ? Contexts : Modules;
          const size_t Want = Sub == "context" ? D.Contexts.size() : D.ModulePaths.size();
          if (D.Numbers[I].size() != Want || (Want == 0 && N.RegallocOnly && D.T == runners::Task::Inline))
            continue; // not in the file (an exploration's group, the inliner's costs)
          py::array A = py::array_t<double>(D.Numbers[I].size(), D.Numbers[I].data());
          Into[py::str(Name.str())] = N.Integer ? A.attr("astype")("int64") : py::object(A);
        }
        Out["modules"] = Namespace(**Modules);
        Out["context_costs"] = Contexts.empty() ? py::object(py::none()) : Namespace(**Contexts);
        return Namespace(**Out);
      },
      py::arg("path"), py::arg("group") = "/",
      "Reads a dataset (`ir2vec mlgo collect`, `log export`, or an exploration's group) with "
      "the workbench's checked reader: .features (name -> array [rows, *shape] of the "
      "feature's type), .decisions, .module (row in .module_paths), .reward, .context (row in "
      ".contexts) and .observation per row, .task, .feature_set; .modules (path, error, "
      "sha256 (files of schema 3), text_size, baseline_text_size, reward, decisions; cost and baseline_cost for register "
      "allocation) and .context_costs (cost, baseline_cost, reward per context; None for the "
      "inliner), as docs/formats/mlgo-dataset.md lays them out.");
}

} // namespace wb::python
