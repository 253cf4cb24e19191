#!/usr/bin/python3
"""The default device-mapping evaluation (issue 38, item 8): `ir2vec evaluate devmap` with the
controls and 4 embedding arms (the default and LLVM's seed vocabulary, symbolic and flow-aware),
3 protocols, 10 seeds, both platforms, on this machine's cores; beside it, in the same run, the
paper notebook's way (scikit-learn's StratifiedKFold and XGBClassifier, Debian's python3-sklearn
and python3-xgboost) doing the paper protocol's trainings of one arm (the costliest kind: 77
columns), with its accuracy, which must equal ours.

    /usr/bin/python3 bench/devmap.py [--ir2vec build/bin/ir2vec] [--shared ../shared] [-j N]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

p = argparse.ArgumentParser()
here = os.path.dirname(os.path.abspath(__file__))
p.add_argument("--ir2vec", default=os.path.join(here, "..", "build", "bin", "ir2vec"))
p.add_argument("--shared", default=os.path.join(here, "..", "..", "shared"))
p.add_argument("-j", type=int, default=os.cpu_count())
a = p.parse_args()
data = os.path.join(a.shared, "downstream", "devmap")
seed_vocab = os.path.join(a.shared, "vocab", "seedEmbeddingVocab75D.json")
tmp = tempfile.mkdtemp(prefix="bench-devmap-")

t0 = time.monotonic()
r = subprocess.run([a.ir2vec, "evaluate", "devmap", data, "--vocab", seed_vocab, "-o", os.path.join(tmp, "out"),
                    "-j", str(a.j)], capture_output=True, text=True)
wall = time.monotonic() - t0
if r.returncode != 0:
    sys.exit(r.stderr)
rep = json.load(open(os.path.join(tmp, "out", "report.json")))
trainings = rep["trainings"]
print(f"ir2vec evaluate devmap (default evaluation: {len(rep['arms'])} arms, "
      f"{len(rep['settings']['protocols'])} protocols, {len(rep['settings']['seeds'])} seeds, "
      f"{len(rep['dataset']['platforms'])} platforms, -j {a.j}): {wall:.1f} s wall, {trainings} trainings, "
      f"{trainings / wall:.2f} trainings/s")
print("  " + r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "")

# The notebook's way on the same features: one arm (seed vocabulary, flow-aware), paper protocol.
import h5py
import numpy as np
import xgboost as xgb
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import MinMaxScaler
h = h5py.File(os.path.join(tmp, "out", "results.h5"), "r")
arm = "seedEmbeddingVocab75D-flow-aware"
t0 = time.monotonic()
n = 0
accs = []
for plat in [x["name"] for x in rep["dataset"]["platforms"]]:
    X = MinMaxScaler().fit_transform(h[f"{plat}/arms/{arm}/features"][:])
    y = h[f"{plat}/oracle_gpu"][:, 0].astype(int)
    for seed in rep["settings"]["seeds"]:
        pred = np.zeros(len(y), dtype=int)
        for tr, te in StratifiedKFold(n_splits=10, shuffle=True, random_state=seed).split(X, y):
            m = xgb.XGBClassifier(max_depth=10, learning_rate=0.5, n_estimators=70, n_jobs=a.j)
            m.fit(X[tr], y[tr])
            pred[te] = m.predict(X[te])
            n += 1
        accs.append((pred == y).mean())
pywall = time.monotonic() - t0
ours = next(x for x in rep["arms"] if x["name"] == arm)["protocols"]["paper"]["platforms"]["mean"]["accuracy"]["mean"]
print(f"scikit-learn + XGBClassifier (n_jobs={a.j}), {arm}, paper protocol: {pywall:.1f} s for {n} trainings, "
      f"{n / pywall:.2f} trainings/s; mean accuracy {100 * np.mean(accs):.2f} % (ours {100 * ours:.2f} %)")
print("(the Python figure is one arm's trainings, 77 columns each; ours the mix of all arms, from 7 to 77 "
      "columns: the rates are not like for like)")
