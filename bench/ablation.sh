#!/usr/bin/env bash
# The full feature-ablation study (issue 11, item 8): builds the widened corpus, runs
# `ir2vec mlgo ablate bench/ablation.json` on it with every core, and copies the report and
# its plots into docs/ablation.md. The report states wall time, compilations and
# compilations per second; `time` below measures the whole command as a user sees it.
#
#   bench/ablation.sh [OUT_DIR]        (default: build/ablation; reruns reuse its explorations)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/build/ablation}
bash "$repo/scripts/build-wide-corpus.sh" "$repo/build/corpus-wide"
start=$(date +%s)
status=0
"$repo/build/bin/ir2vec" mlgo ablate "$repo/bench/ablation.json" -o "$out" -j "$(nproc)" || status=$?
echo "ablation: exit $status, $(( $(date +%s) - start )) s wall on $(nproc) cores"
[ "$status" -le 2 ] || exit "$status"
# docs/ablation.md is the report as written, with the plots beside it.
mkdir -p "$repo/docs/ablation"
cp "$out/reduction.svg" "$out/importance.svg" "$repo/docs/ablation/"
sed -e 's#(reduction\.svg)#(ablation/reduction.svg)#; s#(importance\.svg)#(ablation/importance.svg)#' \
  -e 's#(reduction\.png)#(ablation/reduction.svg)#; s#(importance\.png)#(ablation/importance.svg)#' \
  "$out/report.md" > "$repo/docs/ablation.md"
echo "ablation: report in docs/ablation.md"
exit "$status"
