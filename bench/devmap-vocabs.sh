#!/usr/bin/env bash
# Vocabularies for the device-mapping search (issue 39; docs/downstream.md, "Searching for an
# embedding that beats counting"): the default vocabulary's triplets (scripts/vocab-triplets.sh)
# trained from random vectors at 75 and at 300 dimensions (the IR2Vec paper's), every other
# setting the default recipe's (scripts/transe-recipe.sh), so that the pair isolates the
# dimension. Deterministic.
#
#   bench/devmap-vocabs.sh [WORK_DIR]   (default build/devmap-vocabs): WORK_DIR/r75.json and
#                                       r300.json, their HDF5 forms (with provenance), train logs
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$repo/build/devmap-vocabs}
ir2vec=$repo/build/bin/ir2vec
source "$repo/scripts/transe-recipe.sh"
mkdir -p "$work"
bash "$repo/scripts/vocab-triplets.sh" "$repo/build/default-vocab"
for dim in 75 300; do
  "$ir2vec" vocab train "$repo/build/default-vocab/triplets" --dim "$dim" "${transe_recipe[@]}" \
    -o "$work/r$dim.json" --hdf5 "$work/r$dim.h5" 2>&1 | tee "$work/r$dim.log"
done
