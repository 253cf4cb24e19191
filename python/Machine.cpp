#include "python/Machine.h"

#include "llvm/IR/LLVMContext.h"

#include <pybind11/stl.h>

namespace wb::python {

std::shared_ptr<mir::MirSource> machineSource(const MachineArgs &A, const std::optional<std::string> &Vocab,
                                              const std::vector<std::string> &Inputs) {
  mir::MirRunOptions O;
  O.Stop = valueOrRaise(mir::parseMirStage(A.Stage));
  if (A.Triple)
    O.Target.Triple = *A.Triple;
  O.Target.CPU = A.CPU;
  O.Target.Features = A.Features;
  O.Opt = A.Opt;
  O.VocabOption = A.VocabArg;
  if (Vocab) {
    O.VocabPath = *Vocab;
    if (O.VocabPath.empty())
      throw py::value_error(A.VocabArg + " is empty: expected a MIR vocabulary JSON path, or " +
                            "none for the default MIR vocabulary");
  }
  std::vector<std::string> Warnings;
  std::optional<llvm::Expected<std::unique_ptr<mir::MirSource>>> S;
  {
    py::gil_scoped_release Unlocked;
    S.emplace(mir::MirSource::create(
        O, Inputs, [&](const support::Diagnostic &D) { Warnings.push_back(D.Message); }));
  }
  std::unique_ptr<mir::MirSource> Made = valueOrRaise(std::move(*S));
  warnAll(Warnings);
  return std::shared_ptr<mir::MirSource>(std::move(Made));
}

namespace {

/// LLVM's IR2VecTool interface on machine IR: every level computed once (symbolic MIR2Vec
/// levels do not depend on one another), each call a view of those rows.
class MIR2VecTool {
public:
  std::string Source;
  ir2vec::ModuleEmbedding E;

  py::list funcNames() const { return texts(E.FunctionNames); }
  py::dict funcEmbMap() const {
    py::dict D;
    for (size_t F = 0; F < E.FunctionNames.size(); ++F)
      D[py::str(E.FunctionNames[F])] = vectorOf(E.FunctionVectors.data() + F * E.Dim, E.Dim);
    return D;
  }
  py::array_t<double> funcEmb(const std::string &Name) const {
    return vectorOf(E.FunctionVectors.data() + index(Name) * E.Dim, E.Dim);
  }
  py::dict bbEmbMap(const std::string &Name) const {
    return rowsOf(index(Name), E.BlockNames, E.BlockFunction, E.BlockVectors);
  }
  py::dict instEmbMap(const std::string &Name) const {
    return rowsOf(index(Name), E.InstTexts, E.InstFunction, E.InstVectors);
  }
  py::array_t<double> moduleEmb() const { return vectorOf(E.ModuleVector.data(), E.Dim); }

private:
  /// name -> vector of the rows of function F (a name given twice keeps the last, as a dict
  /// filled in layout order does: LLVM's API).
  py::dict rowsOf(size_t F, const std::vector<std::string> &Names, const std::vector<int64_t> &Owner,
                  const std::vector<double> &Rows) const {
    py::dict D;
    for (size_t I = 0; I < Names.size(); ++I)
      if (Owner[I] == int64_t(F))
        D[py::str(Names[I])] = vectorOf(Rows.data() + I * E.Dim, E.Dim);
    return D;
  }
  size_t index(const std::string &Name) const {
    for (size_t F = 0; F < E.FunctionNames.size(); ++F)
      if (E.FunctionNames[F] == Name)
        return F;
    throw py::value_error("Function '" + Name + "' not found in " + Source +
                          " (no machine function of that name)");
  }
};

} // namespace

py::object initMachineEmbedding(const std::string &Path,
                                const std::optional<std::filesystem::path> &VocabPath) {
  MachineArgs A;
  A.Mode = "mir";
  A.VocabArg = "vocabPath";
  std::shared_ptr<mir::MirSource> S =
      machineSource(A, VocabPath ? std::optional<std::string>(VocabPath->string()) : std::nullopt, {Path});
  auto T = std::make_unique<MIR2VecTool>();
  T->Source = Path;
  ir2vec::EmbeddedModule M;
  {
    py::gil_scoped_release Unlocked;
    llvm::LLVMContext Ctx;
    M = S->source().Embed(Path, Ctx, ir2vec::LevelSet{true, true, true}, /*Text=*/true, std::nullopt);
  }
  if (!M.Error.empty())
    raiseValueError(M.Error);
  warnAll(M.Warnings);
  T->E = std::move(M.E);
  return py::cast(std::move(T));
}

void addMachine(py::module_ &M) {
  py::class_<MIR2VecTool>(M, "MIR2VecTool",
                          "Machine IR embeddings of one module (initEmbedding(mode='mir')): the "
                          "methods of IR2VecTool on its machine functions, exact to LLVM 22's "
                          "MIR2Vec.")
      .def("getFuncNames", &MIR2VecTool::funcNames, "Names of the machine functions, in order.")
      .def("getFuncEmbMap", &MIR2VecTool::funcEmbMap, "dict: machine function -> float64 vector.")
      .def("getFuncEmb", &MIR2VecTool::funcEmb, py::arg("funcName"),
           "One machine function's vector. ValueError if there is none of that name.")
      .def("getBBEmbMap", &MIR2VecTool::bbEmbMap, py::arg("funcName"),
           "dict: machine block name -> vector for one function (unnamed blocks share '').")
      .def("getInstEmbMap", &MIR2VecTool::instEmbMap, py::arg("funcName"),
           "dict: machine instruction as LLVM prints it -> vector for one function.")
      .def("getModuleEmb", &MIR2VecTool::moduleEmb,
           "The sum of the function vectors in order (the workbench's module level).")
      .def("__repr__", [](const MIR2VecTool &T) { return "<ir2vec.MIR2VecTool " + T.Source + ">"; });
}

} // namespace wb::python
