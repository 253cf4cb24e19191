#!/usr/bin/env bash
# Builds the shared test corpus once (ctest fixture "corpus"); a no-op when it already exists.
# Then writes the sample the corpus tests take (every EVERY-th module of corpus.list, from the
# first; 1: every module): sample.list and sample_description.json (corpus_description.json's
# keys, its modules those of the sample).
#   build-test-corpus.sh PATH/TO/build-corpus.sh OUT_DIR EVERY [clang flags...]
set -euo pipefail
usage="usage: build-test-corpus.sh BUILD_CORPUS_SH OUT_DIR EVERY [flags...]"
builder=${1:?$usage}
out=${2:?$usage}
every=${3:?$usage}
[[ "$every" =~ ^[1-9][0-9]*$ ]] || { echo "corpus: EVERY must be a positive integer, not '$every'" >&2; exit 2; }
shift 3

write_sample() {
  /usr/bin/python3 - "$out" "$every" <<'PY'
import json, os, sys
out, every = sys.argv[1], int(sys.argv[2])
chosen = [l.strip() for l in open(os.path.join(out, "corpus.list")) if l.strip()][::every]
d = json.load(open(os.path.join(out, "corpus_description.json")))
keep = set(chosen)
d["modules"] = [m for m in d["modules"] if os.path.join(out, m + ".bc") in keep]
if len(d["modules"]) != len(chosen):
    sys.exit(f"corpus: {len(chosen)} sampled modules, {len(d['modules'])} of them in corpus_description.json")
with open(os.path.join(out, "sample.list.tmp"), "w") as f:
    f.write("".join(m + "\n" for m in chosen))
with open(os.path.join(out, "sample_description.json.tmp"), "w") as f:
    json.dump(d, f, indent=1)
PY
  mv "$out/sample.list.tmp" "$out/sample.list"
  mv "$out/sample_description.json.tmp" "$out/sample_description.json"
  echo "corpus: sample of $(wc -l < "$out/sample.list") modules (every $every)"
}
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
if [ -s "$out/corpus.list" ] && [ -s "$out/corpus_description.json" ]; then
  echo "corpus: $(wc -l < "$out/corpus.list") modules already in $out"
  write_sample
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
write_sample
