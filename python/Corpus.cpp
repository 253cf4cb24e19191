// The workbench's own calls over many modules: embed and counts (numpy arrays laid out like the
// HDF5 embeddings file, docs/formats/embeddings-hdf5.md), embed_iter (one module at a time),
// from_counts.
//
// The C++ work runs without the GIL, on the run's workers (ir2vec::embedModules, the engine of
// `ir2vec embeddings`); the calling thread takes the GIL back only between modules, to report
// progress and to let Python see a Ctrl-C (PyErr_CheckSignals), which stops the run cleanly
// with KeyboardInterrupt.
#include "python/Parts.h"
#include "python/Vocab.h"

#include "ir2vec/EmbeddingBatch.h"
#include "ir2vec/FromCounts.h"
#include "python/Machine.h"
#include "support/Inputs.h"
#include "support/Process.h"
#include "vocab/EntityLayout.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>
#include <variant>

namespace wb::python {

namespace {

// ---- values ------------------------------------------------------------------------------

py::object namespaceOf(py::dict D) {
  return py::module_::import("types").attr("SimpleNamespace")(**D);
}

std::vector<std::string> expand(const std::variant<std::filesystem::path,
                                                   std::vector<std::filesystem::path>> &Inputs,
                                bool Machine = false) {
  std::vector<std::string> Args;
  if (const auto *One = std::get_if<std::filesystem::path>(&Inputs))
    Args.push_back(One->string());
  else
    for (const auto &P : std::get<std::vector<std::filesystem::path>>(Inputs))
      Args.push_back(P.string());
  for (const std::string &A : Args)
    if (A.empty())
      throw py::value_error("an input is empty: expected a module, a directory, an @list or "
                            "a corpus description");
  std::vector<std::string> Paths, Warnings; // the walks' warnings, as Python warnings
  {
    py::gil_scoped_release Unlocked;
    Paths = valueOrRaise(support::expandInputs(
        Args, [&](const support::Diagnostic &D) { Warnings.push_back(D.Message); }, nullptr,
        Machine ? llvm::ArrayRef(support::MachineExtensions) : llvm::ArrayRef(support::IRExtensions)));
  }
  warnAll(Warnings);
  if (Paths.empty())
    throw py::value_error("the inputs name no module");
  return Paths;
}

// ---- embeddings in memory ----------------------------------------------------------------

/// The datasets of the HDF5 embeddings file, in memory; rows appended module by module.
struct Tables {
  unsigned Dim = 0;
  ir2vec::LevelSet Levels;
  bool FunctionRows = true; // false at module level
  bool InstText = false;
  std::vector<std::string> EntityNames; // empty: LLVM IR's 110
  std::vector<std::string> ModulePath, ModuleError;
  Column<double> ModuleData;
  std::vector<std::string> FunctionName;
  Column<int64_t> FunctionModule;
  Column<double> FunctionData;
  std::vector<std::string> BlockName;
  Column<int64_t> BlockFunction;
  Column<double> BlockData;
  std::vector<std::string> InstTextRows;
  Column<int64_t> InstOpcode, InstFunction, InstBlock;
  Column<double> InstData;

  void append(const std::string &Path, const std::string &Error, ir2vec::ModuleEmbedding *E) {
    const int64_t Module = static_cast<int64_t>(ModulePath.size());
    ModulePath.push_back(Path);
    ModuleError.push_back(Error);
    ModuleData.append(E ? E->ModuleVector : ir2vec::failedModuleVector(Dim));
    if (!E || !FunctionRows)
      return;
    const int64_t F0 = static_cast<int64_t>(FunctionName.size());
    const int64_t B0 = static_cast<int64_t>(BlockName.size());
    for (std::string &N : E->FunctionNames) {
      FunctionName.push_back(std::move(N));
      FunctionModule.push_back(Module);
    }
    FunctionData.append(E->FunctionVectors);
    if (Levels.Blocks) {
      for (size_t I = 0; I < E->BlockNames.size(); ++I) {
        BlockName.push_back(std::move(E->BlockNames[I]));
        BlockFunction.push_back(F0 + E->BlockFunction[I]);
      }
      BlockData.append(E->BlockVectors);
    }
    if (Levels.Instructions) {
      for (size_t I = 0; I < E->InstOpcode.size(); ++I) {
        InstOpcode.push_back(E->InstOpcode[I]);
        InstFunction.push_back(F0 + E->InstFunction[I]);
        InstBlock.push_back(B0 + E->InstBlock[I]);
      }
      if (InstText)
        for (std::string &T : E->InstTexts)
          InstTextRows.push_back(std::move(T));
      InstData.append(E->InstVectors);
    }
  }

