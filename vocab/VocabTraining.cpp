#include "vocab/VocabTraining.h"

#include "vocab/IO.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace wb::vocab {
namespace {

TransEModel modelOf(const EntityVectors &V) {
  TransEModel M;
  // Row-major NumEntities x Dim is column-major Dim x NumEntities: the same memory.
  M.Entities = arma::mat(V.Rows.data(), V.Dim, NumEntities);
  if (!V.RelationNames.empty())
    M.Relations = arma::mat(V.Relations.data(), V.Dim, V.RelationNames.size());
  return M;
}

llvm::json::Object metricsJSON(const LinkMetrics &M) {
  return llvm::json::Object{{"mr", M.MR},         {"mrr", M.MRR},       {"hits1", M.Hits1},
                            {"hits3", M.Hits3},   {"hits10", M.Hits10}, {"queries", int64_t(M.Queries)}};
}

std::string jsonText(llvm::json::Value V) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << V;
  return S;
}

const char *name(Distance D) { return D == Distance::L1 ? "L1" : "L2"; }
const char *name(Optimizer O) { return O == Optimizer::SGD ? "sgd" : "adam"; }
const char *name(Corruption C) { return C == Corruption::Uniform ? "uniform" : "bernoulli"; }
const char *name(TripletWeights W) {
  switch (W) {
  case TripletWeights::Unique: return "unique";
  case TripletWeights::Frequency: return "frequency";
  case TripletWeights::Log: return "log";
  }
  return "";
}

} // namespace

std::string formatLinkMetrics(const LinkMetrics &M) {
  return llvm::formatv("MR {0,7:f2}  MRR {1:f4}  Hits@1 {2:f4}  Hits@3 {3:f4}  Hits@10 {4:f4}",
                       M.MR, M.MRR, M.Hits1, M.Hits3, M.Hits10)
      .str();
}

llvm::json::Object evaluationJSON(std::string Vocabulary, const VocabEvaluation &E) {
  auto Both = [](const LinkReport &R) {
    return llvm::json::Object{{"raw", metricsJSON(R.Raw)}, {"filtered", metricsJSON(R.Filtered)}};
  };
  // A json::Value made from a StringRef borrows it; the name must be owned.
  llvm::json::Object Entry{{"vocabulary", std::move(Vocabulary)},
                           {"fitted_relations", Both(E.Fitted)},
                           {"analogy", llvm::json::Object{{"questions", int64_t(E.Analogies.Questions)},
                                                          {"top1", E.Analogies.Top1},
                                                          {"top5", E.Analogies.Top5}}}};
  if (E.Own)
    Entry["own_relations"] = Both(*E.Own);
  return Entry;
}

llvm::Expected<VocabEvaluation> evaluateVocabulary(const KnowledgeGraph &G,
                                                   const EntityVectors &V, Distance D) {
  if (G.numEntities() != NumEntities)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the triplets use " + llvm::Twine(G.numEntities()) +
                                       " entities; vocabularies have the " +
                                       llvm::Twine(NumEntities) + " of LLVM 22");
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    if (G.EntityNames[Id] != entityName(Id))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "entity2id.txt: entity " + llvm::Twine(Id) + " is '" + G.EntityNames[Id] +
              "', expected '" + std::string(entityName(Id)) + "' (the LLVM 22 layout)");
  VocabEvaluation E;
  E.TestTriplets = G.Test.size();
  const TripletSet Known = tripletSet(G.Train, G.Valid, G.Test);
  TransEModel M = modelOf(V);
  if (M.Relations.n_cols == G.numRelations()) {
    E.Own = evaluateLinks(M, D, G.Test, Known);
  }
  M.Relations = fitRelations(M.Entities, G.Train, G.numRelations(), D);
  E.Fitted = evaluateLinks(M, D, G.Test, Known);
  auto A = evaluateAnalogies(M.Entities, G.EntityNames, defaultAnalogies());
  if (!A)
    return A.takeError();
  E.Analogies = *A;
  return E;
}

