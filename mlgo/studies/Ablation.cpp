#include "mlgo/studies/AblationSteps.h"

#include "support/Files.h"
#include "support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <chrono>

namespace wb::mlgo {

using support::Diagnostic;
using Clock = std::chrono::steady_clock;

llvm::Expected<AblationResult> runAblationStudy(const AblationSpec &Spec, const Prepared &P,
                                                const std::string &Dir) {
  if (Spec.T == features::Task::Evict)
    return runEvictStudy(Spec, P, Dir);
  const auto Start = Clock::now();
  llvm::Expected<ArmsResult> Arms = runArms(Spec, P, Dir);
  if (!Arms)
    return Arms.takeError();
  AblationResult Res;
  static_cast<ArmsResult &>(Res) = std::move(*Arms);
  Res.Spec = Spec;
  conclude(Res, Start);
  return Res;
}

llvm::Error checkStudyOutputs(const std::string &Dir, const std::vector<std::string> &Names,
                              const CorpusPlan &Plan, const Prepared &P,
                              const std::vector<std::string> &Extra) {
  std::vector<std::string> Outputs;
  for (const std::string &N : Names) {
    // The explorations are written by the exploration's own output rules, which follow a
    // link: a link there would send a run's exploration onto the file it names.
    if ((N == "exploration.h5" || N == "heldout.h5") &&
        llvm::sys::fs::is_symlink_file(support::pathIn(Dir, N)))
      return support::fileError(support::pathIn(Dir, N),
                                "a link inside the output directory, where the run writes its "
                                "exploration: remove the link or choose another -o");
    Outputs.push_back(support::pathIn(Dir, N));
    if (auto T = support::resolveOutput(Outputs.back(), support::Within::Directory); !T)
      return T.takeError();
  }
  const std::vector<std::string> Inputs = inputsOf(Plan, P, Extra);
  if (llvm::Error E = support::checkOutputsAgainstInputs(Outputs, Inputs, support::Within::Directory))
    return E;
  // The models the study writes are replaced whatever their names: no input may live there.
  llvm::SmallString<256> Models;
  if (!llvm::sys::fs::real_path(support::pathIn(Dir, "models"), Models))
    for (const std::string &In : Inputs) {
      llvm::SmallString<256> Real;
      if (!llvm::sys::fs::real_path(In, Real) && llvm::StringRef(Real).starts_with(Models.str().str() + "/"))
        return support::fileError(In, "an input of the run inside its models directory " +
                                          Models.str() + ", which the run rewrites: move it out "
                                          "or choose another -o");
    }
  return llvm::Error::success();
}

llvm::Expected<StudyDirs> prepareStudyDirs(const std::string &Dir) {
  llvm::Expected<support::OutputDirectory> Out = support::OutputDirectory::prepare(Dir);
  if (!Out)
    return Out.takeError();
  llvm::Expected<support::OutputState> Lock = support::OutputState::acquire(Out->file("study"));
  if (!Lock) // "DIR/study: another run (pid N) is writing this output; ..."
    return Lock.takeError();
  llvm::Expected<support::OutputDirectory> Models =
      support::OutputDirectory::prepare(Out->file("models"));
  if (!Models)
    return Models.takeError();
  return StudyDirs{std::move(*Out), std::move(*Models), std::move(*Lock)};
}

llvm::Expected<support::Outcome> runAblation(const AblationSpec &Spec, const std::string &Dir,
                                             const AblationConfig &C) {
  if (Dir.empty() || Dir == "-")
    return support::usageError("ablate needs an output directory: -o DIR");
  llvm::Expected<StudyDirs> Dirs = prepareStudyDirs(Dir);
  if (!Dirs)
    return Dirs.takeError();
  support::OutputDirectory *Out = &Dirs->Out, *ModelsDir = &Dirs->Models;
  // The corpus, its split and folds, checked before anything is written: a spec that cannot
  // run leaves no output directory behind.
  llvm::Expected<Prepared> P = prepare(Spec.plan(), C);
  if (!P)
    return P.takeError();
  if (llvm::Error E = checkStudyOutputs(Dir, {"report.json", "results.h5", "report.md",
                                              "exploration.h5", "heldout.h5", "reduction.dat",
                                              "importance.dat", "plots.gp", "reduction.png",
                                              "reduction.svg", "importance.png", "importance.svg"},
                                        Spec.plan(), *P, {Spec.Path}))
    return E;
  // From here on the study writes what a rerun reuses (its explorations): the directory stays.
  // Its models stay when it is interrupted (the message says where they are) or done; a study
  // that failed leaves none.
  Out->keep();
  llvm::Expected<AblationResult> R = runAblationStudy(Spec, *P, Dir);
  if (!R) {
    llvm::Error E = R.takeError();
    if (support::isInterruption(E))
      ModelsDir->keep();
    return E;
  }
  ModelsDir->keep();
  std::string ReportText;
  llvm::raw_string_ostream(ReportText) << llvm::formatv("{0:2}", llvm::json::Value(ablationJSON(*R)));
  if (llvm::Error E = support::writeFileAtomically(support::pathIn(Dir, "report.json"),
                                                   [&](llvm::raw_ostream &OS) { OS << ReportText << "\n"; }))
    return E;
  if (llvm::Error E = writeAblationHDF5(*R, ReportText, support::pathIn(Dir, "results.h5")))
    return E;
  if (llvm::Error E = drawAblationPlots(*R, C.Gnuplot, C.Run.CancelFd))
    return E;
  if (llvm::Error E = writeAblationMarkdown(*R, support::pathIn(Dir, "report.md")))
    return E;
  C.Run.Report({Diagnostic::Note, "wrote " + support::pathIn(Dir, "report.md") + " (" +
                                      llvm::formatv("{0:f0}", R->Seconds).str() + " s, " +
                                      std::to_string(R->Compilations) + " compilations)"});
  if (R->Failed)
    return support::Outcome::partial(std::to_string(R->Failed) +
                                     " evaluations of judged modules failed (each reported)");
  return support::Outcome::complete();
}

std::string armEmbeddingName(const AblationArm &A) {
  std::string Name = llvm::sys::path::filename(embeddingSpelling(A.Vocab)).str();
  if (A.Vocab && A.Vocab.kind() != ir2vec::Kind::Symbolic)
    Name += " (" + ir2vec::kindName(A.Vocab.kind()).str() + ")";
  return Name;
}

} // namespace wb::mlgo
