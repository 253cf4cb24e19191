#!/usr/bin/env bash
# Seed corpora for the fuzz targets from real files: the project's vocabularies and policy,
# files the tool writes (embeddings, counts, session logs of opt-22 and llc-22), LLVM's seed
# vocabulary when ../shared is there. Needs the normal build (build/bin/ir2vec).
#   fuzz/seeds.sh OUT_DIR
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$1
ir2vec=$repo/build/bin/ir2vec
mkdir -p "$out"/{vocabulary,model,embeddings,log,tensorspec,inputs,ir,openke,resume}
cp "$repo"/vocab/default/ir2vec-default-75d.{json,h5} "$repo/examples/demo-vocab-12d.json" "$out/vocabulary/"
[ -f "$repo/../shared/vocab/seedEmbeddingVocab75D.json" ] && cp "$repo/../shared/vocab/seedEmbeddingVocab75D.json" "$out/vocabulary/"
cp "$repo"/runners/policies/inline-size.h5 "$out/model/"
ll=$repo/examples/example.ll
"$ir2vec" embeddings --format hdf5 -q -o "$out/embeddings/func.h5" "$ll"
"$ir2vec" embeddings --format hdf5 --level inst -q -o "$out/embeddings/inst.h5" "$ll"
"$ir2vec" embeddings --counts --format hdf5 -q -o "$out/embeddings/counts.h5" "$ll"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
clang-22 -Oz -Xclang -disable-llvm-passes -emit-llvm -c -x c - -o "$tmp/m.bc" <<'C'
static int sq(int x) { return x * x; }
int f(int a, int b) { return sq(a) + sq(b) * a; }
C
"$ir2vec" mlgo run --log "$out/log/inline.log" -- opt-22 -passes='default<Oz>' "$tmp/m.bc" -o "$tmp/o.bc"
# The first byte of a log input seeds the chunk sizes.
for f in "$out"/log/*.log; do { printf '\x07'; cat "$f"; } > "$f.seeded" && mv "$f.seeded" "$f"; done
printf '{"name":"a","type":"int64_t","port":0,"shape":[1]}' > "$out/tensorspec/int.json"
printf '{"name":"e","type":"float","port":0,"shape":[1,33]}' > "$out/tensorspec/float.json"
printf '{"global_command_override":["-cc1","-Oz"],"modules":["a/b","c"]}' > "$out/inputs/description.json"
printf '%s\n' "$ll" > "$out/inputs/list.txt"
# IR: the test modules as text and as bitcode.
for f in "$repo"/tests/data/*.ll "$ll"; do
  cp "$f" "$out/ir/"
  llvm-as-22 "$f" -o "$out/ir/$(basename "$f" .ll).bc" 2> /dev/null || true
done
# OpenKE: the files of a real triplets run, joined at NUL bytes in the target's order.
"$ir2vec" triplets --format openke -q -o "$tmp/openke" "$repo"/tests/data/*.ll 2> /dev/null || true
for f in entity2id relation2id train2id; do cat "$tmp/openke/$f.txt"; printf '\0'; done > "$out/openke/run"
# Resume state: the layout of OUT.resume (schema ir2vec.resume/2), 14 dataset checksums.
printf '{"schema":"ir2vec.resume/2","fingerprint":"ab","modules":64,"failed":1,"function_found":true,"rows":[64,300,0,0],"checksums":["%s"]}' \
  "$(printf '0123456789abcdef", "%.0s' $(seq 13))0123456789abcdef" > "$out/resume/state.json"
