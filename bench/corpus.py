#!/usr/bin/env python3
"""Corpus-scale benchmark, side by side in one run; prints ratios (absolute times on shared
machines are noisy, ratios measured together are not).

  bench/corpus.py [--build DIR] [--corpus DIR] [--vocab VOCAB.json] [--repeat N]

Builds the shared corpus with ../shared/corpus/build-corpus.sh (once, into BUILD/test-corpus,
where the tests build it),
then measures, each configuration N times in interleaved rounds, reporting medians:
  (a) llvm-ir2vec, one process per module (a bash loop, as users run it)
  (b) ir2vec batch, HDF5 output, -j1 and -j2
  (c) bench/parse_only: parsing the same modules in one thread, nothing else (the floor), and
      parse_only --verify: the same with LLVM's verifier on each module, which the batch
      commands run by default (the floor with verification)
  (d) flow-aware-rd (the IR2Vec paper's encoding) beside LLVM's flow-aware kind, -j1, inst and
      func level: the ratio the kind's speed goal (<= 3x) is about
and peak RSS of `ir2vec embeddings -j2` with the corpus listed once and ten times.

With --baseline DIR (another build directory, e.g. the previous commit's), that build's batch
runs and parse_only are timed in the same rounds, and this build's times are given relative
to them.
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


def timed(cmd, **kw):
    """Wall seconds and peak RSS (KiB) of one process (os.wait4 gives the child's own rusage)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) not in (0,):
        sys.exit(f"benchmark command failed ({os.waitstatus_to_exitcode(status)}): {' '.join(cmd)}\n{err[-500:]}")
    return wall, ru.ru_maxrss


def llvm_bindir():
    return subprocess.run(["llvm-config-22", "--bindir"], capture_output=True, text=True, check=True).stdout.strip()


def corpus_modules(build, corpus=None):
    """The corpus list and its modules: CORPUS's, or the shared corpus built once into
    BUILD/test-corpus (where the tests build it)."""
    if not corpus:  # a no-op when it is built already
        corpus = os.path.join(build, "test-corpus")
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "build-test-corpus.sh"),
                        os.path.join(ROOT, "..", "shared", "corpus", "build-corpus.sh"), corpus], check=True)
    lst = os.path.join(corpus, "corpus.list")
    return lst, [l.strip() for l in open(lst) if l.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--corpus", help="a corpus directory with corpus.list (default: build it)")
    ap.add_argument("--vocab", default=os.path.join(ROOT, "..", "shared", "vocab", "seedEmbeddingVocab75D.json"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", help="another build directory, timed in the same rounds")
    a = ap.parse_args()
    ir2vec = os.path.join(a.build, "bin", "ir2vec")
    parse_only = os.path.join(a.build, "bin", "parse_only")
    llvm_ir2vec = os.path.join(llvm_bindir(), "llvm-ir2vec")
    lst, modules = corpus_modules(a.build, a.corpus)
    corpus = os.path.dirname(lst)
    tmp = tempfile.mkdtemp(prefix="ir2vec-bench-")
    out = os.path.join(tmp, "out.h5")
    lst10 = os.path.join(tmp, "corpus-x10.list")
    with open(lst10, "w") as f:
        f.write("".join(m + "\n" for m in modules * 10))

    def loop(*args):
        script = 'while IFS= read -r f; do "$0" "$@" "$f" > /dev/null || exit 1; done < ' + lst
        return ["bash", "-c", script, llvm_ir2vec, *args]

    def batch(j, *args, tool=ir2vec):
        return [tool, "embeddings", "-q", "--vocab", a.vocab, "--format", "hdf5", "-o", out,
                "-j", str(j), *args, "@" + lst]

    func = ["--kind", "symbolic", "--level", "func"]
    inst = ["--kind", "flow-aware", "--level", "inst"]
    configs = [
        ("llvm-ir2vec loop, func symbolic", loop("embeddings", f"--ir2vec-vocab-path={a.vocab}")),
        ("llvm-ir2vec loop, inst flow-aware", loop("embeddings", f"--ir2vec-vocab-path={a.vocab}",
                                                   "--ir2vec-kind=flow-aware", "--level=inst")),
        ("parse_only (floor), 1 thread", [parse_only, "@" + lst]),
        ("parse_only --verify, 1 thread", [parse_only, "--verify", "@" + lst]),
        ("ir2vec func symbolic -j1", batch(1, *func)),
        ("ir2vec func symbolic -j2", batch(2, *func)),
        ("ir2vec inst flow-aware -j1", batch(1, *inst)),
        ("ir2vec inst flow-aware -j2", batch(2, *inst)),
        ("ir2vec inst flow-aware -j2 --inst-text", batch(2, *inst, "--inst-text")),
        ("ir2vec inst flow-aware-rd -j1", batch(1, "--kind", "flow-aware-rd", "--level", "inst")),
        ("ir2vec func flow-aware -j1", batch(1, "--kind", "flow-aware", "--level", "func")),
        ("ir2vec func flow-aware-rd -j1", batch(1, "--kind", "flow-aware-rd", "--level", "func")),
    ]
    compared = ["parse_only (floor), 1 thread", "ir2vec func symbolic -j1", "ir2vec func symbolic -j2",
                "ir2vec inst flow-aware -j1", "ir2vec inst flow-aware -j2"]
    base = {}
    if a.baseline:
        base_ir2vec = os.path.join(a.baseline, "bin", "ir2vec")
        base = {"parse_only (floor), 1 thread": [os.path.join(a.baseline, "bin", "parse_only"), "@" + lst],
                "ir2vec func symbolic -j1": batch(1, *func, tool=base_ir2vec),
                "ir2vec func symbolic -j2": batch(2, *func, tool=base_ir2vec),
                "ir2vec inst flow-aware -j1": batch(1, *inst, tool=base_ir2vec),
                "ir2vec inst flow-aware -j2": batch(2, *inst, tool=base_ir2vec)}
    # Groups run together; with a baseline, each of this build's configurations is paired with
    # the baseline's, and the order within a pair alternates per round (what runs first after
    # another configuration pays for caches the other one left: a fixed order measured up to
    # 1.37x on one side and ABBA pairs 0.92x).
    groups = [[(name, cmd)] + ([("baseline " + name, base[name])] if a.baseline and name in base else [])
              for name, cmd in configs]
    configs = [c for g in groups for c in g]
    times = {name: [] for name, _ in configs}
    for r in range(a.repeat):
        for g in groups:
            for name, cmd in (g if r % 2 == 0 else g[::-1]):
                times[name].append(timed(cmd)[0])
        print(f"round {r + 1}/{a.repeat} done", file=sys.stderr)
    med = {k: statistics.median(v) for k, v in times.items()}

    rss = {}
    for label, lst_arg in [("once", lst), ("ten times", lst10)]:
        rss[label] = max(timed([ir2vec, "embeddings", "-q", "--vocab", a.vocab, "--format", "hdf5", "-o", out,
                                "-j", "2", "@" + lst_arg])[1] for _ in range(2))

    print(f"\ncorpus: {len(modules)} modules ({corpus}); median of {a.repeat} interleaved rounds\n")
    print(f"{'configuration':44} {'seconds':>9}")
    for name, _ in configs:
        print(f"{name:44} {med[name]:9.3f}")
    floor = med["parse_only (floor), 1 thread"]
    verified = med["parse_only --verify, 1 thread"]
    lf, li = med["llvm-ir2vec loop, func symbolic"], med["llvm-ir2vec loop, inst flow-aware"]
    print("\nratios")
    for name in ["ir2vec func symbolic -j1", "ir2vec func symbolic -j2"]:
        print(f"  {name:42} {lf / med[name]:6.1f}x faster than the llvm-ir2vec loop, "
              f"{med[name] / floor:5.2f}x the parse-only time, {med[name] / verified:5.2f}x "
              f"parse and verify")
    print(f"  {'parse and verify / parse':42} {verified / floor:6.2f}x (LLVM's verifier alone)")
    for name in ["ir2vec inst flow-aware -j1", "ir2vec inst flow-aware -j2",
                 "ir2vec inst flow-aware -j2 --inst-text"]:
        print(f"  {name:42} {li / med[name]:6.1f}x faster than the llvm-ir2vec --level=inst loop")
    for level in ["inst", "func"]:
        rd, fa = med[f"ir2vec {level} flow-aware-rd -j1"], med[f"ir2vec {level} flow-aware -j1"]
        print(f"  {'flow-aware-rd / flow-aware, ' + level + ' -j1':42} {rd / fa:6.2f}x "
              f"(above parsing: {(rd - floor) / (fa - floor):5.2f}x)")
    print(f"\npeak RSS, func -j2: corpus once {rss['once'] / 1024:.1f} MiB, ten times "
          f"{rss['ten times'] / 1024:.1f} MiB, ratio {rss['ten times'] / rss['once']:.2f}")
    if a.baseline:
        print(f"\nthis build / baseline ({a.baseline}), medians:")
        for name in compared:
            print(f"  {name:42} {med[name] / med['baseline ' + name]:6.3f}")


if __name__ == "__main__":
    main()
