#include "features/Augment.h"

#include "corpus/Batch.h"
#include "corpus/ModuleReader.h"
#include "ir2vec/ModuleEmbedding.h"
#include "mir/MirCorpus.h"
#include "support/Error.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"

#include <cstring>

namespace wb::features {

/// The IR input among the compiler's arguments: the first existing .bc or .ll that is not
/// an option's value (-o FILE is the output, and may exist from an earlier run).
std::string findModule(llvm::ArrayRef<std::string> Command) {
  for (size_t I = 1; I < Command.size(); ++I) {
    llvm::StringRef A = Command[I], Prev = Command[I - 1];
    if (Prev == "-o" || A.starts_with("-"))
      continue;
    if ((A.ends_with(".bc") || A.ends_with(".ll")) && llvm::sys::fs::exists(A))
      return A.str();
  }
  return "";
}

namespace {

/// A D-wide row as the tensor's bytes: float, as LLVM narrows its embeddings for the tensors.
std::string floatBytes(const double *Row, unsigned D) {
  std::string S(D * sizeof(float), '\0');
  for (unsigned I = 0; I < D; ++I) {
    float F = static_cast<float>(Row[I]);
    std::memcpy(S.data() + I * sizeof(float), &F, sizeof(float));
  }
  return S;
}

/// One workbench feature's bytes in a context.
using FeatureBytes = std::function<std::string(llvm::StringRef Context)>;

/// Per function name, its row's bytes; zero for a context that names none.
FeatureBytes byFunction(const ir2vec::ModuleEmbedding &E) {
  auto ByName = std::make_shared<llvm::StringMap<std::string>>();
  for (size_t F = 0; F < E.FunctionNames.size(); ++F)
    (*ByName)[E.FunctionNames[F]] = floatBytes(&E.FunctionVectors[F * E.Dim], E.Dim);
  std::string Zero(E.Dim * sizeof(float), '\0');
  return [ByName, Zero](llvm::StringRef Ctx) {
    auto It = ByName->find(Ctx);
    return It == ByName->end() ? Zero : It->second;
  };
}

/// The IR2Vec vectors of M's functions with the chosen embedding.
llvm::Expected<ir2vec::ModuleEmbedding> embedFunctions(const llvm::Module &M,
                                                       const ir2vec::EmbeddingChoice &Choice) {
  ir2vec::EmbedRequest R;
  R.InstructionText = false;
  R.EmbeddingKind = Choice.kind();
  return ir2vec::embedModule(M, Choice.vocabulary(), R);
}

llvm::Expected<ir2vec::ModuleEmbedding> irFunctionVectors(llvm::StringRef ModulePath,
                                                          const ir2vec::EmbeddingChoice &Choice) {
  // LLVM's reader and verifier crash on some malformed modules: recovered, the run goes on.
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  llvm::Error ReadError = llvm::Error::success();
  ir2vec::ModuleEmbedding E;
  std::optional<std::string> Crash = corpus::runRecoverable([&] {
    llvm::Expected<corpus::ModuleInput> M = corpus::readModule(ModulePath, *Ctx);
    if (!M) {
      ReadError = M.takeError();
      return;
    }
    auto Rows = embedFunctions(*M->M, Choice);
    if (!Rows)
      ReadError = support::prefixError(ModulePath, Rows.takeError());
    else
      E = std::move(*Rows);
  });
  if (Crash) {
    (void)Ctx.release(); // as the crash left it: never destroyed (corpus::ContextSource)
    llvm::consumeError(std::move(ReadError));
    return support::fileError(ModulePath, *Crash);
  }
  if (ReadError)
    return ReadError;
  return E;
}

/// Where a task's workbench features come from: the IR2Vec vectors of the module's functions
/// and the MIR2Vec vectors of its machine functions, each asked for once at most.
struct VectorSources {
  std::function<llvm::Expected<ir2vec::ModuleEmbedding>()> IR, Machine;
};

llvm::Expected<Augmentation> workbenchFeaturesFrom(Task T, const VectorSources &From) {
  std::optional<ir2vec::ModuleEmbedding> IR, Machine;
  Augmentation A;
  std::vector<FeatureBytes> Parts;
  for (const FeatureDef &F : taskInfo(T).Features) {
    if (F.From != Origin::Workbench)
      continue;
    const llvm::StringRef Name = F.Name;
    const bool OfMachine = Name == "machine_function_embedding";
    std::optional<ir2vec::ModuleEmbedding> &E = OfMachine ? Machine : IR;
    if (!E) {
      llvm::Expected<ir2vec::ModuleEmbedding> R = OfMachine ? From.Machine() : From.IR();
      if (!R)
        return R.takeError();
      E = std::move(*R);
    }
    A.Specs.push_back(specOf(F, IR ? IR->Dim : 0, Machine ? Machine->Dim : 0));
    if (Name == "module_embedding") {
      const std::vector<double> Sum = ir2vec::moduleVector(E->FunctionVectors, E->Dim);
      std::string Bytes = floatBytes(Sum.data(), E->Dim);
      Parts.push_back([Bytes](llvm::StringRef) { return Bytes; });
    } else if (Name == "function_embedding" || OfMachine) {
      Parts.push_back(byFunction(*E));
    } else {
      return support::makeError("workbench feature '" + Name + "' has no computation");
    }
  }
  A.Bytes = [Parts](llvm::StringRef Ctx) {
    std::string Out;
    for (const FeatureBytes &P : Parts)
      Out += P(Ctx);
    return Out;
  };
  return A;
}

} // namespace

namespace {
/// The target llc is asked for in a compiler command (-mtriple, -mcpu, -mattr; empty = the
/// module's).
mir::TargetChoice targetOfCommand(llvm::ArrayRef<std::string> Command) {
  // LLVM's options take one or two dashes and the value after '=' or as the next argument.
  auto Value = [&](llvm::StringRef Name) {
    std::string Out;
    for (size_t I = 1; I < Command.size(); ++I) {
      llvm::StringRef A = Command[I];
      if (!A.consume_front("-"))
        continue;
      A.consume_front("-");
      if (A == Name && I + 1 < Command.size())
        Out = Command[I + 1];
      else if (A.consume_front(Name) && A.consume_front("="))
        Out = A.str();
    }
    return Out;
  };
  return {Value("mtriple"), Value("mcpu"), Value("mattr")};
}
} // namespace

llvm::Expected<Augmentation> workbenchFeatures(Task T, llvm::StringRef ModulePath,
                                               const ir2vec::EmbeddingChoice &Choice,
                                               llvm::ArrayRef<std::string> Command) {
  return workbenchFeaturesFrom(
      T, {[&] { return irFunctionVectors(ModulePath, Choice); },
          [&] {
            return mir::machineFunctionVectors(ModulePath.str(), mir::MirStage::PreRA,
                                               targetOfCommand(Command));
          }});
}

llvm::Expected<Augmentation> workbenchFeatures(Task T, const llvm::Module &M,
                                               const ir2vec::EmbeddingChoice &Choice) {
  return workbenchFeaturesFrom(
      T, {[&] { return embedFunctions(M, Choice); },
          []() -> llvm::Expected<ir2vec::ModuleEmbedding> {
            return support::makeError("machine function vectors need the module's file");
          }});
}

Augmenter embeddingAugmenter(Task T, ir2vec::EmbeddingChoice Choice, std::string ModulePath) {
  return [=](llvm::StringRef, llvm::ArrayRef<std::string> Command) -> llvm::Expected<Augmentation> {
    std::string Module = ModulePath.empty() ? findModule(Command) : ModulePath;
    if (Module.empty())
      return support::usageError("--embeddings: no .bc or .ll input found in the compiler "
                                 "command; name the IR file with --module");
    llvm::Expected<Augmentation> A = workbenchFeatures(T, Module, Choice, Command);
    if (!A)
      return A.takeError();
    if (T != Task::Inline)
      return A;
    llvm::Expected<std::string> File = Choice.compilerVocabularyPath();
    if (!File)
      return File.takeError();
    // LLVM 22 needs both: the first only switches the features on, the second is read.
    A->CompilerFlags = {"-ml-inliner-ir2vec-vocab-file=" + *File, "-ir2vec-vocab-path=" + *File};
    return A;
  };
}

} // namespace wb::features