  /// The Python value (GIL held): namespaces named and laid out like the file's groups.
  py::object toPython(py::dict Attrs, const char *Data) {
    py::dict Modules;
    const size_t NM = ModulePath.size();
    Modules["path"] = texts(ModulePath);
    Modules["error"] = texts(ModuleError);
    Modules[Data] = std::move(ModuleData).toNumpy(NM, Dim);
    py::dict Out;
    Out["attrs"] = Attrs;
    Out["modules"] = namespaceOf(Modules);
    Out["functions"] = py::none();
    if (FunctionRows) {
      py::dict Functions;
      Functions["name"] = texts(FunctionName);
      const size_t NF = FunctionName.size();
      Functions["module"] = std::move(FunctionModule).toNumpy(NF, 0);
      Functions[Data] = std::move(FunctionData).toNumpy(NF, Dim);
      Out["functions"] = namespaceOf(Functions);
    }
    Out["blocks"] = py::none();
    Out["instructions"] = py::none();
    if (Levels.Blocks) {
      py::dict B;
      const size_t NB = BlockName.size();
      B["name"] = texts(BlockName);
      B["function"] = std::move(BlockFunction).toNumpy(NB, 0);
      B[Data] = std::move(BlockData).toNumpy(NB, Dim);
      Out["blocks"] = namespaceOf(B);
    }
    if (Levels.Instructions) {
      py::dict I;
      const size_t NI = InstOpcode.size();
      I["opcode"] = std::move(InstOpcode).toNumpy(NI, 0);
      I["function"] = std::move(InstFunction).toNumpy(NI, 0);
      I["block"] = std::move(InstBlock).toNumpy(NI, 0);
      I["text"] = InstText ? py::object(texts(InstTextRows)) : py::object(py::none());
      I[Data] = std::move(InstData).toNumpy(NI, Dim);
      Out["instructions"] = namespaceOf(I);
    }
    Out["entities"] = namespaceOf(py::dict(
        py::arg("name") = EntityNames.empty() ? entityNames() : py::list(texts(EntityNames))));
    return namespaceOf(Out);
  }
};

struct RunSpec {
  ir2vec::EmbeddingJob Job;
  std::shared_ptr<PyVocabulary> Vocab; // null for counts and machine IR
  std::shared_ptr<mir::MirSource> Mir; // mode="mir"
  bool Counts = false;
  bool InstText = false;
  corpus::BatchIO IO;

