#include "vocab/VocabTraining.h"

#include "support/JSON.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/Progress.h"

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

// Provenance spells the distance in capitals ("L1"), as the TransE literature does.
std::string name(Distance D) { return llvm::StringRef(support::nameOf<Distance>(DistanceNames, D)).upper(); }
llvm::StringRef name(Corruption C) { return support::nameOf<Corruption>(CorruptionNames, C); }
llvm::StringRef name(TripletWeights W) { return support::nameOf<TripletWeights>(TripletWeightsNames, W); }

} // namespace

EpochCallback epochProgress(support::Progress &P) {
  return [&P](const EpochReport &R) {
    std::string Extra = llvm::formatv("loss {0:f5}", R.Loss).str();
    if (R.ValidMRR >= 0)
      Extra += llvm::formatv("  valid MRR {0:f4}{1}", R.ValidMRR, R.Best ? " *" : "").str();
    P.update(R.Epoch, Extra);
    return llvm::Error::success();
  };
}

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
    return support::makeError("the triplets use " + llvm::Twine(G.numEntities()) +
                              " entities; vocabularies have the " + llvm::Twine(NumEntities) +
                              " of LLVM 22");
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    if (G.EntityNames[Id] != entityName(Id))
      return support::fileError("entity2id.txt", "entity " + llvm::Twine(Id) + " is '" +
                                                     G.EntityNames[Id] + "', expected '" +
                                                     std::string(entityName(Id)) +
                                                     "' (the LLVM 22 layout)");
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
                const EpochCallback &OnEpoch, const InitialEntities *Init) {
  if (G.numEntities() != NumEntities)
    return support::fileError(Dir, "entity2id.txt has " + llvm::Twine(G.numEntities()) +
                                       " entities; a vocabulary needs the " +
                                       llvm::Twine(NumEntities) + " of LLVM 22");
  auto R = trainTransE(G, C, OnEpoch, Init);
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
  auto TrainSHA = support::sha256OfFile(Path);
  if (!TrainSHA)
    return TrainSHA.takeError();
  std::string InputList;
  llvm::sys::path::remove_filename(Path);
  llvm::sys::path::append(Path, "manifest.json");
  if (auto Buf = support::readInput(Path, /*IsText=*/true))
    if (auto J = support::parseJSON((*Buf)->getBuffer()))
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
      {"learning_rate", C.Optimizer.LearningRate},
      {"distance", name(C.Dist)},
      {"optimizer", learn::optimizerName(C.Optimizer.Kind)},
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
                  {"initialised_from", Init ? Init->Source : std::string("random (the seed)")},
                  {"hyperparameters", jsonText(std::move(Hyper))},
                  {"metrics", jsonText(std::move(Metrics))}};
  return T;
}

llvm::Expected<InitialEntities> initialEntitiesFrom(const std::string &Path, unsigned Dim) {
  // One read: the vectors and their SHA-256 are of the same bytes.
  auto Bytes = readVocabularyBytes(Path);
  if (!Bytes)
    return Bytes.takeError();
  auto Rows = parseEntityVectors((*Bytes)->getBuffer(), vocabularySource(Path));
  if (!Rows)
    return Rows.takeError();
  if (Rows->Dim != Dim)
    return support::usageError(llvm::formatv("--init {0}: dimension {1}, but --dim is {2}", Path,
                                             Rows->Dim, Dim));
  InitialEntities I;
  I.Source = Path + " (sha256 " + support::sha256Hex((*Bytes)->getBuffer()) + ")";
  I.Vectors.set_size(Dim, NumEntities);
  I.Present.assign(NumEntities, false);
  for (EntityId E = 0; E < NumEntities; ++E) {
    const double *R = Rows->row(E);
    std::copy(R, R + Dim, I.Vectors.colptr(E));
    I.Present[E] = std::any_of(R, R + Dim, [](double X) { return X != 0.0; });
  }
  return I;
}

