// MLGO runtime units against oracles: libLLVM-22's own TensorSpec and training Logger, the
// worked example of the format description (../shared/docs/mlgo-interfaces-llvm22.md §3,
// typed in from its hex dump), and values worked out by hand.
#include "features/FeatureSets.h"
#include "features/RegallocScore.h"
#include "features/TensorSpec.h"
#include "features/TrainingLog.h"
#include "runners/ModelRunner.h"
#include "runners/Models.h"
#include "runners/Policies.h"

#include "corpus/H5.h"
#include "support/Error.h"

#include "llvm/Analysis/InlineModelFeatureMaps.h"
#include "llvm/Analysis/MLInlineAdvisor.h"
#include "llvm/Analysis/TensorSpec.h"
#include "llvm/Analysis/Utils/TrainingLogger.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace wb;
using features::TensorSpec;
using features::TensorType;

namespace {

std::string llvmSpecJSON(const llvm::TensorSpec &S) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  llvm::json::OStream J(OS);
  S.toJSON(J);
  return Out;
}

template <typename T> std::string bytesOf(std::initializer_list<T> V) {
  std::string S;
  for (T X : V)
    S.append(reinterpret_cast<const char *>(&X), sizeof(T));
  return S;
}

TEST(TensorSpec, JSONEqualsLLVMForEveryType) {
  std::vector<int64_t> Shapes[] = {{1}, {1, 33}, {75}, {}};
  int N = 0;
  for (const std::vector<int64_t> &Sh : Shapes) {
#define WB_CHECK(C, E)                                                                           \
  {                                                                                              \
    llvm::TensorSpec L = llvm::TensorSpec::createSpec<C>("f_" #E, Sh, 0);                        \
    TensorSpec W{"f_" #E, TensorType::E, 0, Sh};                                                 \
    EXPECT_EQ(W.toJSON(), llvmSpecJSON(L));                                                      \
    EXPECT_EQ(W.byteSize(), L.getTotalTensorBufferSize());                                       \
    EXPECT_EQ(W.elementCount(), L.getElementCount());                                            \
    llvm::Expected<TensorSpec> Back =                                                            \
        features::tensorSpecFromJSON(*llvm::json::parse(W.toJSON()), "x");                       \
    ASSERT_TRUE(bool(Back));                                                                     \
    EXPECT_EQ(*Back, W);                                                                         \
    ++N;                                                                                         \
  }
    WB_TENSOR_TYPES(WB_CHECK)
#undef WB_CHECK
  }
  EXPECT_EQ(N, 40);
}

TEST(TensorSpec, ParseErrorsNameTheProperty) {
  auto Err = [](llvm::StringRef Text) {
    llvm::Expected<TensorSpec> S = features::tensorSpecFromJSON(*llvm::json::parse(Text), "f[0]");
    EXPECT_FALSE(bool(S));
    return S ? std::string() : llvm::toString(S.takeError());
  };
  EXPECT_THAT(Err(R"({"type":"float","port":0,"shape":[1]})"), testing::HasSubstr("'name'"));
  EXPECT_THAT(Err(R"({"name":"a","port":0,"shape":[1]})"), testing::HasSubstr("'type'"));
  EXPECT_THAT(Err(R"({"name":"a","type":"float","shape":[1]})"), testing::HasSubstr("'port'"));
  EXPECT_THAT(Err(R"({"name":"a","type":"float","port":0})"), testing::HasSubstr("'shape'"));
  EXPECT_THAT(Err(R"({"name":"a","type":"int128_t","port":0,"shape":[1]})"),
              testing::HasSubstr("unknown element type 'int128_t'"));
  // Issue 12: shapes whose byte count overflows (2^32 * 2^32 * 8 wraps to 0) or is absurd.
  EXPECT_THAT(Err(R"({"name":"a","type":"int64_t","port":0,"shape":[4294967296,4294967296]})"),
              testing::HasSubstr("is more than 1024 MiB"));
  EXPECT_THAT(Err(R"({"name":"a","type":"float","port":0,"shape":[65536,65536]})"),
              testing::HasSubstr("is more than 1024 MiB"));
  llvm::Expected<TensorSpec> Big = features::tensorSpecFromJSON(
      *llvm::json::parse(R"({"name":"a","type":"int8_t","port":0,"shape":[1024,1024,1024]})"), "f");
  EXPECT_TRUE(bool(Big)) << (Big ? "" : llvm::toString(Big.takeError())); // exactly the limit
}

// Issue 12: the writer's size checks hold in Release builds (they were asserts).
TEST(TrainingLog, WriterRefusesPayloadsOfTheWrongSize) {
  features::LogHeader H;
  H.Features = {{"a", TensorType::Int64, 0, {2}}};
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  features::LogWriter W(OS, H);
  const size_t Header = Out.size();
  EXPECT_THAT(llvm::toString(W.observation(std::string(15, 'x'))), testing::HasSubstr("15 bytes"));
  EXPECT_THAT(llvm::toString(W.outcome(std::string(4, 'x'))), testing::HasSubstr("no score"));
  EXPECT_EQ(Out.size(), Header); // nothing written
  EXPECT_FALSE(bool(W.observation(std::string(16, 'x'))));
}

// Writes the same records through libLLVM's Logger and through ours.
struct Records {
  std::vector<TensorSpec> Features;
  std::optional<TensorSpec> Score, Advice;
  // (context, payload, score) in order; an empty payload = context switch only
  std::vector<std::tuple<std::string, std::string, std::string>> Steps;
};

std::string viaLLVM(const Records &R) {
  std::string Out;
  auto OS = std::make_unique<llvm::raw_string_ostream>(Out);
  auto ToLLVM = [](const TensorSpec &S) {
    llvm::LLVMContext Ctx;
    return *llvm::getTensorSpecFromJSON(Ctx, *llvm::json::parse(S.toJSON()));
  };
  std::vector<llvm::TensorSpec> F;
  for (const TensorSpec &S : R.Features)
    F.push_back(ToLLVM(S));
  std::optional<llvm::TensorSpec> Advice;
  if (R.Advice)
    Advice = ToLLVM(*R.Advice);
  llvm::TensorSpec Reward =
      R.Score ? ToLLVM(*R.Score) : llvm::TensorSpec::createSpec<float>("reward", {1});
  {
    llvm::Logger L(std::move(OS), F, Reward, R.Score.has_value(), Advice);
    std::string Ctx = "\x01";
    for (const auto &[C, P, S] : R.Steps) {
      if (C != Ctx)
        L.switchContext(C), Ctx = C;
      if (P.empty())
        continue;
      L.startObservation();
      size_t Off = 0;
      for (size_t I = 0; I < F.size(); ++I) {
        L.logTensorValue(I, P.data() + Off);
        Off += F[I].getTotalTensorBufferSize();
      }
      L.endObservation();
      if (R.Score)
        L.logReward(*reinterpret_cast<const float *>(S.data()));
    }
    L.flush();
  }
  return Out;
}

std::string viaWorkbench(const Records &R) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  features::LogWriter W(OS, {R.Features, R.Score, R.Advice});
  std::string Ctx = "\x01";
  for (const auto &[C, P, S] : R.Steps) {
    if (C != Ctx)
      W.switchContext(C), Ctx = C;
    if (P.empty())
      continue;
    EXPECT_FALSE(bool(W.observation(P)));
    if (R.Score) {
      EXPECT_FALSE(bool(W.outcome(S)));
    }
  }
  return Out;
}

Records sample(bool WithScore, bool WithAdvice) {
  Records R;
  R.Features = {{"a", TensorType::Int64, 0, {1}}, {"b", TensorType::Float, 0, {2}},
                {"m", TensorType::Int64, 0, {1, 3}}};
  if (WithScore)
    R.Score = TensorSpec{"reward", TensorType::Float, 0, {1}};
  if (WithAdvice)
    R.Advice = TensorSpec{"index_to_evict", TensorType::Int64, 0, {1}};
  auto Obs = [](int64_t A, float B0, float B1, int64_t M) {
    return bytesOf<int64_t>({A}) + bytesOf<float>({B0, B1}) + bytesOf<int64_t>({M, 10, M});
  };
  // Contexts as regalloc sends them: some empty, one revisited (ids keep counting).
  R.Steps = {{"f", Obs(5, 1.5f, -2.0f, 1), bytesOf<float>({0})},
             {"f", Obs(10, 0.25f, 3.0f, 0), bytesOf<float>({0.75f})},
             {"g", "", ""},
             {"h", Obs(0x0a0a, 0, 0, 0x0a), bytesOf<float>({1})},
             {"f", Obs(-1, -0.0f, 1e30f, 7), bytesOf<float>({-2})},
             {"", Obs(3, 3, 3, 3), bytesOf<float>({0})}};
  return R;
}

TEST(TrainingLog, WriterEqualsLLVMLogger) {
  for (bool Score : {false, true})
    for (bool Advice : {false, true}) {
      Records R = sample(Score, Advice);
      std::string L = viaLLVM(R), W = viaWorkbench(R);
      EXPECT_EQ(W, L) << "score " << Score << " advice " << Advice;
      // and the reader gives the same records back, and rewrites them byte for byte
      llvm::Expected<features::Log> P = features::parseLog(L, "llvm");
      ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
      EXPECT_EQ(P->Observations.size(), 5u);
      EXPECT_EQ(P->Contexts.size(), 5u);
      EXPECT_EQ(P->Observations[3].Context, "f");
      EXPECT_EQ(P->Observations[3].Id, 2); // revisited context keeps counting
      std::string Again;
      llvm::raw_string_ostream OS(Again);
      EXPECT_FALSE(bool(features::writeLog(OS, *P)));
      EXPECT_EQ(Again, L);
    }
}

// The 301-byte worked example of the format description, typed in from its hex dump.
const char *WorkedExampleHex =
    "7b226665617475726573223a5b7b226e616d65223a2261222c2274797065223a"
    "22696e7436345f74222c22706f7274223a302c227368617065223a5b315d7d2c"
    "7b226e616d65223a2262222c2274797065223a22666c6f6174222c22706f7274"
    "223a302c227368617065223a5b325d7d5d2c2273636f7265223a7b226e616d65"
    "223a22726577617264222c2274797065223a22666c6f6174222c22706f727422"
    "3a302c227368617065223a5b315d7d7d0a7b22636f6e74657874223a2266227d"
    "0a7b226f62736572766174696f6e223a307d0a05000000000000000000c03f00"
    "0000c00a7b226f7574636f6d65223a307d0a000000000a7b226f627365727661"
    "74696f6e223a317d0a0a000000000000000000803e000040400a7b226f757463"
    "6f6d65223a317d0a0000403f0a";

std::string unhex(llvm::StringRef H) {
  std::string S;
  for (size_t I = 0; I + 1 < H.size(); I += 2)
    S.push_back(static_cast<char>(std::stoi(H.substr(I, 2).str(), nullptr, 16)));
  return S;
}

TEST(TrainingLog, WorkedExampleFromTheFormatDescription) {
  std::string Bytes = unhex(WorkedExampleHex);
  ASSERT_EQ(Bytes.size(), 301u);
  llvm::Expected<features::Log> L = features::parseLog(Bytes, "example");
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  ASSERT_EQ(L->Observations.size(), 2u);
  EXPECT_EQ(L->Observations[0].Payload, bytesOf<int64_t>({5}) + bytesOf<float>({1.5f, -2.0f}));
  EXPECT_EQ(L->Observations[1].Payload, bytesOf<int64_t>({10}) + bytesOf<float>({0.25f, 3.0f}));
  EXPECT_EQ(*L->Observations[0].Score, bytesOf<float>({0.0f}));
  EXPECT_EQ(*L->Observations[1].Score, bytesOf<float>({0.75f}));
  EXPECT_EQ(L->Observations[1].Context, "f");
  // writing the same records gives the same 301 bytes
  Records R;
  R.Features = L->Header.Features;
  R.Score = L->Header.Score;
  R.Steps = {{"f", L->Observations[0].Payload, *L->Observations[0].Score},
             {"f", L->Observations[1].Payload, *L->Observations[1].Score}};
  EXPECT_EQ(viaWorkbench(R), Bytes);
}

TEST(TrainingLog, TruncatedOrCorruptInputGivesTheByteOffset) {
  std::string Bytes = unhex(WorkedExampleHex);
  // every proper prefix that does not end on a record boundary is an error, never a crash
  // (a log may end after an observation whose outcome never came)
  std::set<size_t> Boundaries = {0xb1, 0xc1, 0xe4, 0xf7, 0x11a};
  for (size_t N = 0; N < Bytes.size(); ++N) {
    llvm::Expected<features::Log> L = features::parseLog(Bytes.substr(0, N), "cut");
    if (Boundaries.count(N)) {
      if (!L)
        ADD_FAILURE() << N << ": " << llvm::toString(L.takeError());
      continue;
    }
    ASSERT_FALSE(bool(L)) << "prefix of " << N << " bytes accepted";
    EXPECT_THAT(llvm::toString(L.takeError()), testing::MatchesRegex("cut: byte [0-9]+: .*"));
  }
  // the '\n' after observation 0's 16 payload bytes (offset 0xe3) replaced
  std::string Bad = Bytes;
  Bad[0xe3] = 'x';
  llvm::Expected<features::Log> L = features::parseLog(Bad, "bad");
  ASSERT_FALSE(bool(L));
  EXPECT_THAT(llvm::toString(L.takeError()),
              testing::HasSubstr("bad: byte 227: expected '\\n' after the 16-byte observation"));
  // an outcome id that does not match its observation
  Bad = Bytes;
  Bad[0xef] = '7'; // {"outcome":0} -> {"outcome":7}
  L = features::parseLog(Bad, "bad");
  ASSERT_FALSE(bool(L));
  EXPECT_THAT(llvm::toString(L.takeError()), testing::HasSubstr("outcome 7"));
}

TEST(FeatureSets, TablesMatchTheCompilersHeaders) {
  // The counts and advice as LLVM 22.1.8 sends them (format description §7).
  const features::TaskInfo &I = features::taskInfo(features::Task::Inline);
  size_t Compiler = 0;
  for (const features::FeatureDef &F : I.Features)
    Compiler += F.From == features::Origin::Compiler;
  EXPECT_EQ(Compiler, 38u);
  size_t Bytes = 0;
  for (const features::FeatureDef &F : features::taskInfo(features::Task::Evict).Features)
    if (F.From == features::Origin::Compiler)
      Bytes += features::specOf(F, 0).byteSize();
  EXPECT_EQ(Bytes, 3436u);
  EXPECT_EQ(features::taskInfo(features::Task::Priority).Advice.toJSON(),
            R"({"name":"priority","type":"float","port":0,"shape":[1]})");
}

TEST(FeatureSets, InlinerTableEqualsLLVMsFeatureMapFieldByField) {
  // libLLVM-22's own specs, as MLInlineAdvisor builds them at run time: names, types, shapes
  // and order of the 38 features, the decision and the default decision.
  const std::vector<llvm::TensorSpec> &Map = llvm::MLInlineAdvisor::getInitialFeatureMap();
  std::vector<const features::FeatureDef *> Ours;
  for (const features::FeatureDef &F : features::taskInfo(features::Task::Inline).Features)
    if (F.From == features::Origin::Compiler)
      Ours.push_back(&F);
  ASSERT_EQ(Ours.size(), Map.size());
  for (size_t I = 0; I < Map.size(); ++I) {
    EXPECT_EQ(features::specOf(*Ours[I], 0).toJSON(), llvmSpecJSON(Map[I])) << "row " << I;
    EXPECT_GT(std::strlen(Ours[I]->Doc), 10u) << Ours[I]->Name << ": LLVM's doc string";
  }
  EXPECT_EQ(features::taskInfo(features::Task::Inline).Advice.toJSON(),
            llvmSpecJSON(llvm::InlineDecisionSpec));
  const features::FeatureDef *Default = nullptr;
  for (const features::FeatureDef &F : features::taskInfo(features::Task::Inline).Features)
    if (std::string(F.Name) == llvm::DefaultDecisionName)
      Default = &F;
  ASSERT_NE(Default, nullptr);
  EXPECT_EQ(features::specOf(*Default, 0).toJSON(), llvmSpecJSON(llvm::DefaultDecisionSpec));
}

TEST(FeatureSets, HDF5TypesOfEveryTensorTypeAreHDF5sLittleEndianOnes) {
  // The types derived from each C type of TensorSpec's table against HDF5's predefined ones.
  auto Same = [](const H5::DataType &A, const H5::DataType &B) { return A == B; };
  using P = H5::PredType;
#define WB_CHECK(C, File, Mem)                                                                   \
  EXPECT_TRUE(Same(wb::corpus::h5::fileType<C>(), P::File)) << #C;                               \
  EXPECT_TRUE(Same(wb::corpus::h5::memoryType<C>(), P::Mem)) << #C;
  WB_CHECK(float, IEEE_F32LE, NATIVE_FLOAT)
  WB_CHECK(double, IEEE_F64LE, NATIVE_DOUBLE)
  WB_CHECK(int8_t, STD_I8LE, NATIVE_INT8)
  WB_CHECK(uint8_t, STD_U8LE, NATIVE_UINT8)
  WB_CHECK(int16_t, STD_I16LE, NATIVE_INT16)
  WB_CHECK(uint16_t, STD_U16LE, NATIVE_UINT16)
  WB_CHECK(int32_t, STD_I32LE, NATIVE_INT32)
  WB_CHECK(uint32_t, STD_U32LE, NATIVE_UINT32)
  WB_CHECK(int64_t, STD_I64LE, NATIVE_INT64)
  WB_CHECK(uint64_t, STD_U64LE, NATIVE_UINT64)
#undef WB_CHECK
}

TEST(Policies, TableGivesDefaultsTasksAndTheLaunchersChoice) {
  EXPECT_EQ(*runners::defaultPolicyFor(features::Task::Inline), "default");
  EXPECT_EQ(*runners::defaultPolicyFor(features::Task::Evict), "no-evict");
  auto None = runners::defaultPolicyFor(features::Task::Priority);
  ASSERT_FALSE(bool(None));
  EXPECT_THAT(llvm::toString(None.takeError()), testing::HasSubstr("no default policy"));
  // The launcher runs what needs nothing beyond LLVM Support; any policy that reads a model
  // file, and any name it does not know, goes to the full tool (which then reports it).
  for (const runners::PolicyInfo &P : runners::policyTable())
    EXPECT_EQ(runners::needsFullTool(P.Name), P.Needs == runners::PolicyNeeds::ModelFile ||
                                                  P.Needs == runners::PolicyNeeds::ShippedModel)
        << P.Name;
  EXPECT_TRUE(runners::needsFullTool("a-policy-added-later"));
  // A policy asked for a task it does not serve is a usage error naming both.
  runners::PolicyOptions O;
  O.Name = "no-evict";
  auto P = runners::makePolicy(features::Task::Inline, O);
  ASSERT_FALSE(bool(P));
  auto [Kind, Msg] = wb::support::describeFailure(P.takeError());
  EXPECT_EQ(Kind, wb::support::FailureKind::Usage);
  EXPECT_THAT(Msg, testing::HasSubstr("'no-evict' is for --task evict"));
  // Without a name, the task's default.
  O.Name = "";
  auto D = runners::makePolicy(features::Task::Inline, O);
  ASSERT_TRUE(bool(D));
  EXPECT_EQ((*D)->describe(), "default");
}

std::vector<TensorSpec> inlinerHeader(bool Embeddings, unsigned D = 8) {
  std::vector<TensorSpec> H;
  for (const features::FeatureDef &F : features::taskInfo(features::Task::Inline).Features)
    if (F.From == features::Origin::Compiler ||
        (Embeddings && F.From == features::Origin::CompilerOptional))
      H.push_back(features::specOf(F, D));
  return H;
}

TEST(FeatureSets, HeaderCheckNamesTheFeature) {
  using features::checkHeader;
  const TensorSpec Advice = features::taskInfo(features::Task::Inline).Advice;
  std::vector<TensorSpec> H = inlinerHeader(true);
  ASSERT_TRUE(bool(checkHeader(features::Task::Inline, H, Advice)));
  // a future feature is accepted and reported
  H.push_back({"future_feature", TensorType::Int64, 0, {1}});
  llvm::Expected<std::vector<std::string>> U = checkHeader(features::Task::Inline, H, Advice);
  ASSERT_TRUE(bool(U));
  EXPECT_THAT(*U, testing::ElementsAre("future_feature"));
  auto Msg = [&](std::vector<TensorSpec> Hd, std::optional<TensorSpec> A) {
    llvm::Expected<std::vector<std::string>> R = checkHeader(features::Task::Inline, Hd, A);
    return R ? std::string() : llvm::toString(R.takeError());
  };
  H = inlinerHeader(false);
  H.erase(H.begin() + 13); // num_loops
  EXPECT_THAT(Msg(H, Advice), testing::HasSubstr("did not send feature 'num_loops'"));
  H = inlinerHeader(false);
  H[3].Type = TensorType::Int32;
  EXPECT_THAT(Msg(H, Advice), testing::HasSubstr("feature 'call_penalty' is int32_t[1]"));
  H = inlinerHeader(true);
  H[39].Shape = {9}; // caller_embedding wider than callee_embedding
  EXPECT_THAT(Msg(H, Advice), testing::HasSubstr("'caller_embedding' is float[9]"));
  EXPECT_THAT(Msg(inlinerHeader(false), std::nullopt), testing::HasSubstr("no advice"));
  TensorSpec Wrong = Advice;
  Wrong.Type = TensorType::Float;
  EXPECT_THAT(Msg(inlinerHeader(false), Wrong), testing::HasSubstr("advice is"));
}

// A policy that records what it was given.
struct Probe : runners::Policy {
  std::vector<TensorSpec> In;
  std::vector<std::vector<double>> *Seen;
  std::vector<TensorSpec> inputs() const override { return In; }
  llvm::Expected<std::string> advise(const runners::Inputs &X) override {
    std::vector<double> V;
    for (size_t I = 0; I < X.size(); ++I)
      for (size_t J = 0; J < X.spec(I).elementCount(); ++J)
        V.push_back(X.at(I, J));
    Seen->push_back(V);
    return bytesOf<int64_t>({1});
  }
  std::string describe() const override { return "probe"; }
};

std::string inlinerPayload(const std::vector<TensorSpec> &H) {
  // feature i holds value i+1 in every element
  std::string P;
  for (size_t I = 0; I < H.size(); ++I)
    for (size_t J = 0; J < H[I].elementCount(); ++J) {
      if (H[I].Type == TensorType::Float)
        P += bytesOf<float>({float(I + 1)});
      else
        P += bytesOf<int64_t>({int64_t(I + 1)});
    }
  return P;
}

TEST(Versioning, FewerMoreAndMissingFeatures) {
  const TensorSpec Advice = features::taskInfo(features::Task::Inline).Advice;
  std::vector<std::vector<double>> Seen;
  auto Make = [&](std::vector<TensorSpec> In, std::vector<TensorSpec> Avail, bool Zero) {
    auto P = std::make_unique<Probe>();
    P->In = std::move(In);
    P->Seen = &Seen;
    return runners::ModelRunner::create(std::move(P), features::Task::Inline, Avail, Advice,
                                        {Zero});
  };
  std::vector<TensorSpec> H38 = inlinerHeader(false), H40 = inlinerHeader(true, 4);
  TensorSpec NumLoops = H38[13], CalleeEmb = H40[38];
  // fewer: the model knows 2 of 38; the other 36 are ignored
  llvm::Expected<runners::ModelRunner> R = Make({H38[24], NumLoops}, H38, false);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->ignored().size(), 36u);
  ASSERT_TRUE(bool(R->evaluate(inlinerPayload(H38))));
  EXPECT_THAT(Seen.back(), testing::ElementsAre(25, 14)); // threshold (idx 24), num_loops (13)
  // more: a 38-feature model under a 40-feature compiler
  R = Make(H38, H40, false);
  ASSERT_TRUE(bool(R));
  EXPECT_THAT(R->ignored(),
              testing::ElementsAre("callee_embedding", "caller_embedding", "inlining_default"));
  ASSERT_TRUE(bool(R->evaluate(inlinerPayload(H40))));
  EXPECT_EQ(Seen.back().size(), 38u);
  EXPECT_EQ(Seen.back()[37], 38);
  // missing: an embedding model under a 38-feature compiler
  R = Make({NumLoops, CalleeEmb}, H38, false);
  ASSERT_FALSE(bool(R));
  EXPECT_THAT(llvm::toString(R.takeError()),
              testing::HasSubstr("needs feature 'callee_embedding' (float[4])"));
  R = Make({NumLoops, CalleeEmb}, H38, true);
  ASSERT_TRUE(bool(R));
  EXPECT_THAT(R->zeroFilled(), testing::ElementsAre("callee_embedding"));
  ASSERT_TRUE(bool(R->evaluate(inlinerPayload(H38))));
  EXPECT_THAT(Seen.back(), testing::ElementsAre(14, 0, 0, 0, 0));
  // the embedding model under the 40-feature compiler sees the real values
  R = Make({NumLoops, CalleeEmb}, H40, false);
  ASSERT_TRUE(bool(R));
  ASSERT_TRUE(bool(R->evaluate(inlinerPayload(H40))));
  EXPECT_THAT(Seen.back(), testing::ElementsAre(14, 39, 39, 39, 39));
  // same name, different shape: always an error
  TensorSpec Wide = CalleeEmb;
  Wide.Shape = {75};
  R = Make({Wide}, H40, true);
  ASSERT_FALSE(bool(R));
  EXPECT_THAT(llvm::toString(R.takeError()), testing::HasSubstr("float[75] in the model but float[4]"));
}

