#!/usr/bin/env bash
# The open benchmark for inliner policies in one command (docs/benchmark.md): builds the pinned
# corpus (or reuses it), then judges the default set of policies by the transfer protocol.
#
#   scripts/benchmark.sh [SPEC] [OUT_DIR]    (default: bench/benchmark/benchmark.json,
#                                             build/benchmark)
# Extra policies: copy the spec, add {"name": ..., "policy": "mlp", "model": "FILE"} or
# {"name": ..., "train": {"features": [...]}} to "policies", and pass it here.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
spec=${1:-$repo/bench/benchmark/benchmark.json}
out=${2:-$repo/build/benchmark}
# 0: every package built; 2: some failed (reported; the benchmark runs on the others).
/usr/bin/python3 "$repo/scripts/build-benchmark-corpus.py" -o "$repo/build/benchmark-corpus" || [ $? -eq 2 ]
exec "$repo/build/bin/ir2vec" mlgo benchmark -j "$(nproc)" "$spec" -o "$out"
