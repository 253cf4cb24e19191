#!/usr/bin/env bash
# Reproduces the shipped inliner-for-size policy (runners/policies/inline-size.h5, `ir2vec mlgo
# run --policy size`) end to end with the project's own tools, and its evaluation by the
# benchmark's transfer protocol (docs/size-policy.md):
#
#   1. the pinned benchmark corpus (scripts/build-benchmark-corpus.py: 32 Debian source
#      packages, 15 of them C++, IR before any LLVM pass);
#   2. the benchmark (bench/benchmark/benchmark.json): its "size" entry is a rule search scored
#      on 5 folds of packages; each fold's rule is chosen on the other folds and judged on its
#      own (the protocol's numbers), then the rule chosen the same way on every package is the
#      shipped one (models/size.h5);
#   3. that rule copied to runners/policies/inline-size.h5 and the size entry of results.json
#      (every candidate, every fold's choice, per package) to
#      runners/policies/inline-size-benchmark.json.
#
#   scripts/train-default-policy.sh [OUT_DIR]        (default: build/benchmark)
#
# Needs a built tree (build/bin/ir2vec). About 45 minutes on 2 cores after the corpus (the
# exploration, reused when OUT_DIR holds one made with the same settings, is 19 of them);
# deterministic: the search compiles every candidate on every module and chooses by measured
# .text.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/build/benchmark}
case "$out" in -*) sed -n '18s/^# \{0,1\}//p' "$0" >&2; exit 64 ;; esac
out=$(mkdir -p "$out" && cd "$out" && pwd)
# The spec named relative to the checkout: the model file records the name it was given, so
# every checkout makes the same bytes.
(cd "$repo" && bash scripts/benchmark.sh --no-perf bench/benchmark/benchmark.json "$out")
cp "$out/models/size.h5" "$repo/runners/policies/inline-size.h5"
/usr/bin/python3 - "$out/results.json" "$repo/runners/policies/inline-size-benchmark.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
size = next(p for p in r["policies"] if p["name"] == "size")
size = {k: v for k, v in size.items() if k != "modules"}  # per module: in OUT_DIR/results.json
keep = {k: r[k] for k in ("schema", "corpus", "protocol") if k in r}
json.dump(dict(keep, policy=size), open(sys.argv[2], "w"), indent=1, sort_keys=True)
s = size["summary"]
print(f"shipped rule {size['search']['final_rule']}: by the protocol {100 * s['reduction']:.3f} % below -Oz, "
      f"worst package {s['worst_package']['package']} {100 * s['worst_package']['reduction']:.3f} %")
PY
echo "policy written to runners/policies/inline-size.h5; rebuild to install it"
