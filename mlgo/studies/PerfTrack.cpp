#include "mlgo/studies/PerfTrack.h"

#include "mlgo/studies/StudySpec.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/JSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <set>

namespace wb::mlgo {

namespace {

/// Limits on what a file may claim: far above the 6 programs and 3 policies of the track, low
/// enough that a hostile file cannot make the page or the manifest huge.
constexpr size_t MaxPerfPolicies = 64, MaxPerfPrograms = 256;

bool isSha256(llvm::StringRef S) {
  return S.size() == 64 && llvm::all_of(S, [](char C) { return llvm::isDigit(C) || (C >= 'a' && C <= 'f'); });
}

/// A label or program name as the page and the manifest show it: printable, bounded.
bool isShownName(llvm::StringRef S) {
  return !S.empty() && S.size() <= 200 && llvm::all_of(S, [](unsigned char C) { return C >= 0x20 && C != 0x7f; });
}

/// The relative change of X against B, or none when B is 0 (as the track writes null).
std::optional<double> change(double X, double B) {
  if (B == 0)
    return std::nullopt;
  return (X - B) / B;
}

llvm::json::Value orNull(std::optional<double> X) { return X ? llvm::json::Value(*X) : llvm::json::Value(nullptr); }

/// The spec reader with the performance track's own checks (hashes, counts, agreement with
/// the counts).
class Reader : public support::SpecReader {
public:
  using support::SpecReader::SpecReader;

