#include "mlgo/pipelines/Records.h"

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

} // namespace wb::mlgo
