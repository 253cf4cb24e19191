#!/usr/bin/env bash
# The tests again under AddressSanitizer and UndefinedBehaviorSanitizer (issue 12): a second
# tree, build-asan/, configured with -DWB_SANITIZE=ON, and the tests labelled sanitized (every
# unit test and the tests of hostile input, limits, signals, bad command lines and the oracles
# of IR and MIR; which and why in tests/CMakeLists.txt). Any sanitizer report stops the program
# that made it (support/Sanitizers.cpp), so it fails its test.
#   scripts/sanitizer-tests.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# -g1: line tables, which is what a sanitizer's report needs for file:line, without the rest of
# the debug information (Ablate.cpp compiled in 32 s instead of 45, its object 8 MB instead of
# 19), and this stage builds the whole tree a second time. For a debugger, configure with -g.
cmake -S "$repo" -B "$repo/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWB_SANITIZE=ON -DWB_UNITY=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" > /dev/null
cmake --build "$repo/build-asan" -j "$(nproc)"
ctest --test-dir "$repo/build-asan" -L sanitized --output-on-failure -j "$(nproc)"
