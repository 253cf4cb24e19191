#include "mlgo/pipelines/Explore.h"

#include "mlgo/pipelines/Parts.h"

#include "corpus/OrderedPipeline.h"
#include "features/Augment.h"
#include "features/Dataset.h"
#include "learn/Random.h"
#include "runners/Policies.h"
#include "support/Inputs.h"
#include "support/Files.h"
#include "support/Process.h"
#include "support/Progress.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/InlineCost.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <numeric>

namespace wb::mlgo {

using runners::Task;
using support::Diagnostic;

llvm::json::Object SearchSettings::toJSON() const {
  llvm::json::Array R;
  for (const runners::InlineRule *X : Rules)
    R.push_back(X->name());
  return llvm::json::Object{{"budget", int64_t(Budget)},
                            {"seed", int64_t(Seed)},
                            {"flip_order", support::nameOf<FlipOrder>(FlipOrderNames, Order)},
                            {"rules", std::move(R)}};
}

std::string SearchSettings::describe() const {
  std::string S = std::to_string(Budget) + " compilations per module, flip order " +
                  support::nameOf<FlipOrder>(FlipOrderNames, Order).str();
  if (!Rules.empty())
    S += ", " + std::to_string(Rules.size()) + " margin rules first";
  return S;
}

std::string marginRuleNames() {
  std::string Known;
  for (const runners::InlineRule &X : runners::marginRules())
    Known += (Known.empty() ? "" : ", ") + X.name();
  return Known;
}

llvm::Expected<std::vector<const runners::InlineRule *>> parseRules(llvm::StringRef Text) {
  std::vector<const runners::InlineRule *> Out;
  if (Text == "none")
    return Out;
  if (Text == "all") {
    for (const runners::InlineRule &R : runners::marginRules())
      Out.push_back(&R);
    return Out;
  }
  llvm::SmallVector<llvm::StringRef> Names;
  Text.split(Names, ',');
  for (llvm::StringRef N : Names) {
    if (N.trim() == "all" || N.trim() == "none")
      return support::usageError("'" + N.trim() + "' stands alone, not in a list of rules");
    const runners::InlineRule *R = runners::findMarginRule(N.trim());
    if (!R)
      return support::usageError("unknown margin rule '" + N.trim() + "' (all, none, " +
                                 marginRuleNames() + ")");
    if (llvm::is_contained(Out, R))
      return support::usageError("margin rule '" + N.trim() + "' named twice");
    Out.push_back(R);
  }
  return Out;
}

llvm::Error ExploreConfig::validate() const {
  if (Search.Budget < 1)
    return support::usageError("--budget must be at least 1 (the heuristic's trajectory)");
  return llvm::Error::success();
}

namespace {

/// The order in which the heuristic trajectory's decisions are flipped.
std::vector<size_t> flipOrder(FlipOrder O, const features::Log &Heuristic, uint64_t Seed) {
  const size_t N = Heuristic.Observations.size();
  std::vector<size_t> Order(N);
  std::iota(Order.begin(), Order.end(), 0);
  if (O == FlipOrder::Random) {
    learn::Rng G(Seed);
    for (size_t I = N; I > 1; --I)
      std::swap(Order[I - 1], Order[learn::below(G, uint32_t(I))]);
  } else if (O == FlipOrder::Margin || O == FlipOrder::Inlined) {
    // The heuristic inlines when the call site's cost falls below the -Oz threshold: the
    // decisions it made closest to that line are the likeliest to be wrong.
    std::optional<size_t> Cost = Heuristic.Header.find("cost_estimate");
    if (Cost) {
      const features::TensorSpec &S = Heuristic.Header.Features[*Cost];
      const size_t Off = Heuristic.Header.offsetOf(*Cost);
      std::vector<double> Margin(N);
      for (size_t I = 0; I < N; ++I)
        Margin[I] = std::abs(
            features::elementAsDouble(S.Type, Heuristic.Observations[I].Payload.data() + Off, 0) -
            llvm::InlineConstants::OptMinSizeThreshold);
      std::stable_sort(Order.begin(), Order.end(),
                       [&](size_t A, size_t B) { return Margin[A] < Margin[B]; });
    }
    if (O == FlipOrder::Inlined) {
      // Undoing an inlining shrank .text about twice as often as adding one (measured on
      // the MLGO corpus: 11-12% of such flips against 5-7%).
      std::vector<int64_t> D = decisionsOf(Task::Inline, Heuristic);
      std::stable_partition(Order.begin(), Order.end(), [&](size_t I) { return D[I] != 0; });
    }
  }
  return Order;
}

} // namespace

ModuleExploration exploreModule(const std::string &Path, const ExploreConfig &C,
                                uint64_t ModuleSeed) {
  ModuleExploration X;
  X.Path = Path;
  // The bytes explored: the file records them, and a run that would reuse this one compares.
  llvm::Expected<std::string> SHA = support::sha256OfFile(Path);
  if (!SHA) {
    X.Error = llvm::toString(SHA.takeError());
    return X;
  }
  X.SHA256 = std::move(*SHA);
  llvm::Expected<support::TempDir> Dir = support::TempDir::create("ir2vec-explore");
  if (!Dir) {
    X.Error = llvm::toString(Dir.takeError());
    return X;
  }
  unsigned Runs = 0;
  auto Run = [&](std::vector<int64_t> Prefix, int64_t Rule,
                 const ir2vec::EmbeddingChoice &Vocab) -> llvm::Expected<Compiled> {
    runners::SessionConfig S;
    S.T = Task::Inline;
    const runners::InlineRule *Tail = Rule >= 0 ? C.Search.Rules[size_t(Rule)] : nullptr;
    S.MakePolicy = [Prefix, Tail]() -> llvm::Expected<std::unique_ptr<runners::Policy>> {
      return runners::makeTrajectoryPolicy(Prefix, Tail);
    };
    if (Vocab)
      S.Augment = sessionAugmenter(Task::Inline, Vocab, Path);
    // One file set per run: a failed run's messages stay apart from the next one's.
    return compileModule(Path, C.Tools, &S, *Dir, "run" + std::to_string(Runs++), C.Run.CancelFd);
  };

  llvm::Expected<Compiled> H = Run({}, -1, {});
  if (!H) {
    X.Error = llvm::toString(H.takeError());
    return X;
  }
  X.Rollouts.push_back({decisionsOf(Task::Inline, H->SessionLog), H->TextSize, -1, -1, ""});
  X.BaselineSize = X.BestSize = H->TextSize;
  features::Log Best = std::move(H->SessionLog);
  // One rollout: recorded (a failed one too, and skipped); the best when smaller.
  auto Try = [&](std::vector<int64_t> Prefix, int64_t Flip, int64_t Rule) {
    llvm::Expected<Compiled> R = Run(std::move(Prefix), Rule, {});
    Rollout Ro;
    Ro.Flip = Flip;
    Ro.Rule = Rule;
    if (!R) {
      Ro.Error = llvm::toString(R.takeError());
      X.Rollouts.push_back(std::move(Ro));
      return;
    }
    Ro.Decisions = decisionsOf(Task::Inline, R->SessionLog);
    Ro.TextSize = R->TextSize;
    X.Rollouts.push_back(std::move(Ro));
    if (R->TextSize < X.BestSize) {
      X.Best = X.Rollouts.size() - 1;
      X.BestSize = R->TextSize;
      Best = std::move(R->SessionLog);
    }
  };
  auto Stop = [&] {
    return X.Rollouts.size() >= C.Search.Budget || support::cancelled(C.Run.CancelFd);
  };
  // A module without decisions gives every rule the heuristic's trajectory: nothing to try.
  for (size_t R = 0; R < C.Search.Rules.size() && !X.Rollouts.front().Decisions.empty() && !Stop(); ++R)
    Try({}, -1, int64_t(R));
  for (size_t Flip : flipOrder(C.Search.Order, Best, ModuleSeed)) {
    if (Stop())
      break;
    const Rollout &B = X.Rollouts[X.Best];
    if (Flip >= B.Decisions.size()) // the best trajectory asks fewer questions than this order
      continue;
    std::vector<int64_t> Prefix(B.Decisions.begin(), B.Decisions.begin() + Flip);
    Prefix.push_back(1 - B.Decisions[Flip]);
    Try(std::move(Prefix), int64_t(Flip), B.Rule);
  }
  X.Observations.push_back(std::move(Best));
  // The same decisions with embedding features: one replay per vocabulary. The compiler is
  // deterministic, so a replay must reproduce the best size; anything else is an error.
  const Rollout &BestRun = X.Rollouts[X.Best];
  for (const ir2vec::EmbeddingChoice &V : C.Vocabularies) {
    llvm::Expected<Compiled> R = Run(BestRun.Decisions, BestRun.Rule, V);
    if (!R) {
      X.Error = "replaying the best decisions with embeddings (" +
                observationSetName(V.explorationKey()) +
                "): " + llvm::toString(R.takeError());
      return X;
    }
    if (R->TextSize != X.BestSize || decisionsOf(Task::Inline, R->SessionLog) != BestRun.Decisions) {
      X.Error = llvm::formatv("replaying the best decisions gave .text {0} (best {1}): the "
                              "compiler did not ask the same questions again",
                              R->TextSize, X.BestSize)
                    .str();
      return X;
    }
    X.Observations.push_back(std::move(R->SessionLog));
  }
  return X;
}

// ---- per-module parts (resume) --------------------------------------------------------------

namespace {

std::string decisionText(const std::vector<int64_t> &D) {
  std::string S;
  for (int64_t X : D)
    S += X ? '1' : '0';
  return S;
}

std::vector<int64_t> decisionsFromText(llvm::StringRef S) {
  std::vector<int64_t> D;
  for (char Ch : S)
    D.push_back(Ch == '1');
  return D;
}

llvm::Error writePart(const PartsDir &Dir, size_t I, const ModuleExploration &X) {
  for (size_t V = 0; V < X.Observations.size(); ++V)
    if (llvm::Error E = support::writeFileAtomicallyChecked(
            Dir.file(I, "." + std::to_string(V) + ".log"),
            [&](llvm::raw_ostream &OS) { return features::writeLog(OS, X.Observations[V]); }))
      return E;
  llvm::json::Array Rollouts;
  for (const Rollout &R : X.Rollouts)
    Rollouts.push_back(llvm::json::Object{{"flip", R.Flip},
                                          {"rule", R.Rule},
                                          {"text_size", R.TextSize},
                                          {"error", R.Error},
                                          {"decisions", decisionText(R.Decisions)}});
  llvm::json::Object O{{"path", X.Path},
                       {"sha256", X.SHA256},
                       {"error", X.Error},
                       {"baseline_text_size", X.BaselineSize},
                       {"best_text_size", X.BestSize},
                       {"best", int64_t(X.Best)},
                       {"observation_sets", int64_t(X.Observations.size())},
                       {"rollouts", std::move(Rollouts)}};
  return Dir.writeRecord(I, std::move(O));
}

/// A finished module's part, or std::nullopt when there is none (or it is unreadable).
std::optional<ModuleExploration> readPart(const PartsDir &Dir, size_t I,
                                          const std::string &Path) {
  std::optional<llvm::json::Object> O = Dir.readRecord(I, Path);
  if (!O)
    return std::nullopt;
  ModuleExploration X;
  X.Path = Path;
  X.SHA256 = O->getString("sha256").value_or("").str();
  X.Error = O->getString("error").value_or("").str();
  X.BaselineSize = O->getInteger("baseline_text_size").value_or(-1);
  X.BestSize = O->getInteger("best_text_size").value_or(-1);
  X.Best = size_t(O->getInteger("best").value_or(0));
  if (const llvm::json::Array *Rs = O->getArray("rollouts"))
    for (const llvm::json::Value &V : *Rs) {
      const llvm::json::Object *R = V.getAsObject();
      if (!R)
        return std::nullopt;
      X.Rollouts.push_back({decisionsFromText(R->getString("decisions").value_or("")),
                            R->getInteger("text_size").value_or(-1),
                            R->getInteger("flip").value_or(-1),
                            R->getInteger("rule").value_or(-1),
                            R->getString("error").value_or("").str()});
    }
  for (int64_t V = 0, N = O->getInteger("observation_sets").value_or(0); V < N; ++V) {
    llvm::Expected<features::Log> L =
        features::readLogFile(Dir.file(I, "." + std::to_string(V) + ".log"));
    if (!L) {
      llvm::consumeError(L.takeError());
      return std::nullopt;
    }
    X.Observations.push_back(std::move(*L));
  }
  if (X.Error.empty() && (X.Rollouts.empty() || X.Best >= X.Rollouts.size()))
    return std::nullopt;
  return X;
}

// How a module's exploration travels from a rank to rank 0 of an MPI run: every rollout, and
// the observation sets in LLVM's training-log bytes.
void encodeExploration(const ModuleExploration &X, support::WireWriter &W) {
  W.bytes(X.Path);
  W.bytes(X.SHA256);
  W.bytes(X.Error);
  W.num<int64_t>(X.BaselineSize);
  W.num<int64_t>(X.BestSize);
  W.num<uint64_t>(X.Best);
  W.num<uint64_t>(X.Rollouts.size());
  for (const Rollout &R : X.Rollouts) {
    W.array(R.Decisions);
    W.num<int64_t>(R.TextSize);
    W.num<int64_t>(R.Flip);
    W.num<int64_t>(R.Rule);
    W.bytes(R.Error);
  }
  W.num<uint64_t>(X.Observations.size());
  for (const features::Log &L : X.Observations) {
    std::string Bytes;
    llvm::raw_string_ostream OS(Bytes);
    llvm::consumeError(features::writeLog(OS, L)); // written by this program: cannot fail
    W.bytes(Bytes);
  }
}

llvm::Expected<ModuleExploration> decodeExploration(support::WireReader &In) {
  ModuleExploration X;
  X.Path = In.bytes();
  X.SHA256 = In.bytes();
  X.Error = In.bytes();
  X.BaselineSize = In.num<int64_t>();
  X.BestSize = In.num<int64_t>();
  X.Best = size_t(In.num<uint64_t>());
  for (uint64_t N = In.num<uint64_t>(), K = 0; K < N && In.ok(); ++K) {
    Rollout R;
    R.Decisions = In.array<int64_t>();
    R.TextSize = In.num<int64_t>();
    R.Flip = In.num<int64_t>();
    R.Rule = In.num<int64_t>();
    R.Error = In.bytes();
    X.Rollouts.push_back(std::move(R));
  }
  for (uint64_t N = In.num<uint64_t>(), K = 0; K < N && In.ok(); ++K) {
    llvm::Expected<features::Log> L =
        features::parseLog(In.bytes(), X.Path + " (observations " + std::to_string(K) + ")");
    if (!L)
      return L.takeError();
    X.Observations.push_back(std::move(*L));
  }
  return X;
}

std::string fingerprint(const std::vector<std::string> &Train, const ExploreConfig &C,
                        const CorpusSplit &S) {
  std::string Text = llvm::formatv("{0}\n{1}\n{2}\n{3}\n{4}\n{5}\n", WB_VERSION, C.Search.Budget,
                                   C.Search.Seed, support::nameOf<FlipOrder>(FlipOrderNames, C.Search.Order),
                                   C.Tools.fingerprint(),
                                   support::nameOf<ExploredSide>(ExploredSideNames, C.Side))
                         .str();
  for (const ir2vec::EmbeddingChoice &V : C.Vocabularies) // the content, not the path
    Text += "vocab " + V.explorationKey() + " " + V.digest() + "\n";
  for (const runners::InlineRule *R : C.Search.Rules)
    Text += std::string("rule ") + R->name() + "\n";
  Text += S.toJSONText() + "\n";
  for (const std::string &M : Train) // the modules' bytes: each part records its own
    Text += M + "\n";
  return support::sha256Hex(Text);
}

} // namespace

ExplorationHeader explorationHeader(const ExploreConfig &C, const std::string &Split) {
  ExplorationHeader H;
  H.Budget = C.Search.Budget;
  H.Seed = int64_t(C.Search.Seed);
  H.FlipOrder = support::nameOf<FlipOrder>(FlipOrderNames, C.Search.Order).str();
  H.Split = Split;
  H.Side = support::nameOf<ExploredSide>(ExploredSideNames, C.Side).str();
  H.Opt = C.Tools.Opt + " " + llvm::join(C.Tools.OptArgs, " ");
  H.Llc = C.Tools.Llc + " " + llvm::join(C.Tools.LlcArgs, " ") + " -filetype=obj";
  H.Compile = support::nameOf<CompileMode>(CompileModeNames, C.Tools.Mode).str();
  H.Toolchain = C.Tools.fingerprint();
  H.LLVMVersion = WB_LLVM_VERSION;
  H.ToolVersion = WB_VERSION;
  for (const ir2vec::EmbeddingChoice &V : C.Vocabularies) {
    H.Vocabularies.push_back(V.explorationKey());
    H.VocabularyDigests.push_back(V.digest());
  }
  for (const runners::InlineRule *R : C.Search.Rules)
    H.Rules.push_back(R->name());
  H.Corpus = C.Corpus;
  return H;
}

llvm::Expected<support::Outcome> runExploration(const std::vector<std::string> &Inputs,
                                                const SplitOptions &SplitOpts,
                                                const ExploreConfig &C,
                                                const std::string &Output, bool Resume) {
  if (llvm::Error E = C.validate())
    return E;
  if (Output.empty() || Output == "-")
    return support::usageError("explore needs an output file: -o EXPLORATION.h5");
  if (!C.Run.Dist.serving())
    if (llvm::Error E = support::checkOutputPath(Output))
      return E;
  // Every module explored: the split only keys the modules by package, whatever the fraction
  // (so that explorations of all of a corpus record the same split, and are reused alike).
  SplitOptions SO = SplitOpts;
  if (C.Side == ExploredSide::All)
    SO.TestFraction = 1;
  llvm::Expected<CorpusSplit> S = splitCorpus(Inputs, SO);
  if (!S)
    return S.takeError();
  std::vector<std::string> Train, Keys; // the side explored
  for (size_t I = 0; I < S->Modules.size(); ++I)
    if (C.Side == ExploredSide::All || S->Test[I] == (C.Side == ExploredSide::Test)) {
      Train.push_back(S->Modules[I]);
      Keys.push_back(S->Keys[I]);
    }
  if (Train.empty())
    return support::usageError("the training side of the split is empty (--test-fraction 1 "
                               "holds out every module): nothing to explore");
  corpus::OrderedPipeline<ModuleExploration> Pipe(C.Run.Jobs, 2 * C.Run.Jobs);
  corpus::Spread<ModuleExploration> Sp;
  Sp.Dist = C.Run.Dist;
  Sp.Encode = encodeExploration;
  Sp.Decode = decodeExploration;
  auto Explore = [&](size_t I) {
    return exploreModule(Train[I], C, C.Search.Seed * 0x9E3779B97F4A7C15ull + I);
  };
  if (C.Run.Dist.serving()) // another rank of an MPI run: explores for rank 0, writes nothing
    return support::outcomeOf(Pipe.run(0, Train.size(), Explore, {}, Sp));
  // Finished modules wait in OUT.parts/ (written as they arrive, from any rank) until the file
  // is written; a resumed run takes them from there.
  llvm::Expected<PartsDir> Parts =
      PartsDir::open(Output, fingerprint(Train, C, *S), Resume, C.Run.Report);
  if (!Parts)
    return Parts.takeError();

  std::vector<ModuleExploration> Xs(Train.size());
  support::Progress P("modules", Train.size(), C.Run.ShowProgress);
  size_t Done = 0, Failed = 0, Rollouts = 0, Improved = 0, NoDecisions = 0;
  int64_t BaseTotal = 0, BestTotal = 0;
  Sp.Cached = [&](size_t I) { return readPart(*Parts, I, Train[I]); };
  Sp.Settle = [&](size_t I, ModuleExploration &X) {
    if (!support::cancelled(C.Run.CancelFd))
      if (llvm::Error W = writePart(*Parts, I, X))
        X.Error = llvm::toString(std::move(W));
  };
  llvm::Error E = Pipe.run(
      0, Train.size(), Explore,
      [&](size_t I, ModuleExploration &&X) -> llvm::Error {
        if (support::cancelled(C.Run.CancelFd))
          return support::interruptedError("interrupted; finished modules are kept in " + Parts->path() +
                                           " for --resume");
        ++Done;
        if (!X.Error.empty()) {
          P.clear();
          ++Failed;
          C.Run.Report({Diagnostic::Error, support::aboutFile(X.Path, X.Error)});
        } else {
          Rollouts += X.Rollouts.size();
          Improved += X.BestSize < X.BaselineSize;
          NoDecisions += X.Rollouts.front().Decisions.empty();
          BaseTotal += X.BaselineSize;
          BestTotal += X.BestSize;
        }
        Xs[I] = std::move(X);
        P.update(Done, llvm::formatv("{0} compilations, {1} smaller", Rollouts, Improved).str());
        return llvm::Error::success();
      },
      Sp);
  P.clear();
  if (E)
    return E;
  if (Failed == Train.size())
    return Train.size() == 1 ? support::reportedFailure()
                             : support::makeError("none of the " + llvm::Twine(Train.size()) +
                                                  " modules could be explored");
  if (NoDecisions == Done - Failed)
    C.Run.Report({Diagnostic::Warning, noDecisionsWarning(C.Tools)});
  else if (NoDecisions)
    C.Run.Report({Diagnostic::Note, std::to_string(NoDecisions) + " modules had no inlining decision"});
  ExplorationFile File;
  File.Header = explorationHeader(C, S->toJSONText());
  for (size_t I = 0; I < Xs.size(); ++I) {
    Xs[I].Key = Keys[I];
    Xs[I].Command = C.Tools.describe(Xs[I].Path);
  }
  File.Modules = std::move(Xs);
  if (llvm::Error W = writeExplorationFile(Output, File))
    return W;
  Parts->remove();
  C.Run.Report({Diagnostic::Note,
            llvm::formatv("explored {0} {7} modules ({1} on the other side): {2} "
                          "compilations, {3} smaller; .text {4} bytes with the heuristic, {5} "
                          "with the best trajectories ({6:P2})",
                          Done - Failed, S->Modules.size() - Train.size(), Rollouts, Improved,
                          BaseTotal, BestTotal,
                          BaseTotal ? double(BestTotal - BaseTotal) / double(BaseTotal) : 0.0,
                          C.Side == ExploredSide::All    ? "corpus"
                          : C.Side == ExploredSide::Test ? "held-out"
                                                         : "training")
                .str()});
  if (Failed)
    return support::Outcome::partial(std::to_string(Failed) + " of " +
                                     std::to_string(Train.size()) +
                                     " modules failed and were skipped");
  return support::Outcome::complete();
}

} // namespace wb::mlgo