  ir2vec::LevelSet levels() const { return ir2vec::levelsAt(Job.Granularity); }
  const char *dataName() const { return Counts ? "counts" : "embedding"; }
  py::dict attrs() const {
    ir2vec::FileHeader H = Job.Header;
    H.InstructionText = InstText;
    if (Mir)
      return attributesOf(H);
    H.Counts = Counts;
    H.EmbeddingKind = Job.EmbeddingKind;
    H.Granularity = Job.Granularity;
    H.Dimension = Job.Vocab->dimension();
    H.InstructionText = InstText;
    if (!Counts) {
      H.W = Vocab->E.weights();
      H.VocabSHA256 = Vocab->sha256();
    }
    return attributesOf(H);
  }
  static py::dict attributesOf(const ir2vec::FileHeader &H) {
    py::dict A;
    for (const ir2vec::HeaderAttribute &X : ir2vec::headerAttributes(H))
      std::visit([&](const auto &V) { A[py::str(X.Name)] = V; }, X.Value);
    return A;
  }
  Tables freshTables() const {
    Tables T;
    T.Dim = Mir ? Job.Header.Dimension : Job.Vocab->dimension();
    T.EntityNames = Job.Header.EntityNames;
    T.Levels = levels();
    T.FunctionRows = ir2vec::hasFunctionRows(Job.Granularity);
    T.InstText = InstText;
    return T;
  }
};

/// The Python module's names of a job's settings, for the embedding layer's errors
/// (ir2vec::EmbeddingJob::validateSelection states the rules).
std::string keywordSpelling(ir2vec::JobSetting S, llvm::StringRef Value) {
  switch (S) {
  case ir2vec::JobSetting::Function:
    return "function=";
  case ir2vec::JobSetting::Level:
    return ("level='" + Value + "'").str();
  case ir2vec::JobSetting::InstructionText:
    return "instruction_text";
  case ir2vec::JobSetting::Counts:
    return "counts";
  case ir2vec::JobSetting::Mode:
    return ("mode='" + Value + "'").str();
  case ir2vec::JobSetting::Kind:
    return ("kind='" + Value + "'").str();
  }
  return "";
}

RunSpec makeSpec(const std::variant<std::filesystem::path, std::vector<std::filesystem::path>> &In,
                 const py::object &Vocab, bool Counts, const std::string &Kind,
                 const std::string &Level, unsigned Jobs, const std::optional<std::string> &Function,
                 bool InstText, double ModuleSeconds, const std::string &OptLevel,
                 MachineArgs Machine = {}) {
  RunSpec S;
  const ir2vec::IRMode Mode = valueOrRaise(ir2vec::parseIRMode(Machine.Mode));
  Machine.Opt = valueOrRaise(corpus::parseOptChoice(OptLevel));
  S.Counts = Counts;
  S.Job.EmbeddingKind = valueOrRaise(ir2vec::parseKind(Kind));
  S.Job.Granularity = valueOrRaise(ir2vec::parseLevel(Level));
  S.InstText = S.Job.Header.InstructionText = InstText;
  S.Job.Header.Counts = Counts;
  S.Job.FunctionName = Function;
  raiseIf(S.Job.validateSelection(keywordSpelling, Mode));
  if (Jobs == 0)
    throw py::value_error("jobs must be at least 1");
  S.IO.Run.Jobs = Jobs;
  raiseIf(support::checkSeconds(ModuleSeconds, "module_time_limit"));
  S.IO.ModuleSeconds = ModuleSeconds;
  if (Mode == ir2vec::IRMode::MIR) {
    S.Job.Inputs = expand(In, /*Machine=*/true);
    S.Mir = machineSource(Machine, Vocab.is_none() ? std::nullopt : std::optional<std::string>(pathBytes(Vocab)),
                          S.Job.Inputs);
    S.Job.Source = &S.Mir->source();
    S.Job.Header = S.Mir->header(S.Job.Granularity);
    return S;
  }
  if (Counts) {
    if (!Vocab.is_none())
      throw py::value_error("counts need no vocabulary");
    S.Job.Vocab = &ir2vec::countingVocabulary();
  } else {
    S.Vocab = vocabularyArg(Vocab);
    S.Job.Vocab = &S.Vocab->E.vocabulary();
  }
  S.Job.Header.Opt = Machine.Opt;
  S.Job.Inputs = expand(In);
  return S;
}

/// Runs Spec, calling Take (without the GIL) for every module in input order; between modules
/// the GIL is taken to call Progress and to check for Ctrl-C. Python errors (an interrupt, an
/// exception of the progress callback) stop the run and are raised here.
void runWithGilReleased(RunSpec &S, const py::object &Progress,
                        const std::function<void(size_t, ir2vec::EmbeddedModule &&)> &Take) {
  std::optional<py::error_already_set> Raised;
  const size_t Total = S.Job.Inputs.size();
  size_t Done = 0;
  llvm::Error E = llvm::Error::success();
  {
    py::gil_scoped_release Unlocked;
    E = ir2vec::embedModules(
        S.Job, S.levels(), S.InstText, 0, S.IO,
        [&](size_t I, ir2vec::EmbeddedModule &&M) -> llvm::Error {
          Take(I, std::move(M));
          ++Done;
          py::gil_scoped_acquire Locked;
          try {
            if (PyErr_CheckSignals() != 0)
              throw py::error_already_set();
            if (!Progress.is_none())
              Progress(Done, Total);
          } catch (py::error_already_set &X) {
            Raised.emplace(std::move(X));
            return llvm::createStringError("stopped by Python");
          }
          return llvm::Error::success();
        });
  }
  if (Raised) {
    llvm::consumeError(std::move(E));
    throw *Raised;
  }
  raiseIf(std::move(E));
}

py::object embedAll(RunSpec S, const py::object &Progress) {
  Tables T = S.freshTables();
  std::vector<std::string> Warnings;
  size_t Failed = 0;
  bool Found = false; // with function=: some module defines it
  runWithGilReleased(S, Progress, [&](size_t I, ir2vec::EmbeddedModule &&M) {
    for (std::string &W : M.Warnings)
      Warnings.push_back(std::move(W));
    Failed += !M.Error.empty();
    Found |= M.Error.empty() && !M.E.SelectedNotFound;
    T.append(S.Job.Inputs[I], M.Error, M.Error.empty() ? &M.E : nullptr);
  });
  if (Failed == S.Job.Inputs.size())
    raiseValueError(S.Job.Inputs.size() == 1
                              ? T.ModuleError[0]
                              : "every one of the " + std::to_string(Failed) +
                                    " modules failed; the first: " + T.ModuleError[0]);
  if (S.Job.FunctionName && !Found)
    raiseValueError("function '" + *S.Job.FunctionName + "' not found in " +
                          (S.Job.Inputs.size() == 1 ? "'" + S.Job.Inputs[0] + "'"
                                                    : "any of the " +
                                                          std::to_string(S.Job.Inputs.size()) +
                                                          " inputs"));
  warnAll(Warnings);
  if (Failed)
    warnAll({std::to_string(Failed) + " of " + std::to_string(S.Job.Inputs.size()) +
             " modules failed (modules.error says why); the result holds the others"});
  return T.toPython(S.attrs(), S.dataName());
}

// ---- one module at a time ----------------------------------------------------------------

/// embed_iter: the run goes on in a thread of its own, a few modules ahead of the consumer
/// (a bounded queue), so memory stays bounded whatever the corpus size.
class ModuleStream {
public:
  ModuleStream(RunSpec Spec) : S(std::move(Spec)) {
    Capacity = 2 * size_t(S.IO.Run.Jobs) + 2;
    Worker = std::thread([this] { produce(); });
  }
  ~ModuleStream() { stop(); }

