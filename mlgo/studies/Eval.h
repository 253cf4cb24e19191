// Held-out evaluation of an inliner policy against -Oz (shared doc policy-training.md, sections
// 3 and 4): every module of one side of the split compiled with the heuristic and with the
// policy, each to a native object whose .text is measured; the total reduction
// 1 - sum(policy) / sum(-Oz), the modules that grow or shrink, and a 95% bootstrap interval
// over modules. Written as JSON (schema ir2vec.mlgo-eval/2) and HDF5 with a manifest of
// versions, command lines and hashes (docs/formats/mlgo-eval.md), so anyone can rerun it.
#pragma once

#include "mlgo/studies/Judge.h"

#include <string>
#include <vector>

namespace wb::mlgo {

inline constexpr const char *EvalSchema = "ir2vec.mlgo-eval/2";

struct EvalJob {
  /// The corpus (expanded by the run), the protocol (transfer by default; no folds) and the
  /// timeout of each compiler run.
  CorpusPlan Plan{{}, JudgingProtocol::Transfer, {}, std::nullopt, 0};
  bool TestSide = true;              // Split: evaluate the held-out side (or the training side)
  /// An exploration of these modules (any side): each module's smallest .text found, for the
  /// headroom; "" = none.
  std::string Exploration;
  runners::SessionConfig Session;    // the policy (Policy and Bind; Command unused)
  ir2vec::EmbeddingChoice Embeddings; // its embedding features (none: null)
  std::string PolicyLabel;           // how the report names it
  std::string ModelPath;             // hashed into the manifest when set
  uint64_t Seed = 1;                 // the bootstrap's
  std::string JSONOutput, HDF5Output; // "-": JSON on standard output
};

/// `ir2vec mlgo eval`: the job checked (its outputs against its inputs, the policy made once),
/// then the kernel: prepare, leave out the model's training packages (transfer), baselines,
/// judge, the reports. Extra: inputs besides the corpus (the model, the exploration) that no
/// output may be.
llvm::Expected<support::Outcome> runEvaluation(const EvalJob &J, const CompileSetup &C,
                                               const std::vector<std::string> &Extra = {});

/// The report as JSON (the manifest, the summary and every module).
llvm::json::Object evaluationJSON(const EvalJob &J, const CorpusSplit &S, const CompileSetup &C,
                                  const std::vector<EvalModule> &Modules, const EvalSummary &Sum,
                                  const std::vector<std::string> &Excluded);

} // namespace wb::mlgo