  llvm::Error bad(const llvm::Twine &Where, const llvm::Twine &What) const { return error(Where, What); }
  llvm::Expected<const llvm::json::Object *> object(const llvm::json::Object &O, llvm::StringRef Key,
                                                    const llvm::Twine &Where) const {
    const llvm::json::Object *X = O.getObject(Key);
    if (!X)
      return bad(Where + "." + Key, "expected an object");
    return X;
  }
  llvm::Expected<std::string> string(const llvm::json::Object &O, llvm::StringRef Key, const llvm::Twine &Where,
                                     bool Hash = false) const {
    std::optional<llvm::StringRef> S = O.getString(Key);
    if (!S || (Hash ? !isSha256(*S) : !isShownName(*S)))
      return bad(Where + "." + Key, Hash ? "expected a SHA-256 (64 lowercase hex digits)"
                                         : "expected a non-empty printable string");
    return S->str();
  }
  /// An object of SHA-256s by name (the inputs; a package's files).
  llvm::Expected<llvm::json::Object> hashes(const llvm::json::Object &O, llvm::StringRef Key,
                                            const llvm::Twine &Where) const {
    auto X = object(O, Key, Where);
    if (!X)
      return X.takeError();
    llvm::json::Object Out;
    for (const auto &[K, V] : **X) {
      std::optional<llvm::StringRef> S = V.getAsString();
      if (!isShownName(K) || !S || !isSha256(*S))
        return bad(Where + "." + Key + "." + llvm::StringRef(K),
                   "expected a name with a SHA-256 (64 lowercase hex digits)");
      Out[K] = S->str();
    }
    if (Out.empty())
      return bad(Where + "." + Key, "expected at least one entry");
    return Out;
  }
  llvm::Expected<double> number(const llvm::json::Object &O, llvm::StringRef Key, const llvm::Twine &Where,
                                double Min, double Max) const {
    const llvm::json::Value *V = O.get(Key);
    std::optional<double> D = V ? V->getAsNumber() : std::nullopt;
    if (!D || !std::isfinite(*D) || *D < Min || *D > Max)
      return bad(Where + "." + Key, llvm::formatv("expected a number from {0} to {1}", Min, Max));
    return *D;
  }
  /// A number in [Min, Max], or null.
  llvm::Error numberOrNull(const llvm::json::Object &O, llvm::StringRef Key, const llvm::Twine &Where,
                           double Min, double Max) const {
    const llvm::json::Value *V = O.get(Key);
    if (V && V->kind() == llvm::json::Value::Null)
      return llvm::Error::success();
    return number(O, Key, Where, Min, Max).takeError();
  }
  llvm::Expected<uint64_t> count(const llvm::json::Object &O, llvm::StringRef Key, const llvm::Twine &Where) const {
    const llvm::json::Value *V = O.get(Key);
    std::optional<int64_t> I = V ? V->getAsInteger() : std::nullopt;
    if (!I || *I < 0)
      return bad(Where + "." + Key, "expected a count (an integer, 0 or more)");
    return uint64_t(*I);
  }
  /// The file's figure F against Ours: equal up to rounding, or the file is not what its
  /// counts say.
  llvm::Error agrees(const llvm::json::Value *F, std::optional<double> Ours, const llvm::Twine &Where) const {
    std::optional<double> Theirs = F ? F->getAsNumber() : std::nullopt;
    const bool Same = Ours ? Theirs && std::fabs(*Theirs - *Ours) <= 1e-12 * std::max(1.0, std::fabs(*Ours))
                           : F && F->kind() == llvm::json::Value::Null;
    if (!Same)
      return bad(Where, "does not agree with the file's own counts (expected " +
                            (Ours ? llvm::formatv("{0:g}", *Ours).str() : std::string("null")) + ")");
    return llvm::Error::success();
  }
};

/// Sums of every count of a policy over the programs.
std::vector<double> totals(const PerfPolicy &P) {
  std::vector<double> S(NumPerfCounts, 0.0);
  for (const auto &[Name, Run] : P.Runs)
    for (size_t K = 0; K < NumPerfCounts; ++K)
      S[K] += double(Run.Counts[K]);
  return S;
}

/// What the page and the check compare: per counted key, the change of the totals; per
/// program, the change of each; the program whose instructions grew most (first by name).
struct Versus {
  std::vector<std::optional<double>> Total;
  std::map<std::string, std::vector<std::optional<double>>> PerProgram;
  std::string Worst;
  std::optional<double> WorstIr;
  size_t Slower = 0, Faster = 0;
};

Versus versus(const PerfPolicy &P, const PerfPolicy &Base) {
  Versus V;
  const std::vector<double> T = totals(P), B = totals(Base);
  for (size_t K = 0; K < NumPerfCounts; ++K)
    V.Total.push_back(change(T[K], B[K]));
  for (const auto &[Name, Run] : P.Runs) {
    const PerfRun &BR = Base.Runs.at(Name);
    std::vector<std::optional<double>> Row;
    for (size_t K = 0; K < NumPerfCounts; ++K)
      Row.push_back(change(double(Run.Counts[K]), double(BR.Counts[K])));
    const std::optional<double> Ir = Row[0];
    if (Ir && (!V.WorstIr || *Ir > *V.WorstIr)) {
      V.WorstIr = Ir;
      V.Worst = Name;
    }
    V.Slower += Run.Counts[0] > BR.Counts[0];
    V.Faster += Run.Counts[0] < BR.Counts[0];
    V.PerProgram[Name] = std::move(Row);
  }
  return V;
}

llvm::Expected<PerfRun> readRun(const Reader &R, const llvm::json::Object &O, const std::string &Where) {
  std::vector<llvm::StringRef> Known = {"static_cost", "valgrind_seconds", "output_sha256"};
  for (const PerfCountKey &K : PerfCountKeys)
    Known.push_back(K.Key);
  for (const auto &[K, V] : O)
    if (!llvm::is_contained(Known, llvm::StringRef(K)))
      return R.bad(Where, "unknown key \"" + llvm::StringRef(K) + "\"");
  PerfRun Run;
  for (size_t K = 0; K < NumPerfCounts; ++K) {
    auto C = R.count(O, PerfCountKeys[K].Key, Where);
    if (!C)
      return C.takeError();
    Run.Counts[K] = *C;
  }
  auto Cost = R.number(O, "static_cost", Where, 0, HUGE_VAL);
  if (!Cost)
    return Cost.takeError();
  auto Secs = R.number(O, "valgrind_seconds", Where, 0, HUGE_VAL);
  if (!Secs)
    return Secs.takeError();
  auto Sha = R.string(O, "output_sha256", Where, /*Hash=*/true);
  if (!Sha)
    return Sha.takeError();
  Run.StaticCost = *Cost;
  Run.ValgrindSeconds = *Secs;
  Run.OutputSHA256 = *Sha;
  return Run;
}

/// The track's comparison of one policy with the baseline: its totals, worst program and
/// counts of programs must be what the counts give; its intervals must hold the total.
llvm::Error readVersus(const Reader &R, const llvm::json::Object &O, const std::string &Where,
                       const Versus &V, PerfPolicy &P) {
  auto Total = R.object(O, "total", Where);
  if (!Total)
    return Total.takeError();
  auto Iv = R.object(O, "interval_programs", Where);
  if (!Iv)
    return Iv.takeError();
  llvm::json::Object Intervals;
  for (size_t K = 0; K < NumPerfCounts; ++K) {
    if (!PerfCountKeys[K].Compared)
      continue;
    const llvm::StringRef Key = PerfCountKeys[K].Key;
    if (llvm::Error E = R.agrees((*Total)->get(Key), V.Total[K], Where + ".total." + Key))
      return E;
    const llvm::json::Array *A = (*Iv)->getArray(Key);
    std::optional<double> Lo = A && A->size() == 2 ? (*A)[0].getAsNumber() : std::nullopt;
    std::optional<double> Hi = A && A->size() == 2 ? (*A)[1].getAsNumber() : std::nullopt;
    if (!Lo || !Hi || !std::isfinite(*Lo) || !std::isfinite(*Hi) || *Lo > *Hi)
      return R.bad(Where + ".interval_programs." + Key, "expected [low, high], two numbers, low <= high");
    Intervals[Key] = llvm::json::Array{*Lo, *Hi};
  }
  auto Worst = R.string(O, "worst_program", Where);
  if (!Worst)
    return Worst.takeError();
  // Ties in the greatest change may be named either way; the change must be the greatest.
  auto Row = V.PerProgram.find(*Worst);
  if (Row == V.PerProgram.end() || Row->second[0] != V.WorstIr)
    return R.bad(Where + ".worst_program", "'" + *Worst + "' is not the program whose instructions grew most (" +
                                               V.Worst + ")");
  auto Slower = R.count(O, "programs_slower", Where), Faster = R.count(O, "programs_faster", Where);
  if (!Slower)
    return Slower.takeError();
  if (!Faster)
    return Faster.takeError();
  if (*Slower != V.Slower || *Faster != V.Faster)
    return R.bad(Where, llvm::formatv("programs_slower/programs_faster {0}/{1} do not agree with the "
                                      "counts ({2}/{3})", *Slower, *Faster, V.Slower, V.Faster));
  P.Intervals = std::move(Intervals);
  return llvm::Error::success();
}

llvm::Expected<llvm::json::Object> readCorrelation(const Reader &R, const llvm::json::Object &O,
                                                   const std::string &Where) {
  if (llvm::Error E = R.onlyKeys(O, Where, {"functions", "functions_changed", "spearman_static_vs_data_refs",
                                            "spearman_static_vs_instructions", "spearman_over_programs"}))
    return E;
  auto Fns = R.count(O, "functions", Where), Changed = R.count(O, "functions_changed", Where);
  if (!Fns)
    return Fns.takeError();
  if (!Changed)
    return Changed.takeError();
  if (*Changed > *Fns)
    return R.bad(Where + ".functions_changed", "more than the functions");
  llvm::json::Object Out{{"functions", int64_t(*Fns)}, {"functions_changed", int64_t(*Changed)}};
  for (llvm::StringRef K : {"spearman_static_vs_data_refs", "spearman_static_vs_instructions", "spearman_over_programs"}) {
    if (llvm::Error E = R.numberOrNull(O, K, Where, -1, 1))
      return E;
    const llvm::json::Value *V = O.get(K);
    Out[K] = V ? *V : llvm::json::Value(nullptr);
  }
  return Out;
}

llvm::json::Object countsJSON(const uint64_t (&C)[NumPerfCounts]) {
  llvm::json::Object O;
  for (size_t K = 0; K < NumPerfCounts; ++K)
    O[PerfCountKeys[K].Key] = int64_t(C[K]);
  return O;
}

llvm::json::Object comparedJSON(const std::vector<std::optional<double>> &Row) {
  llvm::json::Object O;
  for (size_t K = 0; K < NumPerfCounts; ++K)
    if (PerfCountKeys[K].Compared)
      O[PerfCountKeys[K].Key] = orNull(Row[K]);
  return O;
}

} // namespace

namespace {

/// The pins: the spec, valgrind and the compiler, the hashes of the spec, packages, inputs and
/// sources.
llvm::Error readPins(const Reader &R, const llvm::json::Object &O, PerfTrack &T) {
  for (llvm::StringRef K : {"spec", "valgrind", "compiler"}) {
    auto S = R.string(O, K, "results");
    if (!S)
      return S.takeError();
    T.Pins[K] = *S;
  }
  for (llvm::StringRef K : {"spec_sha256", "packages_sha256"}) {
    auto S = R.string(O, K, "results", /*Hash=*/true);
    if (!S)
      return S.takeError();
    T.Pins[K] = *S;
  }
  auto Inputs = R.hashes(O, "inputs_sha256", "results");
  if (!Inputs)
    return Inputs.takeError();
  T.Pins["inputs_sha256"] = std::move(*Inputs);
  auto Sources = R.object(O, "sources", "results");
  if (!Sources)
    return Sources.takeError();
  llvm::json::Object SourcesOut;
  for (const auto &[Pkg, Files] : **Sources) {
    const llvm::json::Object *F = Files.getAsObject();
    if (!isShownName(Pkg) || !F)
      return R.bad("results.sources", "expected packages, each an object of files with their SHA-256");
    auto H = R.hashes(**Sources, Pkg, "results.sources");
    if (!H)
      return H.takeError();
    SourcesOut[Pkg] = std::move(*H);
  }
  if (SourcesOut.empty())
    return R.bad("results.sources", "expected at least one package");
  T.Pins["sources"] = std::move(SourcesOut);
  return llvm::Error::success();
}

/// The policies, the baseline first; their labels.
llvm::Expected<std::set<std::string>> readPolicies(const Reader &R, const llvm::json::Object &O,
                                                   PerfTrack &T) {
  const llvm::json::Array *Pols = O.getArray("policies");
  if (!Pols || Pols->empty() || Pols->size() > MaxPerfPolicies)
    return R.bad("results.policies", llvm::formatv("expected an array of 1 to {0} policies", MaxPerfPolicies));
  std::set<std::string> Labels;
  for (size_t I = 0; I < Pols->size(); ++I) {
    const std::string Where = "results.policies[" + std::to_string(I) + "]";
    const llvm::json::Object *P = (*Pols)[I].getAsObject();
    if (!P)
      return R.bad(Where, "expected an object");
    auto Label = R.string(*P, "label", Where);
    if (!Label)
      return Label.takeError();
    if (!Labels.insert(*Label).second)
      return R.bad(Where + ".label", "'" + *Label + "' names two policies");
    PerfPolicy Pol;
    Pol.Label = *Label;
    for (const auto &[K, V] : *P) {
      std::optional<llvm::StringRef> S = V.getAsString();
      if (!S || !isShownName(*S))
        return R.bad(Where + "." + llvm::StringRef(K), "expected a non-empty printable string");
      if (K != "label")
        Pol.Described[K] = S->str();
    }
    T.Policies.push_back(std::move(Pol));
  }
  if (O.getString("baseline") != std::optional<llvm::StringRef>(T.Policies.front().Label))
    return R.bad("results.baseline", "expected the first policy's label, '" + T.Policies.front().Label + "'");
  return Labels;
}

/// The counts: every policy ran the baseline's programs, with the same outputs.
llvm::Error readCounts(const Reader &R, const llvm::json::Object &O,
                       const std::set<std::string> &Labels, PerfTrack &T) {
  auto Programs = R.object(O, "programs", "results");
  if (!Programs)
    return Programs.takeError();
  for (const auto &[K, V] : **Programs)
    if (!Labels.count(K.str()))
      return R.bad("results.programs." + llvm::StringRef(K), "not a policy's label");
  for (PerfPolicy &P : T.Policies) {
    const std::string Where = "results.programs." + P.Label;
    auto Runs = R.object(**Programs, P.Label, "results.programs");
    if (!Runs)
      return Runs.takeError();
    if ((*Runs)->empty() || (*Runs)->size() > MaxPerfPrograms)
      return R.bad(Where, llvm::formatv("expected 1 to {0} programs", MaxPerfPrograms));
    for (const auto &[Name, Run] : **Runs) {
      const llvm::json::Object *RO = Run.getAsObject();
      if (!isShownName(Name) || !RO)
        return R.bad(Where + "." + llvm::StringRef(Name), "expected a program's counts (an object)");
      auto X = readRun(R, *RO, Where + "." + Name.str());
      if (!X)
        return X.takeError();
      P.Runs[Name.str()] = std::move(*X);
    }
    if (&P == &T.Policies.front()) {
      for (const auto &[Name, Run] : P.Runs)
        T.Programs.push_back(Name);
      continue;
    }
    const PerfPolicy &Base = T.Policies.front();
    for (const auto &[Name, Run] : P.Runs)
      if (!Base.Runs.count(Name))
        return R.bad(Where + "." + Name, "the baseline '" + Base.Label + "' did not run this program");
    for (const auto &[Name, Run] : Base.Runs) {
      auto It = P.Runs.find(Name);
      if (It == P.Runs.end())
        return R.bad(Where, "no counts for '" + Name + "', which the baseline ran");
      // A register allocator changes registers, never results: a different output means the
      // counts measure different work.
      if (It->second.OutputSHA256 != Run.OutputSHA256)
        return R.bad(Where + "." + Name + ".output_sha256",
                     "the program's output differs from the baseline's: its counts are not comparable");
    }
  }
  const llvm::json::Array *Differ = O.getArray("outputs_differ");
  if (!Differ || !Differ->empty())
    return R.bad("results.outputs_differ", "expected an empty array (a track whose outputs differ is not "
                                           "comparable)");
  return llvm::Error::success();
}

/// The comparisons: one per policy but the baseline, agreeing with the counts.
llvm::Error readComparisons(const Reader &R, const llvm::json::Object &O,
                            const std::set<std::string> &Labels, PerfTrack &T) {
  for (llvm::StringRef Key : {"versus_baseline", "static_vs_dynamic"}) {
    auto X = R.object(O, Key, "results");
    if (!X)
      return X.takeError();
    for (const auto &[K, V] : **X)
      if (!Labels.count(K.str()) || K == T.Policies.front().Label)
        return R.bad("results." + Key + "." + llvm::StringRef(K), "not a policy compared with the baseline");
    for (size_t I = 1; I < T.Policies.size(); ++I) {
      PerfPolicy &P = T.Policies[I];
      const std::string Where = "results." + Key.str() + "." + P.Label;
      auto PO = R.object(**X, P.Label, "results." + Key);
      if (!PO)
        return PO.takeError();
      if (Key == "versus_baseline") {
        if (llvm::Error E = readVersus(R, **PO, Where, versus(P, T.Policies.front()), P))
          return E;
      } else {
        auto C = readCorrelation(R, **PO, Where);
        if (!C)
          return C.takeError();
        P.StaticVsDynamic = std::move(*C);
      }
    }
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<PerfTrack> readPerfResults(const std::string &Path) {
  Reader R(Path);
  auto J = R.load("the performance track's results");
  if (!J)
    return J.takeError();
  PerfTrack T;
  T.Path = Path;
  T.SHA256 = R.SHA256;
  const llvm::json::Object &O = *J->getAsObject();
  if (O.getString("schema") != std::optional<llvm::StringRef>(PerfResultsSchema))
    return R.bad("schema", llvm::Twine("expected \"") + PerfResultsSchema +
                               "\" (the results.json of scripts/perf-track.py, docs/perf.md)");
  if (llvm::Error E = R.onlyKeys(O, "results", {"schema", "spec", "spec_sha256", "packages_sha256", "sources",
                                                "inputs_sha256", "valgrind", "compiler", "policies", "baseline",
                                                "programs", "versus_baseline", "static_vs_dynamic",
                                                "outputs_differ"}))
    return E;
  if (llvm::Error E = readPins(R, O, T))
    return E;
  auto Labels = readPolicies(R, O, T);
  if (!Labels)
    return Labels.takeError();
  if (llvm::Error E = readCounts(R, O, *Labels, T))
    return E;
  if (llvm::Error E = readComparisons(R, O, *Labels, T))
    return E;
  return T;
}

llvm::json::Object perfTrackResultsJSON(const PerfTrack &T) {
  const PerfPolicy &Base = T.Policies.front();
  llvm::json::Array Programs, Policies;
  for (const std::string &P : T.Programs)
    Programs.push_back(P);
  for (const PerfPolicy &P : T.Policies) {
    llvm::json::Object Runs;
    for (const auto &[Name, Run] : P.Runs)
      Runs[Name] = support::withKeys(countsJSON(Run.Counts),
                                     llvm::json::Object{{"static_cost", Run.StaticCost},
                                                        {"output_sha256", Run.OutputSHA256}});
    uint64_t Sum[NumPerfCounts] = {};
    for (const auto &[Name, Run] : P.Runs)
      for (size_t K = 0; K < NumPerfCounts; ++K)
        Sum[K] += Run.Counts[K];
    llvm::json::Value Vs = nullptr;
    if (&P != &Base) {
      const Versus V = versus(P, Base);
      llvm::json::Object PerProgram;
      for (const auto &[Name, Row] : V.PerProgram)
        PerProgram[Name] = comparedJSON(Row);
      Vs = llvm::json::Object{{"total", comparedJSON(V.Total)},
                              {"per_program", std::move(PerProgram)},
                              {"interval_programs", llvm::json::Object(*P.Intervals)},
                              {"worst_program", V.Worst},
                              {"worst_program_Ir", orNull(V.WorstIr)},
                              {"programs_slower", int64_t(V.Slower)},
                              {"programs_faster", int64_t(V.Faster)}};
    }
    Policies.push_back(llvm::json::Object{
        {"label", P.Label},
        {"policy", llvm::json::Object(P.Described)},
        {"programs", std::move(Runs)},
        {"total", countsJSON(Sum)},
        {"versus_baseline", std::move(Vs)},
        {"static_vs_dynamic", P.StaticVsDynamic ? llvm::json::Value(llvm::json::Object(*P.StaticVsDynamic))
                                                : llvm::json::Value(nullptr)}});
  }
  return llvm::json::Object{{"source_schema", PerfResultsSchema},
                            {"baseline", Base.Label},
                            {"programs", std::move(Programs)},
                            {"policies", std::move(Policies)}};
}

llvm::json::Object perfTrackManifestJSON(const PerfTrack &T) {
  llvm::json::Object Seconds;
  for (const PerfPolicy &P : T.Policies) {
    llvm::json::Object S;
    for (const auto &[Name, Run] : P.Runs)
      S[Name] = Run.ValgrindSeconds;
    Seconds[P.Label] = std::move(S);
  }
  return support::withKeys(llvm::json::Object{{"file", T.Path}, {"sha256", T.SHA256},
                                              {"valgrind_seconds", std::move(Seconds)}},
                           llvm::json::Object(T.Pins));
}

} // namespace wb::mlgo
