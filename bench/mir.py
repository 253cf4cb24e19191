#!/usr/bin/env python3
"""Machine-level embedding of a corpus against llc-22 reaching the same point alone, side by
side in interleaved rounds; prints medians and ratios (issue 26: goal at most 1.2x llc-22).

  bench/mir.py [--build DIR] [--corpus DIR] [--stage post-ra|pre-ra|isel] [--vocab MIR.json]
               [--repeat N]

Configurations, every module of the corpus (the shared corpus by default, built as
bench/corpus.py builds it):
  (a) llc-22 -O2 -stop-after/-stop-before the stage's pass, -o a null device made in a temporary
      directory (a FIFO drained here without root), one process per
      module in a bash loop (what a user runs before llvm-ir2vec --mode=mir; llvm-ir2vec's own
      time comes on top of it and is not counted), and two such loops at once (xargs -P2)
  (b) ir2vec embeddings --mode=mir --mir-stage STAGE, HDF5, -j1 and -j2, at level func and
      level inst, with the default MIR vocabulary (or --vocab)
"""
import argparse
import os
import stat
import statistics
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from corpus import corpus_modules, llvm_bindir, timed  # noqa: E402

STAGES = {"post-ra": "-stop-after=virtregrewriter", "pre-ra": "-stop-before=greedy",
          "isel": "-stop-after=finalize-isel"}


def null_sink(tmp):
    """Where llc's output goes: never a system path. A null character device made in tmp (root,
    as CI runs), else a FIFO in tmp that a thread here drains for the whole run."""
    path = os.path.join(tmp, "null")
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        return path
    except PermissionError:
        os.mkfifo(path, 0o600)

    def drain():
        while True:  # each writer's close is an end of file: open again for the next one
            with open(path, "rb") as f:
                while f.read(1 << 16):
                    pass
    threading.Thread(target=drain, daemon=True).start()
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--corpus", help="a corpus directory with corpus.list (default: build it)")
    ap.add_argument("--stage", default="post-ra", choices=list(STAGES))
    ap.add_argument("--vocab", help="a MIR vocabulary for x86-64 (default: the compiled-in one)")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    ir2vec = os.path.join(a.build, "bin", "ir2vec")
    llc = os.path.join(llvm_bindir(), "llc")
    lst, modules = corpus_modules(a.build, a.corpus)
    corpus = os.path.dirname(lst)
    tmp = tempfile.mkdtemp(prefix="ir2vec-bench-mir-")
    vocab = ["--mir2vec-vocab-path", a.vocab] if a.vocab else []
    out = os.path.join(tmp, "out.h5")
    flag = STAGES[a.stage]
    sink = null_sink(tmp)

    llc_loop = ["bash", "-c", 'while IFS= read -r f; do "$0" -O2 ' + flag +
                ' "$f" -o "$1" || exit 1; done < ' + lst, llc, sink]
    llc_p2 = ["bash", "-c", 'xargs -P2 -I{} "$0" -O2 ' + flag + ' {} -o "$1" < ' + lst, llc, sink]

    def ours(j, level):
        return [ir2vec, "embeddings", "-q", "--mode=mir", *vocab, "--mir-stage",
                a.stage, "--format", "hdf5", "--level", level, "-o", out, "-j", str(j), "@" + lst]

    configs = [
        ("llc-22 loop, 1 at a time", llc_loop),
        ("llc-22, 2 at a time (xargs -P2)", llc_p2),
        ("ir2vec --mode=mir func -j1", ours(1, "func")),
        ("ir2vec --mode=mir func -j2", ours(2, "func")),
        ("ir2vec --mode=mir inst -j1", ours(1, "inst")),
        ("ir2vec --mode=mir inst -j2", ours(2, "inst")),
    ]
    times = {name: [] for name, _ in configs}
    for r in range(a.repeat):
        for name, cmd in (configs if r % 2 == 0 else configs[::-1]):
            times[name].append(timed(cmd)[0])
        print(f"round {r + 1}/{a.repeat} done", file=sys.stderr)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\ncorpus: {len(modules)} modules ({corpus}); stage {a.stage} ({flag}); "
          f"median of {a.repeat} interleaved rounds\n")
    print(f"{'configuration':40} {'seconds':>9}")
    for name, _ in configs:
        print(f"{name:40} {med[name]:9.3f}")
    print("\nratios (ir2vec / llc-22 alone; goal <= 1.2)")
    for level in ("func", "inst"):
        print(f"  {level} -j1 / llc-22 loop:      {med[f'ir2vec --mode=mir {level} -j1'] / med['llc-22 loop, 1 at a time']:.2f}")
        print(f"  {level} -j2 / llc-22 xargs -P2: {med[f'ir2vec --mode=mir {level} -j2'] / med['llc-22, 2 at a time (xargs -P2)']:.2f}")


if __name__ == "__main__":
    main()
