#include "mlgo/pipelines/Collect.h"

#include "corpus/OrderedPipeline.h"
#include "features/Augment.h"
#include "mlgo/pipelines/Parts.h"
#include "support/Inputs.h"
#include "support/Files.h"
#include "support/Process.h"
#include "support/Progress.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace wb::mlgo {

using namespace runners;
using support::makeError;

namespace {

struct ModuleResult {
  features::DatasetModule Info;
  features::Log Log;
  bool Cancelled = false;
  bool Resumed = false; // read from the parts of an interrupted run
};

/// The module's reward: of its .text (the inliner) or of its register allocation cost.
void setReward(Task T, features::DatasetModule &M) {
  const features::RegallocWeights W;
  M.Reward = T == Task::Inline
                 ? features::sizeReward(M.TextSize, M.BaselineTextSize)
                 : features::relativeReward(features::totalCost(W, M.Regalloc),
                                            features::totalCost(W, M.BaselineRegalloc));
}

ModuleResult collectOne(const std::string &Path, const CollectConfig &C) {
  ModuleResult R;
  R.Info.Path = Path;
  auto Fail = [&](llvm::Error E) {
    R.Info.Error = llvm::toString(std::move(E));
    R.Cancelled = support::cancelled(C.Run.CancelFd);
    return std::move(R);
  };
  // The bytes compiled: the dataset records them, and a resumed run compares.
  llvm::Expected<std::string> SHA = support::sha256OfFile(Path);
  if (!SHA)
    return Fail(SHA.takeError());
  R.Info.SHA256 = std::move(*SHA);
  llvm::Expected<support::TempDir> D = support::TempDir::create("ir2vec-collect");
  if (!D)
    return Fail(D.takeError());
  const bool Regalloc = C.T != Task::Inline;
  llvm::Expected<Compiled> Base =
      compileModule(Path, C.Tools, nullptr, *D, "baseline", C.Run.CancelFd, Regalloc);
  if (!Base)
    return Fail(Base.takeError());
  SessionConfig S;
  S.T = C.T;
  S.Policy = C.Policy;
  S.Bind = C.Bind;
  if (Regalloc) {
    S.Costs = features::RegallocWeights{};
    S.ReadRemarks = features::readRegallocRemarks;
  }
  if (C.Embeddings)
    S.Augment = sessionAugmenter(C.T, C.Embeddings, Path);
  llvm::Expected<Compiled> Policy =
      compileModule(Path, C.Tools, &S, *D, "policy", C.Run.CancelFd, Regalloc);
  if (!Policy)
    return Fail(Policy.takeError());
  R.Log = std::move(Policy->SessionLog);
  R.Info.BaselineTextSize = Base->TextSize;
  R.Info.TextSize = Policy->TextSize;
  R.Info.Regalloc = std::move(Policy->Regalloc);
  R.Info.BaselineRegalloc = std::move(Base->Regalloc);
  setReward(C.T, R.Info);
  return R;
}

/// Everything that decides a module's result: a resumed run reads only parts made with the
/// same fingerprint.
std::string fingerprint(const std::vector<std::string> &Inputs, const CollectConfig &C) {
  std::string Text = llvm::formatv("{0}\n{1}\n{2}\n{3}\n{4}\n{5} {6}\n{7}\n{8}\n{9}\n",
                                   WB_VERSION, features::taskInfo(C.T).Name, C.Policy.Name,
                                   C.Policy.ReplayPath, C.Policy.ModelPath, C.Policy.Seed,
                                   C.Policy.Explore, C.Bind.ZeroMissing,
                                   C.Embeddings ? "embeddings " + C.Embeddings.digest() : "none",
                                   C.Tools.fingerprint())
                         .str();
  for (const std::string *F : {&C.Policy.ModelPath, &C.Policy.ReplayPath})
    if (!F->empty()) {
      auto SHA = support::sha256OfFile(*F);
      Text += (SHA ? *SHA : llvm::toString(SHA.takeError())) + "\n";
    }
  for (const std::string &M : Inputs) // the modules' bytes: each part records its own
    Text += M + "\n";
  return support::sha256Hex(Text);
}

/// A finished module: its session log (when collected) and then its sizes; the JSON file,
/// written last, says the part is complete.
llvm::Error writePart(const PartsDir &Dir, size_t I, const ModuleResult &R) {
  if (R.Info.Error.empty())
    if (llvm::Error E = support::writeFileAtomicallyChecked(
            Dir.file(I, ".log"),
            [&](llvm::raw_ostream &OS) { return features::writeLog(OS, R.Log); }))
      return E;
  return Dir.writeRecord(I, llvm::json::Object{{"path", R.Info.Path},
                            {"sha256", R.Info.SHA256},
                            {"error", R.Info.Error},
                            {"text_size", R.Info.TextSize},
                            {"baseline_text_size", R.Info.BaselineTextSize},
                            {"regalloc", features::regallocToJSON(R.Info.Regalloc)},
                            {"baseline_regalloc",
                             features::regallocToJSON(R.Info.BaselineRegalloc)}});
}

// How a module's result travels from a rank to rank 0 of an MPI run: its sizes and its session
// log in LLVM's training-log bytes.
void encodeResult(const ModuleResult &R, support::WireWriter &W) {
  W.bytes(R.Info.Path);
  W.bytes(R.Info.SHA256);
  W.bytes(R.Info.Error);
  W.num<int64_t>(R.Info.TextSize);
  W.num<int64_t>(R.Info.BaselineTextSize);
  W.num<double>(R.Info.Reward);
  W.num<uint8_t>(R.Cancelled);
  for (const auto *Fs : {&R.Info.Regalloc, &R.Info.BaselineRegalloc})
    W.bytes(llvm::formatv("{0}", llvm::json::Value(features::regallocToJSON(*Fs))).str());
  std::string Log;
  llvm::raw_string_ostream OS(Log);
  if (R.Info.Error.empty())
    llvm::consumeError(features::writeLog(OS, R.Log)); // written by this program: cannot fail
  W.bytes(Log);
}

llvm::Expected<ModuleResult> decodeResult(support::WireReader &In) {
  ModuleResult R;
  R.Info.Path = In.bytes();
  R.Info.SHA256 = In.bytes();
  R.Info.Error = In.bytes();
  R.Info.TextSize = In.num<int64_t>();
  R.Info.BaselineTextSize = In.num<int64_t>();
  R.Info.Reward = In.num<double>();
  R.Cancelled = In.num<uint8_t>() != 0;
  for (auto *Fs : {&R.Info.Regalloc, &R.Info.BaselineRegalloc}) {
    llvm::Expected<llvm::json::Value> V = llvm::json::parse(In.bytes());
    if (!V)
      return V.takeError();
    llvm::Expected<std::vector<features::FunctionRegalloc>> F =
        features::regallocFromJSON(&*V, R.Info.Path + " (from another rank)");
    if (!F)
      return F.takeError();
    *Fs = std::move(*F);
  }
  const std::string Log = In.bytes();
  if (R.Info.Error.empty()) {
    llvm::Expected<features::Log> L = features::parseLog(Log, R.Info.Path + " (session log)");
    if (!L)
      return L.takeError();
    R.Log = std::move(*L);
  }
  return R;
}

std::optional<ModuleResult> readPart(const PartsDir &Dir, size_t I, const std::string &Path,
                                     Task T) {
  std::optional<llvm::json::Object> O = Dir.readRecord(I, Path);
  if (!O)
    return std::nullopt;
  ModuleResult R;
  R.Info.Path = Path;
  R.Info.SHA256 = O->getString("sha256").value_or("").str();
  R.Info.Error = O->getString("error").value_or("").str();
  R.Info.TextSize = O->getInteger("text_size").value_or(-1);
  R.Info.BaselineTextSize = O->getInteger("baseline_text_size").value_or(-1);
  if (!R.Info.Error.empty())
    return R;
  if (R.Info.TextSize < 0 || R.Info.BaselineTextSize < 0)
    return std::nullopt;
  for (auto [Key, Fs] : {std::pair{"regalloc", &R.Info.Regalloc},
                         std::pair{"baseline_regalloc", &R.Info.BaselineRegalloc}}) {
    llvm::Expected<std::vector<features::FunctionRegalloc>> F =
        features::regallocFromJSON(O->get(Key), Path);
    if (!F) { // a part from before, or damaged: compiled again
      llvm::consumeError(F.takeError());
      return std::nullopt;
    }
    *Fs = std::move(*F);
  }
  setReward(T, R.Info);
  llvm::Expected<features::Log> L = features::readLogFile(Dir.file(I, ".log"));
  if (!L) {
    llvm::consumeError(L.takeError());
    return std::nullopt;
  }
  R.Log = std::move(*L);
  return R;
}

} // namespace

