// The features of each arm (ArmFeatures.h).
#include "downstream/ArmFeatures.h"

#include "ir2vec/FromCounts.h"
#include "mir/MirCorpus.h"
#include "support/Error.h"
#include "vocab/EntityLayout.h"
#include "vocab/VocabularyFile.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace wb::downstream {

llvm::Expected<FoldVocabularies> FoldVocabularies::make(const DevmapSpec &Spec, const DevmapKernels &K) {
  FoldVocabularies F;
  F.Spec = &Spec;
  F.K = &K;
  F.Inits.resize(Spec.Arms.size());
  for (size_t A = 0; A < Spec.Arms.size(); ++A) {
    if (!Spec.Arms[A].FoldVocab)
      continue;
    if (!F.Triplets) {
      auto T = KernelTriplets::collect(K.Effective, K.Usable);
      if (!T)
        return T.takeError();
      F.Triplets = std::move(*T);
    }
    auto I = foldInit(*Spec.Arms[A].FoldVocab);
    if (!I)
      return support::prefixError("arm " + Spec.Arms[A].Name, I.takeError());
    F.Inits[A] = std::move(*I);
  }
  return F;
}

llvm::Expected<vocab::Vocabulary> FoldVocabularies::train(size_t A, const std::vector<size_t> &Kernels) const {
  const DevmapArm &Arm = Spec->Arms[A];
  return Triplets->train(Kernels, *Arm.FoldVocab, Arm.Weights, Inits[A] ? &*Inits[A] : nullptr);
}

std::vector<std::vector<double>> FoldVocabularies::vectors(const DevmapArm &Arm, const vocab::Vocabulary &V) const {
  std::vector<std::vector<double>> Out(K->Counts.Rows.size());
  for (size_t D = 0; D < Out.size(); ++D)
    if (K->Usable[D])
      Out[D] = ir2vec::countsTimesVocabulary(K->Counts.Rows[D], V);
  if (Arm.Aggregate == Aggregation::Mean)
    overInstructions(Out, K->Counts.Rows);
  return Out;
}

std::vector<double> rowFeatures(const DevmapArm &Arm, const std::vector<std::vector<double>> &Vectors,
                                const std::vector<std::vector<double>> &Counts,
                                const std::vector<DevmapRow> &Rows, const std::vector<size_t> &KernelOf) {
  std::vector<double> F;
  for (size_t I = 0; I < Rows.size(); ++I) {
    const DevmapRow &Row = Rows[I];
    if (!Vectors.empty())
      F.insert(F.end(), Vectors[KernelOf[I]].begin(), Vectors[KernelOf[I]].end());
    if (Arm.WithHistogram)
      F.insert(F.end(), Counts[KernelOf[I]].begin(), Counts[KernelOf[I]].end());
    if (Arm.K == ArmKind::Grewe || Arm.WithGrewe)
      F.insert(F.end(), Row.Grewe.begin(), Row.Grewe.end());
    F.push_back(Row.Transfer);
    F.push_back(Row.WorkGroupSize);
  }
  return F;
}

