#!/usr/bin/env bash
# Steps 1 and 2 of the default vocabulary's recipe (scripts/train-default-vocab.sh), shared with
# bench/devmap-vocabs.sh: the Debian-source corpus as IR before any pass, then its triplets at
# every optimisation level, with the training supplement and the extended relations.
#
#   scripts/vocab-triplets.sh WORK_DIR     writes WORK_DIR/corpus (kept when built) and
#                                          WORK_DIR/triplets (OpenKE)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$1
ir2vec=$repo/build/bin/ir2vec
mkdir -p "$work"

# 1. Corpus: IR before any LLVM pass (as MLGO corpora), so that step 2 sees each module at
#    every optimisation level exactly as opt-22 -O<x> would produce it.
bash "$repo/scripts/build-test-corpus.sh" "$repo/../shared/corpus/build-corpus.sh" \
  "$work/corpus" -Oz -Xclang -disable-llvm-passes

# 2. Triplets: the corpus plus the training supplement (rare constructs), LLVM's default
#    pipelines O0..Oz in-process, with the extended relations (predicates, operand types).
{ cat "$work/corpus/corpus.list"; echo "$repo/vocab/default/supplement.ll"; } > "$work/inputs.list"
"$ir2vec" triplets --format openke -o "$work/triplets" --extended-relations \
  --opt-levels O0,O1,O2,O3,Os,Oz -j "$(nproc)" "@$work/inputs.list"

