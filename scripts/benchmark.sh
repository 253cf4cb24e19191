#!/usr/bin/env bash
# The open benchmark for inliner policies in one command (docs/benchmark.md).
#
#   scripts/benchmark.sh                 the default set on the pinned corpus: builds the corpus
#                                        (or reuses it) in build/benchmark-corpus, writes
#                                        build/benchmark
#   scripts/benchmark.sh SPEC OUT_DIR    another spec; the pinned corpus is built only when the
#                                        spec names it
# Extra policies: copy bench/benchmark/benchmark.json, add {"name": ..., "policy": "mlp",
# "model": "FILE"} or {"name": ..., "train": {"features": [...]}} to "policies", pass it here.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '4,10s/^# \{0,1\}//p' "$0"; }
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  -*) echo "benchmark.sh: unknown option $1" >&2; usage >&2; exit 64 ;;
esac
[ $# -le 2 ] || { usage >&2; exit 64; }
spec=${1:-$repo/bench/benchmark/benchmark.json}
out=${2:-$repo/build/benchmark}
[ -f "$spec" ] || { echo "benchmark.sh: $spec: no such spec" >&2; exit 64; }
if [ $# -eq 0 ] || grep -q 'benchmark-corpus' "$spec"; then
  # 0: every package built; 2: some failed (reported; the benchmark runs on the others).
  /usr/bin/python3 "$repo/scripts/build-benchmark-corpus.py" -o "$repo/build/benchmark-corpus" || [ $? -eq 2 ]
fi
exec "$repo/build/bin/ir2vec" mlgo benchmark -j "$(nproc)" "$spec" -o "$out"