std::string tempPath(const char *Name) {
  llvm::SmallString<128> P;
  llvm::sys::fs::createTemporaryFile(Name, "h5", P);
  return P.str().str();
}

TEST(Policies, MLPForwardPassByHand) {
  // inputs: num_loops (x), threshold (y); hidden = relu([1 -1; 2 0] [x y] + [0, -30]);
  // out = [1 -1] hidden - 0.5
  runners::ModelFile M;
  M.ForTask = features::Task::Inline;
  M.Kind = "mlp";
  std::vector<TensorSpec> H = inlinerHeader(false);
  M.Inputs = {H[13], H[24]};
  M.FeatureSet = H;
  M.FeatureSetVersion = features::featureSetVersion(features::Task::Inline, H);
  M.Layers = {{2, 2, {1, -1, 2, 0}, {0, -30}}, {2, 1, {1, -1}, {-0.5}}};
  std::string Path = tempPath("mlp");
  ASSERT_FALSE(bool(runners::writeModelFile(Path, M)));
  runners::PolicyOptions O;
  O.Name = "mlp";
  O.ModelPath = Path;
  O.LoadModel = runners::loadModelPolicy;
  auto P = runners::makePolicy(features::Task::Inline, O);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  auto R = runners::ModelRunner::create(std::move(*P), features::Task::Inline, H,
                                        features::taskInfo(features::Task::Inline).Advice, {});
  ASSERT_TRUE(bool(R));
  auto Decide = [&](int64_t X, int64_t Y) {
    std::string Pl = inlinerPayload(H);
    std::memcpy(Pl.data() + 13 * 8, &X, 8);
    std::memcpy(Pl.data() + 24 * 8, &Y, 8);
    llvm::Expected<std::string> A = R->evaluate(Pl);
    EXPECT_TRUE(bool(A));
    int64_t V;
    std::memcpy(&V, A->data(), 8);
    return V;
  };
  // x=5,y=2: h=relu(3, -20)=(3,0): out 2.5 -> inline
  EXPECT_EQ(Decide(5, 2), 1);
  // x=20,y=2: h=relu(18, 10)=(18,10): out 7.5 -> inline; x=20,y=19: h=(1,10): -9.5 -> no
  EXPECT_EQ(Decide(20, 2), 1);
  EXPECT_EQ(Decide(20, 19), 0);
  // x=0,y=0: h=(0,0): -0.5 -> no
  EXPECT_EQ(Decide(0, 0), 0);
  runners::ModelFile Back = *runners::readModelFile(Path);
  EXPECT_EQ(Back.FeatureSetVersion, M.FeatureSetVersion);
  EXPECT_EQ(Back.Layers[0].Weight, M.Layers[0].Weight);
  llvm::sys::fs::remove(Path);
}

