#include "features/Dataset.h"

#include "corpus/H5.h"
#include "support/Error.h"

#include <cstring>

namespace wb::features {

namespace h5 = corpus::h5;

/// A tensor element type as stored in the file (little-endian) and as held in memory, for
/// every type of TensorSpec's table.
struct H5Types {
  H5::AtomType File, Mem;
};

static H5Types h5Types(TensorType T) {
  switch (T) {
#define WB_CASE(C, E)                                                                            \
  case TensorType::E:                                                                            \
    return {h5::fileType<C>(), h5::memoryType<C>()};
    WB_TENSOR_TYPES(WB_CASE)
#undef WB_CASE
  }
  return {h5::fileType<uint8_t>(), h5::memoryType<uint8_t>()};
}

llvm::Error DatasetBuilder::add(const DatasetModule &M, const Log &L) {
  // A compiler that asked nothing may never have sent a header (llc opens the eviction
  // channel only for a function that needs a decision): the module has no rows.
  if (L.Header.Features.empty() && L.Observations.empty()) {
    Modules.push_back(M);
    return llvm::Error::success();
  }
  if (!HaveHeader) {
    Header = L.Header;
    Columns.resize(Header.Features.size());
    HaveHeader = true;
  } else if (L.Header.Features != Header.Features) {
    return support::fileError(M.Path, "the compiler sent feature set " +
                                        featureSetVersion(T, L.Header.Features) +
                                        ", the dataset has " +
                                        featureSetVersion(T, Header.Features));
  }
  const int64_t ModuleIdx = Modules.size();
  Modules.push_back(M);
  // A function's costs by name; one without a remark inserted nothing (cost 0).
  llvm::StringMap<double> Cost, Baseline;
  if (Costs) {
    for (const FunctionRegalloc &F : M.Regalloc)
      Cost[F.Function] += Costs->cost(F.Counts);
    for (const FunctionRegalloc &F : M.BaselineRegalloc)
      Baseline[F.Function] += Costs->cost(F.Counts);
  }
  llvm::StringMap<int64_t> ContextIdx;
  for (const LogObservation &O : L.Observations) {
    auto [It, New] = ContextIdx.try_emplace(O.Context, Contexts.size());
    if (New) {
      Contexts.push_back(O.Context);
      if (Costs) {
        ContextCost.push_back(Cost.lookup(O.Context));
        ContextBaselineCost.push_back(Baseline.lookup(O.Context));
      }
    }
    size_t Off = 0;
    for (size_t F = 0; F < Header.Features.size(); ++F) {
      size_t N = Header.Features[F].byteSize();
      Columns[F].append(O.Payload, Off, N);
      Off += N;
    }
    RowModule.push_back(ModuleIdx);
    RowContext.push_back(It->second);
    RowObservation.push_back(O.Id);
    RowReward.push_back(Costs ? relativeReward(ContextCost[It->second],
                                               ContextBaselineCost[It->second])
                              : M.Reward);
  }
  return llvm::Error::success();
}

double totalCost(const RegallocWeights &W, const std::vector<FunctionRegalloc> &Fs) {
  double Sum = 0;
  for (const FunctionRegalloc &F : Fs)
    Sum += W.cost(F.Counts);
  return Sum;
}

static void writeNumbers(H5::Group &G, const char *Name, const H5Types &Ty, const void *Data,
                         hsize_t Rows, hsize_t Cols = 0) {
  H5::DSetCreatPropList P;
  h5::noTimes(P.getId());
  hsize_t Dims[2] = {Rows, Cols};
  H5::DataSet DS = G.createDataSet(Name, Ty.File, H5::DataSpace(Cols ? 2 : 1, Dims), P);
  if (Rows)
    DS.write(Data, Ty.Mem);
}

llvm::Error DatasetBuilder::write(llvm::StringRef Path) const {
  return h5::writeFileAtomically(Path, [&](H5::H5File &F) {
    H5::Group Root = F.openGroup("/");
    writeTo(Root);
  });
}

void DatasetBuilder::writeTo(H5::Group &Root) const {
  const size_t Rows = rows();
  H5::Group &F = Root; // the group's attributes describe the dataset
  h5::writeAttr(F, "schema", std::string(DatasetSchema));
  h5::writeAttr(F, "task", std::string(taskInfo(T).Name));
  h5::writeAttr(F, "policy", Policy);
  h5::writeAttr(F, "embeddings", Embeddings);
  h5::writeAttr(F, "embeddings_digest", EmbeddingsDigest);
  h5::writeAttr(F, "llvm_version", std::string(WB_LLVM_VERSION));
  h5::writeAttr(F, "tool_version", std::string(WB_VERSION));
  h5::writeAttr(F, "reward_formula",
                Costs ? "1 - (cost + 0.01) / (baseline_cost + 0.01), per function (row/reward, "
                        "context/reward) and per module (modules/reward); cost = " +
                            Costs->describe()
                      : std::string("1 - (text_size + 0.01) / (baseline_text_size + 0.01)"));
  std::vector<TensorSpec> Feats = Header.Features;
  std::optional<TensorSpec> Decision;
  if (!Feats.empty()) {
    Decision = Feats.back();
    Feats.pop_back();
  }
  h5::writeAttr(F, "feature_set", specsJSON(Feats));
  h5::writeAttr(F, "feature_set_version", featureSetVersion(T, Feats));
  h5::writeAttr(F, "decision", Decision ? Decision->toJSON() : std::string());
  h5::writeAttr(F, "rows", static_cast<int64_t>(Rows));
  H5::Group G = h5::createGroup(F, "features");
  for (size_t I = 0; I < Feats.size(); ++I)
    writeNumbers(G, Feats[I].Name.c_str(), h5Types(Feats[I].Type), Columns[I].data(), Rows,
                 Feats[I].elementCount());
  if (Decision)
    writeNumbers(Root, "decision", h5Types(Decision->Type), Columns.back().data(), Rows,
                 Decision->elementCount());
  H5::Group RG = h5::createGroup(F, "row");
  writeNumbers(RG, "module", h5Types(TensorType::Int64),
               RowModule.data(), Rows);
  writeNumbers(RG, "context", h5Types(TensorType::Int64),
               RowContext.data(), Rows);
  writeNumbers(RG, "observation", h5Types(TensorType::Int64),
               RowObservation.data(), Rows);
  writeNumbers(RG, "reward", h5Types(TensorType::Double),
               RowReward.data(), Rows);
  h5::writeStrings(Root, "contexts", Contexts);
  H5::Group MG = h5::createGroup(F, "modules");
  std::vector<std::string> Paths, Errors, Digests;
  for (const DatasetModule &M : Modules) {
    Paths.push_back(M.Path);
    Errors.push_back(M.Error);
    Digests.push_back(M.SHA256);
  }
  h5::writeStrings(MG, "path", Paths);
  h5::writeStrings(MG, "error", Errors);
  h5::writeStrings(MG, "sha256", Digests);
  // The numbers of DatasetNumberColumns, in its order (integers are exact in a double).
  std::vector<double> Count(Modules.size(), 0);
  for (int64_t R : RowModule)
    ++Count[R];
  auto Of = [&](auto Get) {
    std::vector<double> V;
    for (const DatasetModule &M : Modules)
      V.push_back(Get(M));
    return V;
  };
  auto Cost = [&](const std::vector<FunctionRegalloc> DatasetModule::*Field) {
    return Of([&](const DatasetModule &M) { return M.Error.empty() ? totalCost(*Costs, M.*Field) : NAN; });
  };
  std::vector<double> ContextReward;
  for (size_t C = 0; C < ContextCost.size(); ++C)
    ContextReward.push_back(relativeReward(ContextCost[C], ContextBaselineCost[C]));
  const std::vector<double> Numbers[] = {
      Of([](const DatasetModule &M) { return double(M.TextSize); }),
      Of([](const DatasetModule &M) { return double(M.BaselineTextSize); }),
      Of([](const DatasetModule &M) { return M.Reward; }),
      Count,
      Costs ? Cost(&DatasetModule::Regalloc) : std::vector<double>(),
      Costs ? Cost(&DatasetModule::BaselineRegalloc) : std::vector<double>(),
      ContextCost,
      ContextBaselineCost,
      ContextReward,
  };
  static_assert(std::size(Numbers) == std::size(DatasetNumberColumns));
  std::optional<H5::Group> CG;
  if (Costs)
    CG = h5::createGroup(F, "context");
  for (size_t I = 0; I < std::size(DatasetNumberColumns); ++I) {
    const DatasetNumbers &N = DatasetNumberColumns[I];
    if (N.RegallocOnly && !Costs)
      continue;
    const auto [Sub, Name] = llvm::StringRef(N.Path).split('/');
    H5Types Ty{h5Types(N.Integer ? TensorType::Int64 : TensorType::Double).File, H5::PredType::NATIVE_DOUBLE};
    writeNumbers(Sub == "context" ? *CG : MG, Name.str().c_str(), Ty, Numbers[I].data(), Numbers[I].size());
  }
}

std::optional<size_t> DatasetTable::find(llvm::StringRef Name) const {
  for (size_t I = 0; I < Features.size(); ++I)
    if (Features[I].Name == Name)
      return I;
  return std::nullopt;
}

DatasetTable selectRows(const DatasetTable &D, const std::function<bool(size_t Module)> &Keep) {
  DatasetTable Out = D;
  Out.Decisions.clear();
  Out.RowModule.clear();
  for (std::string &C : Out.Columns)
    C.clear();
  for (size_t R = 0; R < D.rows(); ++R) {
    if (!Keep(size_t(D.RowModule[R])))
      continue;
    Out.Decisions.push_back(D.Decisions[R]);
    Out.RowModule.push_back(D.RowModule[R]);
    for (size_t F = 0; F < D.Features.size(); ++F) {
      const size_t Row = D.Features[F].elementCount() * elementSize(D.Features[F].Type);
      Out.Columns[F].append(D.Columns[F], R * Row, Row);
    }
  }
  return Out;
}

llvm::Expected<DatasetTable> readDataset(llvm::StringRef File, llvm::StringRef Group) {
  const std::string Where = (File + (Group == "/" ? "" : ":" + Group)).str();
  auto Bad = [&](const llvm::Twine &What) { return support::fileError(Where, What); };
  try {
    H5::Exception::dontPrint();
    H5::H5File F(File.str(), H5F_ACC_RDONLY);
    H5::Group G = F.openGroup(Group.str());
    // /2 only added the register allocator's cost datasets, /3 the modules' and the
    // embeddings' digests: /1 and /2 files read the same.
    const std::string Schema = G.attrExists("schema") ? h5::readStrAttr(G, "schema") : "";
    if (Schema != DatasetSchema && Schema != "ir2vec.mlgo-dataset/2" &&
        Schema != "ir2vec.mlgo-dataset/1")
      return Bad(llvm::Twine("not an MLGO dataset (expected attribute schema = ") +
                 DatasetSchema + ", ir2vec.mlgo-dataset/2 or /1)");
    DatasetTable D;
    std::optional<Task> T = taskFromName(h5::readStrAttr(G, "task"));
    if (!T)
      return Bad("attribute task: expected inline, evict or priority");
    D.T = *T;
    D.FeatureSetVersion = h5::readStrAttr(G, "feature_set_version");
    auto Specs = specsFromJSON(h5::readStrAttr(G, "feature_set"), "feature_set");
    if (!Specs)
      return Bad(llvm::toString(Specs.takeError()));
    D.Features = std::move(*Specs);
    auto Dec = specsFromJSON("[" + h5::readStrAttr(G, "decision") + "]", "decision");
    if (!Dec || Dec->size() != 1 || (*Dec)[0].elementCount() != 1)
      return Bad("attribute decision: expected one tensor spec with one element");
    D.Decision = (*Dec)[0];
    const uint64_t Rows = uint64_t(h5::readNumAttr<int64_t>(G, "rows", H5::PredType::NATIVE_INT64));
    // Every dataset must be [Rows, width] (rank 2) or [Rows] (rank 1) as its spec says.
    auto Read = [&](H5::Group &In, const std::string &Name, const TensorSpec &S,
                    std::string &Out) -> llvm::Error {
      if (!In.nameExists(Name))
        return Bad("missing dataset " + Name);
      H5::DataSet DS = In.openDataSet(Name);
      H5::DataSpace Space = DS.getSpace();
      const int Rank = Space.getSimpleExtentNdims();
      if (Rank < 1 || Rank > 2)
        return Bad(Name + ": rank " + llvm::Twine(Rank) + ", expected [rows, width]");
      hsize_t Dims[2] = {0, 1};
      Space.getSimpleExtentDims(Dims);
      if (Dims[0] != Rows || Dims[1] != (Rank == 2 ? S.elementCount() : 1) ||
          (Rank == 1 && S.elementCount() != 1))
        return Bad(Name + ": shape does not match " + llvm::Twine(Rows) + " rows of " +
                   shapeString(S));
      Out.assign(Rows * S.byteSize(), '\0');
      if (Rows)
        DS.read(Out.data(), h5Types(S.Type).Mem);
      return llvm::Error::success();
    };
    H5::Group FG = G.openGroup("features");
    D.Columns.resize(D.Features.size());
    for (size_t I = 0; I < D.Features.size(); ++I)
      if (llvm::Error E = Read(FG, D.Features[I].Name, D.Features[I], D.Columns[I]))
        return E;
    std::string Raw;
    if (llvm::Error E = Read(G, "decision", D.Decision, Raw))
      return E;
    for (uint64_t R = 0; R < Rows; ++R)
      D.Decisions.push_back(int64_t(elementAsDouble(D.Decision.Type, Raw.data() + R * D.Decision.byteSize(), 0)));
    H5::Group RG = G.openGroup("row");
    if (llvm::Error E = Read(RG, "module", {"module", TensorType::Int64, 0, {1}}, Raw))
      return E;
    D.RowModule.resize(Rows);
    if (Rows) // memcpy of a null vector is undefined even for 0 bytes (UBSan)
      std::memcpy(D.RowModule.data(), Raw.data(), Rows * sizeof(int64_t));
    H5::Group MG = G.openGroup("modules");
    H5::DataSet Paths = MG.openDataSet("path");
    D.ModulePaths = h5::readStrings(Paths, 0, h5::extentOf(Paths));
    for (int64_t M : D.RowModule)
      if (M < 0 || uint64_t(M) >= D.ModulePaths.size())
        return Bad("row/module holds " + llvm::Twine(M) + ", but there are " +
                   llvm::Twine(D.ModulePaths.size()) + " modules");
    // The rest, where the file has it (an exploration's groups hold rows and modules only).
    auto Strings = [&](H5::Group &In, const char *Name, uint64_t Want,
                       std::vector<std::string> &Out) -> llvm::Error {
      if (!In.nameExists(Name))
        return llvm::Error::success();
      H5::DataSet DS = In.openDataSet(Name);
      if (h5::extentOf(DS) != Want)
        return Bad(llvm::Twine(Name) + ": " + llvm::Twine(h5::extentOf(DS)) + " entries, expected " +
                   llvm::Twine(Want));
      Out = h5::readStrings(DS, 0, Want);
      return llvm::Error::success();
    };
    if (llvm::Error E = Strings(MG, "sha256", D.ModulePaths.size(), D.ModuleSHA256))
      return E;
    if (llvm::Error E = Strings(MG, "error", D.ModulePaths.size(), D.ModuleErrors))
      return E;
    const TensorSpec I64{"", TensorType::Int64, 0, {1}}, F64{"", TensorType::Double, 0, {1}};
    auto Optional = [&](H5::Group &In, const char *Name, const TensorSpec &S, auto &Out) -> llvm::Error {
      if (!In.nameExists(Name))
        return llvm::Error::success();
      if (llvm::Error E = Read(In, Name, S, Raw))
        return E;
      Out.resize(Rows);
      if (Rows)
        std::memcpy(Out.data(), Raw.data(), Raw.size());
      return llvm::Error::success();
    };
    for (auto [Name, Out] : {std::pair{"context", &D.RowContext}, std::pair{"observation", &D.RowObservation}})
      if (llvm::Error E = Optional(RG, Name, I64, *Out))
        return E;
    if (llvm::Error E = Optional(RG, "reward", F64, D.RowReward))
      return E;
    if (G.nameExists("contexts")) {
      H5::DataSet C = G.openDataSet("contexts");
      D.Contexts = h5::readStrings(C, 0, h5::extentOf(C));
    }
    for (int64_t C : D.RowContext)
      if (C < 0 || uint64_t(C) >= D.Contexts.size())
        return Bad("row/context holds " + llvm::Twine(C) + ", but there are " +
                   llvm::Twine(D.Contexts.size()) + " contexts");
    for (const DatasetNumbers &N : DatasetNumberColumns) {
      std::vector<double> &Out = D.Numbers.emplace_back();
      const auto [Sub, Name] = llvm::StringRef(N.Path).split('/');
      if (!G.nameExists(Sub.str()) || !G.openGroup(Sub.str()).nameExists(Name.str()))
        continue;
      H5::DataSet DS = G.openDataSet(N.Path);
      const uint64_t Want = llvm::StringRef(N.Path).starts_with("context/") ? D.Contexts.size()
                                                                          : D.ModulePaths.size();
      H5::DataSpace Space = DS.getSpace();
      hsize_t Dims[1] = {0};
      if (Space.getSimpleExtentNdims() != 1 || (Space.getSimpleExtentDims(Dims), Dims[0] != Want))
        return Bad(llvm::Twine(N.Path) + ": expected [" + llvm::Twine(Want) + "]");
      Out.resize(Want);
      if (Want)
        DS.read(Out.data(), H5::PredType::NATIVE_DOUBLE);
    }
    return D;
  } catch (const H5::Exception &E) {
    return h5::h5Error(Where, E);
  }
}

llvm::Error exportLogs(Task T, const std::vector<std::string> &Logs, llvm::StringRef Output) {
  if (Output.empty())
    return support::usageError("export needs -o DATA.h5");
  DatasetBuilder DS(T, "log");
  const TensorSpec &Advice = taskInfo(T).Advice;
  for (const std::string &P : Logs) {
    llvm::Expected<Log> L = readLogFile(P);
    if (!L)
      return L.takeError();
    if (L->Header.Features.empty() || L->Header.Features.back() != Advice)
      return support::fileError(P, "not a session log: the last feature must be the decision '" +
                                       Advice.Name + "' " + shapeString(Advice));
    DatasetModule M;
    M.Path = P;
    if (llvm::Error E = DS.add(M, *L))
      return E;
  }
  return DS.write(Output);
}

} // namespace wb::features
