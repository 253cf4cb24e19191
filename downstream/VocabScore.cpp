#include "downstream/VocabScore.h"

#include "support/Error.h"
#include "support/JSON.h"
#include "vocab/VocabularyFile.h"

#include "llvm/Support/FormatVariadic.h"

namespace wb::downstream {

namespace {

constexpr ir2vec::Kind Kinds[] = {ir2vec::Kind::Symbolic, ir2vec::Kind::FlowAware};

std::string pct(const Interval &I, bool Signed) {
  auto F = [&](double X) { return (Signed && X >= 0 ? "+" : "") + llvm::formatv("{0:f2}", 100 * X).str(); };
  return F(I.Mean) + " [" + F(I.Low) + ", " + F(I.High) + "]";
}

} // namespace

llvm::Error scoreVocabularies(const VocabularyScoreJob &J, const DevmapConfig &C, llvm::raw_ostream &OS) {
  if (J.Vocabularies.empty())
    return support::usageError("name a vocabulary to score");
  if (J.Seeds < 1 || J.Seeds > 1000)
    return support::usageError("--devmap-seeds must be 1 to 1000");
  auto Spec = defaultDevmapSpec();
  if (!Spec)
    return Spec.takeError();
  Spec->Protocols = {FoldProtocol::Kernel};
  Spec->Seeds.clear();
  for (unsigned I = 0; I < J.Seeds; ++I)
    Spec->Seeds.push_back(104 + I);
  Spec->Arms.resize(3); // the controls
  for (size_t V = 0; V < J.Vocabularies.size(); ++V) {
    const ir2vec::EmbeddingChoice &E = J.Vocabularies[V];
    for (ir2vec::Kind K : Kinds) {
      DevmapArm A;
      A.Name = "v" + std::to_string(V) + "-" + ir2vec::kindName(K).str();
      A.EmbeddingKind = K;
      A.Vocabulary = E.source() == ir2vec::VocabSource::File ? E.spelling() : std::string();
      A.Embedding = E.withKind(K);
      Spec->Arms.push_back(std::move(A));
    }
  }
  auto Data = readDevmap(J.Data);
  if (!Data)
    return Data.takeError();
  auto R = runDevmapStudy(*Data, *Spec, C);
  if (!R)
    return R.takeError();
  const size_t NP = R->Platforms.size();
  auto armOf = [](size_t V, size_t K) { return 3 + 2 * V + K; };
  if (J.JSON) {
    llvm::json::Array Vs;
    for (size_t V = 0; V < J.Vocabularies.size(); ++V) {
      llvm::json::Object Ks;
      for (size_t K = 0; K < 2; ++K) {
        const CellResult &Cell = R->Arms[armOf(V, K)].Cells[0];
        Ks[ir2vec::kindName(Kinds[K])] = llvm::json::Object{
            {"accuracy", intervalJSON(Cell.Accuracy[NP])},
            {"vs_histogram", intervalJSON(Cell.VsHistogram[NP])},
            {"vs_first", V ? intervalJSON(pairedDifference(*R, armOf(V, K), armOf(0, K), 0).back())
                           : llvm::json::Value(nullptr)}};
      }
      Vs.push_back(llvm::json::Object{
          {"vocabulary", J.Vocabularies[V].spelling()}, {"kinds", std::move(Ks)}});
    }
    llvm::json::Array Seeds;
    for (uint32_t S : Spec->Seeds)
      Seeds.push_back(int64_t(S));
    OS << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                     {"schema", VocabDevmapSchema},
                                     {"data", J.Data},
                                     {"protocol", "kernel"},
                                     {"seeds", std::move(Seeds)},
                                     {"rows", int64_t(R->Rows.empty() ? 0 : R->Rows[0].size())},
                                     {"histogram", intervalJSON(R->Arms[2].Cells[0].Accuracy[NP])},
                                     {"vocabularies", std::move(Vs)}}))
       << "\n";
    return llvm::Error::success();
  }
  OS << "# device mapping on " << J.Data << ": folds by kernel, " << J.Seeds
     << " seeds; accuracy % (mean of the platforms) with 95% bootstrap intervals over kernels; "
        "differences paired (same folds, seeds, resamples), to the first vocabulary of the same kind\n"
     << "histogram (control)  " << pct(R->Arms[2].Cells[0].Accuracy[NP], false) << "\n";
  for (size_t V = 0; V < J.Vocabularies.size(); ++V) {
    OS << J.Vocabularies[V].sourceName() << "\n";
    for (size_t K = 0; K < 2; ++K) {
      const CellResult &Cell = R->Arms[armOf(V, K)].Cells[0];
      OS << llvm::formatv("  {0,-11}", ir2vec::kindName(Kinds[K])) << pct(Cell.Accuracy[NP], false)
         << "   vs histogram " << pct(Cell.VsHistogram[NP], true);
      if (V)
        OS << "   vs first " << pct(pairedDifference(*R, armOf(V, K), armOf(0, K), 0).back(), true);
      OS << "\n";
    }
  }
  return llvm::Error::success();
}

} // namespace wb::downstream
