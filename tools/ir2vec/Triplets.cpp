// `ir2vec entities` and `ir2vec triplets`: the knowledge graph of IR, as llvm-ir2vec prints it
// and as OpenKE corpora for training (vocab/Triplets.h, vocab/TripletCorpus.h).
#include "tools/ir2vec/Groups.h"

#include "corpus/OptPipeline.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "vocab/TripletCorpus.h"
#include "vocab/Triplets.h"
#include "mir/MirVocab.h"

#include "llvm/ADT/StringExtras.h"

namespace wb::tool {

namespace {

struct EntitiesOptions {
  std::string Output = "-", Mode = "llvm";
  std::vector<std::string> Inputs; // ignored in LLVM mode, as llvm-ir2vec ignores it
  MirOptions Mir;
};

struct TripletsOptions {
  std::string Output = "-", Mode = "llvm", Format = "text";
  std::vector<std::string> Inputs;
  bool Extended = false, Quiet = false;
  std::string OptLevels, Weighting = "unique";
  unsigned OptSample = 0, Jobs = 0;
  int RootJobs = -1;
  double ModuleSeconds = corpus::DefaultModuleSeconds;
  uint64_t Seed = 0;
  MirOptions Mir;
};

llvm::Expected<support::Outcome> runEntities(const EntitiesOptions &O, const support::Reporter &R) {
  // LLVM IR mode ignores its input, but an input named as the output is still the user's file.
  if (llvm::Error E = checkOutputs({O.Output}, O.Inputs, listFiles(O.Inputs, {})))
    return E;
  if (O.Mode == "mir") {
    auto J = mirJob(O.Mir, O.Inputs, O.Output);
    if (!J)
      return J.takeError();
    return mir::runMirEntities(*J, R.handler());
  }
  return outcomeOf(support::writeFileAtomically(O.Output, vocab::writeEntitiesText));
}

llvm::Expected<support::Outcome> runTriplets(const TripletsOptions &O,
                                             const support::Reporter &R,
                                             const RunContext &Ctx) {
  if (O.Mode == "mir") {
    if (llvm::Error E = refuseForMir({{O.Extended, "--extended-relations"},
                                      {!O.OptLevels.empty(), "--opt-levels"},
                                      {O.Weighting != "unique", "--weighting"}}))
      return E;
    if (O.Format == "openke") { // a corpus: MIR triplets for vocabulary training
      // --mir-stage may list several stages: the corpus is taken to each in turn.
      std::vector<mir::StopPoint> Stops;
      MirOptions One = O.Mir;
      for (llvm::StringRef S : llvm::split(O.Mir.Stage, ',')) {
        One.Stage = S.str();
        auto M = mirRunOptions(One);
        if (!M)
          return M.takeError();
        Stops.push_back(M->Stop);
        if (!O.Mir.StopAfter.empty() || !O.Mir.StopBefore.empty())
          break;
      }
      auto M = mirRunOptions(One);
      if (!M)
        return M.takeError();
      auto Inputs = commandInputs(O.Inputs, Ctx, R, /*Machine=*/true);
      if (!Inputs)
        return Inputs.takeError();
      return mir::runMirTripletCorpus(*Inputs, *M, Stops, O.Output,
                                      batchIO(R, O.Jobs, O.ModuleSeconds, Ctx.distribution(O.RootJobs)));
    }
    if (Ctx.spread())
      return support::usageError("--mode=mir runs in one process, not under mpirun");
    auto J = mirJob(O.Mir, O.Inputs, O.Output);
    if (!J)
      return J.takeError();
    if (llvm::Error E = checkOutputs({O.Output}, {J->Input}))
      return E;
    return mir::runMirTriplets(*J, R.handler());
  }
  vocab::TripletCorpusJob J;
  auto Inputs = commandInputs(O.Inputs, Ctx, R);
  if (!Inputs)
    return Inputs.takeError();
  if (O.Format != "openke")
    if (llvm::Error E = checkOutputs({O.Output}, *Inputs, listFiles(O.Inputs)))
      return E;
  J.Inputs = std::move(*Inputs);
  J.Opts.Extended = O.Extended;
  if (!O.OptLevels.empty()) {
    auto L = corpus::parseOptLevels(O.OptLevels);
    if (!L)
      return support::usageError("--opt-levels: " + llvm::toString(L.takeError()));
    J.Levels = std::move(*L);
  }
  J.Sample = O.OptSample;
  J.Seed = O.Seed;
  auto W = support::parseNamed<vocab::TripletWeighting>(vocab::TripletWeightingNames,
                                                        O.Weighting, "weighting");
  if (!W)
    return W.takeError();
  J.Weighting = *W;
  const corpus::BatchIO IO =
      batchIO(R, O.Jobs, O.ModuleSeconds, Ctx.distribution(O.RootJobs));
  if (O.Format == "openke")
    return vocab::runTripletCorpus(J, O.Output, IO);
  return vocab::runTripletsText(J, O.Output, IO);
}

} // namespace

void addMirTargetOptions(CLI::App &Sub, MirOptions &M) {
  Sub.add_option("--mtriple", M.Triple,
                 "--mode=mir: the target when the input names none (default: the input's, else "
                 "the host's), as llc's -mtriple")
      ->type_name("TRIPLE");
  Sub.add_option("--mcpu", M.CPU, "--mode=mir: the target CPU (llc's -mcpu)")->type_name("CPU");
  Sub.add_option("--mattr", M.Attrs, "--mode=mir: target features (llc's -mattr)")->type_name("A1,A2");
  Sub.add_option("--mir-stage", M.Stage,
                 "--mode=mir with an LLVM IR module: where llc-22 -O2's code generation stops: isel "
                 "(-stop-after=finalize-isel), pre-ra (-stop-before=greedy) or post-ra "
                 "(-stop-after=virtregrewriter, the default); triplets --format openke takes a "
                 "comma list (the corpus is taken to each stage in turn)")
      ->type_name("STAGE");
  Sub.add_option("--stop-after", M.StopAfter,
                 "--mode=mir with an LLVM IR module: stop after this pass instead (llc's -stop-after)")
      ->type_name("PASS");
  Sub.add_option("--stop-before", M.StopBefore,
                 "--mode=mir with an LLVM IR module: stop before this pass instead (llc's -stop-before)")
      ->type_name("PASS");
}

void addMirVocabularyOptions(CLI::App &Sub, MirOptions &M) {
  Sub.add_option("--mir2vec-vocab-path", M.VocabPath,
                 "--mode=mir: the MIR vocabulary (LLVM's MIR2Vec JSON: Opcodes, CommonOperands, "
                 "PhysicalRegisters, VirtualRegisters); default for x86-64: the workbench's "
                 "(mir/default/)")
      ->type_name("FILE");
  Sub.add_option("--mir2vec-kind", M.Kind, "--mode=mir: embedding kind (symbolic, LLVM 22's only)")
      ->check(CLI::IsMember({"symbolic"}));
  Sub.add_option("--mir2vec-opc-weight", M.OpcWeight, "--mode=mir: weight of opcode vectors (float)")
      ->type_name("NUM");
  Sub.add_option("--mir2vec-common-operand-weight", M.CommonWeight,
                 "--mode=mir: weight of common operand vectors (float)")
      ->type_name("NUM");
  Sub.add_option("--mir2vec-reg-operand-weight", M.RegWeight,
                 "--mode=mir: weight of register operand vectors (float)")
      ->type_name("NUM");
}

llvm::Expected<mir::MirRunOptions> mirRunOptions(const MirOptions &M) {
  mir::MirRunOptions O;
  O.Target = {M.Triple, M.CPU, M.Attrs};
  O.VocabPath = M.VocabPath;
  if (!M.StopAfter.empty() && !M.StopBefore.empty())
    return support::usageError("--stop-after and --stop-before: name one stop point");
  if (!M.Stage.empty() && (!M.StopAfter.empty() || !M.StopBefore.empty()))
    return support::usageError(std::string("--mir-stage and ") +
                               (M.StopAfter.empty() ? "--stop-before" : "--stop-after") +
                               ": name one stop point");
  if (!M.StopAfter.empty())
    O.Stop = {M.StopAfter, true};
  else if (!M.StopBefore.empty())
    O.Stop = {M.StopBefore, false};
  else {
    auto S = mir::parseMirStage(M.Stage.empty() ? "post-ra" : M.Stage);
    if (!S)
      return S.takeError();
    O.Stop = *S;
  }
  auto W = mir::MirWeights::parse(M.OpcWeight, M.CommonWeight, M.RegWeight);
  if (!W)
    return W.takeError();
  O.Weights = *W;
  return O;
}

llvm::Expected<mir::MirJob> mirJob(const MirOptions &M, const std::vector<std::string> &Inputs,
                                   const std::string &Output) {
  if (Inputs.size() > 1)
    return support::usageError("this --mode=mir command takes one input, a .mir file or an IR module (" +
                               std::to_string(Inputs.size()) + " given; `embeddings` takes many)");
  auto O = mirRunOptions(M);
  if (!O)
    return O.takeError();
  mir::MirJob J;
  if (!Inputs.empty())
    J.Input = Inputs.front();
  J.Output = Output;
  J.Target = O->Target;
  J.Stop = O->Stop;
  return J;
}

void addTripletCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx) {
  auto E = std::make_shared<EntitiesOptions>();
  CLI::App *Entities = addCommand(
      App, Cmds, "entities",
      "Print the 110 vocabulary entities (name<TAB>id), as llvm-ir2vec entities", simpleExits());
  addOutput(*Entities, E->Output, "Output file", /*Stdout=*/true);
  addMode(*Entities, E->Mode);
  Entities->add_option("input", E->Inputs,
                       "LLVM IR: ignored (accepted as llvm-ir2vec accepts it). --mode=mir: a .mir "
                       "file whose target's entities to print (without one: --mtriple's target)")
      ->type_name("[INPUT]");
  addMirTargetOptions(*Entities, E->Mir);
  setRun(Cmds, Entities, [&Ctx, E] {
    support::Reporter R = Ctx.reporter(ToolName, false);
    return finish(R, simpleExits(), runEntities(*E, R));
  });

  auto T = std::make_shared<TripletsOptions>();
  CLI::App *Triplets = addCommand(
      App, Cmds, "triplets", "Print knowledge-graph triplets of modules, as llvm-ir2vec triplets",
      batchExits());
  addOutput(*Triplets, T->Output,
            "Output file ('-' = standard output), or the directory with --format openke "
            "(created when its parent exists)",
            /*Stdout=*/false);
  addMode(*Triplets, T->Mode);
  addQuiet(*Triplets, T->Quiet, "No warnings, progress line or coverage summary");
  addJobs(*Triplets, T->Jobs, "Worker threads");
  addModuleTimeLimit(*Triplets, T->ModuleSeconds);
  addInputs(*Triplets, T->Inputs);
  Triplets
      ->add_option("--format", T->Format,
                   "text (llvm-ir2vec's) or openke (-o DIR: train2id.txt, entity2id.txt, "
                   "relation2id.txt as generateTriplets.py writes them, plus "
                   "triplet_counts.txt and manifest.json; docs/formats/triplets-openke.md)")
      ->check(CLI::IsMember({"text", "openke"}));
  Triplets->add_flag("--extended-relations", T->Extended,
                     "Also relate compares to their predicates and instructions to their "
                     "operands' types (an extension; without it the output equals "
                     "llvm-ir2vec's)");
  Triplets
      ->add_option("--opt-levels", T->OptLevels,
                   "With --format openke: run LLVM's default pipelines in-process on each "
                   "module first, as generateTriplets.py does (comma list of O0,O1,O2,O3,Os,Oz; "
                   "default: the modules as they are)")
      ->type_name("LIST");
  Triplets->add_option("--opt-sample", T->OptSample,
                       "Use only K of --opt-levels per module, drawn with --seed (0: all)")
      ->type_name("K");
  Triplets
      ->add_option("--weighting", T->Weighting,
                   "With --format openke: unique (each triplet once in train2id.txt, as "
                   "generateTriplets.py) or frequency (each as often as it occurs)")
      ->check(CLI::IsMember(support::names<vocab::TripletWeighting>(vocab::TripletWeightingNames)));
  Triplets->add_option("--seed", T->Seed, "Seed for --opt-sample");
  addMirTargetOptions(*Triplets, T->Mir);
  setRun(Cmds, Triplets, [&Ctx, T] {
    support::Reporter R = Ctx.reporter(ToolName, T->Quiet);
    return finish(R, batchExits(), runTriplets(*T, R, Ctx));
  });
  setSpreads(Cmds, Triplets, T->RootJobs);
}

} // namespace wb::tool
