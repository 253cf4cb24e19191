// What every model file and report the MLGO pipelines and studies write records of how it was
// made: the versions, and a model's provenance in the order every model file holds it.
#pragma once

#include "ir2vec/EmbeddingChoice.h"
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

/// Refuses a model and the embeddings its sessions would compute when they do not go together:
/// the model reads no embedding feature, or it was made from observations with other
/// embeddings (the digest it records, embeddings_digest, or finetune_embeddings_digest after
/// fine-tuning: another vocabulary, kind or weights). Models that record no digest (made before
/// digests were recorded) are taken as they are. ModelPath names the model in the message.
llvm::Error checkModelEmbeddings(const runners::ModelFile &M, llvm::StringRef ModelPath,
                                 const ir2vec::EmbeddingChoice &E);

} // namespace wb::mlgo
