#include "vocab/VocabularyFile.h"

#include "corpus/H5.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Inputs.h"
#include "support/Isolate.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

namespace wb::vocab {

using support::fileError;

namespace {

constexpr llvm::StringLiteral HDF5Signature("\x89HDF\r\n\x1a\n");

/// HDF5 opens a file image under a name its core driver first tries to open as a file (a file
/// that exists there makes the open fail): one that cannot exist.
constexpr const char *ImageName = "/dev/null/ir2vec-vocabulary.h5";

/// The HDF5 vocabulary in Bytes (the file Source names, read once by the caller).
llvm::Expected<EntityVectors> readHDF5(llvm::StringRef Bytes, llvm::StringRef Source) {
  using namespace corpus::h5;
  const std::string P = Source.str();
  try {
    H5::Exception::dontPrint();
    H5::FileAccPropList Access;
    Access.setCore(1 << 16, /*backing_store=*/false);
    if (H5Pset_file_image(Access.getId(), const_cast<char *>(Bytes.data()), Bytes.size()) < 0)
      return fileError(Source, "HDF5 cannot take the file's bytes as an image");
    H5::H5File F(ImageName, H5F_ACC_RDONLY, H5::FileCreatPropList::DEFAULT, Access);
    if (!F.attrExists("schema") || readStrAttr(F, "schema") != VocabularyHDF5Schema)
      return fileError(Source, llvm::Twine("not a vocabulary file (expected HDF5 attribute schema = \"") +
                            VocabularyHDF5Schema + "\")");
    EntityVectors V;
    H5::DataSet E = F.openDataSet("entities");
    hsize_t Dims[2] = {0, 0};
    if (E.getSpace().getSimpleExtentNdims() != 2)
      return fileError(Source, "/entities must be a 2-D dataset [entities, dimension]");
    E.getSpace().getSimpleExtentDims(Dims);
    // The dimension sizes every allocation below: bounded, so a file cannot claim terabytes.
    if (Dims[0] != NumEntities || Dims[1] == 0 || Dims[1] > MaxDimension)
      return fileError(Source, "/entities has shape [" + llvm::Twine(Dims[0]) + ", " +
                            llvm::Twine(Dims[1]) + "], expected [" + llvm::Twine(NumEntities) +
                            ", D] with 0 < D <= " + llvm::Twine(MaxDimension));
    V.Dim = unsigned(Dims[1]);
    V.Rows = readNumbers<double>(E, H5::PredType::NATIVE_DOUBLE, 0, Dims[0], V.Dim);
    H5::DataSet Names = F.openDataSet("entity_names");
    std::vector<std::string> N = readStrings(Names, 0, extentOf(Names));
    for (EntityId Id = 0; Id < NumEntities; ++Id)
      if (Id >= N.size() || N[Id] != entityName(Id))
        return fileError(Source, "/entity_names[" + llvm::Twine(Id) + "] is '" +
                              (Id < N.size() ? N[Id] : std::string("<missing>")) +
                              "', expected '" + std::string(entityName(Id)) +
                              "' (the LLVM 22 entity layout)");
    if (F.nameExists("relations")) {
      H5::DataSet R = F.openDataSet("relations");
      H5::DataSet RN = F.openDataSet("relation_names");
      V.RelationNames = readStrings(RN, 0, extentOf(RN));
      // The rank first: HDF5 writes as many extents as the file says into RD.
      if (R.getSpace().getSimpleExtentNdims() != 2)
        return fileError(Source, "/relations has rank " +
                                   llvm::Twine(R.getSpace().getSimpleExtentNdims()) +
                                   ", expected a 2-D dataset [relation_names, dimension]");
      hsize_t RD[2] = {0, 0};
      R.getSpace().getSimpleExtentDims(RD);
      if (RD[0] != V.RelationNames.size() || RD[1] != V.Dim)
        return fileError(Source, "/relations must have shape [relation_names, dimension]");
      V.Relations = readNumbers<double>(R, H5::PredType::NATIVE_DOUBLE, 0, RD[0], V.Dim);
    }
    for (unsigned I = 0, N = unsigned(F.getNumAttrs()); I < N; ++I) {
      H5::Attribute A = F.openAttribute(I);
      if (A.getTypeClass() == H5T_STRING) {
        std::string S;
        A.read(A.getStrType(), S);
        V.Provenance.emplace_back(A.getName(), S);
      }
    }
    for (double X : V.Rows)
      if (!std::isfinite(X))
        return fileError(Source, "/entities holds a value that is not finite");
    return V;
  } catch (const H5::Exception &E) {
    return h5Error(P, E);
  }
}

/// readHDF5 behind a process boundary: libhdf5 crashes or loops on crafted files
/// (docs/robustness.md); then the error names the file and the run goes on. The child reads
/// the bytes this process holds (it is a fork): the file is not opened again.
llvm::Expected<EntityVectors> readHDF5Isolated(llvm::StringRef Bytes, llvm::StringRef Source,
                                               double Seconds) {
  auto Answer = support::runIsolated(Source, Seconds, [&]() -> llvm::Expected<std::string> {
    auto V = readHDF5(Bytes, Source);
    if (!V)
      return V.takeError();
    std::string Out;
    support::putU64(Out, V->Dim);
    support::putDoubles(Out, V->Rows);
    support::putDoubles(Out, V->Relations);
    support::putU64(Out, V->RelationNames.size());
    for (const std::string &N : V->RelationNames)
      support::putString(Out, N);
    support::putU64(Out, V->Provenance.size());
    for (const auto &[K, Val] : V->Provenance) {
      support::putString(Out, K);
      support::putString(Out, Val);
    }
    return Out;
  });
  if (!Answer)
    return Answer.takeError();
  EntityVectors V;
  llvm::StringRef In(*Answer);
  uint64_t Dim = 0, N = 0;
  bool OK = support::getU64(In, Dim) && support::getDoubles(In, V.Rows) &&
            support::getDoubles(In, V.Relations) && support::getU64(In, N);
  for (uint64_t I = 0; OK && I < N; ++I)
    OK = support::getString(In, V.RelationNames.emplace_back());
  OK = OK && support::getU64(In, N);
  for (uint64_t I = 0; OK && I < N; ++I) {
    auto &[K, Val] = V.Provenance.emplace_back();
    OK = support::getString(In, K) && support::getString(In, Val);
  }
  if (!OK || !In.empty())
    return fileError(Source, "internal error: the isolated read returned a malformed answer");
  V.Dim = unsigned(Dim);
  return V;
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readVocabularyBytes(llvm::StringRef Path) {
  if (Path.empty())
    return llvm::MemoryBuffer::getMemBuffer(defaultVocabularyJSON(), DefaultVocabularyName,
                                            /*RequiresNullTerminator=*/false);
  auto Buf = support::readInput(Path);
  if (!Buf)
    return fileError(Path, "cannot read vocabulary file: " + support::readErrorMessage(Buf.getError()));
  return std::move(*Buf);
}

bool isHDF5(llvm::StringRef Bytes) { return Bytes.starts_with(HDF5Signature); }

llvm::Expected<EntityVectors> parseEntityVectors(llvm::StringRef Bytes, llvm::StringRef Source,
                                                 double IsolatedSeconds) {
  if (!isHDF5(Bytes))
    return parseVocabularyJSON(Bytes, Source);
  return readHDF5Isolated(Bytes, Source,
                          IsolatedSeconds == support::BoundBySize
                              ? support::isolatedSecondsFor(Bytes.size())
                              : IsolatedSeconds);
}

llvm::Expected<EntityVectors> readEntityVectors(llvm::StringRef Path, double IsolatedSeconds) {
  auto Bytes = readVocabularyBytes(Path);
  if (!Bytes)
    return Bytes.takeError();
  return parseEntityVectors((*Bytes)->getBuffer(), vocabularySource(Path), IsolatedSeconds);
}

namespace {
void printVocabularyJSON(llvm::raw_ostream &OS, const EntityVectors &V) {
  llvm::json::OStream J(OS, 1);
  J.object([&] {
    for (llvm::StringRef Section : {"Opcodes", "Types", "Arguments"})
      J.attributeObject(Section, [&] {
        for (EntityId Id = 0; Id < NumEntities; ++Id) {
          if (jsonSectionOf(Id) != std::string_view(Section))
            continue;
          J.attributeArray(llvm::StringRef(entityName(Id)), [&] {
            // llvm::json prints doubles with %.17g: they read back bit for bit.
            for (unsigned K = 0; K < V.Dim; ++K)
              J.value(V.row(Id)[K]);
          });
        }
      });
  });
  OS << '\n';
}
} // namespace

std::string vocabularyJSON(const EntityVectors &V) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printVocabularyJSON(OS, V);
  return Text;
}

llvm::Error writeVocabularyJSON(llvm::StringRef Path, const EntityVectors &V) {
  return support::writeFileAtomically(Path,
                                      [&](llvm::raw_ostream &OS) { printVocabularyJSON(OS, V); });
}

llvm::Error writeVocabularyHDF5(llvm::StringRef Path, const EntityVectors &V) {
  using namespace corpus::h5;
  return corpus::h5::writeFileAtomically(Path, [&](H5::H5File &F) {
    writeAttr(F, "schema", std::string(VocabularyHDF5Schema));
    writeAttr(F, "dimension", int64_t(V.Dim));
    for (const auto &[K, Val] : V.Provenance)
      if (K != "schema")
        writeAttr(F, K.c_str(), Val);
    writeMatrix(F, "entities", V.Rows.data(), NumEntities, V.Dim);
    std::vector<std::string> Names;
    for (EntityId Id = 0; Id < NumEntities; ++Id)
      Names.emplace_back(entityName(Id));
    writeStrings(F, "entity_names", Names);
    if (!V.RelationNames.empty()) {
      writeMatrix(F, "relations", V.Relations.data(), V.RelationNames.size(), V.Dim);
      writeStrings(F, "relation_names", V.RelationNames);
    }
  });
}

VocabularyFormat vocabularyFormatFor(llvm::StringRef Path) {
  const llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return Ext == ".h5" || Ext == ".hdf5" ? VocabularyFormat::HDF5 : VocabularyFormat::JSON;
}

llvm::Error writeVocabularyFile(llvm::StringRef Path, const EntityVectors &V,
                                std::optional<VocabularyFormat> F) {
  if (V.Rows.size() != size_t(NumEntities) * V.Dim || V.Dim == 0)
    return fileError(Path, "internal error: vocabulary has the wrong shape");
  if (F.value_or(vocabularyFormatFor(Path)) == VocabularyFormat::HDF5)
    return writeVocabularyHDF5(Path, V);
  return writeVocabularyJSON(Path, V);
}

EntityVectors countingEntityVectors() {
  EntityVectors V;
  V.Dim = NumEntities;
  V.Rows.assign(size_t(NumEntities) * NumEntities, 0.0);
  for (EntityId E = 0; E < NumEntities; ++E)
    V.Rows[size_t(E) * NumEntities + E] = 1.0;
  return V;
}

} // namespace wb::vocab
