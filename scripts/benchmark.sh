#!/usr/bin/env bash
# The open benchmark for inliner policies in one command (docs/benchmark.md).
#
#   scripts/benchmark.sh                 the default set on the pinned corpus: builds the corpus
#                                        (or reuses it) in build/benchmark-corpus, writes
#                                        build/benchmark
#   scripts/benchmark.sh SPEC OUT_DIR    another spec; the pinned corpus is built only when the
#                                        spec names it
#   scripts/benchmark.sh --perf [OUT_DIR] [--policy SPEC]...
#                                        the performance track (docs/perf.md): register
#                                        allocation policies judged by valgrind's counts of
#                                        programs built from pinned sources (default OUT_DIR
#                                        build/benchmark-perf; default policies: default, no-evict)
# Extra policies: copy bench/benchmark/benchmark.json, add {"name": ..., "policy": "mlp",
# "model": "FILE"} or {"name": ..., "train": {"features": [...]}} to "policies", pass it here.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '4,15s/^# \{0,1\}//p' "$0"; }
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --perf)
    shift
    out=$repo/build/benchmark-perf
    case "${1:-}" in ""|-*) ;; *) out=$1; shift ;; esac
    exec /usr/bin/python3 "$repo/scripts/perf-track.py" -o "$out" --ir2vec "$repo/build/bin/ir2vec" "$@" ;;
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