llvm::Expected<CollectSummary> collect(const std::vector<std::string> &Inputs,
                                       llvm::StringRef Output, const CollectConfig &C) {
  if (!compilerDecides(C.T, C.Policy.Name)) {
    // Fail early on a bad policy or model rather than once per module.
    llvm::Expected<std::unique_ptr<Policy>> P = makePolicy(C.T, C.Policy);
    if (!P)
      return P.takeError();
  }
  // Workers need no state: every module is compiled by other processes.
  corpus::OrderedPipeline<ModuleResult> Pipe(C.Run.Jobs, 2 * C.Run.Jobs);
  corpus::Spread<ModuleResult> Sp;
  Sp.Dist = C.Run.Dist;
  Sp.Encode = encodeResult;
  Sp.Decode = decodeResult;
  auto Collect = [&](size_t I) { return collectOne(Inputs[I], C); };
  if (C.Run.Dist.serving()) { // another rank of an MPI run: compiles for rank 0, writes nothing
    if (llvm::Error E = Pipe.run(0, Inputs.size(), Collect, {}, Sp))
      return E;
    return CollectSummary{};
  }
  llvm::Expected<PartsDir> Parts = PartsDir::open(Output.str(), fingerprint(Inputs, C), C.Resume,
                                                  C.Run.Report);
  if (!Parts)
    return Parts.takeError();
  features::DatasetBuilder DS(C.T, C.Policy.Name,
                              C.T == Task::Inline
                                  ? std::nullopt
                                  : std::optional<features::RegallocWeights>(std::in_place));
  if (C.Embeddings)
    DS.setEmbeddings(C.Embeddings.spelling(), C.Embeddings.digest());
  CollectSummary Sum;
  Sum.T = C.T;
  size_t NoDecisions = 0, Resumed = 0;
  support::Progress Bar("modules", Inputs.size(), C.Run.ShowProgress);
  // Finished modules wait in OUT.parts/ (written as they arrive, from any rank) until the
  // dataset is written; a resumed run takes them from there.
  Sp.Cached = [&](size_t I) -> std::optional<ModuleResult> {
    std::optional<ModuleResult> R = readPart(*Parts, I, Inputs[I], C.T);
    if (R)
      R->Resumed = true;
    return R;
  };
  Sp.Settle = [&](size_t I, ModuleResult &R) {
    if (!R.Cancelled)
      if (llvm::Error W = writePart(*Parts, I, R))
        R.Info.Error = llvm::toString(std::move(W));
  };
  llvm::Error E = Pipe.run(
      0, Inputs.size(), Collect,
      [&](size_t I, ModuleResult &&R) -> llvm::Error {
        ++Sum.Modules;
        Resumed += R.Resumed;
        if (R.Cancelled) {
          Sum.Cancelled = true;
          return makeError("cancelled");
        }
        if (R.Info.Error.empty()) {
          if (llvm::Error AE = DS.add(R.Info, R.Log))
            R.Info.Error = llvm::toString(std::move(AE));
        }
        if (!R.Info.Error.empty()) {
          ++Sum.Failed;
          Bar.clear();
          C.Run.Report({support::Diagnostic::Error, support::aboutFile(R.Info.Path, R.Info.Error)});
          DS.addFailed(R.Info);
        } else {
          Sum.Text += R.Info.TextSize;
          Sum.BaselineText += R.Info.BaselineTextSize;
          Sum.SameSize += R.Info.TextSize == R.Info.BaselineTextSize;
          Sum.Cost += features::totalCost({}, R.Info.Regalloc);
          Sum.BaselineCost += features::totalCost({}, R.Info.BaselineRegalloc);
          NoDecisions += R.Log.Observations.empty();
        }
        Bar.update(Sum.Modules, std::to_string(DS.rows()) + " decisions");
        return llvm::Error::success();
      },
      Sp);
  Bar.clear();
  if (Sum.Cancelled) {
    llvm::consumeError(std::move(E));
    return Sum;
  }
  if (E)
    return E;
  Sum.Rows = DS.rows();
  if (Resumed)
    C.Run.Report({support::Diagnostic::Note, std::to_string(Resumed) + " modules finished by the "
                                         "interrupted run were taken from " + Parts->path()});
  if (Sum.Failed == Sum.Modules) {
    Parts->remove();
    return Sum; // nothing usable: no output file
  }
  if (C.T == Task::Inline && NoDecisions == Sum.Modules - Sum.Failed)
    C.Run.Report({support::Diagnostic::Warning, noDecisionsWarning(C.Tools)});
  if (llvm::Error WE = DS.write(Output))
    return WE;
  Parts->remove();
  return Sum;
}

