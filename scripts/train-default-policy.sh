#!/usr/bin/env bash
# Reproduces the shipped inliner-for-size policy (runners/policies/inline-size.h5, `ir2vec mlgo
# run --policy size`) end to end with the project's own tools, and its evaluation:
#
#   1. the widened corpus (scripts/build-wide-corpus.sh: 20 Debian source packages, IR before
#      any LLVM pass);
#   2. exploration of the training side of its split by package (30 % of the packages held
#      out, split seed 1), 16 compilations per module;
#   3. fine-tuning from the heuristic (mlgo finetune --from-heuristic, the bias search): the
#      size margin below the heuristic's threshold at which it still inlines;
#   4. held-out evaluation against -Oz (runners/policies/inline-size-eval.json) and the same on
#      the training side (inline-size-train.json).
#
#   scripts/train-default-policy.sh [WORK_DIR]        (default: build/default-policy)
#
# Needs a built tree (build/bin/ir2vec) and ../shared/corpus/build-corpus.sh. About 15 minutes
# on 2 cores after the corpus; deterministic (the same bytes on every run, any -j).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$repo/build/default-policy}
ir2vec=$repo/build/bin/ir2vec
corpus=$repo/build/corpus-wide
jobs=$(nproc)
mkdir -p "$work"
# The split every step uses; the held-out packages are never read before step 4.
split=(--test-fraction 0.3 --split-seed 1)

bash "$repo/scripts/build-wide-corpus.sh" "$corpus"

resume=()
[ -d "$work/explore.h5.parts" ] && resume=(--resume)
[ -s "$work/explore.h5" ] || "$ir2vec" mlgo explore -j "$jobs" --budget 16 --seed 1 \
  --flip-order inlined "${split[@]}" "${resume[@]}" -o "$work/explore.h5" \
  "$corpus/corpus_description.json"

"$ir2vec" mlgo finetune "$work/explore.h5" --from-heuristic --method bias -j "$jobs" \
  -o "$repo/runners/policies/inline-size.h5"

for side in held-out train; do
  out=$repo/runners/policies/inline-size-$([ $side = train ] && echo train || echo eval).json
  "$ir2vec" mlgo eval -j "$jobs" "${split[@]}" $([ $side = train ] && echo --train-side) \
    --policy size --model "$repo/runners/policies/inline-size.h5" -o "$out" \
    "$corpus/corpus_description.json"
  /usr/bin/python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["summary"]; print(sys.argv[2] + ":", json.dumps(s))' "$out" "$side"
done
echo "policy written to runners/policies/inline-size.h5; rebuild to install it"
