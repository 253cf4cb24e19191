// LLVM's Python API (after LLVM 22: llvm/tools/llvm-ir2vec's bindings), on LLVM 22 and our
// engine: initEmbedding(filename=, mode=, vocabPath=) -> IR2VecTool with getFuncNames,
// getFuncEmbMap, getFuncEmb, getBBEmbMap, getInstEmbMap; keywords, types and ValueError cases
// as ../shared/docs/python-api-peers.md describes them.
//
// Each call computes one level exactly as llvm-ir2vec computes it (a fresh embedder per
// function; blocks, then instructions, queried in layout order), which is what LLVM's module
// does: flow-aware vectors depend on the order of queries (llvm#159171), so the levels are
// never derived from one another here.
#include "python/Convert.h"
#include "python/Machine.h"
#include "python/Parts.h"

#include "corpus/Batch.h"
#include "corpus/ModuleReader.h"
#include "ir2vec/ModuleEmbedding.h"
#include "ir2vec/EmbeddingChoice.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>

namespace wb::python {

namespace {

/// name -> vector, rows in order: a name given twice (unnamed blocks all have "", identical
/// instruction texts) keeps the last row's vector, as a dict filled in that order does (LLVM's
/// API). The rows lost that way are counted in Lost.
py::dict vectorsByName(const std::vector<std::string> &Names, const std::vector<double> &Rows,
                       unsigned Dim, size_t &Lost) {
  py::dict D;
  for (size_t I = 0; I < Names.size(); ++I)
    D[text(Names[I])] = vectorOf(Rows.data() + I * Dim, Dim);
  Lost = Names.size() - D.size();
  return D;
}

class IR2VecTool {
public:
  IR2VecTool(std::unique_ptr<llvm::LLVMContext> C, std::unique_ptr<llvm::Module> Mod,
             ir2vec::EmbeddingChoice E)
      : Ctx(std::move(C)), M(std::move(Mod)), Embedding(std::move(E)) {}

  py::list funcNames() const {
    py::list Names;
    for (const llvm::Function &F : *M)
      if (!F.isDeclaration())
        Names.append(text(F.getName().str()));
    return Names;
  }

  py::dict funcEmbMap() {
    ir2vec::ModuleEmbedding E = embed(ir2vec::LevelSet{true, false, false}, std::nullopt);
    size_t Lost = 0;
    return vectorsByName(E.FunctionNames, E.FunctionVectors, E.Dim, Lost);
  }

  /// The workbench's module level (an extension): the sum of the function vectors.
  py::array_t<double> moduleEmb() {
    ir2vec::ModuleEmbedding E = embed(ir2vec::LevelSet{true, false, false}, std::nullopt);
    return vectorOf(E.ModuleVector.data(), E.Dim);
  }

  py::array_t<double> funcEmb(const py::str &FuncName) {
    const std::string Name = bytesOf(FuncName);
    ir2vec::ModuleEmbedding E = embed(ir2vec::LevelSet{true, false, false}, Name);
    return vectorOf(E.FunctionVectors.data(), E.Dim);
  }

  py::dict bbEmbMap(const py::str &FuncName) {
    const std::string Name = bytesOf(FuncName);
    ir2vec::ModuleEmbedding E = embed(ir2vec::LevelSet{false, true, false}, Name);
    size_t Lost = 0;
    py::dict D = vectorsByName(E.BlockNames, E.BlockVectors, E.Dim, Lost); // layout order
    warnLost(Lost, E.BlockNames.size(), "blocks", Name);
    return D;
  }

  py::dict instEmbMap(const py::str &FuncName) {
    const std::string Name = bytesOf(FuncName);
    ir2vec::ModuleEmbedding E = embed(ir2vec::LevelSet{false, false, true}, Name);
    // Keys as LLVM prints the instruction, without its indentation; layout order.
    size_t Lost = 0;
    py::dict D = vectorsByName(E.InstTexts, E.InstVectors, E.Dim, Lost);
    warnLost(Lost, E.InstTexts.size(), "instructions", Name);
    return D;
  }

private:
  /// LLVM's semantics are kept (one key per name: the last row wins), but a map that lost rows
  /// says so, once per object: clang's IR has unnamed blocks (all keyed '').
  void warnLost(size_t Lost, size_t Rows, const char *What, const std::string &Func) {
    if (!Lost || WarnedLost)
      return;
    WarnedLost = true;
    const std::string W =
        std::to_string(Lost + 1) + " of the " + std::to_string(Rows) + " " + What + " of '" +
        Func + "' in " + Source + " share a key (unnamed values: clang names none), so the map " +
        "keeps " + std::to_string(Rows - Lost) + " of them, as LLVM's API does; give them names " +
        "first (opt-22 -passes=instnamer " + Source + " -S -o named.ll), or use ir2vec.embed(), " +
        "whose rows are never merged";
    warnAll({W});
  }
  bool WarnedLost = false;

