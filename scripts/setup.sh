#!/usr/bin/env bash
# Installs the Debian 12 packages the workbench needs, then configures and builds it (Release)
# in ./build. Idempotent: packages already present are not touched, and a configured build
# tree is only rebuilt incrementally. Needs root for apt-get when something is missing.
#   scripts/setup.sh [extra cmake configure options...]
set -euo pipefail
cd "$(dirname "$0")/.."

# zlib1g-dev and libzstd-dev: LLVM's CMake package declares them as dependencies of its
# Support component, which the launcher links statically (llvm_map_components_to_libnames).
# gnuplot-nox: `mlgo ablate` draws its plots with it (PNG through cairo, SVG), no X needed.
# libclang-rt-22-dev: libFuzzer and clang's sanitizer runtimes for scripts/fuzz.sh (the
# sanitizer build of the tests uses g++'s ASan and UBSan, which come with g++).
# pybind11-dev, python3-dev: the Python module `import ir2vec` (python/); python3-pytest runs
# its tests. libopenmpi-dev, openmpi-bin: the MPI runs (`mpirun -np N ir2vec ...`, cluster/;
# openssh-client, which openmpi-bin recommends, starts ranks on other nodes);
# `scripts/setup.sh -DWB_MPI=OFF` neither installs nor uses them.
# chromium-headless-shell: tests/open_benchmark_test.py renders the benchmark's page in a real
# browser and checks its DOM against results.json.
# valgrind, python3-scipy, dpkg-dev: the performance track (scripts/perf-track.py) counts with
# cachegrind, ranks with scipy's spearmanr, unpacks Debian sources with dpkg-source.
# libxgboost-dev: `evaluate devmap` classifies with XGBoost through its C API (the IR2Vec
# paper's classifier; a well-kept library we would otherwise have to write); python3-xgboost
# and python3-sklearn: the independent implementation tests/devmap_test.py judges it by.
PKGS=(cmake make g++ llvm-22 llvm-22-dev clang-22 libarmadillo-dev libhdf5-dev libcli11-dev
      libgtest-dev libgmock-dev python3 python3-h5py python3-numpy bsdutils
      zlib1g-dev libzstd-dev gnuplot-nox libclang-rt-22-dev pybind11-dev python3-dev
      python3-pytest chromium-headless-shell valgrind python3-scipy dpkg-dev
      libxgboost-dev python3-xgboost python3-sklearn)
case " $* " in
  *" -DWB_MPI=OFF "*) ;;
  *) PKGS+=(libopenmpi-dev openmpi-bin openssh-client) ;;
esac
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages: ${missing[*]} (run as root, or apt-get install them)" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DWB_UNITY=ON "$@" >/dev/null
cmake --build build -j"$(nproc)"