namespace {

/// Arm A's vector per distinct content and the names of its columns (the histogram, machine
/// IR's, a fold vocabulary's trained on every kernel, or an embedding's).
llvm::Expected<std::vector<std::vector<double>>>
armVectors(size_t A, const DevmapSpec &Spec, const DevmapConfig &C, const DevmapKernels &K,
           const FoldVocabularies &FV, DevmapArmResult &Out) {
  const DevmapArm &Arm = Spec.Arms[A];
  if (Arm.K == ArmKind::Histogram) {
    for (vocab::EntityId E = 0; E < vocab::NumEntities; ++E)
      Out.ColumnNames.push_back("count:" + std::string(vocab::entityName(E)));
    return K.Counts.Rows;
  }
  if (Arm.Machine) {
    // For x86-64 (the shipped IR's target is x86-64 macOS; code generation for it is llc's).
    mir::MirRunOptions O;
    O.Target.Triple = "x86_64-unknown-linux-gnu";
    O.Stop = *mir::parseMirStage(Arm.MirStage);
    O.VocabPath = Arm.Vocabulary;
    auto Src = mir::MirSource::create(O, K.Effective, [](const support::Diagnostic &) {});
    if (!Src)
      return support::makeError("arm " + Arm.Name + ": " + llvm::toString(Src.takeError()));
    auto E = embedFiles(K.Effective, ir2vec::countingVocabulary(), ir2vec::Kind::Symbolic, C, Src->get());
    if (!E)
      return E.takeError();
    for (size_t D = 0; D < K.Effective.size(); ++D)
      if (K.Usable[D] && !E->Errors[D].empty())
        return support::fileError(K.Effective[D], "arm " + Arm.Name + ": cannot compile and embed its machine IR: " +
                                                      llvm::StringRef(E->Errors[D]).split('\n').first);
    for (unsigned D = 0; D < (*Src)->vocabulary().Dim; ++D)
      Out.ColumnNames.push_back("mir" + std::to_string(D));
    return std::move(E->Rows);
  }
  if (Arm.FoldVocab) {
    // Each training uses its own (runTrainings); results.h5 keeps the vectors of the
    // vocabulary trained on every kernel, for inspection.
    std::vector<size_t> All;
    for (size_t D = 0; D < K.Usable.size(); ++D)
      if (K.Usable[D])
        All.push_back(D);
    auto V = FV.train(A, All);
    if (!V)
      return support::prefixError("arm " + Arm.Name, V.takeError());
    for (unsigned D = 0; D < Arm.FoldVocab->Dim; ++D)
      Out.ColumnNames.push_back("dim" + std::to_string(D));
    return FV.vectors(Arm, *V);
  }
  if (Arm.K != ArmKind::Embedding)
    return std::vector<std::vector<double>>();
  const ir2vec::EmbeddingChoice &V = Arm.Embedding;
  auto E = embedFiles(K.Effective, V.vocabulary(), V.kind(), C, nullptr, &Arm);
  if (!E)
    return E.takeError();
  if (Arm.Aggregate == Aggregation::Mean)
    overInstructions(E->Rows, K.Counts.Rows);
  for (size_t D = 0; D < K.Effective.size(); ++D)
    if (K.Usable[D] && !E->Errors[D].empty())
      return support::fileError(K.Effective[D], "arm " + Arm.Name + ": cannot embed: " + E->Errors[D]);
  for (unsigned D = 0; D < V.vocabulary().dimension(); ++D)
    Out.ColumnNames.push_back("dim" + std::to_string(D));
  return std::move(E->Rows);
}

} // namespace

llvm::Error armFeatures(const DevmapSpec &Spec, const DevmapConfig &C, const DevmapKernels &K,
                        const FoldVocabularies &FV, DevmapResult &R) {
  const size_t NP = R.Platforms.size();
  R.Arms.resize(Spec.Arms.size());
  for (size_t A = 0; A < Spec.Arms.size(); ++A) {
    const DevmapArm &Arm = Spec.Arms[A];
    DevmapArmResult &Out = R.Arms[A];
    if (Arm.K == ArmKind::Static)
      continue;
    auto Vectors = armVectors(A, Spec, C, K, FV, Out);
    if (!Vectors)
      return Vectors.takeError();
    if (Arm.WithHistogram)
      for (vocab::EntityId E = 0; E < vocab::NumEntities; ++E)
        Out.ColumnNames.push_back("count:" + std::string(vocab::entityName(E)));
    if (Arm.K == ArmKind::Grewe || Arm.WithGrewe)
      for (const char *G : GreweColumns)
        Out.ColumnNames.push_back(G);
    Out.ColumnNames.push_back("transfer");
    Out.ColumnNames.push_back("wgsize");
    Out.Columns = Out.ColumnNames.size();
    Out.Features.resize(NP);
    for (size_t P = 0; P < NP; ++P)
      Out.Features[P] = rowFeatures(Arm, *Vectors, K.Counts.Rows, R.Rows[P], K.KernelOfRow[P]);
  }
  return llvm::Error::success();
}

} // namespace wb::downstream