std::optional<std::string> unmentionedWarning(const std::string &Dir,
                                              const std::vector<std::string> &EntityNames,
                                              const std::vector<bool> &Mentioned, bool Init) {
  std::vector<std::string> Names;
  for (size_t E = 0; E < Mentioned.size(); ++E)
    if (!Mentioned[E])
      Names.push_back(E < EntityNames.size() ? EntityNames[E] : std::to_string(E));
  if (Names.empty())
    return std::nullopt;
  std::string Some;
  for (size_t I = 0; I < Names.size() && I < 3; ++I)
    Some += (I ? ", " : "") + Names[I];
  if (Names.size() > 3)
    Some += " and " + std::to_string(Names.size() - 3) + " more";
  return llvm::formatv("{0}: {1} of {2} entities are in no triplet ({3}): training leaves them at "
                       "their {4}",
                       Dir, Names.size(), Mentioned.size(), Some,
                       Init ? "--init vectors (random where --init has none)" : "random initial vectors")
      .str();
}

namespace {

llvm::Expected<KnowledgeGraph> readGraph(const std::string &Dir, const SplitOptions &Split) {
  if (Dir.empty())
    return support::usageError("expected one OpenKE directory (as written by `ir2vec triplets "
                               "--format openke -o DIR`)");
  return readOpenKE(Dir, Split);
}

using support::Diagnostic;

} // namespace

llvm::Expected<support::Outcome> runVocabTraining(const VocabTrainingJob &J, bool ShowProgress,
                                                  const support::DiagnosticHandler &Report) {
  if (J.Outputs.empty())
    return support::usageError("vocab train needs an output: -o OUT.json (or OUT.h5, or - for "
                               "JSON on standard output)");
  if (llvm::Error E = J.Config.validate())
    return support::usageError(llvm::toString(std::move(E)));
  // Every output is checked before training (minutes of work), and they appear together;
  // none may be a file of the knowledge graph, or another of them.
  std::vector<std::string> Paths;
  for (const auto &Out : J.Outputs)
    Paths.push_back(Out.first);
  if (llvm::Error E = support::checkOutputsAgainstInputs(Paths, support::filesIn(J.Dir)))
    return E;
  auto G = readGraph(J.Dir, J.Split);
  if (!G)
    return G.takeError();
  const TransEConfig &C = J.Config;
  if (C.Weights != TripletWeights::Unique && !G->HasCounts)
    Report({Diagnostic::Warning, J.Dir + ": no triplet_counts.txt and no repeated triplets: "
                                         "every triplet counts once"});
  Report({Diagnostic::Note,
          llvm::formatv("training on {0} triplets ({1} validation, {2} test), {3} entities, "
                        "{4} relations",
                        G->Train.size(), G->Valid.size(), G->Test.size(), G->numEntities(),
                        G->numRelations())});
  std::optional<InitialEntities> Init;
  if (!J.Init.empty()) {
    auto I = initialEntitiesFrom(J.Init, C.Dim);
    if (!I)
      return I.takeError();
    Init = std::move(*I);
  }
  if (std::optional<std::string> W = unmentionedWarning(J.Dir, G->EntityNames, entitiesMentioned(*G), Init.has_value()))
    Report({Diagnostic::Warning, *W});
  support::Progress P("epochs", C.Epochs, ShowProgress);
  auto T = trainVocabulary(J.Dir, *G, C, J.Split, epochProgress(P), Init ? &*Init : nullptr);
  P.clear();
  if (!T)
    return T.takeError();
  support::OutputGroup Group;
  for (const auto &[Out, Format] : J.Outputs) {
    if (Out == "-")
      continue; // standard output last, once the files are in place
    auto Temp = Group.add(Out);
    if (!Temp)
      return Temp.takeError();
    if (llvm::Error E = writeVocabularyFile(*Temp, T->Vocab, Format))
      return E;
  }
  if (llvm::Error E = Group.commit())
    return E;
  for (const auto &[Out, Format] : J.Outputs)
    if (Out == "-")
      if (llvm::Error E = writeVocabularyFile(Out, T->Vocab, Format))
        return E;
  const TrainingResult &R = T->Result;
  std::string Line = llvm::formatv("{0} epochs ({1:f6} s/epoch), final loss {2:f5}", R.Epochs,
                                   R.SecondsPerEpoch, R.FinalLoss);
  if (R.BestValidMRR >= 0)
    Line += llvm::formatv(", best validation MRR {0:f4} at epoch {1}", R.BestValidMRR,
                          R.BestEpoch)
                .str();
  Report({Diagnostic::Note, Line});
  const LinkReport &L = T->Eval.Own ? *T->Eval.Own : T->Eval.Fitted;
  Report({Diagnostic::Note, "test filtered " + formatLinkMetrics(L.Filtered)});
  return support::Outcome::complete();
}

