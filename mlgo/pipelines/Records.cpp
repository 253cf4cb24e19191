#include "mlgo/pipelines/Records.h"

#include "support/Error.h"

#include "llvm/ADT/STLExtras.h"

namespace wb::mlgo {

void addVersions(llvm::json::Object &O) {
  O["llvm_version"] = WB_LLVM_VERSION;
  O["tool_version"] = WB_VERSION;
}

Provenance provenance(llvm::StringRef CreatedBy, const Provenance &Between) {
  Provenance P{{"created_by", CreatedBy.str()}};
  P.insert(P.end(), Between.begin(), Between.end());
  P.emplace_back("llvm_version", WB_LLVM_VERSION);
  P.emplace_back("tool_version", WB_VERSION);
  return P;
}

void stampProvenance(runners::ModelFile &M, llvm::StringRef CreatedBy, const Provenance &Between) {
  for (const auto &[K, V] : provenance(CreatedBy, Between))
    M.setProvenance(K, V);
}

llvm::Error checkModelEmbeddings(const runners::ModelFile &M, llvm::StringRef ModelPath,
                                 const ir2vec::EmbeddingChoice &E) {
  if (!E)
    return llvm::Error::success();
  const std::vector<features::FeatureDef> &Table = features::taskInfo(M.ForTask).Features;
  const bool Reads = llvm::any_of(M.Inputs, [&](const features::TensorSpec &S) {
    return llvm::any_of(Table, [&](const features::FeatureDef &D) {
      return D.Name == S.Name && features::isEmbedding(D);
    });
  });
  if (!Reads)
    return support::usageError(ModelPath + " reads no embedding feature: --embeddings would "
                                           "compute features it never reads");
  // The latest record: fine-tuning's when the model was fine-tuned with embeddings.
  std::string Recorded;
  for (const char *Key : {"embeddings_digest", "finetune_embeddings_digest"})
    for (const auto &[K, V] : M.Provenance)
      if (K == Key && !V.empty())
        Recorded = V;
  if (!Recorded.empty() && Recorded != E.digest())
    return support::usageError(
        ModelPath + " was made from observations with other embeddings (digest " + Recorded +
        "; --embeddings " + E.spelling() + ", " + ir2vec::kindName(E.kind()).str() + ", gives " +
        E.digest() + "): another vocabulary, its bytes retrained since, or another kind; give "
        "the embeddings the model was trained with");
  return llvm::Error::success();
}

} // namespace wb::mlgo