TEST(Policies, EvictionAnswersOnlyLegalColumns) {
  std::vector<TensorSpec> H;
  for (const features::FeatureDef &F : features::taskInfo(features::Task::Evict).Features)
    if (F.From == features::Origin::Compiler)
      H.push_back(features::specOf(F, 0));
  const TensorSpec Advice = features::taskInfo(features::Task::Evict).Advice;
  auto Payload = [&](std::vector<int> Legal) {
    std::string P(3436, '\0');
    for (int C : Legal) {
      int64_t One = 1;
      std::memcpy(P.data() + C * 8, &One, 8);
    }
    return P;
  };
  auto Answer = [&](runners::ModelRunner &R, std::vector<int> Legal) {
    int64_t V;
    std::memcpy(&V, R.evaluate(Payload(Legal))->data(), 8);
    return V;
  };
  runners::PolicyOptions O;
  O.Name = "no-evict";
  auto NoEvict = runners::ModelRunner::create(std::move(*runners::makePolicy(features::Task::Evict, O)),
                                              features::Task::Evict, H, Advice, {});
  ASSERT_TRUE(bool(NoEvict));
  EXPECT_EQ(Answer(*NoEvict, {0, 3, 32}), 32);
  EXPECT_EQ(Answer(*NoEvict, {5, 9}), 5); // "no eviction" illegal: first legal column
  O.Name = "random";
  O.Explore = 1;
  O.Seed = 7;
  auto Rand = runners::ModelRunner::create(std::move(*runners::makePolicy(features::Task::Evict, O)),
                                           features::Task::Evict, H, Advice, {});
  std::set<int64_t> Got;
  for (int I = 0; I < 200; ++I)
    Got.insert(Answer(*Rand, {2, 17, 32}));
  EXPECT_THAT(Got, testing::ElementsAre(2, 17, 32));
  O.Explore = 0;
  Rand = runners::ModelRunner::create(std::move(*runners::makePolicy(features::Task::Evict, O)),
                                      features::Task::Evict, H, Advice, {});
  for (int I = 0; I < 50; ++I)
    EXPECT_EQ(Answer(*Rand, {2, 17, 32}), 32);
}

} // namespace

