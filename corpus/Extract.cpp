#include "corpus/Extract.h"

#include "corpus/Commands.h"
#include "corpus/OrderedPipeline.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/JSON.h"
#include "support/Process.h"
#include "support/Progress.h"

#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/StringSaver.h"

#include <algorithm>
#include <map>
#include <set>

namespace wb::corpus {

using support::Diagnostic;

namespace {

/// Path relative to Base when it lies below it (both made absolute), else std::nullopt.
std::optional<std::string> relativeTo(llvm::StringRef Path, llvm::StringRef Base) {
  llvm::SmallString<256> P(Path), B(Base);
  if (llvm::sys::fs::make_absolute(P) || llvm::sys::fs::make_absolute(B))
    return std::nullopt;
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  llvm::sys::path::remove_dots(B, /*remove_dot_dot=*/true);
  llvm::StringRef Rest = P.str();
  if (!Rest.consume_front(B.str()))
    return std::nullopt;
  if (!Rest.empty() && !llvm::sys::path::is_separator(Rest.front()))
    return std::nullopt;
  Rest = Rest.ltrim('/');
  if (Rest.empty())
    return std::nullopt;
  return Rest.str();
}

/// Dir, or the first directory above it whose name is not a generic one (src, lib, ...): what
/// names a project.
std::string projectDirectory(std::string Dir) {
  static constexpr llvm::StringLiteral Generic[] = {"src", "source", "sources", "lib", "libs",
                                                    "include", "code"};
  while (llvm::is_contained(Generic, llvm::sys::path::filename(Dir)) &&
         !llvm::sys::path::parent_path(Dir).empty())
    Dir = std::string(llvm::sys::path::parent_path(Dir));
  return Dir;
}

/// The module name of an object: relative to Base, or as written when it is relative and
/// stays below the current directory.
llvm::Expected<std::string> nameOf(llvm::StringRef Object, llvm::StringRef Base,
                                   llvm::StringRef Origin) {
  if (!Base.empty()) {
    if (std::optional<std::string> R = relativeTo(Object, Base))
      return *R;
    return support::fileError(Origin, "object " + Object + " is not below the base directory " +
                                          Base + " (--obj-base-dir)");
  }
  llvm::SmallString<256> P(Object);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/false);
  const bool Escapes = llvm::any_of(llvm::make_range(llvm::sys::path::begin(P),
                                                     llvm::sys::path::end(P)),
                                    [](llvm::StringRef C) { return C == ".."; });
  if (llvm::sys::path::is_absolute(P) || Escapes) {
    if (std::optional<std::string> R = relativeTo(Object, "."))
      return *R;
    return support::fileError(Origin, "object " + Object + " is outside the current directory: "
                                          "name the directory its module names start from with "
                                          "--obj-base-dir");
  }
  return std::string(P);
}

llvm::Error expandDirectory(llvm::StringRef Dir, const std::string &Base,
                            std::vector<ObjectInput> &Out, const support::DiagnosticHandler &Report) {
  auto Found = support::findFiles(Dir, {".o"}, Report);
  if (!Found)
    return Found.takeError();
  if (Found->empty())
    return support::fileError(Dir, "directory holds no .o files");
  std::vector<ObjectInput> Named;
  for (const std::string &F : *Found) {
    auto Name = nameOf(F, Base.empty() ? Dir : llvm::StringRef(Base), Dir);
    if (!Name)
      return Name.takeError();
    Named.push_back({F, *Name});
  }
  // A CMake build directory given as it is: names below it begin with CMake's own directory
  // (CMakeFiles/, or a subdirectory's), which would be the modules' packages; they go under the
  // project's name (the build directory's, or its parent's for a build/ in the source tree).
  if (Base.empty() && llvm::any_of(Named, [](const ObjectInput &O) {
        return llvm::StringRef(O.Name).starts_with("CMakeFiles/") ||
               llvm::StringRef(O.Name).contains("/CMakeFiles/");
      })) {
    llvm::SmallString<256> Abs(Dir);
    llvm::sys::fs::make_absolute(Abs);
    llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    llvm::StringRef Build = Abs.str().rtrim('/');
    const llvm::StringRef Leaf = llvm::sys::path::filename(Build);
    if (Leaf.starts_with("build") || Leaf.starts_with("_build") || Leaf.starts_with("obj"))
      Build = llvm::sys::path::parent_path(Build); // a build directory in the source tree
    const std::string Project = std::string(llvm::sys::path::filename(projectDirectory(Build.str())));
    for (ObjectInput &O : Named)
      O.Name = Project + "/" + O.Name;
  }
  Out.insert(Out.end(), Named.begin(), Named.end());
  return llvm::Error::success();
}

/// compile_commands.json: a JSON array of {"directory", "arguments" | "command", "file",
/// "output"?}. Entries without an object (no "output", no -o) are not compilations to
/// objects and are passed over, as extract_ir does.
llvm::Error expandDatabase(llvm::StringRef Path, const std::string &Base,
                           std::vector<ObjectInput> &Out, const ExtractConfig &C) {
  auto Buf = support::readInput(Path, /*IsText=*/true);
  if (!Buf)
    return support::fileError(Path, "cannot read the compilation database: " +
                                        support::readErrorMessage(Buf.getError()));
  auto J = support::parseJSON((*Buf)->getBuffer());
  if (!J)
    return support::fileError(Path, "invalid JSON: " + llvm::toString(J.takeError()));
  const llvm::json::Array *Entries = J->getAsArray();
  if (!Entries)
    return support::fileError(Path, "expected a JSON array of compile commands");
  size_t Passed = 0;
  struct Entry {
    std::string Object, Directory, Source;
  };
  std::vector<Entry> Found;
  for (size_t I = 0; I < Entries->size(); ++I) {
    const std::string Where = "entry " + std::to_string(I);
    const llvm::json::Object *E = (*Entries)[I].getAsObject();
    std::optional<llvm::StringRef> Dir = E ? E->getString("directory") : std::nullopt;
    if (!Dir)
      return support::fileError(Path, Where + ": expected an object with a \"directory\"");
    std::vector<std::string> Args;
    if (const llvm::json::Array *A = E->getArray("arguments")) {
      for (const llvm::json::Value &V : *A) {
        std::optional<llvm::StringRef> S = V.getAsString();
        if (!S)
          return support::fileError(Path, Where + ": \"arguments\" is not an array of strings");
        Args.push_back(S->str());
      }
    } else if (std::optional<llvm::StringRef> Cmd = E->getString("command")) {
      // The database's "command" is a shell command line: split as a POSIX shell would.
      llvm::BumpPtrAllocator Alloc;
      llvm::StringSaver Saver(Alloc);
      llvm::SmallVector<const char *> Toks;
      llvm::cl::TokenizeGNUCommandLine(*Cmd, Saver, Toks);
      Args.assign(Toks.begin(), Toks.end());
    } else {
      return support::fileError(Path, Where + ": neither \"arguments\" nor \"command\"");
    }
    std::string Obj;
    if (std::optional<llvm::StringRef> O = E->getString("output"))
      Obj = O->str();
    for (size_t K = 0; Obj.empty() && K < Args.size(); ++K)
      if (Args[K] == "-o" && K + 1 < Args.size())
        Obj = Args[K + 1];
      else if (llvm::StringRef(Args[K]).starts_with("-o") && Args[K].size() > 2)
        Obj = Args[K].substr(2);
    if (Obj.empty()) {
      ++Passed;
      continue;
    }
    auto Resolved = [&](llvm::StringRef P) {
      llvm::SmallString<256> Full(*Dir);
      llvm::sys::path::append(Full, P);
      if (llvm::sys::path::is_absolute(P))
        Full = P;
      llvm::sys::path::remove_dots(Full, /*remove_dot_dot=*/true);
      return std::string(Full);
    };
    Found.push_back({Resolved(Obj), Dir->str(), Resolved(E->getString("file").value_or(""))});
  }
  // Without --obj-base-dir a module is named below its build tree, under its project's name:
  // the deepest directory holding the sources compiled in that tree, above any generic name
  // (src/, lib/...). A build tree is an entry's directory with the entries' directories below it
  // (a CMake build gives each subdirectory's targets their own directory). extract_ir names a
  // module below its entry's directory alone: for a CMake build every name began with
  // CMakeFiles/, which became every module's package. A database merging several builds names
  // each build's modules by its own project.
  std::vector<std::string> Trees; // the outermost entry directories
  for (const Entry &F : Found)
    Trees.push_back(F.Directory);
  llvm::sort(Trees);
  Trees.erase(std::unique(Trees.begin(), Trees.end()), Trees.end());
  auto Under = [](llvm::StringRef Dir, llvm::StringRef Tree) {
    return Dir == Tree || Dir.starts_with(Tree.ends_with("/") ? Tree.str() : Tree.str() + "/");
  };
  for (size_t I = 0; I < Trees.size();) // sorted: an outer tree comes before what is below it
    if (I > 0 && Under(Trees[I], Trees[I - 1]))
      Trees.erase(Trees.begin() + I);
    else
      ++I;
  auto TreeOf = [&](const std::string &Dir) {
    return *llvm::find_if(Trees, [&](const std::string &T) { return Under(Dir, T); });
  };
  std::map<std::string, std::vector<std::string>> SourcesOf; // build tree -> sources' directories
  for (const Entry &F : Found)
    if (!F.Source.empty())
      SourcesOf[TreeOf(F.Directory)].push_back(std::string(llvm::sys::path::parent_path(F.Source)));
  auto ProjectOf = [&](const std::string &Tree) {
    std::string Root = support::commonDirectory(SourcesOf[Tree]);
    if (Root.empty() || Root == "/")
      Root = std::string(llvm::sys::path::parent_path(Tree));
    return std::string(llvm::sys::path::filename(projectDirectory(Root)));
  };
  for (const Entry &F : Found) {
    const std::string Tree = TreeOf(F.Directory);
    auto Name = nameOf(F.Object, Base.empty() ? llvm::StringRef(Tree) : llvm::StringRef(Base), Path);
    if (!Name)
      return Name.takeError();
    const std::string Project = Base.empty() ? ProjectOf(Tree) : std::string();
    Out.push_back({F.Object, Project.empty() ? *Name : Project + "/" + *Name});
  }
  if (Passed)
    C.Run.Report({Diagnostic::Note, Path.str() + ": " + std::to_string(Passed) +
                                    " entries name no object (no \"output\", no -o) and were "
                                    "passed over"});
  return llvm::Error::success();
}

bool isDatabase(llvm::StringRef Path) {
  return support::isJSONInput(Path, "compile_commands.json", '[', 64);
}

struct Extracted {
  std::string Bitcode, Command, Error;
  bool FilteredOut = false;
  bool NoBitcode = false; // failed for want of the embedded sections, not for another reason
  bool PassesOff = false; // the recorded command turns LLVM's passes off
};

Extracted extractOne(const ObjectInput &In, const std::optional<llvm::Regex> &Filter,
                     const std::string &OutDir) {
  Extracted X;
  auto Fail = [&](llvm::Error E) {
    X.Error = llvm::toString(std::move(E));
    return std::move(X);
  };
  // Bounded: an input that is a device (/dev/zero) must not grow memory without end.
  auto Buf = support::readInput(In.Path);
  if (!Buf)
    return Fail(support::fileError(In.Path, "cannot read: " +
                                                support::readErrorMessage(Buf.getError())));
  auto Bin = llvm::object::ObjectFile::createObjectFile((*Buf)->getMemBufferRef());
  if (!Bin)
    return Fail(support::fileError(In.Path, "not an object file: " +
                                                llvm::toString(Bin.takeError())));
  std::optional<llvm::StringRef> BC, Cmd;
  for (const llvm::object::SectionRef &Sec : (*Bin)->sections()) {
    llvm::Expected<llvm::StringRef> Name = Sec.getName();
    if (!Name)
      return Fail(support::fileError(In.Path, llvm::toString(Name.takeError())));
    const bool IsBC = *Name == ".llvmbc" || *Name == "__bitcode";
    const bool IsCmd = *Name == ".llvmcmd" || *Name == "__cmdline";
    if (!IsBC && !IsCmd)
      continue;
    llvm::Expected<llvm::StringRef> Data = Sec.getContents();
    if (!Data)
      return Fail(support::fileError(In.Path, "section " + *Name + ": " +
                                                  llvm::toString(Data.takeError())));
    (IsBC ? BC : Cmd) = *Data;
  }
  X.NoBitcode = !BC || !Cmd;
  if (X.NoBitcode)
    return Fail(support::fileError(
        In.Path, std::string("no ") + (!BC ? ".llvmbc" : ".llvmcmd") +
                     " section: the object was not built with -Xclang -fembed-bitcode=all "
                     "(or was assembled from assembly)"));
  if (llvm::identify_magic(*BC) != llvm::file_magic::bitcode)
    return Fail(support::fileError(In.Path, "section .llvmbc does not hold LLVM bitcode"));
  // A linked file (a shared library, an executable) concatenates the sections of the objects it
  // was linked from: several modules, which no single .bc can hold.
  if (llvm::Expected<std::vector<llvm::BitcodeModule>> Mods =
          llvm::getBitcodeModuleList(llvm::MemoryBufferRef(*BC, In.Path));
      !Mods || Mods->size() != 1) {
    const std::string N = Mods ? std::to_string(Mods->size()) : std::string("several");
    if (!Mods)
      llvm::consumeError(Mods.takeError());
    return Fail(support::fileError(
        In.Path, "its .llvmbc holds " + N + " modules: a linked file (a shared library or an "
                 "executable) concatenates those of the objects it was linked from; extract "
                 "the objects instead"));
  }
  auto Args = parseCommand(*Cmd, In.Path + " (section .llvmcmd)");
  if (!Args)
    return Fail(Args.takeError());
  X.PassesOff = llvm::is_contained(*Args, "-disable-llvm-passes");
  if (Filter && std::none_of(Args->begin(), Args->end(),
                             [&](const std::string &A) { return Filter->match(A); })) {
    X.FilteredOut = true;
    return X;
  }
  // Write now (workers run in parallel); the description, written last, lists the module.
  const std::string Stem = support::pathIn(OutDir, In.Name);
  // all_all: the umask decides, as for the files (the default would be 0770 before it).
  if (std::error_code EC = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Stem),
                                                             /*IgnoreExisting=*/true,
                                                             llvm::sys::fs::all_all))
    return Fail(support::fileError(llvm::sys::path::parent_path(Stem), EC.message()));
  for (auto [Ext, Bytes] : {std::pair{".bc", *BC}, std::pair{".cmd", *Cmd}})
    if (llvm::Error E = support::writeFileAtomically(
            Stem + Ext, [&](llvm::raw_ostream &OS) { OS << Bytes; }, support::Within::Directory))
      return Fail(std::move(E));
  return X;
}

} // namespace