  ir2vec::ModuleEmbedding embed(ir2vec::LevelSet Levels, std::optional<std::string> Name) {
    ir2vec::EmbedRequest R;
    R.EmbeddingKind = Embedding.kind();
    R.Levels = Levels;
    R.FunctionName = Name;
    R.InstructionText = Levels.Instructions;
    std::optional<llvm::Expected<ir2vec::ModuleEmbedding>> Rows;
    {
      py::gil_scoped_release Unlocked;
      // One module, one context: calls from several Python threads take turns.
      std::lock_guard<std::mutex> L(Busy);
      Rows.emplace(ir2vec::embedModule(*M, Embedding.vocabulary(), R));
    }
    if (!*Rows)
      Rows.emplace(support::prefixError(Source, Rows->takeError()));
    ir2vec::ModuleEmbedding E = valueOrRaise(std::move(*Rows));
    if (E.SelectedNotFound)
      throw py::value_error("Function '" + *Name + "' not found in module " + Source);
    if (E.SelectedDeclaration)
      throw py::value_error("Function '" + *Name + "' is a declaration (no body, no embedding)");
    return E;
  }

public:
  std::string Source; // the file name, for messages

private:
  std::unique_ptr<llvm::LLVMContext> Ctx; // before M: the module goes first
  std::unique_ptr<llvm::Module> M;
  ir2vec::EmbeddingChoice Embedding;
  std::mutex Busy;
};

ir2vec::Kind parseMode(const std::string &Mode) {
  if (Mode == "sym")
    return ir2vec::Kind::Symbolic;
  if (Mode == "fa")
    return ir2vec::Kind::FlowAware;
  if (Mode == "fa-rd")
    return ir2vec::Kind::FlowAwareRD;
  throw py::value_error("invalid mode '" + Mode +
                        "': expected 'sym' (symbolic), 'fa' (flow-aware), 'fa-rd' (flow-aware "
                        "with reaching definitions, the IR2Vec paper's) or 'mir' (machine IR)");
}

py::object initEmbedding(const std::filesystem::path &File, const std::string &Mode,
                         const std::optional<std::filesystem::path> &VocabPath) {
  const std::string Path = File.string();
  if (Path.empty())
    throw py::value_error("filename is empty: expected an LLVM IR file (.ll or .bc)");
  if (Mode == "mir") // the workbench's extension: machine IR
    return initMachineEmbedding(Path, VocabPath);
  const ir2vec::Kind K = parseMode(Mode);
  if (VocabPath && VocabPath->empty())
    throw py::value_error("vocabPath is empty: expected a vocabulary file (LLVM's JSON or the "
                          "workbench's HDF5), or no vocabPath for the default vocabulary");
  const std::string Vocab = VocabPath ? VocabPath->string() : std::string();
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  std::optional<llvm::Expected<ir2vec::EmbeddingChoice>> V;
  std::optional<llvm::Expected<corpus::ModuleInput>> In;
  {
    py::gil_scoped_release Unlocked;
    ir2vec::EmbeddingRequest R;
    R.K = K;
    if (!Vocab.empty())
      R.From = ir2vec::VocabSource::File, R.File = Vocab;
    V.emplace(ir2vec::EmbeddingChoice::resolve(R));
    if (*V)
      In.emplace(corpus::readModuleRecoverable(Path, Ctx));
  }
  ir2vec::EmbeddingChoice Loaded = valueOrRaise(std::move(*V));
  corpus::ModuleInput Module = valueOrRaise(std::move(*In));
  warnAll(Loaded.warnings());
  warnAll(Module.Warnings);
  auto T = std::make_unique<IR2VecTool>(std::move(Ctx), std::move(Module.M), std::move(Loaded));
  T->Source = Path;
  return py::cast(std::move(T));
}

} // namespace

void addLlvmApi(py::module_ &M) {
  py::class_<IR2VecTool>(M, "IR2VecTool",
                         "Embeddings of one module (LLVM's API): every call computes its level "
                         "as llvm-ir2vec does, exact to LLVM 22's Embedder.")
      .def("getFuncNames", &IR2VecTool::funcNames,
           "Names of the functions with bodies, in module order (declarations excluded).")
      .def("getFuncEmbMap", &IR2VecTool::funcEmbMap,
           "dict: function name -> float64 vector, for every defined function.")
      .def("getFuncEmb", &IR2VecTool::funcEmb, py::arg("funcName"),
           "One function's vector (float64). ValueError if the module has no such function "
           "or it is a declaration.")
      .def("getBBEmbMap", &IR2VecTool::bbEmbMap, py::arg("funcName"),
           "dict: basic-block name -> float64 vector for one function (blocks in layout "
           "order; unnamed blocks share the key '', as in LLVM's API: a warning says how many "
           "were merged; name them with opt -passes=instnamer). ValueError if no such function.")
      .def("getInstEmbMap", &IR2VecTool::instEmbMap, py::arg("funcName"),
           "dict: instruction text as LLVM prints it -> float64 vector for one function "
           "(identical texts share a key, with a warning). ValueError if no such function.")
      .def("getModuleEmb", &IR2VecTool::moduleEmb,
           "The module's vector (an extension of the workbench: LLVM 22 has no module level): "
           "the sum of getFuncEmbMap()'s vectors in module order, as embed(level='module') "
           "computes it; zeros for a module without defined functions.")
      .def("__repr__", [](const IR2VecTool &T) { return "<ir2vec.IR2VecTool " + T.Source + ">"; });

  M.def("initEmbedding", &initEmbedding, py::arg("filename"), py::arg("mode") = "sym",
        py::arg("vocabPath") = py::none(),
        "Reads one LLVM IR file (.ll or .bc, verified) and a vocabulary, and returns an "
        "IR2VecTool. mode: 'sym' (symbolic) or 'fa' (flow-aware); 'mir' (an extension) reads "
        "a .mir file or takes the IR module to post-RA machine IR and returns a MIR2VecTool with "
        "the same methods, its vocabPath a MIR vocabulary (default: the x86-64 one). vocabPath: LLVM's "
        "vocabulary JSON or the workbench's HDF5; without it, the workbench's default "
        "vocabulary (an extension: LLVM's module requires one). Weights are LLVM's defaults "
        "(opcode 1.0, type 0.5, argument 0.2). ValueError for an empty or unreadable file, "
        "invalid IR, a bad mode, an empty or invalid vocabulary.");
}

} // namespace wb::python
