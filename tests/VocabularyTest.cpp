// Vocabulary loading: values and weights worked out by hand, libLLVM's loader as the oracle,
// and one test per kind of bad vocabulary.
#include "LLVMOracle.h"
#include "vocab/Vocabulary.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

using namespace wb::vocab;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

// A minimal valid vocabulary of dimension 2, with the given extra keys spliced into sections.
std::string tiny(const std::string &Opc, const std::string &Types, const std::string &Args) {
  return "{\"Opcodes\": {" + Opc + "}, \"Types\": {" + Types + "}, \"Arguments\": {" + Args +
         "}}";
}

EntityId idOf(std::string_view Name) {
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    if (entityName(Id) == Name)
      return Id;
  ADD_FAILURE() << "no entity " << Name;
  return 0;
}

std::string errorOf(const std::string &Text, Weights W = {}) {
  auto V = parseVocabularyJSON(Text, "vocab.json", W);
  if (V)
    return "<loaded>";
  return llvm::toString(V.takeError());
}

} // namespace

TEST(Vocabulary, ValuesAndWeightsWorkedOutByHand) {
  auto V = parseVocabularyJSON(tiny(R"("Add": [1, -2], "Ret": [0.5, 4])",
                                    R"("IntegerTy": [2, 8])",
                                    R"("Constant": [1, 10], "ICMP_eq": [5, 0])"),
                               "vocab.json");
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  auto Weighed = Vocabulary::weigh(*V, Weights{});
  ASSERT_TRUE(bool(Weighed)) << llvm::toString(Weighed.takeError());
  const Vocabulary &Vo = *Weighed;
  ASSERT_EQ(Vo.dimension(), 2u);
  // Opcode weight 1.0: unchanged.
  EXPECT_EQ(Vo.row(idOf("Add"))[0], 1.0);
  EXPECT_EQ(Vo.row(idOf("Add"))[1], -2.0);
  EXPECT_EQ(Vo.row(idOf("Ret"))[1], 4.0);
  // Type weight 0.5 (exact in binary): 2 * 0.5 = 1, 8 * 0.5 = 4.
  EXPECT_EQ(Vo.row(idOf("IntegerTy"))[0], 1.0);
  EXPECT_EQ(Vo.row(idOf("IntegerTy"))[1], 4.0);
  // Argument weight 0.2f widened to double is 0.20000000298023224, not 0.2: 10 * that.
  EXPECT_EQ(Vo.row(idOf("Constant"))[0], 0.20000000298023224);
  EXPECT_EQ(Vo.row(idOf("Constant"))[1], 2.0000000298023224);
  EXPECT_NE(Vo.row(idOf("Constant"))[0], 0.2);
  // Predicates live in "Arguments" and take the argument weight: 5 * 0.2f.
  EXPECT_EQ(Vo.row(idOf("ICMP_eq"))[0], 1.0000000149011612);
  // Missing keys are zero rows.
  EXPECT_EQ(Vo.row(idOf("Sub"))[0], 0.0);
  EXPECT_EQ(Vo.row(idOf("FCMP_oeq"))[1], 0.0);
  EXPECT_EQ(V->MissingKeys.size(), NumEntities - 5);
  EXPECT_TRUE(V->UnknownKeys.empty());
}

TEST(Vocabulary, MissingAndUnknownKeysAreReportedInOneShortLine) {
  auto V = parseVocabularyJSON(tiny(R"("Add": [1, 1], "NotAnOpcode": [1, 1])",
                                    R"("IntegerTy": [1, 1], "Label": [0, 0])",
                                    R"("Variable": [1, 1], "Pointer": [0, 0])"),
                               "v.json");
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  EXPECT_THAT(V->UnknownKeys, ::testing::ElementsAre("Opcodes.NotAnOpcode", "Types.Label"));
  EXPECT_THAT(V->MissingKeys, ::testing::Contains("Opcodes.Ret"));
  EXPECT_THAT(V->MissingKeys, ::testing::Contains("Arguments.ICMP_sle"));
  EXPECT_THAT(V->MissingKeys, ::testing::Not(::testing::Contains("Arguments.Pointer")));
  // One line, printed on every run of the vocabulary: the counts and the first names.
  auto W = V->warnings("v.json");
  ASSERT_EQ(W.size(), 1u);
  EXPECT_THAT(W[0], AllOf(HasSubstr("v.json: 106 of 110 entities have no key"),
                          HasSubstr("(Opcodes.Ret, Opcodes.Br, Opcodes.Switch and 103 more)"),
                          HasSubstr("2 keys are not LLVM 22.1.8 IR2Vec entities and ignored "
                                    "(Opcodes.NotAnOpcode, Types.Label)")));
  EXPECT_LT(W[0].size(), 400u);
}

