#!/usr/bin/env bash
# Reproduces the shipped default MIR vocabulary (mir/default/) end to end with the project's own
# tools: builds the Debian-source corpus (the shared one, as the tests build it), takes every
# module through llc-22 -O2's code generation in-process to three stages (after instruction
# selection, before and after register allocation), extracts the MIR triplets of x86-64, trains
# TransE and writes LLVM's MIR vocabulary JSON (llvm-ir2vec-22 --mode=mir loads it).
#
#   scripts/train-default-mir-vocab.sh [WORK_DIR]        (default: build/default-mir-vocab)
#
# Needs a built tree (build/bin/ir2vec, or $IR2VEC) and ../shared/corpus/build-corpus.sh. About a minute on
# 2 cores once the corpus is built; deterministic (one training thread, fixed seeds).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$repo/build/default-mir-vocab}
ir2vec=${IR2VEC:-$repo/build/bin/ir2vec}
source "$repo/scripts/transe-recipe.sh"
mkdir -p "$work"

# 1. Corpus: the shared corpus as compiled for use (clang-22's default -O2 pipeline).
bash "$repo/scripts/build-test-corpus.sh" "$repo/../shared/corpus/build-corpus.sh" "$work/corpus"

# 2. MIR triplets of x86-64 at three points of code generation.
"$ir2vec" triplets --mode=mir --format openke --mtriple x86_64-linux-gnu \
  --mir-stage isel,pre-ra,post-ra -o "$work/triplets" -j "$(nproc)" -q "@$work/corpus/corpus.list"

# 3. TransE, 75 dimensions, the default recipe (scripts/transe-recipe.sh). The report
#    (epochs, test link prediction) is kept beside the vocabulary.
"$ir2vec" vocab train --mode=mir "$work/triplets" --dim 75 "${transe_recipe[@]}" \
  -o "$repo/mir/default/mir2vec-x86_64-75d.json" 2>&1 | tee "$work/train.txt"
grep -E "epochs|test" "$work/train.txt" | sed 's/^ir2vec: //' > "$repo/mir/default/mir2vec-x86_64-75d.txt"
cp "$work/triplets/manifest.json" "$repo/mir/default/triplets-manifest.json"
echo "default MIR vocabulary written to mir/default/; rebuild to compile it in"
