#!/usr/bin/env bash
# Builds the shared test corpus once (ctest fixture "corpus"); a no-op when it already exists.
#   build-test-corpus.sh PATH/TO/build-corpus.sh OUT_DIR [clang flags...]
set -euo pipefail
builder=${1:?usage: build-test-corpus.sh BUILD_CORPUS_SH OUT_DIR [flags...]}
out=${2:?usage: build-test-corpus.sh BUILD_CORPUS_SH OUT_DIR [flags...]}
shift 2
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
if [ -s "$out/corpus.list" ] && [ -s "$out/corpus_description.json" ]; then
  echo "corpus: $(wc -l < "$out/corpus.list") modules already in $out"
  exit 0
fi
[ -f "$builder" ] || { echo "corpus: $builder not found (the shared reference directory must sit beside the repository)" >&2; exit 1; }
# The directory is replaced as a whole: never one that holds anything else (a build tree).
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ] && [ ! -s "$out/corpus.list" ]; then
  echo "corpus: $out exists and is not a corpus; refusing to replace it" >&2; exit 1
fi
# Build into a fresh directory and move it into place, so an interrupted build is never
# mistaken for a finished one.
rm -rf "$out.partial"
bash "$builder" "$out.partial" "$@"
# The builder records absolute paths; rewrite them for the final location.
sed -i "s#^$out.partial/#$out/#" "$out.partial/corpus.list"
rm -rf "$out"
mv "$out.partial" "$out"
echo "corpus: $(wc -l < "$out/corpus.list") modules in $out"
