#include "LLVMOracle.h"

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>

namespace wb::test {

llvm::ir2vec::Vocabulary llvmVocabulary(llvm::Module &M, const std::string &Path,
                                        vocab::Weights W) {
  auto &Opts = llvm::cl::getRegisteredOptions();
  static_cast<llvm::cl::opt<std::string> *>(Opts["ir2vec-vocab-path"])->setValue(Path);
  llvm::ir2vec::OpcWeight = W.Opcode;
  llvm::ir2vec::TypeWeight = W.Type;
  llvm::ir2vec::ArgWeight = W.Arg;
  llvm::ModuleAnalysisManager MAM;
  return llvm::IR2VecVocabAnalysis().run(M, MAM);
}

std::string bitDifference(llvm::ArrayRef<double> Ours, llvm::ArrayRef<double> Theirs) {
  if (Ours.size() != Theirs.size())
    return "dimension " + std::to_string(Ours.size()) + " vs " + std::to_string(Theirs.size());
  for (size_t I = 0; I < Ours.size(); ++I)
    if (std::memcmp(&Ours[I], &Theirs[I], sizeof(double)) != 0) {
      char Buf[160];
      std::snprintf(Buf, sizeof Buf, "element %zu: ours %.17g, LLVM %.17g", I, Ours[I],
                    Theirs[I]);
      return Buf;
    }
  return "";
}

std::string writeFullRandomVocabulary(const std::string &Path, unsigned Dim, unsigned Seed) {
  std::mt19937 Rng(Seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::string Sections[3];
  for (vocab::EntityId Id = 0; Id < vocab::NumEntities; ++Id) {
    std::string_view Sec = vocab::jsonSectionOf(Id);
    std::string &S = Sections[Sec == "Opcodes" ? 0 : Sec == "Types" ? 1 : 2];
    if (!S.empty())
      S += ",\n";
    S += "    \"" + std::string(vocab::entityName(Id)) + "\": [";
    for (unsigned D = 0; D < Dim; ++D) {
      char Buf[40];
      std::snprintf(Buf, sizeof Buf, "%s%.12g", D ? ", " : "", U(Rng));
      S += Buf;
    }
    S += "]";
  }
  std::ofstream Out(Path);
  Out << "{\n  \"Opcodes\": {\n" << Sections[0] << "\n  },\n  \"Types\": {\n" << Sections[1]
      << "\n  },\n  \"Arguments\": {\n" << Sections[2] << "\n  }\n}\n";
  return Path;
}

std::string seedVocabularyPath() { return WB_SEED_VOCAB; }
std::string testDataPath(const std::string &Name) { return std::string(WB_TEST_DATA) + "/" + Name; }

} // namespace wb::test
