#include "corpus/H5.h"

#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace wb::corpus::h5 {

namespace {

// The operating system's reason at the bottom of HDF5's error stack (its file driver records
// "..., errno = 27, error message = 'File too large', ..."): what a user can act on.
std::string systemCause() {
  std::string Cause;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned, const H5E_error2_t *Err, void *Out) -> herr_t {
        auto &C = *static_cast<std::string *>(Out);
        llvm::StringRef D(Err->desc ? Err->desc : "");
        const size_t At = D.find("error message = '");
        if (C.empty() && At != llvm::StringRef::npos)
          C = D.drop_front(At + 17).split('\'').first.str();
        return 0;
      },
      &Cause);
  // The C++ API's destructors (data spaces, property lists) call into HDF5 while the exception
  // unwinds, which clears that stack; errno still tells a full disk or a size limit.
  if (Cause.empty() && (errno == EFBIG || errno == ENOSPC || errno == EDQUOT || errno == EIO))
    Cause = std::strerror(errno);
  return Cause;
}

} // namespace

llvm::Error h5Error(const std::string &File, const H5::Exception &E) {
  // A file that could not be opened: say why in the user's terms rather than HDF5's.
  if (llvm::StringRef(E.getDetailMsg()).contains("H5Fopen failed")) {
    if (::access(File.c_str(), R_OK) != 0)
      return support::fileError(File, "cannot open: " + std::string(std::strerror(errno)));
    htri_t IsHDF5 = -1;
    H5E_BEGIN_TRY { IsHDF5 = H5Fis_hdf5(File.c_str()); }
    H5E_END_TRY;
    if (IsHDF5 == 0)
      return support::fileError(File, "not an HDF5 file (it has no HDF5 signature)");
  }
  const std::string Cause = systemCause();
  return support::fileError(File, "HDF5 error in " + E.getFuncName() + ": " + E.getDetailMsg() +
                                      (Cause.empty() ? "" : " (" + Cause + ")"));
}

bool filesLeftOpen() { return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE) > 0; }

H5::StrType stringType() {
  H5::StrType T(H5::PredType::C_S1, H5T_VARIABLE);
  T.setCset(H5T_CSET_UTF8);
  return T;
}

// Object modification times would make two runs' files differ byte for byte.
void noTimes(hid_t Plist) { H5Pset_obj_track_times(Plist, false); }

H5::Group createGroup(H5::Group &Parent, const std::string &Name) {
  hid_t P = H5Pcreate(H5P_GROUP_CREATE);
  noTimes(P);
  hid_t G = H5Gcreate2(Parent.getId(), Name.c_str(), H5P_DEFAULT, P, H5P_DEFAULT);
  H5Pclose(P);
  if (G < 0)
    throw H5::GroupIException("createGroup", "cannot create group " + Name);
  H5::Group Out(G);
  H5Gclose(G); // Out holds its own reference
  return Out;
}

void writeAttr(H5::H5Object &O, const char *Name, const std::string &V) {
  H5::StrType T = stringType();
  O.createAttribute(Name, T, H5::DataSpace(H5S_SCALAR)).write(T, V);
}
void writeAttr(H5::H5Object &O, const char *Name, int64_t V) {
  O.createAttribute(Name, H5::PredType::STD_I64LE, H5::DataSpace(H5S_SCALAR))
      .write(H5::PredType::NATIVE_INT64, &V);
}
void writeAttr(H5::H5Object &O, const char *Name, double V) {
  O.createAttribute(Name, H5::PredType::IEEE_F64LE, H5::DataSpace(H5S_SCALAR))
      .write(H5::PredType::NATIVE_DOUBLE, &V);
}
std::string readStrAttr(H5::H5Object &O, const char *Name) {
  H5::Attribute A = O.openAttribute(Name);
  std::string S;
  A.read(A.getStrType(), S);
  return S;
}

std::vector<std::string> readStrings(H5::DataSet &DS, uint64_t Start, uint64_t Count) {
  std::vector<std::string> Out;
  if (Count == 0)
    return Out;
  H5::DataSpace FS = DS.getSpace();
  // Off and Cnt hold one extent: HDF5 would read as many as the file's rank says.
  if (FS.getSimpleExtentNdims() != 1)
    throw H5::DataSetIException("readStrings", "string dataset of rank " +
                                                   std::to_string(FS.getSimpleExtentNdims()) +
                                                   ", expected 1");
  hsize_t Off[1] = {Start}, Cnt[1] = {Count};
  FS.selectHyperslab(H5S_SELECT_SET, Cnt, Off);
  H5::DataSpace MS(1, Cnt);
  std::vector<char *> Ptrs(Count, nullptr);
  H5::StrType T = stringType();
  DS.read(Ptrs.data(), T, MS, FS);
  Out.reserve(Count);
  for (char *P : Ptrs)
    Out.emplace_back(P ? P : "");
  H5::DataSet::vlenReclaim(Ptrs.data(), T, MS);
  return Out;
}


uint64_t extentOf(H5::DataSet &DS) {
  H5::DataSpace S = DS.getSpace();
  const int Rank = S.getSimpleExtentNdims();
  if (Rank < 1)
    return 0;
  std::vector<hsize_t> Dims(Rank); // whatever rank the file says
  S.getSimpleExtentDims(Dims.data());
  return Dims[0];
}

void writeStrings(H5::Group &G, const char *Name, const std::vector<std::string> &V) {
  H5::DSetCreatPropList P;
  noTimes(P.getId());
  hsize_t N[1] = {V.size()};
  H5::StrType T = stringType();
  H5::DataSet DS = G.createDataSet(Name, T, H5::DataSpace(1, N), P);
  std::vector<const char *> Ptrs;
  for (const std::string &S : V)
    Ptrs.push_back(S.c_str());
  if (!V.empty())
    DS.write(Ptrs.data(), T);
}

void writeMatrix(H5::Group &G, const char *Name, const double *Data, hsize_t Rows, hsize_t Cols) {
  H5::DSetCreatPropList P;
  noTimes(P.getId());
  hsize_t N[2] = {Rows, Cols};
  H5::DataSet DS = G.createDataSet(Name, H5::PredType::IEEE_F64LE, H5::DataSpace(2, N), P);
  if (Rows && Cols)
    DS.write(Data, H5::PredType::NATIVE_DOUBLE);
}

llvm::Error writeFileAtomically(llvm::StringRef Path,
                                const std::function<void(H5::H5File &)> &Body) {
  auto Out = support::PendingFile::create(Path, support::PendingFile::Use::Path);
  if (!Out)
    return Out.takeError();
  try {
    H5::Exception::dontPrint();
    H5::FileCreatPropList FC;
    noTimes(FC.getId()); // the root group's times
    H5::FileAccPropList FA;
    FA.setLibverBounds(H5F_LIBVER_V18, H5F_LIBVER_V18);
    H5::H5File F(Out->path(), H5F_ACC_TRUNC, FC, FA);
    Body(F);
  } catch (const H5::Exception &E) {
    return h5Error(Path.str(), E);
  }
  return Out->commit();
}

} // namespace wb::corpus::h5
