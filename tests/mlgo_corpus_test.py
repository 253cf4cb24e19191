#!/usr/bin/python3
"""MLGO host acceptance over a whole corpus built as MLGO corpora are
(clang -Oz -Xclang -disable-llvm-passes: IR before any pass).

For every module, opt-22 -passes='default<Oz>' compiled by llc-22 -filetype=obj and measured
with llvm-size-22 -A (.text and .text.*); for every other module also `ir2vec mlgo run --task
inline --policy default --` the same opt-22: the sizes must be equal. Then `ir2vec mlgo collect
--policy default` over the corpus description: every module's policy size equals its baseline,
every reward is 0, its sizes equal the ones measured here, and it has one row per decision mlgo
run answered. Timings are not asserted (bench/mlgo_corpus.py measures them).
"""
import argparse, concurrent.futures as cf, os, subprocess, sys, tempfile

import h5py
import numpy as np

import harness
import mlgo_oracle

p = argparse.ArgumentParser()
p.add_argument("--ir2vec", required=True)
p.add_argument("--llvm-bindir", required=True)
p.add_argument("--corpus", required=True)  # directory with corpus.list and corpus_description.json
a = p.parse_args()
B = lambda t: os.path.join(a.llvm_bindir, t)
mods = [l.strip() for l in open(os.path.join(a.corpus, "sample.list")) if l.strip()]
work = tempfile.mkdtemp(prefix="mlgo-corpus-")
res = harness.Results()
check = res.check


def text_size(obj):
    return mlgo_oracle.text_size(B("llvm-size"), obj)


def one(i):
    """opt-22 -Oz then llc-22 and llvm-size-22 for every module (the oracle of collect's
    baselines); on every other module also the same opt-22 under `mlgo run` (the host's other
    path: collect runs the policy on every module)."""
    m = mods[i]
    d = os.path.join(work, str(i))
    os.makedirs(d)
    plain, hosted = os.path.join(d, "plain.bc"), os.path.join(d, "host.bc")
    subprocess.run([B("opt"), "-passes=default<Oz>", m, "-o", plain], check=True)
    subprocess.run([B("llc"), "-filetype=obj", plain, "-o", plain + ".o"], check=True)
    size = text_size(plain + ".o")
    if i % 2:
        return m, size, None, None, ""
    r = subprocess.run([a.ir2vec, "mlgo", "run", "--task", "inline", "--policy", "default", "--stats",
                        "--", B("opt"), "-passes=default<Oz>", m, "-o", hosted], capture_output=True, text=True)
    if r.returncode != 0:
        return m, size, None, None, r.stderr
    subprocess.run([B("llc"), "-filetype=obj", hosted, "-o", hosted + ".o"], check=True)
    # The --stats line ("ir2vec mlgo: N observations ..."); a module the compiler asked nothing
    # about is preceded by a warning that says so.
    stats = next(l for l in r.stderr.splitlines() if " observations" in l)
    obs = int(stats.split(": ", 1)[1].split()[0])
    return m, size, text_size(hosted + ".o"), obs, ""


sizes, decisions, hosted, same = {}, {}, 0, 0
with cf.ThreadPoolExecutor(max_workers=2) as ex:
    for i, (m, size, host_size, obs, err) in enumerate(ex.map(one, range(len(mods)))):
        sizes[m] = size
        if i % 2:
            continue
        if not check(f"{m}: the host ran", host_size is not None, err[-300:]):
            continue
        hosted += 1
        decisions[m] = obs
        same += check(f"{m}: the same .text alone and under the host", size == host_size,
                      f".text {size} alone, {host_size} under the host")
print(f"mlgo run --policy default: {hosted} of {len(mods[::2])} modules (every other one), "
      f"{sum(decisions.values())} decisions, {same} with the same .text")

out = os.path.join(work, "data.h5")
r = subprocess.run([a.ir2vec, "mlgo", "collect", "--task", "inline", "--policy", "default", "-j", "2", "-q",
                    "-o", out, os.path.join(a.corpus, "sample_description.json")], capture_output=True, text=True)
if check("collect: exit 0", r.returncode == 0, r.stderr[-500:]):
    with h5py.File(out) as f:
        paths = [x.decode() for x in f["modules/path"][:]]
        text, base = f["modules/text_size"][:], f["modules/baseline_text_size"][:]
        check("collect: every module", len(paths) == len(mods), f"{len(paths)} modules, expected {len(mods)}")
        for i, pth in enumerate(paths):
            check(f"collect {pth}: policy size = baseline", text[i] == base[i],
                  f"policy {text[i]} baseline {base[i]}")
            check(f"collect {pth}: baseline = llvm-size", base[i] == sizes.get(pth),
                  f"baseline {base[i]}, llvm-size {sizes.get(pth)}")
        check("collect: every reward is 0 under the default policy",
              np.all(f["row/reward"][:] == 0) and np.all(f["modules/reward"][:] == 0))
        # Rows per module (row/module indexes modules/*) against the decisions mlgo run's
        # sessions answered for the same module.
        rows = np.bincount(f["row/module"][:], minlength=len(paths))
        for i, pth in enumerate(paths):
            if pth in decisions:
                check(f"collect {pth}: one row per decision mlgo run answered", rows[i] == decisions[pth],
                      f"{rows[i]} rows, the session answered {decisions[pth]}")
        print(f"collect: {len(paths)} modules, {f.attrs['rows']} rows")

status = res.summary()
if status == 0:
    subprocess.run(["rm", "-rf", work])
sys.exit(status)