// ---- policy training ------------------------------------------------------------------------

#include "mlgo/Ablate.h"
#include "mlgo/Split.h"
#include "mlgo/Train.h"

namespace {

TEST(Training, QuantileEdgesAndBucketsByHand) {
  // Values 0, 0, 0, 1, 5: the order statistics at every quantile are 0, 1 or 5, so the unique
  // edges are {0, 1, 5}; x -> #(edges <= x) / 3, fed with its square.
  EXPECT_THAT(mlgo::quantileEdges({5, 0, 1, 0, 0}, 1000), testing::ElementsAre(0, 1, 5));
  EXPECT_THAT(mlgo::quantileEdges({3, 1, 2}, 2), testing::ElementsAre(1, 2, 3));
  runners::Normalization Q;
  Q.K = runners::Normalization::Quantile;
  Q.Edges = {0, 1, 5};
  const std::pair<double, double> Cases[] = {{-1, 0}, {0, 1.0 / 3}, {0.5, 1.0 / 3}, {1, 2.0 / 3},
                                             {3, 2.0 / 3}, {5, 1}, {9, 1}};
  for (auto [X, Want] : Cases) {
    double Out[2];
    EXPECT_EQ(Q.apply(0, X, Out), Out + 2);
    EXPECT_DOUBLE_EQ(Out[0], Want) << X;
    EXPECT_DOUBLE_EQ(Out[1], Want * Want) << X;
  }
  // z-scores per element: (x - mean) / std.
  runners::Normalization Z;
  Z.K = runners::Normalization::ZScore;
  Z.Mean = {1, -2};
  Z.Std = {2, 0.5};
  double Out;
  Z.apply(0, 4, &Out);
  EXPECT_DOUBLE_EQ(Out, 1.5);
  Z.apply(1, -1, &Out);
  EXPECT_DOUBLE_EQ(Out, 2.0);
}

// A dataset of the inliner's feature set whose label is a rule of two features.
features::DatasetTable ruleDataset(size_t Rows) {
  features::DatasetTable D;
  D.T = features::Task::Inline;
  for (const features::FeatureDef &F : features::taskInfo(features::Task::Inline).Features)
    if (F.From != features::Origin::Workbench && std::string(F.Name) != "callee_embedding" &&
        std::string(F.Name) != "caller_embedding")
      D.Features.push_back(features::specOf(F, 0));
  D.Decision = features::taskInfo(features::Task::Inline).Advice;
  D.FeatureSetVersion = features::featureSetVersion(D.T, D.Features);
  D.Columns.resize(D.Features.size());
  D.ModulePaths = {"m"};
  const size_t Users = *D.find("callee_users"), Blocks = *D.find("callee_basic_block_count");
  for (size_t R = 0; R < Rows; ++R) {
    for (size_t F = 0; F < D.Features.size(); ++F) {
      int64_t V = int64_t((R * 7919 + F * 104729) % 97); // arbitrary, reproducible
      D.Columns[F].append(reinterpret_cast<const char *>(&V), 8);
    }
    auto At = [&](size_t F) {
      int64_t V;
      std::memcpy(&V, D.Columns[F].data() + R * 8, 8);
      return V;
    };
    // Inline small callees with few users.
    D.Decisions.push_back(At(Users) < 30 && At(Blocks) < 40);
    D.RowModule.push_back(0);
  }
  return D;
}

TEST(Training, LearnsARuleAndStoresWhatItLearnedFrom) {
  features::DatasetTable D = ruleDataset(2000);
  mlgo::TrainConfig C;
  C.Groups = {"callgraph"};
  C.Epochs = 60;
  mlgo::TrainingReport R;
  auto M = mlgo::trainPolicy(D, C, R);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_GE(R.Accuracy, 0.97);
  EXPECT_EQ(R.Rows, 2000u);
  // The model reads exactly the callgraph group, each with a quantile normalisation.
  EXPECT_EQ(M->Inputs.size(), 13u);
  for (size_t I = 0; I < M->Inputs.size(); ++I)
    EXPECT_EQ(M->norm(I).K, runners::Normalization::Quantile) << M->Inputs[I].Name;
  EXPECT_THAT(M->Groups, testing::ElementsAre("callgraph"));
  // Written and read back, the model predicts the same decisions (training and inference
  // share the input vector and the network).
  std::string Path = tempPath("trained");
  ASSERT_FALSE(bool(runners::writeModelFile(Path, *M)));
  auto Back = runners::readModelFile(Path);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(mlgo::predict(*Back, D), mlgo::predict(*M, D));
  // The same seed gives the same model.
  mlgo::TrainingReport R2;
  auto M2 = mlgo::trainPolicy(D, C, R2);
  ASSERT_TRUE(bool(M2));
  EXPECT_EQ(M2->Layers[0].Weight, M->Layers[0].Weight);
}

TEST(Training, UnknownGroupsAndMissingFeaturesAreErrors) {
  features::DatasetTable D = ruleDataset(10);
  mlgo::TrainConfig C;
  C.Groups = {"callgraph", "nonsense"};
  mlgo::TrainingReport R;
  auto M = mlgo::trainPolicy(D, C, R);
  ASSERT_FALSE(bool(M));
  EXPECT_THAT(llvm::toString(M.takeError()),
              testing::AllOf(testing::HasSubstr("unknown feature group 'nonsense'"),
                             testing::HasSubstr("cost, callgraph, heuristic, embedding, module")));
  C.Groups = {"embedding"};
  M = mlgo::trainPolicy(D, C, R);
  ASSERT_FALSE(bool(M));
  EXPECT_THAT(llvm::toString(M.takeError()), testing::HasSubstr("callee_embedding"));
  features::DatasetTable Empty = ruleDataset(0);
  C.Groups = {"cost"};
  M = mlgo::trainPolicy(Empty, C, R);
  ASSERT_FALSE(bool(M));
  EXPECT_THAT(llvm::toString(M.takeError()), testing::HasSubstr("no training rows"));
}

// Pooled reductions worked out by hand. Arm A, two seeds, three modules with -Oz sizes 100,
// 200, 300 (total 600): seed 1 gives 90, 200, 310 (total 600, reduction 0), seed 2 gives 80,
// 190, 300 (total 570, reduction 0.05): mean 0.025. The reference gives 100, 200, 300 with
// both seeds (reduction 0): difference 0.025. A fourth module failed in one evaluation and is
// left out of every sum.
TEST(Ablation, PooledReductionByHand) {
  auto Evals = [](std::vector<int64_t> Policy) {
    std::vector<mlgo::EvalModule> E;
    const int64_t Base[] = {100, 200, 300, 400};
    for (size_t I = 0; I < 4; ++I)
      E.push_back({"m" + std::to_string(I), "", double(Base[I]), double(Policy[I]), 1, ""});
    return E;
  };
  std::vector<std::vector<mlgo::EvalModule>> A = {Evals({90, 200, 310, 1}), Evals({80, 190, 300, 1})};
  A[1][3].Error = "crashed";
  A[1][3].Policy = -1;
  const std::vector<std::vector<mlgo::EvalModule>> Ref = {Evals({100, 200, 300, 400}),
                                                           Evals({100, 200, 300, 400})};
  const mlgo::PooledReduction P = mlgo::poolReductions(A, Ref, 7, 500);
  EXPECT_NEAR(P.Mean, 0.025, 1e-15);
  EXPECT_NEAR(P.Diff, 0.025, 1e-15);
  EXPECT_LE(P.Low, P.Mean);
  EXPECT_GE(P.High, P.Mean);
  // A resample's reduction per seed is a baseline-weighted mean of module reductions (seed 1:
  // 0.1, 0, -1/30; seed 2: 0.2, 0.05, 0), so the pooled one lies in [-1/60, 0.15].
  EXPECT_GE(P.Low, -1.0 / 60 - 1e-12);
  EXPECT_LE(P.High, 0.15 + 1e-12);
  EXPECT_LT(P.Low, P.High);
  // Against itself the difference is zero in every resample.
  const mlgo::PooledReduction Self = mlgo::poolReductions(A, A, 7, 500);
  EXPECT_EQ(Self.Diff, 0);
  EXPECT_EQ(Self.DiffLow, 0);
  EXPECT_EQ(Self.DiffHigh, 0);
  EXPECT_DOUBLE_EQ(Self.Mean, P.Mean);
}

// Per-package sums and the package bootstrap by hand. Package A: two modules, -Oz 60 + 40,
// policy 54 + 36 (reduction 0.1); package B: two modules, -Oz 50 + 50, policy 50 + 50 (0). A
// package resample is {A,A} (0.1), {B,B} (0) or {A,B} (0.05), each of the extremes with
// probability 1/4, far above 2.5%: the package interval is exactly [0, 0.1]. A failed module
// counts in no package.
TEST(Evaluation, PackagesAndTheirBootstrapByHand) {
  std::vector<mlgo::EvalModule> E = {{"a1", "", 60, 54, 1, "A"}, {"b1", "", 50, 50, 1, "B"},
                                     {"a2", "", 40, 36, 1, "A"}, {"b2", "", 50, 50, 1, "B"},
                                     {"b3", "crashed", 10, -1, 0, "B"}};
  const mlgo::EvalSummary S = mlgo::summarize(E, 3, 1000);
  ASSERT_EQ(S.Packages.size(), 2u);
  EXPECT_EQ(S.Packages[0].Key, "A");
  EXPECT_EQ(S.Packages[0].Modules, 2u);
  EXPECT_EQ(S.Packages[0].BaselineTotal, 100);
  EXPECT_EQ(S.Packages[0].PolicyTotal, 90);
  EXPECT_EQ(S.Packages[0].Shrunk, 2u);
  EXPECT_NEAR(S.Packages[0].Reduction, 0.1, 1e-15);
  EXPECT_EQ(S.Packages[1].Key, "B");
  EXPECT_EQ(S.Packages[1].Modules, 2u);
  EXPECT_EQ(S.Packages[1].Reduction, 0.0);
  EXPECT_NEAR(S.Reduction, 0.05, 1e-15);
  EXPECT_EQ(S.Failed, 1u);
  EXPECT_EQ(S.PackageLow, 0.0);
  EXPECT_NEAR(S.PackageHigh, 0.1, 1e-15);
  // Modules resampled one by one mix the packages: an interval inside [0, 0.1].
  EXPECT_GE(S.Low, 0.0);
  EXPECT_LE(S.High, 0.1 + 1e-15);
  // One package: the package interval is the reduction itself.
  const mlgo::EvalSummary One = mlgo::summarize({E[0], E[2]}, 3, 1000);
  EXPECT_NEAR(One.PackageLow, 0.1, 1e-15);
  EXPECT_NEAR(One.PackageHigh, 0.1, 1e-15);
}

// The worst package and the headroom by hand. Package A: -Oz 60 + 40, policy 54 + 36, best
// found 50 + 30 (headroom 1 - 80/100 = 0.2; captured (100-90)/(100-80) = 0.5); package B:
// -Oz 50 + 50, policy 55 + 50 (reduction -0.05, the worst), best 45 for b1 and unknown for b2
// (headroom over b1 alone: 1 - 45/50 = 0.1, captured (50-55)/(50-45) = -1). The total's
// headroom is over the three modules with a best: 1 - (50+30+45)/(60+40+50) = 1/6, captured
// (150 - (54+36+55)) / (150 - 125) = 5/25 = 0.2.
TEST(Evaluation, WorstPackageAndHeadroomByHand) {
  std::vector<mlgo::EvalModule> E = {{"a1", "", 60, 54, 1, "A", 50}, {"b1", "", 50, 55, 1, "B", 45},
                                     {"a2", "", 40, 36, 1, "A", 30}, {"b2", "", 50, 50, 1, "B"}};
  const mlgo::EvalSummary S = mlgo::summarize(E, 3, 100);
  ASSERT_EQ(S.Packages.size(), 2u);
  ASSERT_EQ(S.Worst, 1);
  EXPECT_NEAR(S.Packages[1].Reduction, -0.05, 1e-15);
  EXPECT_EQ(S.Packages[0].Room.Modules, 2u);
  EXPECT_NEAR(S.Packages[0].Room.Headroom, 0.2, 1e-15);
  EXPECT_NEAR(S.Packages[0].Room.Captured, 0.5, 1e-15);
  EXPECT_EQ(S.Packages[1].Room.Modules, 1u);
  EXPECT_NEAR(S.Packages[1].Room.Headroom, 0.1, 1e-15);
  EXPECT_NEAR(S.Packages[1].Room.Captured, -1.0, 1e-15);
  EXPECT_EQ(S.Room.Modules, 3u);
  EXPECT_NEAR(S.Room.Headroom, 1.0 / 6, 1e-15);
  EXPECT_NEAR(S.Room.Captured, 0.2, 1e-15);
  // No best known anywhere: no headroom, and "captured" is not a number.
  const mlgo::EvalSummary None = mlgo::summarize({E[3]}, 3, 100);
  EXPECT_EQ(None.Room.Modules, 0u);
  EXPECT_TRUE(std::isnan(None.Room.Captured));
}

// Folds by package by hand: keys ordered by SHA-256("1\n" + key) (with sha256sum: d 124b9f...,
// b 2c3b67..., c 6d73c8..., a 87a4ad...), each to the fold with the fewest modules so far.
TEST(Transfer, FoldsByPackageByHand) {
  // 5 modules of a, 1 of b, 2 of c, 2 of d.
  const std::vector<std::string> Keys = {"a", "a", "a", "a", "a", "b", "c", "c", "d", "d"};
  auto F = mlgo::foldsByPackage(Keys, 2, 1);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_EQ(F->Count, 2u);
  // Every module's fold is its package's.
  for (size_t I = 0; I < Keys.size(); ++I)
    EXPECT_EQ(F->Fold[I], F->FoldOfKey.at(Keys[I]));
  // Order d, b, c, a: d -> 0 (sizes 2,0); b -> 1 (2,1); c -> 1 (2,3); a -> 0 (7,3).
  EXPECT_EQ(F->FoldOfKey.at("d"), 0u);
  EXPECT_EQ(F->FoldOfKey.at("b"), 1u);
  EXPECT_EQ(F->FoldOfKey.at("c"), 1u);
  EXPECT_EQ(F->FoldOfKey.at("a"), 0u);
  EXPECT_EQ(F->keys(0), (std::vector<std::string>{"a", "d"}));
  // The same folds in any input order.
  std::vector<std::string> Reversed(Keys.rbegin(), Keys.rend());
  auto R = mlgo::foldsByPackage(Reversed, 2, 1);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->FoldOfKey, F->FoldOfKey);
  // 0 folds, or more than packages: one per package.
  auto L = mlgo::foldsByPackage(Keys, 0, 1);
  ASSERT_TRUE(bool(L));
  EXPECT_EQ(L->Count, 4u);
  EXPECT_EQ(mlgo::foldsByPackage(Keys, 9, 1)->Count, 4u);
  // One fold, or one package: nothing to train on.
  auto One = mlgo::foldsByPackage(Keys, 1, 1);
  EXPECT_FALSE(bool(One));
  llvm::consumeError(One.takeError());
  auto Single = mlgo::foldsByPackage({"a", "a"}, 2, 1);
  EXPECT_FALSE(bool(Single));
  llvm::consumeError(Single.takeError());
}

} // namespace

