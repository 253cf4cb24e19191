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
  if (Costs) {
    H5::Group CG = h5::createGroup(F, "context");
    std::vector<double> Reward;
    for (size_t C = 0; C < Contexts.size(); ++C)
      Reward.push_back(relativeReward(ContextCost[C], ContextBaselineCost[C]));
    writeNumbers(CG, "cost", h5Types(TensorType::Double), ContextCost.data(), Contexts.size());
    writeNumbers(CG, "baseline_cost", h5Types(TensorType::Double), ContextBaselineCost.data(),
                 Contexts.size());
    writeNumbers(CG, "reward", h5Types(TensorType::Double), Reward.data(), Contexts.size());
  }
  H5::Group MG = h5::createGroup(F, "modules");
  std::vector<std::string> Paths, Errors;
  std::vector<int64_t> Text, Base, Count(Modules.size(), 0);
  std::vector<double> Reward;
  for (const DatasetModule &M : Modules) {
    Paths.push_back(M.Path);
    Errors.push_back(M.Error);
    Text.push_back(M.TextSize);
    Base.push_back(M.BaselineTextSize);
    Reward.push_back(M.Reward);
  }
  for (int64_t R : RowModule)
    ++Count[R];
  h5::writeStrings(MG, "path", Paths);
  h5::writeStrings(MG, "error", Errors);
  const size_t NM = Modules.size();
  writeNumbers(MG, "text_size", h5Types(TensorType::Int64), Text.data(), NM);
  writeNumbers(MG, "baseline_text_size", h5Types(TensorType::Int64),
               Base.data(), NM);
  writeNumbers(MG, "reward", h5Types(TensorType::Double), Reward.data(), NM);
  writeNumbers(MG, "decisions", h5Types(TensorType::Int64), Count.data(), NM);
  if (Costs) {
    std::vector<double> Cost, Baseline;
    for (const DatasetModule &M : Modules) {
      Cost.push_back(M.Error.empty() ? totalCost(*Costs, M.Regalloc) : NAN);
      Baseline.push_back(M.Error.empty() ? totalCost(*Costs, M.BaselineRegalloc) : NAN);
    }
    writeNumbers(MG, "cost", h5Types(TensorType::Double), Cost.data(), NM);
    writeNumbers(MG, "baseline_cost", h5Types(TensorType::Double), Baseline.data(), NM);
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
    // /2 only added the register allocator's cost datasets: /1 files read the same.
    if (!G.attrExists("schema") || (h5::readStrAttr(G, "schema") != DatasetSchema &&
                                    h5::readStrAttr(G, "schema") != "ir2vec.mlgo-dataset/1"))
      return Bad(llvm::Twine("not an MLGO dataset (expected attribute schema = ") +
                 DatasetSchema + " or ir2vec.mlgo-dataset/1)");
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
        return std::move(E);
    std::string Raw;
    if (llvm::Error E = Read(G, "decision", D.Decision, Raw))
      return std::move(E);
    for (uint64_t R = 0; R < Rows; ++R)
      D.Decisions.push_back(int64_t(elementAsDouble(D.Decision.Type, Raw.data() + R * D.Decision.byteSize(), 0)));
    H5::Group RG = G.openGroup("row");
    if (llvm::Error E = Read(RG, "module", {"module", TensorType::Int64, 0, {1}}, Raw))
      return std::move(E);
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