TEST(Vocabulary, TwoVocabulariesWithDifferentWeightsInOneProcess) {
  const std::string Text = tiny(R"("Add": [3, 3])", R"("IntegerTy": [3, 3])",
                                R"("Constant": [3, 3])");
  auto A = parseVocabularyJSON(Text, "a", Weights{1.0f, 0.5f, 0.2f});
  auto B = parseVocabularyJSON(Text, "b", Weights{2.0f, 0.25f, 1.0f});
  ASSERT_TRUE(A && B);
  EXPECT_EQ(A->row(idOf("Add"))[0], 3.0);
  EXPECT_EQ(B->row(idOf("Add"))[0], 6.0);
  EXPECT_EQ(A->row(idOf("IntegerTy"))[0], 1.5);
  EXPECT_EQ(B->row(idOf("IntegerTy"))[0], 0.75);
  EXPECT_EQ(B->row(idOf("Constant"))[0], 3.0);
  EXPECT_EQ(A->weights().Arg, 0.2f);
  EXPECT_EQ(B->weights().Arg, 1.0f);
}

// --- libLLVM's IR2VecVocabAnalysis as the oracle --------------------------------------------

class VocabularyOracle : public ::testing::TestWithParam<Weights> {};

static std::string weightCaseName(const ::testing::TestParamInfo<Weights> &Info) {
  static const char *const Names[] = {"default", "mixed", "negative"};
  return Names[Info.index];
}

static void expectSameAsLLVM(const std::string &Path, Weights W) {
  llvm::LLVMContext Ctx;
  llvm::Module M("m", Ctx);
  llvm::ir2vec::Vocabulary Theirs = wb::test::llvmVocabulary(M, Path, W);
  ASSERT_TRUE(Theirs.isValid());
  auto Ours = readVocabularyJSON(Path, W);
  ASSERT_TRUE(bool(Ours)) << llvm::toString(Ours.takeError());
  ASSERT_EQ(Ours->dimension(), Theirs.getDimension());
  EntityId Id = 0;
  for (const llvm::ir2vec::Embedding &E : Theirs) {
    EXPECT_EQ(wb::test::bitDifference(Ours->rowRef(Id), E.getData()), "")
        << "entity " << entityName(Id);
    ++Id;
  }
  EXPECT_EQ(Id, NumEntities);
}

TEST_P(VocabularyOracle, SeedVocabularyMatchesLLVMBitForBit) {
  expectSameAsLLVM(wb::test::seedVocabularyPath(), GetParam());
}

TEST_P(VocabularyOracle, FullRandomVocabularyMatchesLLVMBitForBit) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("full-vocab", "json", Path));
  wb::test::writeFullRandomVocabulary(std::string(Path), 13, 7);
  expectSameAsLLVM(std::string(Path), GetParam());
  llvm::sys::fs::remove(Path);
}

INSTANTIATE_TEST_SUITE_P(Weights, VocabularyOracle,
                         ::testing::Values(Weights{1.0f, 0.5f, 0.2f}, Weights{0.7f, 1.3f, 0.33f},
                                           Weights{-2.5f, 1e-3f, 3.14159f}),
                         weightCaseName);

// --- bad vocabularies: one test per case, each names file, section, key / place ------------

TEST(VocabularyErrors, UnreadableFile) {
  auto V = readVocabularyJSON("/nonexistent/dir/v.json", Weights{});
  ASSERT_FALSE(bool(V));
  EXPECT_THAT(llvm::toString(V.takeError()),
              AllOf(HasSubstr("/nonexistent/dir/v.json"), HasSubstr("No such file")));
}

TEST(VocabularyErrors, DirectoryInsteadOfFile) {
  auto V = readVocabularyJSON("/", Weights{});
  ASSERT_FALSE(bool(V));
  EXPECT_THAT(llvm::toString(V.takeError()), HasSubstr("cannot read vocabulary file"));
}

