// What every part of the Python module shares: llvm::Error to Python exceptions, rows to numpy.
#pragma once

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <fcntl.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

namespace wb::python {

namespace py = pybind11;

/// IR names are bytes; Python gets str, with bytes that are not UTF-8 kept as surrogates
/// (os.fsdecode's rule), so that no name is refused or altered.
inline py::str text(const std::string &S) {
  PyObject *O = PyUnicode_DecodeUTF8(S.data(), static_cast<Py_ssize_t>(S.size()),
                                     "surrogateescape");
  if (!O)
    throw py::error_already_set();
  return py::reinterpret_steal<py::str>(O);
}

/// Raises ValueError with Message as text() decodes it: a message naming a file whose name is
/// not UTF-8 became an empty ValueError through pybind11's strict decoding.
/// Takes the GIL first: raising without it killed the interpreter (Vocabulary.export to
/// /dev/full raised from inside a gil_scoped_release).
[[noreturn]] inline void raiseValueError(const std::string &Message) {
  py::gil_scoped_acquire Locked;
  py::str M = text(Message);
  PyErr_SetObject(PyExc_ValueError, M.ptr());
  throw py::error_already_set();
}

/// The value of E, or a ValueError with its message (LLVM's module raises ValueError for every
/// bad input, naming the cause; our messages name the file and the place).
template <typename T> T valueOrRaise(llvm::Expected<T> E) {
  if (!E)
    raiseValueError(llvm::toString(E.takeError()));
  return std::move(*E);
}
inline void raiseIf(llvm::Error E) {
  if (E)
    raiseValueError(llvm::toString(std::move(E)));
}

/// A path argument (str, bytes or os.PathLike) as the bytes the file system takes (os.fsencode:
/// a str with surrogates from a name that is not UTF-8 gives that name back).
inline std::string pathBytes(const py::object &P) {
  return py::bytes(py::module_::import("os").attr("fsencode")(P)).cast<std::string>();
}

/// The bytes of a name given as str: the inverse of text().
inline std::string bytesOf(const py::str &S) {
  PyObject *B = PyUnicode_AsEncodedString(S.ptr(), "utf-8", "surrogateescape");
  if (!B)
    throw py::error_already_set();
  std::string Out(PyBytes_AS_STRING(B), static_cast<size_t>(PyBytes_GET_SIZE(B)));
  Py_DECREF(B);
  return Out;
}

/// Remarks that do not stop the work (keys a vocabulary lacks, debug info dropped) become
/// Python warnings, which the user can filter or turn into errors.
inline void warnAll(const std::vector<std::string> &Warnings) {
  if (Warnings.empty())
    return;
  // warnings.warn with the message as text() decodes it (PyErr_WarnEx decodes strictly, and a
  // path that is not UTF-8 failed there); stacklevel 1: the caller's line, as PyErr_WarnEx's.
  py::object Warn = py::module_::import("warnings").attr("warn");
  for (const std::string &W : Warnings)
    Warn(text(W), py::handle(PyExc_UserWarning), 1);
}

/// str for each name (text()).
inline py::list texts(const std::vector<std::string> &V) {
  py::list L(V.size());
  for (size_t I = 0; I < V.size(); ++I)
    L[I] = text(V[I]);
  return L;
}

/// Rows x Cols over Data (one dimension when Cols is 0), owned by Owner from now on.
template <typename T>
py::array_t<T> arrayOver(T *Data, size_t Rows, size_t Cols, py::capsule Owner) {
  if (Cols == 0)
    return py::array_t<T>({static_cast<py::ssize_t>(Rows)}, Data, Owner);
  return py::array_t<T>({static_cast<py::ssize_t>(Rows), static_cast<py::ssize_t>(Cols)}, Data,
                        Owner);
}

/// A numpy array over V's memory (moved, not copied): Rows x Cols, or one dimension when
/// Cols is 0.
template <typename T> py::array_t<T> adopt(std::vector<T> &&V, size_t Rows, size_t Cols) {
  auto *Owned = new std::vector<T>(std::move(V));
  py::capsule Free(Owned, [](void *P) { delete static_cast<std::vector<T> *>(P); });
  return arrayOver(Owned->data(), Rows, Cols, Free);
}

/// A column that grows to gigabytes: numbers appended module by module into one block that
/// grows by realloc, which glibc does for large blocks with mremap, moving page tables instead
/// of copying and faulting in every byte again at each doubling (as std::vector does: at
/// instruction level over a large corpus that took as long as the embedding itself).
template <typename T> class Column {
  static_assert(std::is_trivially_copyable_v<T>);

public:
  Column() = default;
  Column(const Column &) = delete;
  Column(Column &&O) noexcept : P(O.P), N(O.N), Cap(O.Cap) { O.P = nullptr; O.N = O.Cap = 0; }
  Column &operator=(Column &&O) noexcept {
    std::swap(P, O.P);
    std::swap(N, O.N);
    std::swap(Cap, O.Cap);
    return *this;
  }
  ~Column() { std::free(P); }

  size_t size() const { return N; }
  void append(const T *Data, size_t Count) {
    if (N + Count > Cap) {
      const size_t Want = std::max({N + Count, 2 * Cap, size_t(4096) / sizeof(T)});
      void *Q = std::realloc(P, Want * sizeof(T));
      if (!Q)
        throw std::bad_alloc();
      P = static_cast<T *>(Q);
      Cap = Want;
    }
    if (Count)
      std::memcpy(P + N, Data, Count * sizeof(T));
    N += Count;
  }
  void append(const std::vector<T> &V) { append(V.data(), V.size()); }
  void push_back(T X) { append(&X, 1); }

  /// The numpy array Rows x Cols (one dimension when Cols is 0) that takes the memory over.
  py::array_t<T> toNumpy(size_t Rows, size_t Cols) && {
    T *Data = P ? P : static_cast<T *>(std::malloc(sizeof(T)));
    if (!Data)
      throw std::bad_alloc();
    P = nullptr;
    N = Cap = 0;
    return arrayOver(Data, Rows, Cols, py::capsule(Data, [](void *X) { std::free(X); }));
  }

private:
  T *P = nullptr;
  size_t N = 0, Cap = 0;
};

/// A fresh float64 vector holding Dim doubles copied from Row.
inline py::array_t<double> vectorOf(const double *Row, size_t Dim) {
  py::array_t<double> A(static_cast<py::ssize_t>(Dim));
  if (Dim)
    std::memcpy(A.mutable_data(), Row, Dim * sizeof(double));
  return A;
}

/// A JSON value as Python's json module reads it (dicts, lists, floats; doubles are written with
/// 17 significant digits, so they come back exactly).
inline py::object jsonToPython(const llvm::json::Value &V) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << V;
  return py::module_::import("json").attr("loads")(S);
}

/// Python's own signal wake-up (signal.set_wakeup_fd) pointed at a pipe for a run: the
/// run sees Ctrl-C at once (its cancellation descriptor becomes readable), kills the compiler
/// and cleans up; KeyboardInterrupt is raised afterwards. Only the main thread may set it;
/// elsewhere the session runs without (Ctrl-C then waits for the session's end).
class WakeupPipe {
public:
  WakeupPipe() {
    if (::pipe2(P, O_CLOEXEC | O_NONBLOCK) != 0) {
      P[0] = P[1] = -1;
      return;
    }
    try {
      Old = py::module_::import("signal").attr("set_wakeup_fd")(P[1]);
    } catch (py::error_already_set &) {
      ::close(P[0]);
      ::close(P[1]);
      P[0] = P[1] = -1;
    }
  }
  ~WakeupPipe() {
    if (P[0] < 0)
      return;
    py::module_::import("signal").attr("set_wakeup_fd")(Old);
    ::close(P[0]);
    ::close(P[1]);
  }
  int readEnd() const { return P[0]; }
  int writeEnd() const { return P[1]; }

private:
  int P[2] = {-1, -1};
  py::object Old;
};

} // namespace wb::python