  py::object next() {
    while (true) {
      std::optional<Item> It;
      bool End = false;
      {
        py::gil_scoped_release Unlocked;
        std::unique_lock<std::mutex> L(M);
        // Wakes up now and then to let Python see a Ctrl-C.
        Ready.wait_for(L, std::chrono::milliseconds(100),
                       [&] { return !Queue.empty() || Finished; });
        if (!Queue.empty()) {
          It.emplace(std::move(Queue.front()));
          Queue.pop_front();
        } else {
          End = Finished;
        }
      }
      if (It) {
        Room.notify_all();
        warnAll(It->Warnings);
        py::object Out = It->T.toPython(S.attrs(), S.dataName());
        Out.attr("index") = It->Index;
        return Out;
      }
      if (End) {
        stop();
        if (Error)
          raiseValueError(*Error);
        throw py::stop_iteration();
      }
      if (PyErr_CheckSignals() != 0) {
        stop();
        throw py::error_already_set();
      }
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> L(M);
      Stopping = true;
    }
    Room.notify_all();
    if (Worker.joinable()) {
      py::gil_scoped_release Unlocked;
      Worker.join();
    }
  }

private:
  void produce() {
    llvm::Error E = ir2vec::embedModules(
        S.Job, S.levels(), S.InstText, 0, S.IO,
        [&](size_t I, ir2vec::EmbeddedModule &&Mod) -> llvm::Error {
          Item It{I, S.freshTables(), std::move(Mod.Warnings)};
          It.T.append(S.Job.Inputs[I], Mod.Error, Mod.Error.empty() ? &Mod.E : nullptr);
          std::unique_lock<std::mutex> L(M);
          Room.wait(L, [&] { return Queue.size() < Capacity || Stopping; });
          if (Stopping)
            return llvm::createStringError("stopped");
          Queue.push_back(std::move(It));
          Ready.notify_all();
          return llvm::Error::success();
        });
    std::lock_guard<std::mutex> L(M);
    if (E && !Stopping)
      Error = llvm::toString(std::move(E));
    else
      llvm::consumeError(std::move(E));
    Finished = true;
    Ready.notify_all();
  }

