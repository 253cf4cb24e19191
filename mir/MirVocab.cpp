#include "mir/MirVocab.h"

#include "support/Files.h"
#include "support/Inputs.h"
#include "support/JSON.h"
#include "support/Progress.h"
#include "support/Wire.h"
#include "vocab/TripletCorpus.h"
#include "vocab/VocabTraining.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>

namespace wb::mir {

namespace {

using support::Diagnostic;

/// One module's triplets as a worker makes them (relations as functionTriplets numbers them).
struct ModuleMirTriplets {
  std::string Error;
  std::vector<std::string> Warnings;
  std::vector<uint32_t> Flat; // head, tail, relation per triplet
  uint32_t MaxRelation = MirNextRelation;
  uint64_t Classless = 0, UnknownKinds = 0;
};

void encode(const ModuleMirTriplets &R, support::WireWriter &W) {
  W.bytes(R.Error);
  W.strings(R.Warnings);
  W.array(R.Flat);
  W.num<uint32_t>(R.MaxRelation);
  W.num<uint64_t>(R.Classless);
  W.num<uint64_t>(R.UnknownKinds);
}

void decode(support::WireReader &In, ModuleMirTriplets &R) {
  R.Error = In.bytes();
  R.Warnings = In.strings();
  R.Flat = In.array<uint32_t>();
  R.MaxRelation = In.num<uint32_t>();
  R.Classless = In.num<uint64_t>();
  R.UnknownKinds = In.num<uint64_t>();
}

uint64_t keyOf(uint32_t H, uint32_t T, uint32_t R) {
  return uint64_t(H) << 40 | uint64_t(T) << 16 | R; // entities < 2^24, relations < 2^16
}

constexpr const char *MirVocabularySource = "the MIR vocabulary being written";

} // namespace

std::string mirRelationName(unsigned Relation) {
  return Relation == MirNextRelation ? "Next" : "Arg" + std::to_string(Relation - MirArgRelation);
}

llvm::Expected<MirTripletCorpus> collectMirTriplets(const std::vector<std::string> &Inputs,
                                                    const MirRunOptions &O,
                                                    const std::vector<StopPoint> &Stops,
                                                    const corpus::BatchIO &IO) {
  auto Stdin = bufferStdin(Inputs);
  if (!Stdin)
    return Stdin.takeError();
  MirRunOptions First = O;
  First.Stop = Stops.front();
  auto TM = runTarget(First, Inputs, *Stdin);
  if (!TM)
    return TM.takeError();
  MirTripletCorpus C;
  C.Triple = (*TM)->getTargetTriple().str();
  C.Layout = MirLayout::of(**TM);
  const llvm::Target *RunTarget = &(*TM)->getTarget();
  llvm::DenseMap<uint64_t, uint64_t> Counts;
  size_t Done = 0;
  support::Progress P("modules", Inputs.size() * Stops.size(), IO.Run.ShowProgress);
  std::vector<bool> Failed(Inputs.size(), false);
  for (const StopPoint &Stop : Stops) {
  if (llvm::Error E = checkStopPoint(Stop))
    return E;
  llvm::Error E = corpus::runModules<ModuleMirTriplets>(
      IO, corpus::ContextPolicy{1, false}, Inputs, 0,
      [&](size_t I, llvm::LLVMContext &Ctx) {
        ModuleMirTriplets R;
        std::vector<MirTriplet> Ts;
        MirOddities Odd;
        unsigned Max = MirNextRelation;
        llvm::Error Err = visitMachineFunctions(
            Inputs[I], Ctx, Lowering{O.Target, O.Opt, Stop},
            [&](const llvm::TargetMachine &T) { return checkRunTarget(T, RunTarget, C.Triple, Inputs[I]); },
            [&](const llvm::MachineFunction &MF) { functionTriplets(C.Layout, MF, Ts, Max, Odd); },
            R.Warnings, *Stdin);
        if (Err) {
          R.Error = llvm::toString(std::move(Err));
          return R;
        }
        R.MaxRelation = Max;
        R.Classless = Odd.ClasslessRegisters;
        R.UnknownKinds = Odd.UnknownOperandKinds;
        R.Flat.reserve(Ts.size() * 3);
        for (const MirTriplet &T : Ts)
          R.Flat.insert(R.Flat.end(), {T.Head, T.Tail, T.Relation});
        return R;
      },
      [&](size_t I, ModuleMirTriplets &&R) {
        ++Done;
        if (corpus::reportModule(IO, P, R.Warnings, R.Error)) {
          Failed[I] = true;
        } else {
          C.MaxRelation = std::max<unsigned>(C.MaxRelation, R.MaxRelation);
          C.Odd.ClasslessRegisters += R.Classless;
          C.Odd.UnknownOperandKinds += R.UnknownKinds;
          for (size_t J = 0; J + 2 < R.Flat.size(); J += 3) {
            ++Counts[keyOf(R.Flat[J], R.Flat[J + 1], R.Flat[J + 2])];
            ++C.Total;
          }
        }
        P.update(Done);
        return llvm::Error::success();
      });
  if (E)
    return E;
  }
  P.clear();
  C.Modules = Inputs.size();
  for (size_t I = 0; I < Inputs.size(); ++I)
    if (Failed[I]) { // at some stop point
      ++C.Failed;
      C.FailedModules.push_back(Inputs[I]);
    }
  std::vector<std::pair<uint64_t, uint64_t>> Sorted(Counts.begin(), Counts.end());
  std::sort(Sorted.begin(), Sorted.end());
  for (auto [K, N] : Sorted)
    C.Unique.push_back({MirTriplet{unsigned(K >> 40), unsigned(K >> 16 & 0xFFFFFF), unsigned(K & 0xFFFF)}, N});
  return C;
}

llvm::Expected<support::Outcome> runMirTripletCorpus(const std::vector<std::string> &Inputs,
                                                     const MirRunOptions &O,
                                                     const std::vector<StopPoint> &Stops,
                                                     const std::string &Dir, const corpus::BatchIO &IO) {
  auto Out = support::OutputDirectory::prepare(Dir);
  if (!Out)
    return Out.takeError();
  auto C = collectMirTriplets(Inputs, O, Stops, IO);
  if (!C)
    return C.takeError();
  if (C->Failed == C->Modules)
    return corpus::outcomeOf(corpus::BatchSummary{C->Modules, C->Failed});
  std::vector<uint64_t> Occurs(C->Layout.size(), 0);
  for (const auto &[T, N] : C->Unique) {
    Occurs[T.Head] += N;
    Occurs[T.Tail] += N;
  }
  const unsigned NumRelations = C->MaxRelation + 1;
  if (llvm::Error E = support::writeFilesTogether(*Out, {
      // generateTriplets.py's layout: the number of lines, then "head tail relation".
      {"train2id.txt", [&](llvm::raw_ostream &OS) {
            OS << C->Unique.size() << '\n';
            for (const auto &[T, N] : C->Unique)
              OS << T.Head << '\t' << T.Tail << '\t' << T.Relation << '\n';
          }},
      {"entity2id.txt", [&](llvm::raw_ostream &OS) {
            OS << C->Layout.size() << '\n';
            for (unsigned Id = 0; Id < C->Layout.size(); ++Id)
              OS << C->Layout.entityName(Id) << '\t' << Id << '\n';
          }},
      {"relation2id.txt", [&](llvm::raw_ostream &OS) {
            OS << NumRelations << '\n';
            for (unsigned R = 0; R < NumRelations; ++R)
              OS << mirRelationName(R) << '\t' << R << '\n';
          }},
      {"triplet_counts.txt", [&](llvm::raw_ostream &OS) {
            OS << "# " << vocab::TripletCountsSchema << " unique=" << C->Unique.size()
               << " total=" << C->Total << '\n';
            for (const auto &[T, N] : C->Unique)
              OS << T.Head << '\t' << T.Tail << '\t' << T.Relation << '\t' << N << '\n';
          }},
      {"manifest.json", [&](llvm::raw_ostream &OS) {
            llvm::json::OStream J(OS, 2);
            J.object([&] {
              J.attribute("schema", vocab::TripletManifestSchema);
              J.attribute("mode", "mir");
              J.attribute("target", C->Triple);
              J.attributeArray("mir_stages", [&] {
                for (const StopPoint &S : Stops)
                  J.value(S.describe());
              });
              J.attribute("llvm_version", WB_LLVM_VERSION);
              J.attribute("tool_version", WB_VERSION);
              J.attribute("modules", int64_t(C->Modules));
              J.attribute("modules_failed", int64_t(C->Failed));
              J.attributeArray("failed", [&] {
                for (const std::string &F : C->FailedModules)
                  J.value(F);
              });
              J.attribute("input_list_sha256", vocab::inputListSHA256(Inputs));
              J.attribute("weighting", "unique");
              J.attribute("unique_triplets", int64_t(C->Unique.size()));
              J.attribute("total_triplets", int64_t(C->Total));
              J.attribute("max_relation", int64_t(C->MaxRelation));
              J.attribute("classless_register_operands", int64_t(C->Odd.ClasslessRegisters));
              J.attributeObject("entity_occurrences", [&] {
                for (unsigned Id = 0; Id < C->Layout.size(); ++Id)
                  if (Occurs[Id])
                    J.attribute(C->Layout.entityName(Id), int64_t(Occurs[Id]));
              });
            });
            OS << '\n';
          }}}))
    return E;
  const size_t Seen = llvm::count_if(Occurs, [](uint64_t N) { return N != 0; });
  IO.Run.Report({Diagnostic::Note,
                 llvm::formatv("{0} unique MIR triplets ({1} in all) of {2} for {3}; {4} of the "
                               "target's {5} entities occur",
                               C->Unique.size(), C->Total, C->Modules - C->Failed, C->Triple, Seen,
                               C->Layout.size())
                     .str()});
  return corpus::outcomeOf(corpus::BatchSummary{C->Modules, C->Failed});
}

llvm::Expected<MirTrainedVocabulary> trainMirVocabulary(const std::string &Dir,
                                                        const vocab::SplitOptions &Split,
                                                        const vocab::TransEConfig &C, unsigned Digits,
                                                        const vocab::EpochCallback &OnEpoch,
                                                        const std::string &InitPath) {
  // The target from the manifest: the vocabulary's keys are its layout's.
  const std::string ManifestPath = support::pathIn(Dir, "manifest.json");
  auto Buf = support::readInput(ManifestPath, /*IsText=*/true);
  if (!Buf)
    return support::fileError(ManifestPath, "cannot read: " + support::readErrorMessage(Buf.getError()) +
                                                " (a directory of `ir2vec triplets --mode=mir --format openke`)");
  auto M = support::parseJSON((*Buf)->getBuffer());
  if (!M)
    return support::fileError(ManifestPath, llvm::toString(M.takeError()));
  const llvm::json::Object *Obj = M->getAsObject();
  if (!Obj || Obj->getString("mode") != llvm::StringRef("mir") || !Obj->getString("target"))
    return support::fileError(ManifestPath, "not the manifest of MIR triplets (mode \"mir\" and a "
                                            "target expected)");
  auto TM = makeTargetMachine({Obj->getString("target")->str(), "", ""});
  if (!TM)
    return support::fileError(ManifestPath, llvm::toString(TM.takeError()));
  const MirLayout Layout = MirLayout::of(**TM);
  auto G = vocab::readOpenKE(Dir, Split);
  if (!G)
    return G.takeError();
  if (G->numEntities() != Layout.size())
    return support::fileError(support::pathIn(Dir, "entity2id.txt"),
                              llvm::formatv("{0} entities; the MIR layout of {1} has {2}",
                                            G->numEntities(), Obj->getString("target")->str(), Layout.size())
                                  .str());
  for (unsigned Id = 0; Id < Layout.size(); ++Id)
    if (G->EntityNames[Id] != Layout.entityName(Id))
      return support::fileError(support::pathIn(Dir, "entity2id.txt"),
                                "entity " + std::to_string(Id) + " is '" + G->EntityNames[Id] +
                                    "'; the target's layout has '" + Layout.entityName(Id) + "'");
  std::optional<vocab::InitialEntities> Init;
  if (!InitPath.empty()) {
    auto IV = MirVocabulary::read(InitPath, Layout, MirWeights{1.0f, 1.0f, 1.0f});
    if (!IV)
      return IV.takeError();
    if (IV->Dim != C.Dim)
      return support::usageError(llvm::formatv("--init {0}: dimension {1}, but --dim is {2}", InitPath,
                                               IV->Dim, C.Dim));
    Init.emplace();
    Init->Vectors.set_size(C.Dim, Layout.size());
    Init->Present.assign(Layout.size(), false);
    for (unsigned Id = 0; Id < Layout.size(); ++Id) {
      const double *Row = IV->row(Id);
      std::copy(Row, Row + C.Dim, Init->Vectors.colptr(Id));
      Init->Present[Id] = std::any_of(Row, Row + C.Dim, [](double X) { return X != 0.0; });
    }
  }
  auto R = vocab::trainTransE(*G, C, OnEpoch, Init ? &*Init : nullptr);
  if (!R)
    return R.takeError();
  MirTrainedVocabulary V;
  V.Result = std::move(*R);
  V.Test = vocab::evaluateLinks(V.Result.Model, C.Dist, G->Test,
                                vocab::tripletSet(G->Train, G->Valid, G->Test));
  V.TestTriplets = G->Test.size();
  V.Entities = Layout.size();
  std::vector<bool> Seen = vocab::entitiesMentioned(*G);
  V.Trained = llvm::count(Seen, true);
  if (Init) // what --init gave is kept too (its vectors, where the graph never moved them)
    for (unsigned Id = 0; Id < Layout.size(); ++Id)
      Seen[Id] = Seen[Id] || Init->Present[Id];
  // LLVM's MIR vocabulary JSON: four sections, keys without the entities' prefixes, one key a
  // line. Entities the corpus never showed are left out: LLVM and we read a missing key as a
  // zero vector (tested), and 7,000 rows of zeros would make the file six times larger.
  llvm::raw_string_ostream OS(V.JSON);
  const arma::mat &E = V.Result.Model.Entities;
  OS << "{";
  bool FirstSection = true;
  for (const MirSectionInfo &S : MirSections) {
    OS << (FirstSection ? "\n" : ",\n") << llvm::json::Value(S.JSONKey) << ": {";
    FirstSection = false;
    bool FirstKey = true;
    for (unsigned Id = Layout.base(S.S); Id < Layout.base(S.S) + Layout.sectionSize(S.S); ++Id) {
      if (!Seen[Id])
        continue;
      OS << (FirstKey ? "\n  " : ",\n  ") << llvm::json::Value(Layout.key(Id).str()) << ": [";
      FirstKey = false;
      for (unsigned D = 0; D < C.Dim; ++D)
        OS << (D ? ", " : "") << llvm::format("%.*g", int(Digits), E(D, Id));
      OS << "]";
    }
    OS << "\n}";
  }
  OS << "\n}";
  OS << '\n';
  return V;
}

llvm::Expected<support::Outcome> runMirVocabTraining(const std::string &Dir, const vocab::SplitOptions &Split,
                                                     const vocab::TransEConfig &C, const std::string &Output,
                                                     const std::string &InitPath, bool ShowProgress,
                                                     const support::DiagnosticHandler &Report) {
  if (Output.empty())
    return support::usageError("vocab train --mode=mir needs an output: -o OUT.json");
  if (llvm::Error E = C.validate())
    return support::usageError(llvm::toString(std::move(E)));
  if (llvm::Error E = support::checkOutputsAgainstInputs({Output}, support::filesIn(Dir)))
    return E;
  support::Progress P("epochs", C.Epochs, ShowProgress);
  auto V = trainMirVocabulary(Dir, Split, C, 8, vocab::epochProgress(P), InitPath);
  P.clear();
  if (!V)
    return V.takeError();
  if (llvm::Error E = support::writeFileAtomically(Output, [&](llvm::raw_ostream &OS) { OS << V->JSON; }))
    return E;
  const vocab::TrainingResult &R = V->Result;
  Report({Diagnostic::Note,
          llvm::formatv("{0} epochs, final loss {1:f5}; {2} of the target's {3} entities trained (the "
                        "others are left out: zero vectors)",
                        R.Epochs, R.FinalLoss, V->Trained, V->Entities)
              .str()});
  Report({Diagnostic::Note, llvm::formatv("test ({0} triplets) filtered {1}", V->TestTriplets,
                                          vocab::formatLinkMetrics(V->Test.Filtered))
                                .str()});
  return support::Outcome::complete();
}

} // namespace wb::mir
