#!/usr/bin/env bash
# The full feature-ablation study (issue 11, item 8): builds the widened corpus, runs
# `ir2vec mlgo ablate bench/ablation.json` on it with every core, and writes docs/ablation.md:
# the report as the tool wrote it (wall time, compilations, compilations per second inside),
# its plots, and a manifest of the run (the command, the commit, the machine, the corpus, the
# hashes of every file the numbers come from).
#
#   bench/ablation.sh [OUT_DIR]          run, then write docs/ablation.md (default: build/ablation;
#                                        a rerun reuses its explorations)
#   bench/ablation.sh --docs [OUT_DIR]   only write docs/ablation.md from a finished run
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
docs_only=0
[ "${1:-}" = --docs ] && { docs_only=1; shift; }
out=${1:-$repo/build/ablation}
corpus=$repo/build/corpus-wide
status=0
if [ $docs_only = 0 ]; then
  bash "$repo/scripts/build-wide-corpus.sh" "$corpus"
  start=$(date +%s)
  "$repo/build/bin/ir2vec" mlgo ablate "$repo/bench/ablation.json" -o "$out" -j "$(nproc)" || status=$?
  echo "ablation: exit $status, $(( $(date +%s) - start )) s wall on $(nproc) cores"
  [ "$status" -le 2 ] || exit "$status"
fi

mkdir -p "$repo/docs/ablation"
cp "$out/reduction.svg" "$out/importance.svg" "$repo/docs/ablation/"
{
  sed -e 's#(reduction\.svg)#(ablation/reduction.svg)#; s#(importance\.svg)#(ablation/importance.svg)#' \
      -e 's#Everything the numbers come from is in this directory#Everything the numbers come from is in the run directory (`bench/ablation.sh` writes `build/ablation/`)#' \
      "$out/report.md"
  echo
  echo "## Manifest"
  echo
  echo "Command: \`bench/ablation.sh\`, that is \`ir2vec mlgo ablate bench/ablation.json -o build/ablation -j $(nproc)\`"
  echo "on the corpus of \`scripts/build-wide-corpus.sh\` ($(wc -l < "$corpus/corpus.list") modules)."
  echo "Commit $(git -C "$repo" rev-parse --short HEAD); machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); report written $(date -u -r "$out/report.json" '+%Y-%m-%d %H:%M UTC')."
  echo
  echo "| file | SHA-256 |"
  echo "|---|---|"
  (cd "$repo" && sha256sum bench/ablation.json) | awk '{printf "| `%s` | `%s` |\n", $2, $1}'
  (cd "$out" && sha256sum report.json results.h5 exploration.h5 heldout.h5 models/*.h5) |
    awk '{printf "| `build/ablation/%s` | `%s` |\n", $2, $1}'
  echo
  echo "The spec:"
  echo
  echo '```json'
  cat "$repo/bench/ablation.json"
  echo '```'
} > "$repo/docs/ablation.md.tmp"
mv "$repo/docs/ablation.md.tmp" "$repo/docs/ablation.md"
echo "ablation: report in docs/ablation.md"
exit "$status"
