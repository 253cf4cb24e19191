#!/usr/bin/env bash
# Per-file comparison with llvm-ir2vec, side by side in one run: both tools embed every module
# of a corpus, one process per file (llvm-ir2vec's only mode), output to /dev/null. The two
# tools alternate file by file so that machine noise hits both alike. Prints the summed wall
# seconds and the ratio llvm-ir2vec / ir2vec (higher = we are faster); compare ratios, not
# absolute times, on shared machines.
#   bench/per-file.sh CORPUS_LIST VOCAB.json [BUILD_DIR]
set -euo pipefail
list=${1:?usage: per-file.sh CORPUS_LIST VOCAB.json [BUILD_DIR]}
vocab=${2:?usage: per-file.sh CORPUS_LIST VOCAB.json [BUILD_DIR]}
build=${3:-$(dirname "$0")/../build}
ours=$build/bin/ir2vec
theirs=$(llvm-config-22 --bindir)/llvm-ir2vec
mapfile -t files < "$list"

# compare NAME SUBCOMMAND [args...]: times theirs and ours over every file, interleaved.
compare() {
  local name=$1 sub=$2; shift 2
  local a=0 b=0 t0 f
  for f in "${files[@]}"; do
    t0=$EPOCHREALTIME; "$theirs" "$sub" "$@" "$f" > /dev/null 2>&1 || true
    a=$(echo "$a + $EPOCHREALTIME - $t0" | bc)
    t0=$EPOCHREALTIME; "$ours" "$sub" -q "$@" "$f" > /dev/null 2>&1 || true
    b=$(echo "$b + $EPOCHREALTIME - $t0" | bc)
  done
  printf '%-22s %12.2f %12.2f %7.2fx\n' "$name" "$a" "$b" "$(echo "$a / $b" | bc -l)"
}

printf '%-22s %12s %12s %8s\n' "modules: ${#files[@]}" "llvm-ir2vec" "ir2vec" "ratio"
for kind in symbolic flow-aware; do
  for level in func bb inst; do
    compare "$kind $level" embeddings --ir2vec-vocab-path="$vocab" --ir2vec-kind=$kind --level=$level
  done
done
compare triplets triplets