  struct Item {
    size_t Index;
    Tables T;
    std::vector<std::string> Warnings;
  };
  RunSpec S;
  size_t Capacity;
  std::mutex M;
  std::condition_variable Ready, Room;
  std::deque<Item> Queue;
  bool Finished = false, Stopping = false;
  std::optional<std::string> Error;
  std::thread Worker;
};

} // namespace

using Inputs = std::variant<std::filesystem::path, std::vector<std::filesystem::path>>;

void addCorpus(py::module_ &Mod) {
  Mod.def(
      "embed",
      [](const Inputs &In, const py::object &Vocab, const std::string &Kind,
         const std::string &Level, unsigned Jobs, const std::optional<std::string> &Function,
         bool InstText, double ModuleSeconds, const py::object &Progress, const std::string &Mode,
         const std::string &Stage, const std::optional<std::string> &Triple,
         const std::string &OptLevel, const std::string &CPU, const std::string &Features) {
        return embedAll(makeSpec(In, Vocab, false, Kind, Level, Jobs, Function, InstText,
                                 ModuleSeconds, OptLevel,
                                 MachineArgs{Mode, Stage, Triple, CPU, Features, std::nullopt, "vocab"}),
                        Progress);
      },
      py::arg("inputs"), py::arg("vocab") = py::none(), py::arg("kind") = "symbolic",
      py::arg("level") = "func", py::arg("jobs") = 1, py::arg("function") = py::none(),
      py::arg("instruction_text") = false,
      py::arg("module_time_limit") = corpus::DefaultModuleSeconds,
      py::arg("progress") = py::none(), py::arg("mode") = "llvm", py::arg("mir_stage") = "post-ra",
      py::arg("mtriple") = py::none(), py::arg("opt_level") = corpus::NoOptLevel,
      py::arg("mcpu") = "", py::arg("mattr") = "",
      "Embeds modules (files, directories, @lists, corpus descriptions) with `jobs` workers, "
      "exactly as `ir2vec embeddings --format hdf5` does, and returns the file's datasets as "
      "numpy arrays: .modules (path, error, embedding: the module level, the sum of the "
      "module's function vectors; NaN for a failed module), .functions (name, module, "
      "embedding; None at level 'module'), .blocks and .instructions at finer levels, "
      ".entities, .attrs. level: 'module', 'func', 'bb' or 'inst'. progress(done, total) is called "
      "between modules. Failed modules are recorded in modules.error (a warning says how "
      "many); ValueError when every module failed. mode='mir': machine IR (MIR2Vec, as "
      "`ir2vec embeddings --mode=mir`): .mir files, or LLVM IR taken through llc-22 -O2's code "
      "generation to mir_stage ('isel', 'pre-ra' or 'post-ra') for mtriple (default: the first "
      "input's target), mcpu and mattr (llc's -mcpu and -mattr); vocab: None (the default x86-64 "
      "MIR vocabulary) or a MIR vocabulary JSON path. opt_level: LLVM's default<O?> pipeline run on each module first, in-process as "
      "opt-22 -O? runs it ('O0', 'O1', 'O2', 'O3', 'Os', 'Oz'; 'none': the modules as they are).");
  Mod.def(
      "counts",
      [](const Inputs &In, const std::string &Kind, const std::string &Level, unsigned Jobs,
         const std::optional<std::string> &Function, bool InstText, double ModuleSeconds,
         const py::object &Progress, const std::string &OptLevel) {
        return embedAll(makeSpec(In, py::none(), true, Kind, Level, Jobs, Function, InstText,
                                 ModuleSeconds, OptLevel),
                        Progress);
      },
      py::arg("inputs"), py::arg("kind") = "symbolic", py::arg("level") = "func",
      py::arg("jobs") = 1, py::arg("function") = py::none(),
      py::arg("instruction_text") = false,
      py::arg("module_time_limit") = corpus::DefaultModuleSeconds,
      py::arg("progress") = py::none(), py::arg("opt_level") = corpus::NoOptLevel,
      "Entity counts (`ir2vec embeddings --counts`): the same layout with `counts` (n x 110) "
      "in place of `embedding`; counts @ Vocabulary.matrix gives embeddings. opt_level as for "
      "embed.");
  Mod.def(
      "from_counts",
      [](const py::object &Counts, const py::object &Vocab) {
        // Trust nothing about the array: it must be 2-D with one column per entity.
        py::array_t<double, py::array::c_style | py::array::forcecast> C(Counts);
        if (C.ndim() != 2 || C.shape(1) != vocab::NumEntities)
          throw py::value_error("counts must be an n x " + std::to_string(vocab::NumEntities) +
                                " array (one column per entity), not of shape " +
                                std::string(py::str(Counts.attr("shape"))));
        std::shared_ptr<PyVocabulary> V = vocabularyArg(Vocab);
        std::vector<double> In(C.data(), C.data() + C.size());
        const size_t Rows = size_t(C.shape(0));
        std::vector<double> Out;
        {
          py::gil_scoped_release Unlocked;
          Out = ir2vec::countsTimesVocabulary(In, V->E.vocabulary());
        }
        return adopt(std::move(Out), Rows, V->raw().Dim);
      },
      py::arg("counts"), py::arg("vocab") = py::none(),
      "counts (n x 110, e.g. counts(...).functions.counts) times the weighted vocabulary: "
      "n x D, the very product `ir2vec from-counts` computes (within 1e-12 relative of the "
      "exact vectors; docs/formats/embeddings-hdf5.md).");
  py::class_<ModuleStream>(Mod, "ModuleStream",
                           "embed_iter's iterator: one module's datasets at a time.")
      .def("__iter__", [](py::object Self) { return Self; })
      .def("__next__", &ModuleStream::next)
      .def("close", &ModuleStream::stop, "Stops the run (also when the iterator goes).");
  Mod.def(
      "embed_iter",
      [](const Inputs &In, const py::object &Vocab, const std::string &Kind,
         const std::string &Level, unsigned Jobs, const std::optional<std::string> &Function,
         bool InstText, double ModuleSeconds, bool Counts, const std::string &Mode,
         const std::string &Stage, const std::optional<std::string> &Triple,
         const std::string &OptLevel, const std::string &CPU, const std::string &Features) {
        return std::make_unique<ModuleStream>(
            makeSpec(In, Counts ? py::none() : Vocab, Counts, Kind, Level, Jobs, Function,
                     InstText, ModuleSeconds, OptLevel,
                     MachineArgs{Mode, Stage, Triple, CPU, Features, std::nullopt, "vocab"}));
      },
      py::arg("inputs"), py::arg("vocab") = py::none(), py::arg("kind") = "symbolic",
      py::arg("level") = "func", py::arg("jobs") = 1, py::arg("function") = py::none(),
      py::arg("instruction_text") = false,
      py::arg("module_time_limit") = corpus::DefaultModuleSeconds, py::arg("counts") = false,
      py::arg("mode") = "llvm", py::arg("mir_stage") = "post-ra", py::arg("mtriple") = py::none(),
      py::arg("opt_level") = corpus::NoOptLevel, py::arg("mcpu") = "", py::arg("mattr") = "",
      "Like embed (or counts), one module at a time, in input order, for corpora that do not "
      "fit in memory: each item has the same layout for one module (.modules has one row; "
      ".index is its position among the inputs). Failed modules come with modules.error set. "
      "mode, mir_stage, mtriple, mcpu, mattr and opt_level as for embed.");
}

} // namespace wb::python