TEST(VocabularyErrors, InvalidJSONGivesLineAndColumn) {
  EXPECT_THAT(errorOf("{\n  \"Opcodes\": {\n    \"Add\": [1, 2,]\n"),
              AllOf(HasSubstr("vocab.json:3:"), HasSubstr("invalid JSON")));
}

TEST(VocabularyErrors, RootNotAnObject) {
  EXPECT_THAT(errorOf("[1, 2, 3]"),
              AllOf(HasSubstr("vocab.json"), HasSubstr("top-level"), HasSubstr("an array"),
                    HasSubstr("expected an object")));
}

TEST(VocabularyErrors, MissingSection) {
  EXPECT_THAT(errorOf(R"({"Opcodes": {"Add": [1]}, "Arguments": {"Variable": [1]}})"),
              AllOf(HasSubstr("vocab.json"), HasSubstr("missing section \"Types\"")));
}

TEST(VocabularyErrors, SectionNotAnObject) {
  EXPECT_THAT(errorOf(R"({"Opcodes": [1], "Types": {}, "Arguments": {}})"),
              AllOf(HasSubstr("section \"Opcodes\""), HasSubstr("an array")));
}

TEST(VocabularyErrors, EmptySection) {
  // Undefined behaviour in LLVM 22 (dereferences begin() of an empty map); a clear error here.
  EXPECT_THAT(errorOf(tiny(R"("Add": [1, 2])", "", R"("Variable": [1, 2])")),
              AllOf(HasSubstr("section \"Types\" is empty")));
}

TEST(VocabularyErrors, NonArrayValue) {
  EXPECT_THAT(errorOf(tiny(R"("Add": {"x": 1})", R"("VoidTy": [1, 2])", R"("Variable": [1, 2])")),
              AllOf(HasSubstr("section \"Opcodes\""), HasSubstr("key \"Add\""),
                    HasSubstr("an object"), HasSubstr("expected an array of numbers")));
}

TEST(VocabularyErrors, NonNumericElement) {
  EXPECT_THAT(errorOf(tiny(R"("Add": [1, 2])", R"("VoidTy": [1, "two"])", R"("Variable": [1, 2])")),
              AllOf(HasSubstr("section \"Types\""), HasSubstr("key \"VoidTy\""),
                    HasSubstr("element 1"), HasSubstr("a string"), HasSubstr("expected a number")));
}

TEST(VocabularyErrors, NonFiniteElement) {
  EXPECT_THAT(errorOf(tiny(R"("Add": [1, 2])", R"("VoidTy": [1, 2])", R"("Variable": [1e999, 2])")),
              AllOf(HasSubstr("section \"Arguments\""), HasSubstr("key \"Variable\""),
                    HasSubstr("element 0"), HasSubstr("not finite")));
}

TEST(VocabularyErrors, NonFiniteAfterWeighting) {
  EXPECT_THAT(errorOf(tiny(R"("Add": [1e300, 2])", R"("VoidTy": [1, 2])", R"("Variable": [1, 2])"),
                      Weights{3e38f, 0.5f, 0.2f}),
              AllOf(HasSubstr("vocab.json"), HasSubstr("\"Add\""), HasSubstr("not finite")));
}

TEST(VocabularyErrors, ZeroDimension) {
  EXPECT_THAT(errorOf(tiny(R"("Add": [])", R"("VoidTy": [])", R"("Variable": [])")),
              AllOf(HasSubstr("section \"Opcodes\""), HasSubstr("key \"Add\""),
                    HasSubstr("empty vector")));
}

TEST(VocabularyErrors, RaggedVectors) {
  EXPECT_THAT(errorOf(tiny(R"("Add": [1, 2], "Sub": [1, 2, 3])", R"("VoidTy": [1, 2])",
                           R"("Variable": [1, 2])")),
              AllOf(HasSubstr("section \"Opcodes\""), HasSubstr("key \"Sub\""),
                    HasSubstr("3 elements, expected 2"), HasSubstr("\"Add\"")));
}

TEST(VocabularyErrors, SectionsOfDifferentDimensions) {
  EXPECT_THAT(errorOf(tiny(R"("Add": [1, 2])", R"("VoidTy": [1, 2, 3])", R"("Variable": [1, 2])")),
              AllOf(HasSubstr("different dimensions"), HasSubstr("Opcodes 2"),
                    HasSubstr("Types 3"), HasSubstr("Arguments 2")));
}