llvm::Expected<support::Outcome> runVocabEvaluation(const std::string &Dir,
                                                    const SplitOptions &Split,
                                                    const std::vector<NamedVectors> &Vocabularies,
                                                    Distance D, bool JSON, llvm::raw_ostream &OS) {
  auto G = readGraph(Dir, Split);
  if (!G)
    return G.takeError();
  const llvm::StringRef DistanceName = support::nameOf<Distance>(DistanceNames, D);
  // Evaluate everything first: a failure leaves no half-written report.
  std::vector<std::pair<std::string, VocabEvaluation>> Results;
  for (const NamedVectors &V : Vocabularies) {
    auto E = evaluateVocabulary(*G, *V.Vectors, D);
    if (!E)
      return support::prefixError(V.Name, E.takeError());
    Results.emplace_back(V.Name, std::move(*E));
  }
  if (JSON) {
    llvm::json::Array Report;
    for (auto &[Name, E] : Results)
      Report.push_back(evaluationJSON(Name, E));
    OS << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                     {"schema", "ir2vec.vocab-eval/1"},
                                     {"test_triplets", int64_t(G->Test.size())},
                                     {"distance", DistanceName},
                                     {"results", std::move(Report)}}))
       << "\n";
    return support::Outcome::complete();
  }
  OS << "# " << G->Test.size() << " test triplets (" << G->Train.size() << " train, "
     << G->Valid.size() << " validation), " << DistanceName << " distance, ranks over "
     << G->numEntities() << " entities\n";
  for (auto &[Name, E] : Results) {
    OS << Name << "\n";
    auto Lines = [&](const char *What, const LinkReport &L) {
      OS << "  " << What << " raw       " << formatLinkMetrics(L.Raw) << "\n"
         << "  " << What << " filtered  " << formatLinkMetrics(L.Filtered) << "\n";
    };
    if (E.Own)
      Lines("own relations   ", *E.Own);
    Lines("fitted relations", E.Fitted);
    OS << "  analogies: " << E.Analogies.Questions << " questions, top-1 "
       << llvm::formatv("{0:f4}", E.Analogies.Top1) << ", top-5 "
       << llvm::formatv("{0:f4}", E.Analogies.Top5) << "\n";
  }
  return support::Outcome::complete();
}

llvm::Expected<support::Outcome> runVocabSplit(const std::string &Dir, const SplitOptions &Split,
                                               const std::string &Output) {
  if (Output.empty())
    return support::usageError("vocab split needs an output directory: -o DIR");
  // Its train2id.txt would be replaced by the training part of itself.
  if (llvm::sys::fs::equivalent(Dir, Output))
    return support::usageError(Output + ": the output directory is the input directory; "
                                        "refusing to replace its files");
  auto G = readGraph(Dir, Split);
  if (!G)
    return G.takeError();
  if (llvm::Error E = writeOpenKESplit(Output, *G))
    return E;
  return support::Outcome::complete();
}

llvm::Expected<support::Outcome> exportVocabulary(const std::string &In, const std::string &Output,
                                                  const support::DiagnosticHandler &Report) {
  if (Output.empty())
    return support::usageError("vocab export needs an output: -o FILE.json (or FILE.h5, or - "
                               "for JSON on standard output)");
  if (llvm::Error E = support::checkOutputsAgainstInputs({Output}, {In}))
    return E;
  auto V = readEntityVectors(In);
  if (!V)
    return V.takeError();
  for (std::string &W : V->warnings(vocabularySource(In)))
    Report({Diagnostic::Warning, std::move(W)});
  if (llvm::Error E = writeVocabularyFile(Output, *V))
    return E;
  return support::Outcome::complete();
}

} // namespace wb::vocab
