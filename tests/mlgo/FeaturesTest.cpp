// features/: tensor specs against libLLVM-22's TensorSpec, training logs against its Logger and
// the worked example of the format description (../shared/docs/mlgo-interfaces-llvm22.md §3), the
// feature tables against the compiler's headers, versioning; the register allocator's remarks
// counted by hand.
#include "tests/mlgo/Common.h"

namespace {

std::string llvmSpecJSON(const llvm::TensorSpec &S) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  llvm::json::OStream J(OS);
  S.toJSON(J);
  return Out;
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
