// `ir2vec vocab eval --devmap DATA`: vocabularies judged downstream, on the device-mapping task
// (docs/downstream.md), beside link prediction: each vocabulary symbolic and flow-aware, folds
// by kernel, the entity histogram as the control, and each vocabulary's paired difference to
// the first one of the same kind.
#pragma once

#include "ir2vec/EmbeddingChoice.h"

#include "downstream/Study.h"

#include "llvm/Support/raw_ostream.h"

namespace wb::downstream {

inline constexpr const char *VocabDevmapSchema = "ir2vec.vocab-devmap/1";

struct VocabularyScoreJob {
  std::string Data;
  std::vector<ir2vec::EmbeddingChoice> Vocabularies; // resolved (symbolic; both kinds are scored)
  unsigned Seeds = 10;                   // 104 ..
  bool JSON = false;
};

/// Runs the study and prints the table (or JSON, schema ir2vec.vocab-devmap/1) on OS.
llvm::Error scoreVocabularies(const VocabularyScoreJob &J, const DevmapConfig &C, llvm::raw_ostream &OS);

} // namespace wb::downstream
