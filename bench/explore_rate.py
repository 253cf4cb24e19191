#!/usr/bin/env python3
"""An exploration's compilations per second with embedding features, this build against another
in the same run (issue 52: the vocabulary resolved once per run instead of read per session).

Each round runs `ir2vec mlgo explore --all --budget B --embeddings VOCAB -j J` over the same
modules with this build and with --baseline's, in alternating order, into fresh files; the
compilations are counted from the file itself (its rollouts, plus one replay per module and
embedding: h5py), so both sides are measured by the same count. Prints each side's total wall
time, compilations per second and the ratio, and whether the two builds explored the same sizes.

usage: bench/explore_rate.py IR2VEC CORPUS_LIST --baseline IR2VEC [--embeddings VOCAB]
                             [--budget B] [--limit K] [--small N] [--rounds R] [-j J]

VOCAB '' (the default) is the default vocabulary; give an HDF5 vocabulary (`ir2vec vocab export
-o v.h5`) to see what an older build's forked reader per session cost. With --small N, N modules
spread over the smallest third of the list (by file size): where a compile is short, what a
session costs besides the compiler shows.
"""
import argparse, os, subprocess, sys, tempfile, time

import h5py

from mlgo_corpus import modules_of


def compilations(path):
    with h5py.File(path) as f:
        sets = len(f["observations"]) - 1  # one replay per module and embedding
        explored = sum(1 for e in f["modules/error"][:] if not e)
        return len(f["rollouts/module"]) + sets * explored, list(f["modules/best_text_size"][:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ir2vec")
    ap.add_argument("corpus_list")
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--embeddings", default="")
    ap.add_argument("--budget", type=int, default=4)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--small", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    mods = modules_of(a.corpus_list, a.small, a.limit)
    sides = {"this build": a.ir2vec, "baseline": a.baseline}
    wall = {k: 0.0 for k in sides}
    count, sizes = {}, {}
    with tempfile.TemporaryDirectory() as d:
        lst = os.path.join(d, "modules.list")
        open(lst, "w").write("".join(m + "\n" for m in mods))
        for r in range(a.rounds):
            order = list(sides.items()) if r % 2 == 0 else list(reversed(sides.items()))
            for name, exe in order:
                out = os.path.join(d, f"x-{r}-{name.replace(' ', '-')}.h5")
                cmd = [exe, "mlgo", "explore", "-q", "--all", "--budget", str(a.budget), "-j", str(a.j),
                       "--embeddings", a.embeddings, "-o", out, "@" + lst]
                t = time.perf_counter()
                p = subprocess.run(cmd, capture_output=True, text=True)
                wall[name] += time.perf_counter() - t
                if p.returncode != 0:
                    sys.exit(f"{name}: exit {p.returncode}: {p.stderr[-800:]}")
                count[name], sizes[name] = compilations(out)
                os.unlink(out)
            print(f"round {r + 1}/{a.rounds}: " + ", ".join(f"{k} {wall[k]:.1f} s" for k in sides),
                  file=sys.stderr)
    print(f"modules: {len(mods)}, budget {a.budget}, -j {a.j}, embeddings "
          f"{a.embeddings or 'the default vocabulary'}, {a.rounds} rounds")
    for k in sides:
        print(f"{k}: {count[k]} compilations a run, {wall[k]:.2f} s in all, "
              f"{count[k] * a.rounds / wall[k]:.2f} compilations per second")
    print(f"this build / baseline, wall time: {wall['this build'] / wall['baseline']:.3f}; "
          f"same best sizes: {sizes['this build'] == sizes['baseline']}")
    return 0 if sizes["this build"] == sizes["baseline"] else 1


if __name__ == "__main__":
    sys.exit(main())
