#!/usr/bin/python3
"""MLGO host acceptance over a whole corpus built as MLGO corpora are
(clang -Oz -Xclang -disable-llvm-passes: IR before any pass).

For every module: `ir2vec mlgo run --task inline --policy default -- opt-22
-passes='default<Oz>'` and opt-22 alone; both outputs compiled by llc-22 -filetype=obj and
measured with llvm-size-22 -A (.text and .text.*): the sizes must be equal for every module.
Then `ir2vec mlgo collect --policy default` over the corpus description: every module's
policy size equals its baseline, every reward is 0, and its sizes equal the ones measured
here. Timings are not asserted (bench/mlgo_corpus.py measures them).
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
mods = [l.strip() for l in open(os.path.join(a.corpus, "corpus.list")) if l.strip()]
work = tempfile.mkdtemp(prefix="mlgo-corpus-")
res = harness.Results()
check = res.check


def text_size(obj):
    return mlgo_oracle.text_size(B("llvm-size"), obj)


def one(i):
    m = mods[i]
    d = os.path.join(work, str(i))
    os.makedirs(d)
    plain, hosted = os.path.join(d, "plain.bc"), os.path.join(d, "host.bc")
    subprocess.run([B("opt"), "-passes=default<Oz>", m, "-o", plain], check=True)
    r = subprocess.run([a.ir2vec, "mlgo", "run", "--task", "inline", "--policy", "default", "--stats",
                        "--", B("opt"), "-passes=default<Oz>", m, "-o", hosted], capture_output=True, text=True)
    if r.returncode != 0:
        return m, None, None, r.stderr
    sizes = []
    for bc in (plain, hosted):
        subprocess.run([B("llc"), "-filetype=obj", bc, "-o", bc + ".o"], check=True)
        sizes.append(text_size(bc + ".o"))
    # The --stats line ("ir2vec mlgo: N observations ..."); a module the compiler asked nothing
    # about is preceded by a warning that says so.
    stats = next(l for l in r.stderr.splitlines() if " observations" in l)
    obs = int(stats.split(": ", 1)[1].split()[0])
    return m, sizes, obs, ""


sizes, decisions, same = {}, 0, 0
with cf.ThreadPoolExecutor(max_workers=2) as ex:
    for m, s, obs, err in ex.map(one, range(len(mods))):
        if not check(f"{m}: the host ran", s is not None, err[-300:]):
            continue
        sizes[m] = s[0]
        decisions += obs
        same += check(f"{m}: the same .text alone and under the host", s[0] == s[1],
                      f".text {s[0]} alone, {s[1]} under the host")
print(f"mlgo run --policy default: {len(sizes)} of {len(mods)} modules, {decisions} decisions, "
      f"{same} with the same .text")

out = os.path.join(work, "data.h5")
r = subprocess.run([a.ir2vec, "mlgo", "collect", "--task", "inline", "--policy", "default", "-j", "2", "-q",
                    "-o", out, os.path.join(a.corpus, "corpus_description.json")], capture_output=True, text=True)
if check("collect: exit 0", r.returncode == 0, r.stderr[-500:]):
    with h5py.File(out) as f:
        paths = [x.decode() for x in f["modules/path"][:]]
        text, base = f["modules/text_size"][:], f["modules/baseline_text_size"][:]
        check("collect: every module", len(paths) == len(mods), f"{len(paths)} modules, expected {len(mods)}")
        for i, pth in enumerate(paths):
            check(f"collect {pth}: policy size = baseline", text[i] == base[i],
                  f"policy {text[i]} baseline {base[i]}")
            if pth in sizes:
                check(f"collect {pth}: baseline = llvm-size", base[i] == sizes[pth],
                      f"baseline {base[i]}, llvm-size {sizes[pth]}")
        check("collect: every reward is 0 under the default policy",
              np.all(f["row/reward"][:] == 0) and np.all(f["modules/reward"][:] == 0))
        check("collect: one row per answered decision", f.attrs["rows"] == decisions,
              f"{f.attrs['rows']} rows, the sessions answered {decisions}")
        print(f"collect: {len(paths)} modules, {f.attrs['rows']} rows")

status = res.summary()
if status == 0:
    subprocess.run(["rm", "-rf", work])
sys.exit(status)
