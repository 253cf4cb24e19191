#!/usr/bin/python3
"""A Python callable as the inliner's policy on the MLGO corpus (issue 13), in one Python
process as a user runs it: for every module, `opt-22 -passes=default<Oz>` alone and the same
command under `ir2vec.mlgo.run` with a callable answering the compiler's own decision
(obs["inlining_default"]), timed side by side in the same process (the order alternates per
module, so drift on a shared machine hits both alike). Both outputs go through llc-22 and
llvm-size-22 -A: the .text must be equal for every module. Prints the sums and their ratio.

  PYTHONPATH=build/python bench/python_policy.py CORPUS_LIST [--limit K]
(CORPUS_LIST: BUILD/test-corpus-oz/corpus.list, which the corpus tests build.)
"""
import argparse
import os
import re
import subprocess
import tempfile
import time

import ir2vec

ap = argparse.ArgumentParser()
ap.add_argument("corpus_list")
ap.add_argument("--limit", type=int, default=0)
a = ap.parse_args()
mods = [l.strip() for l in open(a.corpus_list) if l.strip()]
if a.limit:
    mods = mods[:a.limit]


def text_size(bc):
    subprocess.run(["llc-22", "-filetype=obj", bc, "-o", bc + ".o"], check=True)
    out = subprocess.run(["llvm-size-22", "-A", bc + ".o"], capture_output=True, text=True, check=True).stdout
    return sum(int(m.group(1)) for m in re.finditer(r"^\.text\S*\s+(\d+)", out, re.M))


decisions = 0


def policy(obs):
    global decisions
    decisions += 1
    return obs["inlining_default"]


totals = {"plain": 0.0, "python": 0.0}
differ = []
with tempfile.TemporaryDirectory() as d:
    plain, hosted = os.path.join(d, "plain.bc"), os.path.join(d, "hosted.bc")
    for i, m in enumerate(mods):
        oz = ["opt-22", "-passes=default<Oz>", m, "-o"]

        def run_plain():
            subprocess.run(oz + [plain], check=True, capture_output=True)

        def run_python():
            r = ir2vec.mlgo.run(oz + [hosted], policy, task="inline")
            if not r.clean:
                raise SystemExit(f"{m}: {r.summary}")

        sides = [("plain", run_plain), ("python", run_python)]
        for name, fn in (sides if i % 2 == 0 else sides[::-1]):
            t0 = time.perf_counter()
            fn()
            totals[name] += time.perf_counter() - t0
        a_, b_ = text_size(plain), text_size(hosted)
        if a_ != b_:
            differ.append((m, a_, b_))

print(f"{len(mods)} modules, {decisions} decisions answered in Python; .text equal for "
      f"{len(mods) - len(differ)} of {len(mods)}" + (f"; differ: {differ[:5]}" if differ else ""))
print(f"opt-22 alone {totals['plain']:.2f} s; under ir2vec.mlgo.run with a Python policy "
      f"{totals['python']:.2f} s; ratio {totals['python'] / totals['plain']:.3f}")
