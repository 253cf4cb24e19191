#!/usr/bin/env bash
# Builds the fuzz targets (clang-22, libFuzzer from libclang-rt-22-dev, ASan + UBSan) in
# build-fuzz/ and runs each for SECONDS (default 600) on its seed corpus, one job per core.
# A crash leaves its input in build-fuzz/crashes/TARGET/; turn each into a regression test.
# Inputs on which LLVM crashed and the tool recovered (fuzz_ir) go to build-fuzz/recovered/.
# An input that takes more than 30 s is a hang, reported as a crash (timeout-*). Sanitizer
# reports of the isolated HDF5 readers' children are not crashes of the fuzzer: they are
# counted in the log.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-600}; shift || true
build=$repo/build-fuzz
CC=clang-22 CXX=clang++-22 cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWB_FUZZ=ON -DBUILD_TESTING=OFF > /dev/null
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(vocabulary model embeddings log tensorspec inputs ir openke resume)
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"
bash "$repo/fuzz/seeds.sh" "$build/seeds"
run() {
  local t=$1
  mkdir -p "$build/corpus/$t" "$build/crashes/$t" "$build/recovered/$t"
  # LLVM crashes the product recovers from (fuzz_ir) are kept here, not counted as crashes.
  export WB_FUZZ_RECOVERED=$build/recovered/$t
  # An impossible allocation (LLVM or libhdf5 asking for tens of GB a crafted file claims)
  # gets NULL, as from the C library in the tool, instead of a sanitizer report: the readers'
  # answer to it is what is tested.
  export ASAN_OPTIONS=allocator_may_return_null=1
  "$build/bin/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 -rss_limit_mb=4096 -malloc_limit_mb=65536 -timeout=30 \
    -artifact_prefix="$build/crashes/$t/" "$build/corpus/$t" "$build/seeds/$t" \
    > "$build/fuzz-$t.log" 2>&1
  echo "$t: exit $?, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/fuzz-$t.log" | tail -1 | grep -o '[0-9]*$') executions, $(ls "$build/crashes/$t" | wc -l) crashes, $(ls "$build/recovered/$t" | wc -l) recovered LLVM crashes, $(grep -c 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer' "$build/fuzz-$t.log") sanitizer reports (isolated children included)"
}
export -f run; export build secs
printf '%s\n' "${targets[@]}" | xargs -P "$(nproc)" -I{} bash -c 'run {}'