// ---- rules around the heuristic and the search that chooses one -----------------------------

#include "mlgo/RuleSearch.h"

namespace {

/// A session's payload for header H with Values by name (every other element 0).
std::string payloadWith(const std::vector<TensorSpec> &H,
                        const std::map<std::string, int64_t> &Values) {
  std::string P;
  for (const TensorSpec &S : H)
    for (size_t J = 0; J < S.elementCount(); ++J) {
      auto It = Values.find(S.Name);
      const int64_t V = It == Values.end() ? 0 : It->second;
      P += S.Type == TensorType::Float ? bytesOf<float>({float(V)}) : bytesOf<int64_t>({V});
    }
  return P;
}

// M = threshold - cost_estimate. inline+10[users<=2,blocks<=1]: declined sites with M > -10,
// at most 2 callee users and 1 callee block are inlined; refuse-5[users>=8]: inlined sites with
// M <= 5 and at least 8 callee users are refused. Worked out by hand, through a model file of
// kind rule and the `rule` policy, as a session binds it (a 41-feature inliner header).
TEST(Rules, RulePolicyFromItsFileByHand) {
  runners::InlineRule Rule;
  Rule.Add = 10;
  Rule.AddMaxCalleeUsers = 2;
  Rule.AddMaxCalleeBlocks = 1;
  Rule.Refuse = 5;
  Rule.RefuseMinCalleeUsers = 8;
  EXPECT_EQ(Rule.name(), "refuse-5[users>=8]+inline+10[users<=2,blocks<=1]");
  const std::string Path = tempPath("rule");
  ASSERT_FALSE(bool(runners::writeModelFile(Path, runners::ruleModel(Rule, {{"created_by", "test"}}))));
  runners::PolicyOptions O;
  O.Name = "rule";
  O.ModelPath = Path;
  O.LoadModel = runners::loadModelPolicy;
  auto P = runners::makePolicy(features::Task::Inline, O);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const std::vector<TensorSpec> H = inlinerHeader(true, 4);
  auto R = runners::ModelRunner::create(std::move(*P), features::Task::Inline, H,
                                        features::taskInfo(features::Task::Inline).Advice, {});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto Decide = [&](int64_t Default, int64_t Threshold, int64_t Cost, int64_t Users,
                    int64_t Blocks) {
    llvm::Expected<std::string> A = R->evaluate(payloadWith(
        H, {{"inlining_default", Default}, {"threshold", Threshold}, {"cost_estimate", Cost},
            {"callee_users", Users}, {"callee_basic_block_count", Blocks}}));
    EXPECT_TRUE(bool(A));
    int64_t V;
    std::memcpy(&V, A->data(), 8);
    return V;
  };
  // Declined by the heuristic (cost 14 against threshold 5: M = -9 > -10).
  EXPECT_EQ(Decide(0, 5, 14, 2, 1), 1);
  EXPECT_EQ(Decide(0, 5, 15, 2, 1), 0); // M = -10: not above -10
  EXPECT_EQ(Decide(0, 5, 14, 3, 1), 0); // three users
  EXPECT_EQ(Decide(0, 5, 14, 2, 2), 0); // two blocks
  // Inlined by the heuristic (M = 5 - 0 = 5 <= 5).
  EXPECT_EQ(Decide(1, 5, 0, 8, 3), 0);
  EXPECT_EQ(Decide(1, 5, 0, 7, 3), 1);  // seven users
  EXPECT_EQ(Decide(1, 5, -1, 8, 3), 1); // M = 6
  // The file says what it holds; a changed key is named.
  auto Back = runners::readModelFile(Path);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Kind, "rule");
  ASSERT_TRUE(Back->Rule.has_value());
  EXPECT_TRUE(*Back->Rule == Rule);
  auto Bad = runners::InlineRule::fromJSON(llvm::json::Object{{"add", 10}, {"users", 2}});
  ASSERT_FALSE(bool(Bad));
  EXPECT_THAT(llvm::toString(Bad.takeError()), testing::HasSubstr("unknown key 'users'"));
  // A rule file is not an mlp.
  O.Name = "mlp";
  auto NotMlp = runners::makePolicy(features::Task::Inline, O);
  ASSERT_FALSE(bool(NotMlp));
  EXPECT_THAT(llvm::toString(NotMlp.takeError()), testing::HasSubstr("a rule model, not mlp"));
  llvm::sys::fs::remove(Path);
}