std::string CollectSummary::describe() const {
  if (T != Task::Inline)
    return llvm::formatv("{0} modules, {1} decisions; register allocation cost {2:f3} vs the "
                         "default advisor's {3:f3}; reward {4:f4}",
                         Modules - Failed, Rows, Cost, BaselineCost,
                         features::relativeReward(Cost, BaselineCost))
        .str();
  return llvm::formatv("{0} modules, {1} decisions; .text {2} bytes vs baseline {3} ({4} "
                       "modules the same size); reward {5:f4}",
                       Modules - Failed, Rows, Text, BaselineText, SameSize,
                       features::sizeReward(Text, BaselineText))
      .str();
}

llvm::Expected<support::Outcome> collectDataset(const std::vector<std::string> &Inputs,
                                                llvm::StringRef Output, const CollectConfig &C) {
  if (Inputs.empty())
    return support::makeError("no input modules");
  if (Output.empty())
    return support::usageError("collect needs -o DATA.h5");
  if (!C.Run.Dist.serving())
    if (llvm::Error E = support::checkOutputPath(Output))
      return E;
  llvm::Expected<CollectSummary> S = collect(Inputs, Output, C);
  if (!S)
    return S.takeError();
  if (C.Run.Dist.serving())
    return support::Outcome::complete(); // rank 0 reports the run
  if (S->Cancelled)
    return support::interruptedError("interrupted; no output written; finished modules are "
                                     "kept in " + Output + ".parts for --resume");
  if (S->Failed == S->Modules) // each failure was reported; one module needs no summary
    return S->Modules == 1 ? support::reportedFailure()
                           : support::makeError("none of the " + llvm::Twine(S->Modules) +
                                                " modules could be collected");
  C.Run.Report({support::Diagnostic::Note, S->describe()});
  if (S->Failed)
    return support::Outcome::partial(std::to_string(S->Failed) + " of " +
                                     std::to_string(S->Modules) +
                                     " modules failed and were skipped");
  return support::Outcome::complete();
}

} // namespace wb::mlgo
