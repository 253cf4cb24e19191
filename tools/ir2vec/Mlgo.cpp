#include "tools/ir2vec/Mlgo.h"
#include "tools/ir2vec/MlgoRun.h"

#include "features/Dataset.h"
#include "features/FeatureSets.h"
#include "features/TrainingLog.h"
#include "runners/Augment.h"
#include "runners/Collect.h"
#include "runners/Models.h"
#include "runners/InteractiveHost.h"
#include "runners/Policies.h"
#include "vocab/Inputs.h"
#include "vocab/IO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace wb::tool {

namespace {

FullHooks fullHooks() {
  FullHooks H;
  H.LoadModel = runners::loadModelPolicy;
  H.Augmenter = [](Task T, std::string V, std::string M, std::vector<std::string> C) {
    return runners::embeddingAugmenter(T, std::move(V), std::move(M), std::move(C));
  };
  return H;
}

constexpr const char *CollectFooter =
    "Exit status:\n"
    "  0  every module was collected\n"
    "  1  nothing usable (bad usage, policy or model, no input, every module failed; no "
    "output file is left behind)\n"
    "  2  some modules failed (each is reported and listed in modules/error); the dataset "
    "holds the others\n"
    "  130 interrupted (no output file)";

int runCollect(const MlgoOptions &O, const CLI::Option *EmbFlag) {
  if (O.Output.empty())
    return fail("collect needs -o DATA.h5");
  llvm::Expected<std::vector<std::string>> Inputs = vocab::expandInputs(O.Inputs);
  if (!Inputs)
    return fail(llvm::toString(Inputs.takeError()));
  if (Inputs->empty())
    return fail("no input modules");
  runners::CollectConfig C;
  C.T = *taskOf(O);
  C.Policy = O.Policy;
  C.Policy.LoadModel = runners::loadModelPolicy;
  C.Bind.ZeroMissing = O.ZeroMissing;
  C.Embeddings = embeddingsOf(O, EmbFlag);
  C.Opt = O.Opt;
  C.Llc = O.Llc;
  C.Jobs = O.Jobs ? O.Jobs : llvm::hardware_concurrency().compute_thread_count();
  C.TimeoutSeconds = O.Timeout;
  C.ShowProgress = !O.Quiet;
  C.Report = [](const std::string &M) { fail(M); };
  C.CancelFd = cancellationFd();
  llvm::Expected<runners::CollectSummary> S = runners::collect(*Inputs, O.Output, C);
  ::close(C.CancelFd);
  if (!S)
    return fail(llvm::toString(S.takeError()));
  if (S->Cancelled)
    return fail("interrupted; no output written", 130);
  if (S->Failed == S->Modules)
    return fail("none of the " + llvm::Twine(S->Modules) + " modules could be collected");
  if (!O.Quiet)
    llvm::errs() << llvm::formatv(
        "{0}: {1} modules, {2} decisions; .text {3} bytes vs baseline {4} ({5} modules the "
        "same size); reward {6:f4}\n",
        MlgoToolName, S->Modules - S->Failed, S->Rows, S->Text, S->BaselineText, S->SameSize,
        features::sizeReward(S->Text, S->BaselineText));
  if (S->Failed) {
    llvm::WithColor::warning(llvm::errs(), MlgoToolName)
        << S->Failed << " of " << S->Modules << " modules failed and were skipped\n";
    return 2;
  }
  return 0;
}

void printValues(llvm::raw_ostream &OS, const features::TensorSpec &S, const char *P) {
  OS << runners::tensorToString(S, llvm::StringRef(P, S.byteSize()));
}

int runLogDump(const MlgoOptions &O) {
  llvm::Expected<features::Log> L = features::readLogFile(O.Inputs.front());
  if (!L)
    return fail(llvm::toString(L.takeError()));
  llvm::raw_ostream &OS = llvm::outs();
  OS << "features " << features::specsJSON(L->Header.Features) << "\n";
  if (L->Header.Score)
    OS << "score " << L->Header.Score->toJSON() << "\n";
  if (L->Header.Advice)
    OS << "advice " << L->Header.Advice->toJSON() << "\n";
  for (const features::LogObservation &Ob : L->Observations) {
    OS << "observation \"" << Ob.Context << "\" " << Ob.Id;
    for (size_t I = 0; I < L->Header.Features.size(); ++I) {
      OS << " " << L->Header.Features[I].Name << "=";
      printValues(OS, L->Header.Features[I], Ob.Payload.data() + L->Header.offsetOf(I));
    }
    if (Ob.Score) {
      OS << " score=";
      printValues(OS, *L->Header.Score, Ob.Score->data());
    }
    OS << "\n";
  }
  return 0;
}

int runLogRewrite(const MlgoOptions &O) {
  llvm::Expected<features::Log> L = features::readLogFile(O.Inputs.front());
  if (!L)
    return fail(llvm::toString(L.takeError()));
  if (llvm::Error E = vocab::writeFileAtomically(
          O.Output.empty() ? "-" : O.Output,
          [&](llvm::raw_ostream &OS) { features::writeLog(OS, *L); }))
    return fail(llvm::toString(std::move(E)));
  return 0;
}

int runLogExport(const MlgoOptions &O) {
  if (O.Output.empty())
    return fail("export needs -o DATA.h5");
  features::DatasetBuilder DS(*taskOf(O), "log");
  const features::TensorSpec &Advice = features::taskInfo(*taskOf(O)).Advice;
  for (const std::string &P : O.Inputs) {
    llvm::Expected<features::Log> L = features::readLogFile(P);
    if (!L)
      return fail(llvm::toString(L.takeError()));
    if (L->Header.Features.empty() || L->Header.Features.back() != Advice)
      return fail(P + ": not a session log: the last feature must be the decision '" +
                  Advice.Name + "' " + features::shapeString(Advice));
    features::DatasetModule M;
    M.Path = P;
    if (llvm::Error E = DS.add(M, *L))
      return fail(llvm::toString(std::move(E)));
  }
  if (llvm::Error E = DS.write(O.Output))
    return fail(llvm::toString(std::move(E)));
  return 0;
}

int runFeatures(const MlgoOptions &O) {
  const features::TaskInfo &T = features::taskInfo(*taskOf(O));
  llvm::raw_ostream &OS = llvm::outs();
  OS << "| row | name | type | shape | origin | meaning |\n|---|---|---|---|---|---|\n";
  size_t I = 0;
  for (const features::FeatureDef &F : T.Features) {
    std::string Shape = "[";
    for (size_t J = 0; J < F.Shape.size(); ++J)
      Shape += (J ? "," : "") +
               (F.Shape[J] == features::DimD ? std::string("D") : std::to_string(F.Shape[J]));
    Shape += "]";
    const char *Origin = F.From == features::Origin::Compiler           ? "compiler"
                         : F.From == features::Origin::CompilerOptional ? "compiler, optional"
                                                                         : "workbench";
    OS << "| " << I++ << " | `" << F.Name << "` | " << features::typeName(F.Type) << " | "
       << Shape << " | " << Origin << " | " << F.Doc << " |\n";
  }
  OS << "\nadvice: `" << T.Advice.Name << "` " << features::shapeString(T.Advice) << "\n";
  return 0;
}

} // namespace

