#!/usr/bin/python3
"""Python against the CLI, side by side in one run (issue 13): embedding the shared corpus
with `ir2vec.embed(..., jobs=J)` in a fresh /usr/bin/python3 against
`ir2vec embeddings --format hdf5 -j J`, whole processes, interleaved rounds, medians; the
arrays are checked bit for bit against the file first.

Two ratios: the whole Python process (interpreter, `import numpy, ir2vec`, the call) and
the `embed` call alone (what a running Python session pays: numpy and ir2vec imported), each
against the CLI's whole process. --times N lists the corpus N times (an @list), so that the fixed start-up costs of
both processes weigh less.

  bench/python_embed.py [--build DIR] [--corpus DIR] [--vocab VOCAB.json] [--repeat N]
                        [--jobs J] [--levels module,func,bb,inst] [--times N]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

p = argparse.ArgumentParser()
p.add_argument("--build", default=os.path.join(ROOT, "build"))
p.add_argument("--corpus", default=None, help="default: BUILD/test-corpus (bench/corpus.py builds it)")
p.add_argument("--vocab", default=os.path.join(ROOT, "..", "shared", "vocab", "seedEmbeddingVocab75D.json"))
p.add_argument("--repeat", type=int, default=5)
p.add_argument("--jobs", type=int, default=2)
p.add_argument("--levels", default="module,func,bb,inst")
p.add_argument("--times", type=int, default=1, help="list the corpus this many times")
a = p.parse_args()
corpus = a.corpus or os.path.join(a.build, "test-corpus")
tool = os.path.join(a.build, "bin", "ir2vec")
env = dict(os.environ, PYTHONPATH=os.path.join(a.build, "python"))
tmp = tempfile.mkdtemp(prefix="bench-python-")
inputs = os.path.join(corpus, "corpus_description.json")
if not os.path.exists(inputs):
    sys.exit(f"{inputs}: no corpus (run bench/corpus.py once, or the corpus tests)")
if a.times > 1:
    with open(os.path.join(corpus, "corpus.list")) as f:
        listed = f.read()
    inputs = os.path.join(tmp, "corpus-times.list")
    with open(inputs, "w") as f:
        f.write(listed * a.times)
    inputs = "@" + inputs


def wall(cmd, **kw):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, **kw)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr.decode()[-800:]}")
    return time.perf_counter() - t0


def py_cmd(level, check_against=None):
    code = (f"import time, numpy, ir2vec\nt0 = time.perf_counter()\n"
            f"e = ir2vec.embed({inputs!r}, vocab={a.vocab!r}, level={level!r}, jobs={a.jobs})\n"
            f"print('call', time.perf_counter() - t0)\n")
    if check_against:
        code += (f"import h5py\nf = h5py.File({check_against!r})\n"
                 f"assert e.modules.embedding.tobytes() == f['modules/embedding'][()].tobytes()\n"
                 f"if e.functions is not None: assert e.functions.embedding.tobytes() == f['functions/embedding'][()].tobytes()\n"
                 f"if e.blocks is not None: assert e.blocks.embedding.tobytes() == f['blocks/embedding'][()].tobytes()\n"
                 f"if e.instructions is not None: assert e.instructions.embedding.tobytes() == f['instructions/embedding'][()].tobytes()\n"
                 f"print(len(e.modules.path), 0 if e.functions is None else len(e.functions.name))\n")
    return ["/usr/bin/python3", "-c", code]


def cli_cmd(level, out):
    return [tool, "embeddings", "-q", "--format", "hdf5", "--vocab", a.vocab, "--level", level,
            "-j", str(a.jobs), "-o", out, inputs]


print(f"corpus {corpus} x{a.times}, -j{a.jobs}, {a.repeat} interleaved rounds, medians")
for level in a.levels.split(","):
    ref = os.path.join(tmp, f"ref-{level}.h5")
    wall(cli_cmd(level, ref))
    r = subprocess.run(py_cmd(level, ref), capture_output=True, env=env, text=True)
    if r.returncode != 0:
        sys.exit(f"the Python arrays differ from the file at level {level}:\n{r.stderr[-800:]}")
    mods, funcs = r.stdout.split()[2:]
    times = {"cli": [], "python": [], "call": []}
    for _ in range(a.repeat):
        times["cli"].append(wall(cli_cmd(level, os.path.join(tmp, "out.h5"))))
        t0 = time.perf_counter()
        r = subprocess.run(py_cmd(level), capture_output=True, env=env, text=True, check=True)
        times["python"].append(time.perf_counter() - t0)
        times["call"].append(float(r.stdout.split()[1]))
    c, py, call = (statistics.median(times[k]) for k in ("cli", "python", "call"))
    print(f"level {level:4}: {mods} modules, {funcs} functions, bit-identical; CLI process "
          f"{c:.2f} s; Python process {py:.2f} s (ratio {py / c:.3f}), of which the embed call "
          f"{call:.2f} s (ratio {call / c:.3f}; the rest is python3 and import ir2vec, numpy)")
