// What every model file and report the MLGO pipelines and studies write records of how it was
// made: the versions, and a model's provenance in the order every model file holds it.
#pragma once

#include "runners/Models.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <utility>
#include <vector>

namespace wb::mlgo {

/// The versions every report and manifest records (llvm_version, tool_version), set in O.
void addVersions(llvm::json::Object &O);

/// A model's provenance: created_by first, then Between (what the study records of itself),
/// then the LLVM and tool versions: the order every model file holds them in.
using Provenance = std::vector<std::pair<std::string, std::string>>;
Provenance provenance(llvm::StringRef CreatedBy, const Provenance &Between = {});
/// The same entries set on M (a key it has is replaced where it stands).
void stampProvenance(runners::ModelFile &M, llvm::StringRef CreatedBy,
                     const Provenance &Between = {});

} // namespace wb::mlgo
