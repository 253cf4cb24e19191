// HDF5 helpers shared by every file format we write (embeddings, counts, vocabularies,
// datasets): UTF-8 variable-length strings, scalar attributes, hyperslab reads, and errors
// turned into llvm::Error naming the file.
#pragma once

#include "llvm/Support/Error.h"

#include <H5Cpp.h>

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace wb::corpus::h5 {

llvm::Error h5Error(const std::string &File, const H5::Exception &E);

/// Whether HDF5 still holds a file this process could not close (a write failed: a full disk,
/// a file-size limit). libhdf5 1.10 crashes closing such a file at exit, so the program then
/// leaves without HDF5's termination (tools/ir2vec/main.cpp).
bool filesLeftOpen();

/// The HDF5 type of the C arithmetic type T in memory: derived from T's kind, size and sign,
/// so a table of C types (TensorSpec's) maps to HDF5 without a second list.
template <typename T> H5::AtomType memoryType() {
  static_assert(std::is_arithmetic_v<T>, "HDF5 element types are numbers");
  if constexpr (std::is_floating_point_v<T>) {
    static_assert(sizeof(T) == sizeof(float) || sizeof(T) == sizeof(double));
    return H5::FloatType(sizeof(T) == sizeof(float) ? H5::PredType::NATIVE_FLOAT
                                                    : H5::PredType::NATIVE_DOUBLE);
  } else {
    H5::IntType I(H5::PredType::NATIVE_INT64);
    I.setSize(sizeof(T));
    I.setSign(std::is_signed_v<T> ? H5T_SGN_2 : H5T_SGN_NONE);
    return I;
  }
}
/// The same type as our files store it: little-endian whatever the machine.
template <typename T> H5::AtomType fileType() {
  H5::AtomType A = memoryType<T>();
  A.setOrder(H5T_ORDER_LE);
  return A;
}
H5::StrType stringType();
// Object modification times would make two runs' files differ byte for byte.
void noTimes(hid_t Plist);

/// A group without object times (byte-reproducible files).
H5::Group createGroup(H5::Group &Parent, const std::string &Name);

void writeAttr(H5::H5Object &O, const char *Name, const std::string &V);
void writeAttr(H5::H5Object &O, const char *Name, int64_t V);
void writeAttr(H5::H5Object &O, const char *Name, double V);
std::string readStrAttr(H5::H5Object &O, const char *Name);
template <typename T> T readNumAttr(H5::H5Object &O, const char *Name, const H5::PredType &Ty) {
  T V{};
  O.openAttribute(Name).read(Ty, &V);
  return V;
}

std::vector<std::string> readStrings(H5::DataSet &DS, uint64_t Start, uint64_t Count);
/// Rows [Start, Start+Count) of a 1-D (Width 1) or 2-D [rows, Width] dataset.
template <typename T>
std::vector<T> readNumbers(H5::DataSet &DS, const H5::PredType &Ty, uint64_t Start,
                           uint64_t Count, unsigned Width) {
  std::vector<T> Out(Count * Width);
  if (Count == 0)
    return Out;
  H5::DataSpace FS = DS.getSpace();
  hsize_t Off[2] = {Start, 0}, Cnt[2] = {Count, Width};
  const int Rank = FS.getSimpleExtentNdims();
  // Off and Cnt hold two extents; a dataset of another rank is the file's error, not ours.
  if (Rank < 1 || Rank > 2 || (Rank == 1 && Width != 1))
    throw H5::DataSetIException("readNumbers", "dataset of rank " + std::to_string(Rank) +
                                                   ", expected [rows] or [rows, columns]");
  FS.selectHyperslab(H5S_SELECT_SET, Cnt, Off);
  H5::DataSpace MS(Rank, Cnt);
  DS.read(Out.data(), Ty, MS, FS);
  return Out;
}
uint64_t extentOf(H5::DataSet &DS);
/// Writes a whole 1-D string dataset or 2-D [Rows, Cols] float64 dataset (no times).
void writeStrings(H5::Group &G, const char *Name, const std::vector<std::string> &V);
void writeMatrix(H5::Group &G, const char *Name, const double *Data, hsize_t Rows, hsize_t Cols);

/// Writes an HDF5 file that appears under Path only when complete: Body fills the temporary
/// file of a support::PendingFile (v1.8 format, no times), which is then moved into place; on
/// any error or exception nothing is left.
llvm::Error writeFileAtomically(llvm::StringRef Path,
                                const std::function<void(H5::H5File &)> &Body);

} // namespace wb::corpus::h5
