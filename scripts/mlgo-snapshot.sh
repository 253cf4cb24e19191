#!/usr/bin/env bash
# Every MLGO study at a small budget, for showing that a refactor of mlgo/ changes no output
# (issue 40): run it before and after, then compare with scripts/mlgo-snapshot-compare.py.
#   scripts/mlgo-snapshot.sh IR2VEC CORPUS_OZ OUT
# IR2VEC: the ir2vec-full binary; CORPUS_OZ: the -Oz MLGO test corpus (build/test-corpus-oz,
# made by the mlgo_corpus_build test); OUT: a new directory.
# Five packages of it (41 modules) are copied into OUT/corpus so that both runs read the same
# bytes; every command writes under OUT. -j 2 throughout: the studies give the same bytes for
# any -j (tested elsewhere), so this checks the refactor, not the scheduling.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 IR2VEC CORPUS_OZ OUT" >&2
  exit 2
fi
ir2vec=$(realpath "$1")
src=$(realpath "$2")
out=$3
if [ -e "$out" ]; then
  echo "$0: $out exists: give a new directory" >&2
  exit 2
fi
mkdir -p "$out"
out=$(realpath "$out")
packages=(bzip2 cjson libyaml tinyxml2 xz-utils)

# The corpus: the chosen packages' modules, in the corpus description's order.
mkdir "$out/corpus"
for p in "${packages[@]}"; do cp -r "$src/$p" "$out/corpus/"; done
/usr/bin/python3 - "$src/corpus_description.json" "$out/corpus/corpus_description.json" "${packages[@]}" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
keep = set(sys.argv[3:])
d["modules"] = [m for m in d["modules"] if m.split("/")[0] in keep]
json.dump(d, open(sys.argv[2], "w"), indent=1)
EOF
corpus=$out/corpus/corpus_description.json
step() { echo "== $*" >&2; "$@"; }
m() { step "$ir2vec" mlgo "$@" -j 2 -q; }

# Exploration, training, fine-tuning: the pieces the studies are made of.
m explore --budget 6 --test-fraction 0.3 -o "$out/explore.h5" "$corpus"
m explore --budget 6 --all --embeddings '' -o "$out/explore-all.h5" "$corpus"
step "$ir2vec" mlgo train -q --epochs 5 -o "$out/model.h5" "$out/explore.h5"
step "$ir2vec" mlgo train -q --epochs 5 --features cost,callgraph,embedding --observations default \
  -o "$out/model-emb.h5" "$out/explore-all.h5"
m finetune --model "$out/model.h5" -o "$out/bias.h5" "$out/explore.h5"
m finetune --model "$out/model.h5" --method es --steps 2 --pairs 2 --modules-per-step 8 \
  -o "$out/es.h5" "$out/explore.h5"

# mlgo eval: the split protocol and the transfer protocol with an exploration's headroom.
m eval --policy mlp --model "$out/model.h5" --test-fraction 0.3 -o "$out/eval-split.json" \
  --hdf5 "$out/eval-split.h5" "$corpus"
m eval --policy mlp --model "$out/model.h5" --test-fraction 0.3 --train-side -o "$out/eval-train.json" "$corpus"
m eval --policy mlp --model "$out/model.h5" --protocol transfer --exploration "$out/explore-all.h5" \
  -o "$out/eval-transfer.json" "$corpus"
m eval --policy mlp --model "$out/model-emb.h5" --embeddings --zero-missing --test-fraction 0.3 \
  -o "$out/eval-emb.json" "$corpus"

# mlgo train-evict: ES on the register allocation cost, held-out report.
m train-evict --steps 2 --pairs 2 --modules-per-step 8 --test-fraction 0.3 -o "$out/evict.h5" \
  --report "$out/evict.json" "$corpus"

# mlgo ablate: inline by split and by folds, and evict.
cat > "$out/ablate-split.json" <<EOF
{"corpus": ["$corpus"], "split": {"test_fraction": 0.3, "seed": 1},
 "exploration": {"budget": 6, "seed": 1, "flip_order": "inlined"},
 "model": {"kind": "mlp", "hidden": [8], "epochs": 5, "batch_size": 64, "learning_rate": 0.001},
 "seeds": [1, 2], "training_side": true, "timeout": 600,
 "arms": [
  {"name": "all", "features": ["cost", "callgraph", "heuristic", "embedding", "module"], "vocabulary": "default"},
  {"name": "no-embeddings", "features": ["cost", "callgraph", "heuristic"]},
  {"name": "all-counts", "features": ["cost", "callgraph", "embedding"], "vocabulary": "counts"},
  {"name": "module-rd", "features": ["cost", "callgraph", "module"], "vocabulary": "default", "kind": "flow-aware-rd"}]}
EOF
cat > "$out/ablate-folds.json" <<EOF
{"corpus": ["$corpus"], "folds": 2,
 "exploration": {"budget": 6, "seed": 1, "flip_order": "inlined"},
 "model": {"kind": "linear", "epochs": 5, "batch_size": 64, "learning_rate": 0.001},
 "seeds": [1], "timeout": 600,
 "arms": [
  {"name": "cost", "features": ["cost", "callgraph"]},
  {"name": "cost+emb", "features": ["cost", "callgraph", "embedding"], "vocabulary": "default"}]}
EOF
cat > "$out/ablate-evict.json" <<EOF
{"task": "evict", "corpus": ["$corpus"], "split": {"test_fraction": 0.3, "seed": 1},
 "training": {"steps": 2, "pairs": 2, "modules_per_step": 8, "sigma": 0.1, "learning_rate": 0.05},
 "model": {"hidden": [4]}, "seeds": [1], "timeout": 300,
 "arms": [
  {"name": "register", "features": ["register"]},
  {"name": "register+emb+mir", "features": ["register", "embedding", "machine"], "vocabulary": "default"}]}
EOF
for s in split folds evict; do
  m ablate -o "$out/ablate-$s" "$out/ablate-$s.json"
done

# mlgo benchmark: a fixed policy, a rule search and a trained policy by folds.
cat > "$out/benchmark.json" <<EOF
{"corpus": ["$corpus"], "folds": 2, "seed": 1,
 "exploration": {"budget": 6, "seed": 1, "flip_order": "inlined", "rules": "all"},
 "model": {"kind": "mlp", "hidden": [8], "epochs": 5, "batch_size": 64, "learning_rate": 0.001},
 "timeout": 600,
 "policies": [
  {"name": "heuristic", "policy": "default"},
  {"name": "size", "search": {"add": [0, 5], "add_max_callee_users": [2], "add_max_callee_blocks": [1]}},
  {"name": "trained", "train": {"features": ["cost", "callgraph", "heuristic"]}}]}
EOF
m benchmark -o "$out/benchmark" "$out/benchmark.json"
echo "snapshot written to $out" >&2
