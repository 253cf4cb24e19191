// `ir2vec embeddings` and `ir2vec from-counts`: IR2Vec vectors of one module or a corpus, as
// llvm-ir2vec's text or the lossless HDF5 file (ir2vec/EmbeddingBatch.h, ir2vec/FromCounts.h).
#include "tools/ir2vec/Groups.h"

#include "ir2vec/EmbeddingBatch.h"
#include "ir2vec/FromCounts.h"
#include "mir/MirCorpus.h"
#include "corpus/OptPipeline.h"
#include "support/Inputs.h"
#include "ir2vec/EmbeddingChoice.h"

#include <optional>

namespace wb::tool {

namespace {

struct EmbeddingsOptions {
  std::string Output = "-", Mode = "llvm", Kind = "symbolic", Level = "func", Format = "text";
  std::string OptLevel = corpus::NoOptLevel;
  std::string Function;
  std::vector<std::string> Inputs;
  VocabularyOptions Vocab;
  unsigned Precision = 2, Jobs = 0, Compress = 0;
  int RootJobs = -1;
  double ModuleSeconds = corpus::DefaultModuleSeconds;
  bool Counts = false, InstText = false, Resume = false, Quiet = false;
  MirOptions Mir;
};

struct FromCountsOptions {
  std::string Output, Counts;
  VocabularyOptions Vocab;
  unsigned Compress = 0;
  bool Quiet = false;
};

/// The embedding the options name (K: its kind), resolved once, its warnings reported.
llvm::Expected<ir2vec::EmbeddingChoice> resolveVocabulary(const VocabularyOptions &O,
                                                          ir2vec::Kind K,
                                                          const support::Reporter &R) {
  auto W = vocab::Weights::parse(O.OpcWeight, O.TypeWeight, O.ArgWeight);
  if (!W)
    return W.takeError();
  ir2vec::EmbeddingRequest Req = embeddingRequest(O.Path);
  Req.K = K;
  Req.W = *W;
  auto V = ir2vec::EmbeddingChoice::resolve(Req);
  if (V)
    R.warnings(V->warnings());
  return V;
}

llvm::Expected<support::Outcome> runEmbeddings(const EmbeddingsOptions &O,
                                               const support::Reporter &R,
                                               const RunContext &Ctx) {
  ir2vec::EmbeddingJob J;
  auto Mode = ir2vec::parseIRMode(O.Mode);
  if (!Mode)
    return Mode.takeError();
  auto K = ir2vec::parseKind(O.Kind);
  if (!K)
    return K.takeError();
  auto L = ir2vec::parseLevel(O.Level);
  if (!L)
    return L.takeError();
  auto F = ir2vec::parseOutputFormat(O.Format);
  if (!F)
    return F.takeError();
  auto Opt = corpus::parseOptChoice(O.OptLevel);
  if (!Opt)
    return support::usageError("--opt-level: " + llvm::toString(Opt.takeError()));
  const bool Mir = *Mode == ir2vec::IRMode::MIR;
  if (Mir)
    if (llvm::Error E = refuseForMir({{O.Counts, "--counts"},
                                      {!O.Vocab.Path.empty(), "--ir2vec-vocab-path"},
                                      {O.Kind != "symbolic", "--ir2vec-kind"},
                                      {!O.Vocab.givenWeight().empty(), O.Vocab.givenWeight()}}))
      return E;
  J.EmbeddingKind = J.Header.EmbeddingKind = *K;
  J.Granularity = J.Header.Granularity = *L;
  J.Format = *F;
  if (!O.Function.empty())
    J.FunctionName = O.Function;
  J.Precision = O.Precision;
  J.Output = O.Output;
  J.Compress = O.Compress;
  J.Resume = O.Resume;
  J.Header.Counts = O.Counts;
  J.Header.InstructionText = O.InstText;
  J.Header.Opt = *Opt;
  if (llvm::Error E = J.validate()) // before any file is read
    return E;
  std::optional<mir::MirRunOptions> MirRun;
  if (Mir) {
    auto M = mirRunOptions(O.Mir);
    if (!M)
      return M.takeError();
    MirRun = std::move(*M);
    MirRun->Opt = *Opt;
  }
  auto Inputs = commandInputs(O.Inputs, Ctx, R, Mir);
  if (!Inputs)
    return Inputs.takeError();
  const std::string &VocabFile = Mir ? O.Mir.VocabPath : O.Vocab.Path;
  if (llvm::Error E = checkOutputs({O.Output}, *Inputs, listFiles(O.Inputs, {VocabFile})))
    return E;
  J.Inputs = std::move(*Inputs);
  ir2vec::EmbeddingChoice V;
  std::unique_ptr<mir::MirSource> Source;
  if (Mir) {
    auto S = mir::MirSource::create(*MirRun, J.Inputs, R.handler());
    if (!S)
      return S.takeError();
    Source = std::move(*S);
    J.Source = &Source->source();
    J.Header = Source->header(*L);
    J.Header.InstructionText = O.InstText;
  } else if (O.Counts) {
    J.Vocab = &ir2vec::countingVocabulary();
    J.Header.Dimension = J.Vocab->dimension();
  } else {
    auto Resolved = resolveVocabulary(O.Vocab, *K, R);
    if (!Resolved)
      return Resolved.takeError();
    V = std::move(*Resolved);
    J.Vocab = &V.vocabulary();
    J.Header.W = V.weights();
    J.Header.VocabSHA256 = V.vocabularySHA256();
    J.Header.Dimension = J.Vocab->dimension();
  }
  return ir2vec::runEmbeddings(J, batchIO(R, O.Jobs, O.ModuleSeconds,
                                          Ctx.distribution(O.RootJobs)));
}

llvm::Expected<support::Outcome> runFromCounts(const FromCountsOptions &O,
                                               const support::Reporter &R) {
  if (llvm::Error E = checkOutputs({O.Output}, {O.Counts, O.Vocab.Path}))
    return E;
  auto V = resolveVocabulary(O.Vocab, ir2vec::Kind::Symbolic, R);
  if (!V)
    return V.takeError();
  return ir2vec::runFromCounts(O.Counts, V->vocabulary(), V->vocabularySHA256(), O.Output,
                               O.Compress);
}

CLI::Option *addCompress(CLI::App &Sub, unsigned &Compress) {
  return Sub
      .add_option("--compress", Compress,
                  "Deflate level 1-9 for embedding data (smaller file, much slower; 0: none)")
      ->check(CLI::Range(0u, 9u));
}

} // namespace

ir2vec::EmbeddingRequest embeddingRequest(const std::string &Vocab) {
  ir2vec::EmbeddingRequest Req;
  if (!Vocab.empty()) {
    Req.From = ir2vec::VocabSource::File;
    Req.File = Vocab;
  }
  return Req;
}

void addEmbeddingCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx) {
  auto E = std::make_shared<EmbeddingsOptions>();
  CLI::App *Embeddings = addCommand(
      App, Cmds, "embeddings",
      "Embed modules, functions, blocks or instructions of one or many modules",
      batchExits());
  addOutput(*Embeddings, E->Output, "Output file (with --format hdf5: required)",
            /*Stdout=*/true);
  addMode(*Embeddings, E->Mode);
  addVocabularyOptions(*Embeddings, E->Vocab);
  Embeddings
      ->add_option("--ir2vec-kind,--kind", E->Kind, "Embedding kind: symbolic or flow-aware (LLVM 22's), or flow-aware-rd (the IR2Vec paper's: reaching definitions through memory, cycles solved, callees; docs/embeddings.md)")
      ->check(CLI::IsMember(support::names<ir2vec::Kind>(ir2vec::KindNames)));
  Embeddings
      ->add_option("--level", E->Level,
                   "Granularity: inst, bb or func (llvm-ir2vec's), or module (the sum of the "
                   "module's function vectors; HDF5 files have module rows at every level)")
      ->check(CLI::IsMember(support::names<ir2vec::Level>(ir2vec::LevelNames)));
  Embeddings->add_option("--function", E->Function, "Only this function (exact IR name)")
      ->type_name("NAME");
  Embeddings
      ->add_option("--precision", E->Precision,
                   "Text format: digits after the decimal point (llvm-ir2vec prints 2)")
      ->check(CLI::Range(0u, ir2vec::MaxPrecision));
  Embeddings
      ->add_option("--format", E->Format,
                   "text (llvm-ir2vec's) or hdf5 (lossless float64, needs -o; schema in "
                   "docs/formats/embeddings-hdf5.md)")
      ->check(CLI::IsMember(support::names<ir2vec::OutputFormat>(ir2vec::OutputFormatNames)));
  Embeddings
      ->add_option("--opt-level", E->OptLevel,
                   "Run LLVM's default<O?> pipeline on each module first, in-process as opt-22 "
                   "-O? runs it (O0, O1, O2, O3, Os, Oz; none: the modules as they are)")
      ->capture_default_str();
  Embeddings->add_flag("--counts", E->Counts,
                       "With --format hdf5: write vocabulary-independent entity counts instead "
                       "of embeddings (turn them into embeddings with from-counts)");
  Embeddings->add_flag("--inst-text", E->InstText,
                       "With --format hdf5 --level inst: also store each instruction as LLVM "
                       "prints it (instructions/text); printing costs more than parsing");
  Embeddings->add_flag("--resume", E->Resume,
                       "With --format hdf5: continue an interrupted run of the same command "
                       "from its last checkpoint");
  addCompress(*Embeddings, E->Compress);
  addMirTargetOptions(*Embeddings, E->Mir);
  addMirVocabularyOptions(*Embeddings, E->Mir);
  addQuiet(*Embeddings, E->Quiet, "No warnings, progress line or summary");
  addJobs(*Embeddings, E->Jobs, "Worker threads");
  addModuleTimeLimit(*Embeddings, E->ModuleSeconds);
  addInputs(*Embeddings, E->Inputs);
  setRun(Cmds, Embeddings, [&Ctx, E] {
    support::Reporter R = Ctx.reporter(ToolName, E->Quiet);
    return finish(R, batchExits(), runEmbeddings(*E, R, Ctx));
  });
  setSpreads(Cmds, Embeddings, E->RootJobs);

  auto C = std::make_shared<FromCountsOptions>();
  CLI::App *FromCounts = addCommand(
      App, Cmds, "from-counts",
      "Turn an entity-counts file (embeddings --counts) into embeddings with a vocabulary; the "
      "kind and level are the counts file's",
      simpleExits());
  addOutput(*FromCounts, C->Output, "Output embeddings file (HDF5)", /*Stdout=*/false)
      ->required();
  addVocabularyOptions(*FromCounts, C->Vocab);
  addCompress(*FromCounts, C->Compress);
  addQuiet(*FromCounts, C->Quiet, "No warnings");
  FromCounts->add_option("counts", C->Counts, "The counts file (.h5)")->required();
  setRun(Cmds, FromCounts, [&Ctx, C] {
    support::Reporter R = Ctx.reporter(ToolName, C->Quiet);
    return finish(R, simpleExits(), runFromCounts(*C, R));
  });
}

} // namespace wb::tool