llvm::Expected<std::vector<ObjectInput>> expandObjectInputs(const std::vector<std::string> &Args,
                                                            const ExtractConfig &C) {
  const std::string &ObjBaseDir = C.ObjBaseDir;
  std::vector<ObjectInput> Out;
  for (const std::string &A : Args) {
    llvm::Error E = llvm::Error::success();
    if (A.size() > 1 && A[0] == '@') {
      auto Buf = support::readInput(A.substr(1), /*IsText=*/true);
      if (!Buf)
        return support::fileError(A.substr(1), "cannot read input list: " +
                                                   support::readErrorMessage(Buf.getError()));
      llvm::SmallVector<llvm::StringRef> Lines;
      (*Buf)->getBuffer().split(Lines, '\n');
      for (llvm::StringRef L : Lines) {
        L = L.trim();
        if (L.empty() || L.starts_with("#"))
          continue;
        auto Name = nameOf(L, ObjBaseDir, A.substr(1));
        if (!Name)
          return Name.takeError();
        Out.push_back({L.str(), *Name});
      }
    } else if (llvm::sys::fs::is_directory(A)) {
      E = expandDirectory(A, ObjBaseDir, Out, C.Run.Report);
    } else if (isDatabase(A)) {
      E = expandDatabase(A, ObjBaseDir, Out, C);
    } else {
      auto Name = nameOf(A, ObjBaseDir, A);
      if (!Name)
        return Name.takeError();
      Out.push_back({A, *Name});
    }
    if (E)
      return E;
  }
  std::set<std::string> Seen, Packages;
  for (const ObjectInput &O : Out) {
    if (!Seen.insert(O.Name).second)
      return support::fileError(O.Path, "a second object named " + O.Name +
                                            " (module names must be unique in a corpus)");
    Packages.insert(llvm::StringRef(O.Name).split('/').first.str());
  }
  // The split by package (explore, eval, ablate, benchmark) takes a module's package from the
  // first part of its name.
  if (Out.size() > 1 && Packages.size() == 1)
    C.Run.Report({Diagnostic::Note,
                  "all " + std::to_string(Out.size()) + " modules are in one package ('" +
                      *Packages.begin() + "', the first part of their names): a split by package "
                      "needs two or more; extract several projects into one corpus, or name the "
                      "modules from a directory above them with --obj-base-dir"});
  return Out;
}