llvm::Expected<TrainedVocabulary>
trainVocabulary(const std::string &Dir, const KnowledgeGraph &G, const TransEConfig &C,
                const SplitOptions &Split,
                const std::function<void(const EpochReport &)> &OnEpoch) {
  if (G.numEntities() != NumEntities)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   Dir + ": entity2id.txt has " + llvm::Twine(G.numEntities()) +
                                       " entities; a vocabulary needs the " +
                                       llvm::Twine(NumEntities) + " of LLVM 22");
  auto R = trainTransE(G, C, OnEpoch);
  if (!R)
    return R.takeError();
  TrainedVocabulary T;
  T.Result = std::move(*R);
  EntityVectors &V = T.Vocab;
  V.Dim = C.Dim;
  V.Rows.assign(T.Result.Model.Entities.begin(), T.Result.Model.Entities.end());
  V.Relations.assign(T.Result.Model.Relations.begin(), T.Result.Model.Relations.end());
  V.RelationNames = G.RelationNames;
  auto E = evaluateVocabulary(G, V, C.Dist);
  if (!E)
    return E.takeError();
  T.Eval = std::move(*E);

  // Provenance.
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, "train2id.txt");
  auto TrainSHA = sha256OfFile(Path);
  if (!TrainSHA)
    return TrainSHA.takeError();
  std::string InputList;
  llvm::sys::path::remove_filename(Path);
  llvm::sys::path::append(Path, "manifest.json");
  if (auto Buf = llvm::MemoryBuffer::getFile(Path))
    if (auto J = llvm::json::parse((*Buf)->getBuffer()))
      if (const llvm::json::Object *O = J->getAsObject())
        if (auto S = O->getString("input_list_sha256"))
          InputList = S->str();
  llvm::json::Object Hyper{
      {"model", "TransE"},
      {"dimension", int64_t(C.Dim)},
      {"epochs", int64_t(C.Epochs)},
      {"epochs_run", int64_t(T.Result.Epochs)},
      {"best_epoch", int64_t(T.Result.BestEpoch)},
      {"batch_size", int64_t(C.BatchSize)},
      {"negatives", int64_t(C.Negatives)},
      {"margin", C.Margin},
      {"learning_rate", C.LearningRate},
      {"distance", name(C.Dist)},
      {"optimizer", name(C.Opt)},
      {"corruption", name(C.Corrupt)},
      {"filtered_negatives", C.FilterNegatives},
      {"normalize_entities", C.NormalizeEntities},
      {"weighting", name(C.Weights)},
      {"threads", int64_t(C.Threads)},
      {"eval_every", int64_t(C.EvalEvery)},
      {"patience", int64_t(C.Patience)},
      {"split", llvm::json::Object{{"valid", Split.Valid},
                                   {"test", Split.Test},
                                   {"seed", int64_t(Split.Seed)},
                                   {"train_triplets", int64_t(G.Train.size())},
                                   {"valid_triplets", int64_t(G.Valid.size())},
                                   {"test_triplets", int64_t(G.Test.size())}}}};
  llvm::json::Object Metrics{
      {"test_filtered", metricsJSON(T.Eval.Own ? T.Eval.Own->Filtered : T.Eval.Fitted.Filtered)},
      {"test_raw", metricsJSON(T.Eval.Own ? T.Eval.Own->Raw : T.Eval.Fitted.Raw)},
      {"test_filtered_fitted_relations", metricsJSON(T.Eval.Fitted.Filtered)},
      {"analogy_top1", T.Eval.Analogies.Top1},
      {"analogy_top5", T.Eval.Analogies.Top5},
      {"analogy_questions", int64_t(T.Eval.Analogies.Questions)},
      {"final_loss", T.Result.FinalLoss},
      {"best_valid_mrr", T.Result.BestValidMRR}};
  V.Provenance = {{"llvm_version", WB_LLVM_VERSION},
                  {"tool_version", WB_VERSION},
                  {"created_by", "ir2vec vocab train"},
                  {"training_data", std::string(llvm::sys::path::filename(Dir))},
                  {"train2id_sha256", *TrainSHA},
                  {"input_list_sha256", InputList},
                  {"seed", std::to_string(C.Seed)},
                  {"hyperparameters", jsonText(std::move(Hyper))},
                  {"metrics", jsonText(std::move(Metrics))}};
  return T;
}

} // namespace wb::vocab
