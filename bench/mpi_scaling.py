#!/usr/bin/env python3
"""MPI scaling on this machine (issue 14), side by side in interleaved rounds, medians:
1 rank against 2 ranks, one worker each (-j1), for

  (a) function-level embeddings (HDF5) of the shared corpus listed --times times, and
  (b) exploration (`mlgo explore`, --budget) of --explore-modules modules of the MLGO corpus
      (the shared corpus built with -Oz -Xclang -disable-llvm-passes), every 7th module so that
      all packages take part.

Every run's output is checked to be the same bytes as the 1-rank run's. For the embeddings,
the same rounds also time two independent processes without MPI, each embedding one half of
the list at once: the machine's own ceiling for two ranks (two busy cores share caches,
memory and, on a VM, the host), which no distribution of the work can beat. One more run of each
with IR2VEC_MPI_STATS=1 prints what rank 0 received (message counts and bytes: the sizes
docs/scale.md models with). The mpirun options are --mpirun-args (default: no core binding, as
the workbench's ranks run threads; Open MPI's ob1 messaging, whose start costs 0.05 s here
against 0.25 s for its default selection on this machine).

With --model, the per-module costs docs/scale.md models with, for each embedding level: a
worker's time per module (one process, -j1), the result's bytes per module and rank 0's CPU
time per module when it only deals and writes (3 ranks, --root-jobs 0; its CPU time from
IR2VEC_MPI_STATS, less that of a run of 3 modules), and the output's bytes per module.

  bench/mpi_scaling.py [--build DIR] [--vocab V.json] [--repeat N] [--times N]
                       [--explore-modules N] [--budget B] [--mpirun-args "..."] [--model]
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

p = argparse.ArgumentParser()
p.add_argument("--build", default=os.path.join(ROOT, "build"))
p.add_argument("--vocab", default=os.path.join(ROOT, "..", "shared", "vocab", "seedEmbeddingVocab75D.json"))
p.add_argument("--repeat", type=int, default=3)
p.add_argument("--times", type=int, default=10)
p.add_argument("--explore-modules", type=int, default=40)
p.add_argument("--budget", type=int, default=8)
p.add_argument("--mpirun-args", default="--bind-to none --mca pml ob1")
p.add_argument("--model", action="store_true", help="measure the per-module costs of the model")
a = p.parse_args()

tool = os.path.join(a.build, "bin", "ir2vec")
corpus = os.path.join(a.build, "test-corpus", "corpus.list")
mlgo = os.path.join(a.build, "test-corpus-oz", "corpus.list")
for f in (corpus, mlgo):
    if not os.path.exists(f):
        sys.exit(f"{f}: no corpus (the corpus tests build both: ctest -L corpus)")
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
tmp = tempfile.mkdtemp(prefix="bench-mpi-")
emb_list = os.path.join(tmp, "corpus.list")
with open(corpus) as f, open(emb_list, "w") as g:
    g.write(f.read() * a.times)
mods = [l.strip() for l in open(mlgo) if l.strip()][::7][:a.explore_modules]
exp_list = os.path.join(tmp, "explore.list")
open(exp_list, "w").write("".join(m + "\n" for m in mods))

jobs = {
    "embeddings": lambda out: ["embeddings", "-q", "--vocab", a.vocab, "--format", "hdf5",
                               "--level", "func", "-j", "1", "-o", out, "@" + emb_list],
    "explore": lambda out: ["mlgo", "explore", "-q", "--budget", str(a.budget), "-j", "1",
                            "-o", out, "@" + exp_list],
}


def run(np_, args, stats=False):
    cmd = ["mpirun", "--oversubscribe", *shlex.split(a.mpirun_args), "-np", str(np_), tool, *args]
    e = dict(env, IR2VEC_MPI_STATS="1") if stats else env
    if stats:
        cmd[1:1] = ["-x", "IR2VEC_MPI_STATS"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, env=e)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr.decode()[-800:]}")
    return time.perf_counter() - t0, r.stderr.decode()


def run_halves():
    """Wall seconds of two plain processes (no mpirun) embedding the two halves of the list at
    the same time."""
    lines = open(emb_list).readlines()
    cmds = []
    for k, part in enumerate((lines[:len(lines) // 2], lines[len(lines) // 2:])):
        lst = os.path.join(tmp, f"half{k}.list")
        open(lst, "w").write("".join(part))
        cmds.append([tool, "embeddings", "-q", "--vocab", a.vocab, "--format", "hdf5", "--level",
                     "func", "-j", "1", "-o", os.path.join(tmp, f"half{k}.h5"), "@" + lst])
    t0 = time.perf_counter()
    procs = [subprocess.Popen(c, env=env) for c in cmds]
    if any(p.wait() != 0 for p in procs):
        sys.exit("a half-list run failed")
    return time.perf_counter() - t0


if a.model:
    import re
    tiny = os.path.join(tmp, "tiny.list")
    open(tiny, "w").write("".join(open(corpus).readlines()[:3]))
    n = len(open(emb_list).readlines())

    def rank0(stderr):
        line = next(l for l in stderr.splitlines() if "rank 0 of" in l)
        m = re.search(r"(\d+) results \((\d+) bytes\)", line)
        return float(re.search(r"cpu ([0-9.]+) s", line).group(1)), int(m.group(2)) if m else 0

    print(f"per-module costs, the shared corpus x{a.times} ({n} modules), rank 0 dealing only (3 ranks):")
    for level in ("func", "bb", "inst"):
        args = lambda out, inputs: ["embeddings", "-q", "--vocab", a.vocab, "--format", "hdf5",
                                    "--level", level, "-j", "1", "--root-jobs", "0", "-o", out,
                                    "@" + inputs]
        out = os.path.join(tmp, f"model-{level}.h5")
        t0 = time.perf_counter()
        subprocess.run([tool] + args(out, emb_list), env=env, check=True, capture_output=True)
        worker = (time.perf_counter() - t0) / n
        _, err = run(3, args(out, emb_list), stats=True)
        cpu, bytes_ = rank0(err)
        _, err = run(3, args(out + ".tiny", tiny), stats=True)
        cpu0, _ = rank0(err)
        print(f"  {level:4}: worker {worker * 1e3:.2f} ms/module; result {bytes_ / n / 1e3:.1f} KB/module; "
              f"rank 0 {(cpu - cpu0) / n * 1e3:.3f} ms CPU/module; output "
              f"{os.path.getsize(out) / n / 1e3:.1f} KB/module")
    sys.exit(0)

print(f"{len(open(emb_list).readlines())} modules to embed; {len(mods)} to explore (budget "
      f"{a.budget}); mpirun {a.mpirun_args}; {a.repeat} interleaved rounds, medians")
for name, args in jobs.items():
    ref = os.path.join(tmp, f"{name}-ref.h5")
    run(1, args(ref))
    want = open(ref, "rb").read()
    times = {1: [], 2: []}
    halves = []
    for _ in range(a.repeat):
        for np_ in (1, 2):
            out = os.path.join(tmp, f"{name}-{np_}.h5")
            t, _ = run(np_, args(out))
            if open(out, "rb").read() != want:
                sys.exit(f"{name}: {np_} ranks wrote other bytes than 1 rank")
            times[np_].append(t)
        if name == "embeddings":
            halves.append(run_halves())
    t1, t2 = statistics.median(times[1]), statistics.median(times[2])
    print(f"{name}: 1 rank {t1:.2f} s, 2 ranks {t2:.2f} s: {t1 / t2:.2f}x (same bytes; runs "
          f"{', '.join(f'{x:.2f}' for x in times[1])} / {', '.join(f'{x:.2f}' for x in times[2])})")
    if halves:
        th = statistics.median(halves)
        print(f"  two independent processes, half of the list each, at once: {th:.2f} s, "
              f"{t1 / th:.2f}x the 1-rank run (the machine's ceiling; runs "
              f"{', '.join(f'{x:.2f}' for x in halves)})")
    _, err = run(2, args(os.path.join(tmp, f"{name}-stats.h5")), stats=True)
    for line in err.splitlines():
        if "rank 0 of" in line:
            print("  " + line)
