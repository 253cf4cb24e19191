#!/usr/bin/env bash
# The open benchmark in one command (docs/benchmark.md, docs/perf.md).
#
#   scripts/benchmark.sh                 the default set on the pinned corpus: builds the corpus
#                                        (or reuses it) in build/benchmark-corpus, runs the
#                                        performance track in build/benchmark-perf, writes
#                                        build/benchmark with the track pinned in its manifest
#   scripts/benchmark.sh SPEC OUT_DIR    another spec; the pinned corpus is built only when the
#                                        spec names it
#   options before SPEC: --no-perf       leave the performance track out
#                        --perf-results FILE   take the track's results from FILE (a run of
#                                        --perf) instead of running it
#   scripts/benchmark.sh --perf [OUT_DIR] [--policy SPEC]...
#                                        the performance track alone: register allocation
#                                        policies judged by valgrind's counts of programs built
#                                        from pinned sources (default OUT_DIR
#                                        build/benchmark-perf; default policies: default, no-evict)
# Extra policies: copy bench/benchmark/benchmark.json, add {"name": ..., "policy": "mlp",
# "model": "FILE"} or {"name": ..., "train": {"features": [...]}} to "policies", pass it here.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '4,19s/^# \{0,1\}//p' "$0"; }
perf=run
perf_results=
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --perf)
      shift
      out=$repo/build/benchmark-perf
      case "${1:-}" in ""|-*) ;; *) out=$1; shift ;; esac
      exec /usr/bin/python3 "$repo/scripts/perf-track.py" -o "$out" --ir2vec "$repo/build/bin/ir2vec" "$@" ;;
    --no-perf) perf=none; shift ;;
    --perf-results)
      [ $# -ge 2 ] || { echo "benchmark.sh: --perf-results needs a file" >&2; exit 64; }
      perf=file; perf_results=$2; shift 2 ;;
    -*) echo "benchmark.sh: unknown option $1" >&2; usage >&2; exit 64 ;;
    *) break ;;
  esac
done
[ $# -le 2 ] || { usage >&2; exit 64; }
spec=${1:-$repo/bench/benchmark/benchmark.json}
out=${2:-$repo/build/benchmark}
[ -f "$spec" ] || { echo "benchmark.sh: $spec: no such spec" >&2; exit 64; }
if [ $# -eq 0 ] || grep -q 'benchmark-corpus' "$spec"; then
  # 0: every package built; 2: some failed (reported; the benchmark runs on the others).
  /usr/bin/python3 "$repo/scripts/build-benchmark-corpus.py" -o "$repo/build/benchmark-corpus" || [ $? -eq 2 ]
fi
extra=()
case $perf in
  run)
    # The track first: a failure there (a download, a build, outputs that differ) stops the run
    # before the long part.
    /usr/bin/python3 "$repo/scripts/perf-track.py" -o "$repo/build/benchmark-perf" --ir2vec "$repo/build/bin/ir2vec"
    extra=(--perf-results "$repo/build/benchmark-perf/results.json") ;;
  file) extra=(--perf-results "$perf_results") ;;
esac
exec "$repo/build/bin/ir2vec" mlgo benchmark -j "$(nproc)" "$spec" -o "$out" "${extra[@]}"