// A linear model out = cost_estimate - 10 abstaining with margin 3: it answers the heuristic
// unless out < -3 where the heuristic inlines (cost < 7) or out > 3 where it declines
// (cost > 13).
TEST(Rules, AbstainingModelByHand) {
  const std::vector<TensorSpec> H = inlinerHeader(true, 4);
  runners::ModelFile M;
  M.ForTask = features::Task::Inline;
  M.Kind = "linear";
  M.Inputs = {H[29]}; // cost_estimate
  M.FeatureSet = H;
  M.FeatureSetVersion = features::featureSetVersion(features::Task::Inline, H);
  M.Layers = {{1, 1, {1}, {-10}}};
  M.AbstainMargin = 3;
  const std::string Path = tempPath("abstain");
  ASSERT_FALSE(bool(runners::writeModelFile(Path, M)));
  auto Back = runners::readModelFile(Path);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  ASSERT_TRUE(Back->AbstainMargin.has_value());
  EXPECT_EQ(*Back->AbstainMargin, 3);
  auto R = runners::ModelRunner::create(runners::makeModelPolicy(*Back), features::Task::Inline,
                                        H, features::taskInfo(features::Task::Inline).Advice, {});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto Decide = [&](int64_t Default, int64_t Cost) {
    llvm::Expected<std::string> A =
        R->evaluate(payloadWith(H, {{"inlining_default", Default}, {"cost_estimate", Cost}}));
    EXPECT_TRUE(bool(A));
    int64_t V;
    std::memcpy(&V, A->data(), 8);
    return V;
  };
  EXPECT_EQ(Decide(1, 6), 0);  // out -4 < -3: refused
  EXPECT_EQ(Decide(1, 7), 1);  // out -3: the heuristic
  EXPECT_EQ(Decide(1, 30), 1); // the network says inline too
  EXPECT_EQ(Decide(0, 14), 1); // out 4 > 3: inlined
  EXPECT_EQ(Decide(0, 13), 0); // out 3: the heuristic
  EXPECT_EQ(Decide(0, 0), 0);
  llvm::sys::fs::remove(Path);
}

