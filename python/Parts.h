// The parts of the Python module, one registration function each (Module.cpp calls them).
#pragma once

#include <pybind11/pybind11.h>

namespace wb::python {

/// initEmbedding and IR2VecTool, as LLVM's own `ir2vec` module offers them after LLVM 22.
void addLlvmApi(pybind11::module_ &M);
/// Vocabulary, train_vocabulary, evaluate_vocabulary, triplets.
void addVocab(pybind11::module_ &M);
/// embed, counts, embed_iter, from_counts: the workbench's own calls over many modules.
void addCorpus(pybind11::module_ &M);
/// ir2vec.mlgo: the interactive host with a Python policy, training logs into numpy.
void addMlgo(pybind11::module_ &M);
/// evaluate_devmap: downstream evaluation of embeddings (docs/downstream.md).
void addDownstream(pybind11::module_ &M);

} // namespace wb::python