std::function<int()> addMlgoCommands(CLI::App &App, std::vector<std::string> Compiler) {
  auto O = std::make_shared<MlgoOptions>();
  O->Command = std::move(Compiler);
  CLI::App *M = App.add_subcommand("mlgo", "MLGO runtime: drive opt/llc/clang 22 in interactive "
                                           "mode, collect datasets, read and write logs");
  M->require_subcommand(1);
  auto [Run, EmbRun] = addRunCommand(*M, *O);
  CLI::App *Collect = M->add_subcommand(
      "collect", "Collect a dataset over a corpus: -Oz under the host and with the default "
                 "heuristic, .text sizes, rewards");
  CLI::App *Log = M->add_subcommand("log", "Training logs: dump, rewrite, export to HDF5");
  Log->require_subcommand(1);
  CLI::App *Dump = Log->add_subcommand("dump", "Print a log's records as text");
  CLI::App *Rewrite = Log->add_subcommand(
      "rewrite", "Parse a log and write it again (byte-identical for a valid log)");
  CLI::App *Export =
      Log->add_subcommand("export", "Turn session logs into an HDF5 dataset "
                                    "(ir2vec.mlgo-dataset/1, without rewards)");
  CLI::App *Features = M->add_subcommand(
      "features", "Print a task's feature table (compiler features and workbench extras)");

  for (CLI::App *Sub : {Collect, Export, Features})
    addTaskOption(*Sub, *O);
  CLI::Option *EmbCollect = addPolicyOptions(*Collect, *O);
  Collect->add_option("-o", O->Output, "Output dataset (HDF5, ir2vec.mlgo-dataset/1)")
      ->type_name("FILE");
  Collect->add_option("-j,--jobs", O->Jobs, "Modules in parallel (default: hardware threads)")
      ->check(CLI::Range(1u, 1024u));
  Collect->add_option("--opt", O->Opt, "The opt to run (default opt-22)");
  Collect->add_option("--llc", O->Llc, "The llc that compiles to an object (default llc-22)");
  Collect->add_option("inputs", O->Inputs,
                      "Modules: files, directories, @LIST files, corpus_description.json")
      ->required();
  Collect->footer(CollectFooter);
  for (CLI::App *Sub : {Dump, Rewrite})
    Sub->add_option("log", O->Inputs, "Log file ('-' = standard input)")->required()->expected(1);
  Rewrite->add_option("-o", O->Output, "Output file (default: standard output)");
  Export->add_option("logs", O->Inputs, "Session logs (ir2vec mlgo run --log)")->required();
  Export->add_option("-o", O->Output, "Output dataset (HDF5)")->type_name("FILE");

  return [=]() -> int {
    if (Run->parsed()) {
      if (O->Command.empty())
        return fail("mlgo run needs the compiler command after '--'", 125);
      return runRun(*O, EmbRun, fullHooks());
    }
    if (!O->Command.empty())
      return fail("unexpected arguments after '--'");
    if (Collect->parsed())
      return runCollect(*O, EmbCollect);
    if (Dump->parsed())
      return runLogDump(*O);
    if (Rewrite->parsed())
      return runLogRewrite(*O);
    if (Export->parsed())
      return runLogExport(*O);
    return runFeatures(*O);
  };
}

} // namespace wb::tool