// The grid's candidates and the choice, worked out by hand.
TEST(RuleSearch, CandidatesAndChoiceByHand) {
  mlgo::RuleGrid G;
  G.Add = {10, 30};
  G.AddMaxCalleeUsers = {2};
  G.AddMaxCalleeBlocks = {1, runners::InlineRule::Any};
  G.Refuse = {std::nullopt, 5};
  G.RefuseMinCalleeUsers = {0};
  std::vector<std::string> Names;
  for (const runners::InlineRule &R : G.candidates())
    Names.push_back(R.name());
  EXPECT_THAT(Names, testing::ElementsAre(
                         "heuristic", "inline+10[users<=2,blocks<=1]", "inline+10[users<=2]",
                         "inline+30[users<=2,blocks<=1]", "inline+30[users<=2]",
                         "refuse-5+inline+10[users<=2,blocks<=1]", "refuse-5+inline+10[users<=2]",
                         "refuse-5+inline+30[users<=2,blocks<=1]", "refuse-5+inline+30[users<=2]"));
  // Conditions of a side that is off give one candidate.
  mlgo::RuleGrid Off;
  Off.AddMaxCalleeUsers = {2, 3};
  EXPECT_EQ(Off.candidates().size(), 1u);

  // Three candidates on four modules of packages A (a1, a2) and B (b1, b2), baseline 100 each.
  // c0 (the heuristic): 100 everywhere. c1: a1 90, a2 100, b1 100, b2 100.3 (B +0.15 %).
  // c2: a1 95, a2 99, b1 99, b2 100 (every package smaller).
  auto Mod = [](const char *P, const char *K, int64_t Size) {
    return mlgo::EvalModule{P, "", 100, double(Size), 1, K, -1};
  };
  // Sizes are bytes: scale by 10 to give c1's b2 0.3 % (1003 of 1000).
  std::vector<std::vector<mlgo::EvalModule>> Per = {
      {Mod("a1", "A", 100), Mod("a2", "A", 100), Mod("b1", "B", 100), Mod("b2", "B", 100)},
      {Mod("a1", "A", 90), Mod("a2", "A", 100), Mod("b1", "B", 100), Mod("b2", "B", 100)},
      {Mod("a1", "A", 95), Mod("a2", "A", 99), Mod("b1", "B", 99), Mod("b2", "B", 100)}};
  for (auto &C : Per)
    for (mlgo::EvalModule &E : C) {
      E.Baseline *= 10;
      E.Policy *= 10;
    }
  Per[1][3].Policy = 1003;
  auto All = mlgo::scoreCandidates(Per, [](size_t) { return true; }, 0.001);
  // c1: 1 - 3903/4000 = 0.02425, worst B: 1 - 2003/2000 = -0.0015 (disqualified);
  // c2: 1 - 3930/4000 = 0.0175, worst B 0.005; c0: 0, worst A 0 (by name).
  EXPECT_NEAR(All[1].Reduction, 0.02425, 1e-15);
  EXPECT_NEAR(All[1].WorstPackage, -0.0015, 1e-15);
  EXPECT_EQ(All[1].Worst, "B");
  EXPECT_FALSE(All[1].Qualifies);
  EXPECT_NEAR(All[2].Reduction, 0.0175, 1e-15);
  EXPECT_EQ(All[2].Worst, "B");
  EXPECT_NEAR(All[2].WorstPackage, 0.005, 1e-15);
  EXPECT_TRUE(All[0].Qualifies);
  EXPECT_EQ(mlgo::chooseCandidate(All), 2u);
  // With 0.2 % allowed, c1 qualifies and reduces more.
  EXPECT_EQ(mlgo::chooseCandidate(mlgo::scoreCandidates(Per, [](size_t) { return true; }, 0.002)), 1u);
  // On package A alone c1 is best (a1 90).
  auto OnA = mlgo::scoreCandidates(Per, [](size_t M) { return M < 2; }, 0.001);
  EXPECT_EQ(mlgo::chooseCandidate(OnA), 1u);
  // A module that failed with one candidate leaves every score: on a2 alone after c2 failed
  // there, nothing is compared and the heuristic (the first) is kept.
  Per[2][1].Error = "failed";
  Per[2][1].Policy = -1;
  auto A2 = mlgo::scoreCandidates(Per, [](size_t M) { return M == 1; }, 0.001);
  EXPECT_EQ(A2[1].Reduction, 0);
  EXPECT_EQ(mlgo::chooseCandidate(A2), 0u);
  // None qualifies: the least bad worst package.
  std::vector<mlgo::CandidateScore> Bad = {{0, -0.01, "A", false}, {0.1, -0.005, "B", false},
                                           {0.2, -0.02, "A", false}};
  EXPECT_EQ(mlgo::chooseCandidate(Bad), 1u);
}

} // namespace

