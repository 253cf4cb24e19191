#!/usr/bin/env bash
# Builds the widened MLGO corpus that the shipped inliner policy and the ablation study use:
# ../shared/corpus/build-corpus.sh over 20 Debian source packages (its 8 defaults plus 12 more,
# as docs/policy-training.md §6 suggests: more packages make a split by package meaningful),
# IR before any LLVM pass (-Oz -Xclang -disable-llvm-passes), as ml-compiler-opt's corpora.
# re2c is left out: its source tarball is missing from the Debian mirror. A no-op when the
# corpus already exists.
#
#   scripts/build-wide-corpus.sh [OUT_DIR]        (default: build/corpus-wide)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/build/corpus-wide}
# One list for every user of the corpus; changing it changes the split and the shipped policy.
export PACKAGES="zlib bzip2 lua5.4 sqlite3 tinyxml2 libyaml cjson xz-utils jansson lzo2 libmd jq libuv1 mbedtls libevent lmdb libtommath libb2 xxhash libdeflate"
exec bash "$repo/scripts/build-test-corpus.sh" "$repo/../shared/corpus/build-corpus.sh" "$out" \
  -Oz -Xclang -disable-llvm-passes
