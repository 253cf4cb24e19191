// import ir2vec: LLVM's Python API on LLVM 22 (LlvmApi.cpp) and the workbench's own calls.
#include "python/Machine.h"
#include "python/Parts.h"

PYBIND11_MODULE(ir2vec, M) {
  M.doc() = "IR2Vec embeddings exact to LLVM 22's ir2vec::Embedder, and the workbench's "
            "corpus, vocabulary and MLGO calls (docs/python.md).";
  M.attr("__version__") = WB_VERSION;
  M.attr("llvm_version") = WB_LLVM_VERSION;
  // Every result is a numpy array: importing numpy now (about 70 ms with Debian's) keeps that
  // one-time cost out of the first call, whose time then is the work alone.
  try {
    pybind11::module_::import("numpy");
  } catch (pybind11::error_already_set &E) {
    // pybind11 would report "initialization failed": say what is missing and where it is.
    if (!E.matches(PyExc_ImportError))
      throw;
    throw pybind11::import_error(
        "ir2vec needs numpy, which this Python (" +
        pybind11::module_::import("sys").attr("executable").cast<std::string>() +
        ") cannot import: use Debian's /usr/bin/python3 with python3-numpy");
  }
  wb::python::addMachine(M);
  wb::python::addLlvmApi(M);
  wb::python::addVocab(M);
  wb::python::addCorpus(M);
  wb::python::addMlgo(M);
  wb::python::addDownstream(M);
}