// The greedy allocator's remarks (issue 25): the file the documentation quotes, values by hand.
// tests/data/regalloc_hand.yaml: a function-level remark, its loop's (ignored), another pass's
// (ignored), and a second function with a folded spill and copies.
static std::string handRemarks() {
  auto B = llvm::MemoryBuffer::getFile(WB_TEST_DATA "/regalloc_hand.yaml");
  return B ? (*B)->getBuffer().str() : std::string("missing tests/data/regalloc_hand.yaml");
}

TEST(RegallocRemarks, HandCountedFile) {
  auto Fs = features::parseRegallocRemarks(handRemarks(), "hand.yaml");
  ASSERT_TRUE(bool(Fs)) << llvm::toString(Fs.takeError());
  ASSERT_EQ(Fs->size(), 2u); // the loop's and the asm printer's remarks are not functions'
  const features::RegallocCounts &F = (*Fs)[0].Counts;
  EXPECT_EQ((*Fs)[0].Function, "f");
  EXPECT_EQ(F.Spills, 14);
  EXPECT_EQ(F.SpillsCost, 183.125);
  EXPECT_EQ(F.Reloads, 9);
  EXPECT_EQ(F.ReloadsCost, 180.0);
  EXPECT_EQ(F.FoldedReloads, 5);
  EXPECT_EQ(F.FoldedReloadsCost, 3.125);
  EXPECT_EQ(F.Copies, 30);
  EXPECT_EQ(F.CopiesCost, 600.0);
  EXPECT_EQ(F.FoldedSpills, 0);
  const features::RegallocWeights W;
  // 0.2 x 600 + 4 x (180 + 3.125) + 1 x 183.125
  EXPECT_DOUBLE_EQ(W.cost(F), 1035.625);
  EXPECT_EQ((*Fs)[1].Function, "_Z1gv");
  // 0.2 x 0.5 + 1 x 0.25 (a folded spill is a store)
  EXPECT_DOUBLE_EQ(W.cost((*Fs)[1].Counts), 0.35);
  EXPECT_DOUBLE_EQ(features::totalCost(W, *Fs), 1035.975);
  EXPECT_DOUBLE_EQ(features::relativeReward(1035.975, 1035.975), 0.0);
  EXPECT_DOUBLE_EQ(features::relativeReward(0.0, 9.99), 1.0 - 0.01 / 10.0);
  features::RegallocCounts Sum = (*Fs)[0].Counts;
  Sum += (*Fs)[1].Counts;
  EXPECT_EQ(Sum.Copies, 32);
  EXPECT_EQ(Sum.FoldedSpills, 1);
  // An empty file: nothing was allocated.
  auto None = features::parseRegallocRemarks("", "empty.yaml");
  ASSERT_TRUE(bool(None));
  EXPECT_TRUE(None->empty());
}

TEST(RegallocRemarks, BadValuesAreNamed) {
  std::string Bad = handRemarks();
  Bad.replace(Bad.find("'14'"), 4, "'-1'");
  auto E = features::parseRegallocRemarks(Bad, "bad.yaml");
  ASSERT_FALSE(bool(E));
  EXPECT_THAT(llvm::toString(E.takeError()),
              ::testing::HasSubstr("bad.yaml: function 'f': NumSpills = '-1' is not a count"));
  Bad = handRemarks();
  Bad.replace(Bad.find("'6.000000e+02'"), 14, "'nan'");
  E = features::parseRegallocRemarks(Bad, "nan.yaml");
  ASSERT_FALSE(bool(E));
  EXPECT_THAT(llvm::toString(E.takeError()), ::testing::HasSubstr("TotalCopiesCost = 'nan'"));
  E = features::parseRegallocRemarks("--- !Missed\nPass: [\n", "broken.yaml");
  ASSERT_FALSE(bool(E));
  EXPECT_THAT(llvm::toString(E.takeError()), ::testing::HasSubstr("broken.yaml"));
}

TEST(RegallocRemarks, JSONRoundTrip) {
  auto Fs = features::parseRegallocRemarks(handRemarks(), "hand.yaml");
  ASSERT_TRUE(bool(Fs));
  llvm::json::Value V = features::regallocToJSON(*Fs);
  auto Back = features::regallocFromJSON(&V, "part");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  ASSERT_EQ(Back->size(), Fs->size());
  for (size_t I = 0; I < Fs->size(); ++I) {
    EXPECT_EQ((*Back)[I].Function, (*Fs)[I].Function);
    for (const features::RegallocKey &K : features::RegallocKeys) {
      EXPECT_EQ((*Back)[I].Counts.*K.Count, (*Fs)[I].Counts.*K.Count);
      EXPECT_EQ((*Back)[I].Counts.*K.Cost, (*Fs)[I].Counts.*K.Cost);
    }
  }
  llvm::json::Value NotArray = llvm::json::Object{};
  auto E = features::regallocFromJSON(&NotArray, "part");
  ASSERT_FALSE(bool(E));
  EXPECT_THAT(llvm::toString(E.takeError()), ::testing::HasSubstr("part: register allocation"));
}
