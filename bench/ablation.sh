#!/usr/bin/env bash
# The full feature-ablation study (issue 11, item 8): builds the widened corpus, runs
# `ir2vec mlgo ablate bench/ablation.json` on it with every core, and writes docs/ablation.md:
# the report as the tool wrote it (wall time, compilations, compilations per second inside),
# its plots, and a manifest of the run (the command, the commit, the machine, the corpus, the
# hashes of every file the numbers come from).
#
#   bench/ablation.sh [--study NAME] [OUT_DIR]         run, then write docs/NAME.md (default
#                                                      NAME ablation, OUT_DIR build/NAME; a
#                                                      rerun reuses its explorations)
#   bench/ablation.sh --docs [--study NAME] [OUT_DIR]  only write docs/NAME.md from a finished run
# NAME is a spec in bench/: ablation (issue 11), ablation-kinds (issue 39: the IR2Vec kinds of
# the module embedding beside the histogram).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
docs_only=0
study=ablation
[ "${1:-}" = --docs ] && { docs_only=1; shift; }
[ "${1:-}" = --study ] && { study=$2; shift 2; }
[ -f "$repo/bench/$study.json" ] || { echo "ablation.sh: no spec bench/$study.json" >&2; exit 2; }
out=${1:-$repo/build/$study}
corpus=$repo/build/corpus-wide
status=0
if [ $docs_only = 0 ]; then
  bash "$repo/scripts/build-wide-corpus.sh" "$corpus"
  start=$(date +%s)
  "$repo/build/bin/ir2vec" mlgo ablate "$repo/bench/$study.json" -o "$out" -j "$(nproc)" || status=$?
  echo "ablation: exit $status, $(( $(date +%s) - start )) s wall on $(nproc) cores"
  [ "$status" -le 2 ] || exit "$status"
fi

mkdir -p "$repo/docs/$study"
cp "$out/reduction.svg" "$out/importance.svg" "$repo/docs/$study/"
{
  sed -e "s#(reduction\\.svg)#($study/reduction.svg)#; s#(importance\\.svg)#($study/importance.svg)#" \
      -e "s#Everything the numbers come from is in this directory#Everything the numbers come from is in the run directory (\`bench/ablation.sh --study $study\` writes \`build/$study/\`)#" \
      "$out/report.md"
  echo
  echo "## Manifest"
  echo
  echo "Command: \`bench/ablation.sh --study $study\`, that is \`ir2vec mlgo ablate bench/$study.json -o build/$study -j $(nproc)\`"
  echo "on the corpus of \`scripts/build-wide-corpus.sh\` ($(wc -l < "$corpus/corpus.list") modules)."
  echo "Commit $(git -C "$repo" rev-parse --short HEAD); machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); report written $(date -u -r "$out/report.json" '+%Y-%m-%d %H:%M UTC')."
  echo
  echo "| file | SHA-256 |"
  echo "|---|---|"
  (cd "$repo" && sha256sum "bench/$study.json") | awk '{printf "| `%s` | `%s` |\n", $2, $1}'
  (cd "$out" && sha256sum report.json results.h5 exploration.h5 heldout.h5 models/*.h5) |
    awk -v d="build/$study" '{printf "| `%s/%s` | `%s` |\n", d, $2, $1}'
  echo
  echo "The spec:"
  echo
  echo '```json'
  cat "$repo/bench/$study.json"
  echo '```'
} > "$repo/docs/$study.md.tmp"
mv "$repo/docs/$study.md.tmp" "$repo/docs/$study.md"
echo "ablation: report in docs/$study.md"
exit "$status"
