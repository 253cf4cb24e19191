#include "mlgo/studies/OpenBenchmark.h"

#include "mlgo/studies/StudySpec.h"
#include "runners/Policies.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/JSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <chrono>
#include <cmath>
#include <set>

namespace wb::mlgo {

using support::numberOrNull;
using support::withKeys;

using support::Diagnostic;

llvm::Expected<OpenBenchmarkSpec> readOpenBenchmarkSpec(const std::string &Path) {
  support::SpecReader R(Path);
  llvm::Expected<llvm::json::Value> J = R.load();
  if (!J)
    return J.takeError();
  const llvm::json::Object *O = J->getAsObject();
  if (llvm::Error E = R.onlyKeys(*O, "spec",
                                 {"corpus", "corpus_manifest", "folds", "seed", "exploration",
                                  "model", "timeout", "policies"}))
    return E;
  OpenBenchmarkSpec S;
  S.Path = Path;
  if (llvm::Error E = R.corpus(*O, S.Corpus))
    return E;
  if (std::optional<llvm::StringRef> M = O->getString("corpus_manifest"))
    S.CorpusManifest = R.resolve(M->str());
  if (llvm::Error E = readFolds(R, *O, S.Folds))
    return E;
  if (llvm::Error E = R.integer(*O, "seed", "spec", S.Seed))
    return E;
  if (llvm::Error E = readSearch(R, O->getObject("exploration"), S.Search))
    return E;
  if (llvm::Error E = readModel(R, O->getObject("model"), S.Model))
    return E;
  if (llvm::Error E = R.timeout(*O, S.Timeout))
    return E;
  std::set<std::string> Names;
  ir2vec::EmbeddingResolver Resolve; // policies that name one vocabulary share one read
  if (llvm::Error Err = R.objects(*O, "policies", "policies", [&](const llvm::json::Object &Obj,
                                                                 const std::string &Where) -> llvm::Error {
    const llvm::json::Object *P = &Obj;
    OpenBenchmarkPolicy B;
    if (const llvm::json::Value *G = P->get("search"); G && !G->getAsObject())
      return R.error(Where + ".search", "expected an object (\"add\": [...], ...)");
    if (const llvm::json::Object *G = P->getObject("search")) {
      if (llvm::Error E = R.onlyKeys(*P, Where, {"name", "search"}))
        return E;
      B.Name = P->getString("name").value_or("").str();
      auto Grid = ruleGridFromJSON(R, *G, Where + ".search");
      if (!Grid) // named in the spec file like every other spec error
        return support::fileError(R.Path, llvm::toString(Grid.takeError()));
      B.Search = std::move(*Grid);
    } else if (const llvm::json::Object *T = P->getObject("train")) {
      if (llvm::Error E = R.onlyKeys(*P, Where, {"name", "train"}))
        return E;
      if (llvm::Error E = R.onlyKeys(*T, Where + ".train", {"features", "vocabulary"}))
        return E;
      llvm::json::Object Arm(*T);
      Arm["name"] = P->getString("name").value_or("").str();
      if (llvm::Error E = readArm(R, Arm, Where, B.Train.Name, B.Train.Groups, B.Train.Vocab,
                                  Resolve))
        return E;
      B.Name = B.Train.Name;
    } else {
      if (llvm::Error E = R.onlyKeys(*P, Where, {"name", "policy", "model", "embeddings"}))
        return E;
      B.Name = P->getString("name").value_or("").str();
      B.Policy = P->getString("policy").value_or("").str();
      if (B.Policy.empty())
        return R.error(Where, "a policy is fixed (\"policy\": a name of `ir2vec mlgo "
                              "policies`), trained (\"train\": {\"features\": [...]}) or "
                              "searched (\"search\": {\"add\": [...], ...})");
      const runners::PolicyInfo *Info = runners::findPolicy(B.Policy);
      if (!Info || !Info->serves(runners::Task::Inline))
        return R.error(Where + ".policy", "'" + B.Policy + "' is not an inliner policy of "
                                          "`ir2vec mlgo policies`");
      if (std::optional<llvm::StringRef> M = P->getString("model"))
        B.Model = R.resolve(M->str());
      if (std::optional<llvm::StringRef> V = P->getString("embeddings"))
        if (llvm::Error E = readVocabulary(R, *V, Where + ".embeddings", B.Embeddings, Resolve,
                                           false))
          return E;
    }
    // The names of trained and searched policies become file names (models/NAME-fold0.h5,
    // NAME-seed1-fold0.h5): plain and short, and none that another policy's model files
    // could take. Any name is shown in the page (escaped there): no control characters.
    static const llvm::Regex Reserved("-(fold|seed)[0-9]");
    const bool WritesFiles = B.trained() || B.searched();
    if (B.Name.empty() || B.Name.size() > 64 ||
        llvm::any_of(B.Name, [&](char C) {
          return WritesFiles ? !llvm::isAlnum(C) && !llvm::StringRef("._+-").contains(C)
                             : llvm::isSpace(C) || C == '/' || (unsigned char)C < 0x20 || C == 0x7f;
        }))
      return R.error(Where + ".name", WritesFiles
                                          ? "expected 1 to 64 letters, digits and . _ + -"
                                          : "expected 1 to 64 characters, no spaces, slashes "
                                            "or control characters");
    if (WritesFiles && Reserved.match(B.Name))
      return R.error(Where + ".name", "'" + B.Name + "': -foldN and -seedN are reserved for "
                                      "the model files of other policies");
    if (!Names.insert(B.Name).second)
      return R.error(Where + ".name", "policy '" + B.Name + "' is named twice");
    S.Policies.push_back(std::move(B));
    return llvm::Error::success();
  }))
    return Err;
  if (std::any_of(S.Policies.begin(), S.Policies.end(),
                  [](const OpenBenchmarkPolicy &P) { return P.trained(); })) {
    S.Model.Groups = {"cost"};
    if (llvm::Error E = S.Model.validate())
      return R.error("model", llvm::toString(std::move(E)));
  }
  S.SHA256 = R.SHA256;
  return S;
}

llvm::Error addMadePolicy(OpenBenchmarkSpec &Spec, const std::string &Name, const std::string &What,
                          std::function<llvm::Expected<std::unique_ptr<runners::Policy>>()> Make) {
  if (Name.empty() || Name.find_first_of("/ \t\n") != std::string::npos)
    return support::usageError("policy name '" + Name + "': expected a name without spaces or "
                               "slashes");
  for (const OpenBenchmarkPolicy &P : Spec.Policies)
    if (P.Name == Name)
      return support::usageError("policy '" + Name + "' is named twice (the spec has it)");
  OpenBenchmarkPolicy B;
  B.Name = Name;
  B.Policy = What;
  B.Make = std::move(Make);
  Spec.Policies.push_back(std::move(B));
  return llvm::Error::success();
}

namespace {

/// A model file as results name it: relative to Dir when inside it, else by its file name
/// (its SHA-256 beside it says which file it was): results do not depend on where they were
/// made, nor on where the tool is installed.
std::string relativeTo(const std::string &Dir, const std::string &Path) {
  llvm::StringRef P(Path), D(Dir);
  D.consume_back("/");
  if (P.consume_front(D) && P.consume_front("/"))
    return P.str();
  return llvm::sys::path::filename(Path).str();
}

std::string sha256Or(const std::string &Path) {
  auto S = support::sha256OfFile(Path);
  return S ? *S : "unreadable: " + llvm::toString(S.takeError());
}

} // namespace

llvm::json::Object benchmarkResultsJSON(const OpenBenchmarkResult &R) {
  const ArmsResult &St = R.Study;
  std::set<std::string> Packages;
  for (const EvalModule &M : St.Judged)
    Packages.insert(M.Package);
  llvm::json::Array PackagesJ, PoliciesJ;
  for (const std::string &P : Packages)
    PackagesJ.push_back(P);
  Headroom Room;
  for (const EvalModule &M : St.Judged) {
    EvalModule Heuristic = M;
    Heuristic.Policy = M.Baseline;
    Room.add(Heuristic);
  }
  Room.finish();
  for (const OpenBenchmarkEntry &E : R.Entries) {
    llvm::json::Array Modules, Excluded, Models;
    for (const EvalModule &M : E.Modules)
      Modules.push_back(llvm::json::Object{{"path", M.Path},
                                           {"package", M.Package},
                                           {"baseline_text_size", M.Baseline},
                                           {"policy_text_size", M.Policy},
                                           {"best_text_size", M.Best},
                                           {"error", M.Error}});
    for (const std::string &K : E.Excluded)
      Excluded.push_back(K);
    for (const std::string &F : E.ModelFiles)
      Models.push_back(llvm::json::Object{{"file", relativeTo(St.Dir, F)}, {"sha256", sha256Or(F)}});
    const OpenBenchmarkPolicy &P = *E.Policy;
    llvm::json::Object O{{"name", P.Name},
                         {"kind", P.trained() ? "trained" : P.searched() ? "search" : "fixed"},
                         {"models", std::move(Models)},
                         {"excluded_packages", std::move(Excluded)},
                         {"summary", summaryJSON(E.Summary)},
                         {"packages", packagesJSON(E.Summary)},
                         {"modules", std::move(Modules)}};
    if (P.trained()) {
      llvm::json::Array G;
      for (const std::string &X : P.Train.Groups)
        G.push_back(X);
      O["features"] = std::move(G);
      O["vocabulary"] = embeddingSpelling(P.Train.Vocab);
      O["embeddings_digest"] = P.Train.Vocab ? P.Train.Vocab.digest() : std::string();
    } else if (P.searched()) {
      O["search"] = ruleSearchJSON(*P.Search, *St.Folds, *E.Search);
    } else {
      O["policy"] = P.Policy;
      // results.json's schema spells no embeddings "" (a spec's absent key), not "none".
      O["embeddings"] = P.Embeddings ? P.Embeddings.spelling() : "";
      O["embeddings_digest"] = P.Embeddings ? P.Embeddings.digest() : std::string();
    }
    PoliciesJ.push_back(std::move(O));
  }
  // The leaderboard: by total reduction, then name (ties in a stable order).
  std::vector<const OpenBenchmarkEntry *> Order;
  for (const OpenBenchmarkEntry &E : R.Entries)
    Order.push_back(&E);
  std::stable_sort(Order.begin(), Order.end(), [](const OpenBenchmarkEntry *A, const OpenBenchmarkEntry *B) {
    return A->Summary.Reduction != B->Summary.Reduction ? A->Summary.Reduction > B->Summary.Reduction
                                                        : A->Policy->Name < B->Policy->Name;
  });
  llvm::json::Array Board;
  for (const OpenBenchmarkEntry *E : Order)
    Board.push_back(E->Policy->Name);
  return llvm::json::Object{
      {"schema", OpenBenchmarkResultsSchema},
      {"corpus", llvm::json::Object{{"modules", int64_t(St.Judged.size())},
                                    {"packages", std::move(PackagesJ)}}},
      {"protocol", llvm::json::Object{{"name", "transfer"},
                                      {"folds", St.Folds ? llvm::json::Value(St.Folds->toJSON()) : nullptr},
                                      {"seed", int64_t(R.Spec.Seed)},
                                      {"bootstrap", bootstrapJSON(R.Spec.Seed)}}},
      {"exploration", withKeys(R.Spec.Search.toJSON(), llvm::json::Object
                               {{"modules", int64_t(St.ExploredModules)},
                                {"compilations", int64_t(St.Rollouts)},
                                {"modules_smaller", int64_t(St.Smaller)},
                                {"baseline_text_size", Room.BaselineTotal},
                                {"best_text_size", Room.BestTotal},
                                {"headroom", numberOrNull(Room.Modules ? Room.Headroom : NAN)}})},
      {"leaderboard", std::move(Board)},
      {"policies", std::move(PoliciesJ)},
      {"perf_track", R.Perf ? llvm::json::Value(perfTrackResultsJSON(*R.Perf)) : llvm::json::Value(nullptr)}};
}

llvm::json::Object benchmarkManifestJSON(const OpenBenchmarkResult &R) {
  const ArmsResult &St = R.Study;
  llvm::json::Array Corpus;
  for (const std::string &C : R.Spec.Corpus)
    Corpus.push_back(C);
  llvm::json::Object CorpusManifest;
  if (!R.Spec.CorpusManifest.empty())
    CorpusManifest = llvm::json::Object{{"file", R.Spec.CorpusManifest},
                                        {"sha256", sha256Or(R.Spec.CorpusManifest)}};
  llvm::json::Object M{
      {"schema", OpenBenchmarkManifestSchema},
      {"spec", llvm::json::Object{{"file", R.Spec.Path}, {"sha256", R.Spec.SHA256}}},
      {"corpus", std::move(Corpus)},
      {"corpus_manifest", R.Spec.CorpusManifest.empty() ? llvm::json::Value(nullptr)
                                                        : llvm::json::Value(std::move(CorpusManifest))},
      {"compile", llvm::json::Object{
                      {"mode", support::nameOf<CompileMode>(CompileModeNames, St.Tools.Mode)},
                      {"recorded", "each module with its recorded command line: clang-22 ARGS -x ir MODULE -o OUT (ARGS: the .cmd beside it, -cc1 ... -Oz)"},
                      {"pipeline", St.Compile + " (modules without a recorded command line)"}}},
      {"opt", St.Tools.optCommand()},
      {"llc", St.Tools.llcCommand()},
      {"toolchain", St.Tools.fingerprint()},
      {"seeds", llvm::json::Object{{"folds_and_bootstrap", int64_t(R.Spec.Seed)},
                                   {"exploration", int64_t(R.Spec.Search.Seed)},
                                   {"training", int64_t(R.Spec.Seed)}}},
      {"exploration", llvm::json::Object{{"file", "exploration.h5"},
                                         {"sha256", sha256Or(support::pathIn(St.Dir, "exploration.h5"))}}},
      {"wall_seconds", R.Seconds},
      {"exploration_seconds", St.ExploreSeconds},
      {"trained_policies_seconds", St.EvalSeconds},
      {"fixed_policies_seconds", R.FixedSeconds},
      {"compilations", int64_t(St.Compilations)},
      {"perf_track", R.Perf ? llvm::json::Value(perfTrackManifestJSON(*R.Perf)) : llvm::json::Value(nullptr)}};
  addVersions(M);
  return M;
}

namespace {

using Clock = std::chrono::steady_clock;

/// Makes each fixed policy once: one that cannot be made (an unreadable model) fails here,
/// before any work.
llvm::Error checkFixedPolicies(const OpenBenchmarkSpec &Spec) {
  for (const OpenBenchmarkPolicy &P : Spec.Policies) {
    if (!P.fixed())
      continue;
    if (P.Make) {
      if (auto Made = P.Make(); !Made)
        return support::prefixError("policy '" + P.Name + "'", Made.takeError());
      continue;
    }
    runners::PolicyOptions O;
    O.Name = P.Policy;
    O.ModelPath = P.Model;
    O.LoadModel = runners::cachingModelLoader();
    if (auto Made = runners::makePolicy(runners::Task::Inline, O); !Made)
      return support::prefixError("policy '" + P.Name + "'", Made.takeError());
  }
  return llvm::Error::success();
}

/// The trained policies are the arms of a transfer study: one exploration of every module,
/// each fold of packages judged by the models trained on the others, one seed.
ArmsStudy trainedPoliciesStudy(const OpenBenchmarkSpec &Spec) {
  ArmsStudy A;
  A.Corpus = Spec.Corpus;
  A.Proto = JudgingProtocol::Transfer;
  A.Folds = Spec.Folds;
  A.Split.Seed = Spec.Seed;
  A.Search = Spec.Search;
  A.Model = Spec.Model;
  A.Seeds = {Spec.Seed};
  A.TrainingSide = false;
  A.Timeout = Spec.Timeout;
  for (const OpenBenchmarkPolicy &P : Spec.Policies)
    if (P.trained())
      A.Arms.push_back(P.Train);
  return A;
}

/// Every file the run writes, checked before any work: writable entries of Dir, none of them an
/// input (the spec, the corpus and its lists, a model, the corpus manifest, the performance
/// track); and no fixed policy whose model was trained on every package.
llvm::Error checkOpenBenchmarkJob(const OpenBenchmarkSpec &Spec, const CorpusPlan &Plan,
                              const Prepared &Prep,
                              const std::string &Dir, const OpenBenchmarkConfig &C) {
  std::vector<std::string> Extra = {Spec.Path};
  if (!Spec.CorpusManifest.empty())
    Extra.push_back(Spec.CorpusManifest);
  for (const OpenBenchmarkPolicy &P : Spec.Policies)
    if (!P.Model.empty())
      Extra.push_back(P.Model);
  if (!C.PerfResults.empty())
    Extra.push_back(C.PerfResults);
  if (llvm::Error E = checkStudyOutputs(Dir, {"results.json", "manifest.json", "index.html",
                                              "exploration.h5"},
                                        Plan, Prep, Extra))
    return E;
  for (const OpenBenchmarkPolicy &P : Spec.Policies) {
    if (!P.fixed() || P.Make)
      continue;
    runners::PolicyOptions O;
    O.Name = P.Policy;
    O.ModelPath = P.Model;
    if (auto X = transferExclusion(runners::modelFileOf(O), Prep.Split.Keys); !X)
      return support::prefixError("policy '" + P.Name + "'", X.takeError());
  }
  return llvm::Error::success();
}

/// A searched policy: the rule search over the study's folds.
llvm::Error judgeSearched(const OpenBenchmarkPolicy &P, OpenBenchmarkResult &R, OpenBenchmarkEntry &E,
                          const std::string &ModelsDir, const CompileSetup &RC) {
  RuleSearchJob J;
  J.Name = P.Name;
  J.Grid = *P.Search;
  J.Judged = R.Study.Judged;
  J.Split = &R.Study.Split;
  J.Folds = &*R.Study.Folds;
  J.ModelsDir = ModelsDir;
  J.Provenance = provenance("ir2vec mlgo benchmark (rule search)",
                            {{"benchmark_spec", R.Spec.Path},
                             {"benchmark_spec_sha256", R.Spec.SHA256}});
  auto S = runRuleSearch(J, RC);
  if (!S)
    return support::prefixError("policy '" + P.Name + "'", S.takeError());
  R.Study.Compilations += S->Compilations;
  E.Modules = S->Judged;
  E.ModelFiles = S->ModelFiles;
  E.Search = std::move(*S);
  return llvm::Error::success();
}

/// A fixed policy, on every package its model was not trained on.
llvm::Error judgeFixed(const OpenBenchmarkPolicy &P, OpenBenchmarkResult &R, OpenBenchmarkEntry &E,
                       const CompileSetup &RC) {
  runners::SessionConfig Session;
  Session.T = runners::Task::Inline;
  Session.Policy.Name = P.Policy;
  Session.Policy.ModelPath = P.Model;
  Session.Policy.LoadModel = runners::cachingModelLoader();
  Session.MakePolicy = P.Make;
  const std::string Model = P.Make ? std::string() : runners::modelFileOf(Session.Policy);
  if (!Model.empty())
    E.ModelFiles.push_back(Model);
  auto X = transferExclusion(Model, R.Study.Split.Keys);
  if (!X)
    return X.takeError();
  std::vector<EvalModule> Judged;
  for (const EvalModule &M : R.Study.Judged)
    if (!X->excludes(M.Package))
      Judged.push_back(M);
  E.Excluded = X->Packages;
  Verdict V = judge(std::move(Judged), {Session, P.Embeddings}, RC, R.Spec.Seed);
  E.Modules = std::move(V.Modules);
  E.Summary = std::move(V.Summary);
  R.Study.Compilations += E.Modules.size();
  return llvm::Error::success();
}

/// results.json, manifest.json and index.html in Dir, together or not at all.
llvm::Error writeOpenBenchmarkFiles(const OpenBenchmarkResult &R, const std::string &Dir) {
  std::string Results;
  llvm::raw_string_ostream(Results) << llvm::formatv("{0:2}", llvm::json::Value(benchmarkResultsJSON(R)));
  Results += "\n";
  support::OutputGroup Group;
  auto Write = [&](const std::string &Name, const std::string &Text) -> llvm::Error {
    // An entry of the output directory: replaced itself, never followed (a symlink there
    // does not send the results onto the file it names).
    auto Temp = Group.add(support::pathIn(Dir, Name), support::Within::Directory);
    if (!Temp)
      return Temp.takeError();
    return support::writeFileAtomically(*Temp, [&](llvm::raw_ostream &OS) { OS << Text; });
  };
  std::string Manifest;
  llvm::raw_string_ostream(Manifest) << llvm::formatv("{0:2}", llvm::json::Value(benchmarkManifestJSON(R)));
  if (llvm::Error E = Write("results.json", Results))
    return E;
  if (llvm::Error E = Write("manifest.json", Manifest + "\n"))
    return E;
  if (llvm::Error E = Write("index.html", benchmarkPage(Results)))
    return E;
  return Group.commit();
}

} // namespace

llvm::Expected<support::Outcome> runOpenBenchmark(const OpenBenchmarkSpec &Spec, const std::string &Dir,
                                              const OpenBenchmarkConfig &C) {
  const auto Start = Clock::now();
  if (Dir.empty() || Dir == "-")
    return support::usageError("benchmark needs an output directory: -o DIR");
  if (llvm::Error E = checkFixedPolicies(Spec))
    return E;
  // The performance track is checked before any work too: a results file that does not hold
  // up is refused, not drawn.
  OpenBenchmarkResult R;
  R.Spec = Spec;
  if (!C.PerfResults.empty()) {
    llvm::Expected<PerfTrack> T = readPerfResults(C.PerfResults);
    if (!T)
      return T.takeError();
    R.Perf = std::move(*T);
  }
  const ArmsStudy A = trainedPoliciesStudy(Spec);
  llvm::Expected<StudyDirs> Dirs = prepareStudyDirs(Dir);
  if (!Dirs)
    return Dirs.takeError();
  support::OutputDirectory *Out = &Dirs->Out, *ModelsDir = &Dirs->Models;
  llvm::Expected<Prepared> P = prepare(A.plan(), C);
  if (!P)
    return P.takeError();
  if (llvm::Error E = checkOpenBenchmarkJob(Spec, A.plan(), *P, Dir, C))
    return E;
  Out->keep(); // the exploration is reused by a rerun
  ModelsDir->keep();
  llvm::Expected<ArmsResult> Study = runArms(A, *P, Dir);
  if (!Study)
    return Study.takeError();
  R.Study = std::move(*Study);

  const auto T0 = Clock::now();
  const CompileSetup RC{R.Study.Tools, C.Run};
  size_t Arm = 0, Failed = R.Study.Failed;
  for (const OpenBenchmarkPolicy &P : Spec.Policies) {
    OpenBenchmarkEntry E;
    E.Policy = &P;
    if (P.trained()) {
      const AblationArmResult &X = R.Study.Arms[Arm++];
      E.Modules = X.PerSeed.front();
      E.ModelFiles = X.Models.front();
    } else if (P.searched()) {
      if (llvm::Error Err = judgeSearched(P, R, E, ModelsDir->path(), RC))
        return Err;
    } else {
      if (C.Run.cancelled())
        return support::interruptedError("interrupted; the exploration is kept in " + Dir);
      if (llvm::Error Err = judgeFixed(P, R, E, RC))
        return Err;
    }
    if (P.trained() || P.searched()) // a fixed policy's summary is its verdict's
      E.Summary = summarize(E.Modules, Spec.Seed);
    if (!P.trained())
      Failed += E.Summary.Failed;
    const EvalSummary &S = E.Summary;
    C.Run.Report({Diagnostic::Note,
                  llvm::formatv("{0}: reduction {1:P2} on {2} modules of {3} packages; worst "
                                "package {4} {5:P2}",
                                P.Name, S.Reduction, S.Modules - S.Failed, S.Packages.size(),
                                S.Worst >= 0 ? S.Packages[size_t(S.Worst)].Key : "-",
                                S.Worst >= 0 ? S.Packages[size_t(S.Worst)].Reduction : 0.0)
                      .str()});
    R.Entries.push_back(std::move(E));
  }
  // Stopped during the last policy's modules: its measurements are failures, not results.
  if (C.Run.cancelled())
    return support::interruptedError("interrupted; the exploration is kept in " + Dir);
  // Not one module measured by any policy (e.g. an exploration reused from a run in another
  // working directory, whose module paths no longer resolve): nothing usable, so the results
  // of an earlier run in DIR are not replaced by all-failed ones.
  if (llvm::all_of(R.Entries, [](const OpenBenchmarkEntry &E) { return E.Summary.Modules == E.Summary.Failed; }))
    return support::makeError("every evaluation failed (" + std::to_string(Failed) +
                              ", each reported): nothing usable; the results in " + Dir +
                              " are left as they were");
  R.FixedSeconds = std::chrono::duration<double>(Clock::now() - T0).count();
  R.Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
  if (llvm::Error E = writeOpenBenchmarkFiles(R, Dir))
    return E;
  C.Run.Report({Diagnostic::Note, llvm::formatv("wrote {0} ({1:f0} s, {2} compilations)",
                                                support::pathIn(Dir, "index.html"), R.Seconds,
                                                R.Study.Compilations)
                                      .str()});
  if (Failed)
    return support::Outcome::partial(std::to_string(Failed) +
                                     " evaluations failed (each reported)");
  return support::Outcome::complete();
}

} // namespace wb::mlgo