llvm::Expected<support::Outcome> runExtraction(const std::vector<std::string> &Args,
                                               const ExtractConfig &C) {
  if (C.OutputDir.empty() || C.OutputDir == "-")
    return support::usageError("extract needs an output directory: -o DIR");
  std::optional<llvm::Regex> Filter;
  if (C.CmdFilter) {
    Filter.emplace(*C.CmdFilter, llvm::Regex::NoFlags);
    std::string Why;
    if (!Filter->isValid(Why))
      return support::usageError("--cmd-filter: " + Why);
  }
  auto Objects = expandObjectInputs(Args, C);
  if (!Objects)
    return Objects.takeError();
  if (Objects->empty())
    return support::makeError("no objects to extract");
  // Nothing written may replace an object read (an object named like another's module, in the
  // output directory): every name is checked before any work.
  {
    std::vector<std::string> Outputs{support::pathIn(C.OutputDir, "corpus_description.json")},
        Inputs;
    for (const ObjectInput &O : *Objects) {
      Inputs.push_back(O.Path);
      for (const char *Ext : {".bc", ".cmd"})
        Outputs.push_back(support::pathIn(C.OutputDir, O.Name) + Ext);
    }
    if (llvm::Error E = support::checkOutputsAgainstInputs(Outputs, Inputs, support::Within::Directory))
      return E;
  }
  // A directory made here goes again, with what was extracted into it, unless the run ends
  // with a corpus description.
  llvm::Expected<support::OutputDirectory> Out = support::OutputDirectory::prepare(C.OutputDir);
  if (!Out)
    return Out.takeError();
  const std::string &Dir = Out->path();

  support::Progress Bar("objects", Objects->size(), C.Run.ShowProgress);
  llvm::json::Array Modules;
  size_t Done = 0, Failed = 0, Filtered = 0, NoBitcode = 0;
  bool Warned = false;
  OrderedPipeline<Extracted> Pipe(C.Run.Jobs, 4 * C.Run.Jobs);
  llvm::Error E = Pipe.run(
      0, Objects->size(), [] { return NoState(); },
      [&](size_t I, NoState &) { return extractOne((*Objects)[I], Filter, Dir); },
      [&](size_t I, Extracted &&X) -> llvm::Error {
        if (support::cancelled(C.Run.CancelFd))
          return support::interruptedError("interrupted; no corpus description written");
        ++Done;
        if (!X.Error.empty()) {
          ++Failed;
          NoBitcode += X.NoBitcode;
          Bar.clear();
          C.Run.Report({Diagnostic::Error, X.Error});
        } else if (X.FilteredOut) {
          ++Filtered;
        } else {
          Modules.push_back((*Objects)[I].Name);
          // Said at the first such module, not after a collection that asked nothing.
          if (X.PassesOff && !Warned) {
            Warned = true;
            Bar.clear();
            C.Run.Report({Diagnostic::Warning,
                          (*Objects)[I].Path + ": its recorded command turns LLVM's passes off "
                          "(-disable-llvm-passes: the object was built with the driver's "
                          "-fembed-bitcode, which embeds the bitcode in a second step): replayed, "
                          "such modules run no inliner and MLGO asks nothing; build with -Xclang "
                          "-fembed-bitcode=all instead"});
          }
        }
        Bar.update(Done, std::to_string(Modules.size()) + " modules");
        return llvm::Error::success();
      });
  Bar.clear();
  if (E)
    return E;
  const size_t Kept = Modules.size();
  if (Kept == 0)
    return support::makeError(
        Failed ? "none of the " + std::to_string(Failed) + " objects gave a module (each is "
                 "reported above" +
                     (NoBitcode == Failed ? "; objects need -Xclang -fembed-bitcode=all)" : ")")
               : std::string("--cmd-filter matched no module"));
  const std::string Desc = Out->file("corpus_description.json");
  llvm::json::Object D{{"has_thinlto", false}, {"modules", std::move(Modules)}};
  if (llvm::Error W = support::writeFileAtomically(
          Desc,
          [&](llvm::raw_ostream &OS) {
            OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(D))) << "\n";
          },
          support::Within::Directory))
    return W;
  Out->keep();
  C.Run.Report({Diagnostic::Note,
            llvm::formatv("{0}: {1} modules ({2} filtered out by --cmd-filter, {3} objects "
                          "without embedded bitcode)",
                          Desc, Kept, Filtered, NoBitcode)
                .str()});
  if (Failed)
    return support::Outcome::partial(std::to_string(Failed) + " of " +
                                     std::to_string(Objects->size()) +
                                     " objects were skipped (each is reported)");
  return support::Outcome::complete();
}

} // namespace wb::corpus
