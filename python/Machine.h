// Machine IR in the Python module (mode="mir"): what embed/embed_iter need to run over
// mir/MirCorpus.h's source, and initEmbedding(mode="mir")'s MIR2VecTool (Machine.cpp).
#pragma once

#include "python/Convert.h"

#include "mir/MirCorpus.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wb::python {

/// The machine-level arguments of embed and embed_iter.
struct MachineArgs {
  std::string Mode = "llvm"; // "llvm" or "mir"
  std::string Stage = "post-ra";
  std::optional<std::string> Triple;
  std::string CPU, Features;           // llc's -mcpu, -mattr ("": the target's default)
  std::optional<corpus::OptLevel> Opt; // the pipeline run first (opt_level)
  std::string VocabArg = "vocab";      // the vocabulary's argument, for messages
};

/// The source of a mode="mir" run over Inputs: Vocab none (the default MIR vocabulary) or a
/// path's bytes. ValueError for a bad stage, vocabulary or target (the message names the cause).
std::shared_ptr<mir::MirSource> machineSource(const MachineArgs &A, const std::optional<std::string> &Vocab,
                                              const std::vector<std::string> &Inputs);

/// initEmbedding(filename, mode="mir", vocabPath): a MIR2VecTool for one .mir file or IR
/// module (taken to post-RA machine IR).
py::object initMachineEmbedding(const std::string &Path,
                                const std::optional<std::filesystem::path> &VocabPath);

/// Registers MIR2VecTool.
void addMachine(py::module_ &M);

} // namespace wb::python
