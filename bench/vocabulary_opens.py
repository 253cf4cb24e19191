#!/usr/bin/env python3
"""How often a run opens its vocabulary file, and how many processes it forks that never run a
program (the isolated HDF5 readers, support/Isolate.h), counted with strace -f (issue 52: the
vocabulary is resolved once per process; an older build read it again in every session).

Two runs on the first K modules of a corpus list, each under `strace -f -e
trace=openat,execve,clone,clone3,vfork,fork`, for this build and for --baseline's:
  eval     `ir2vec mlgo eval --embeddings VOCAB --protocol split --test-fraction 0.5`
  ablation `ir2vec mlgo ablate` of a spec with one arm that reads embeddings from VOCAB
Printed per run: the openat calls of VOCAB (by the workbench and by the compilers it starts,
apart), the processes that opened it, the processes forked that ran no program (isolated readers, and each
session's guardian, support/Process.h), the compiler processes, and how many of those were
given a vocabulary through -ir2vec-vocab-path.

usage: bench/vocabulary_opens.py IR2VEC CORPUS_LIST --vocab VOCAB [--baseline IR2VEC]
                                 [--limit K]
VOCAB: an HDF5 vocabulary (`ir2vec vocab export -o v.h5`) shows the forked readers; a JSON one
the opens alone. Needs strace (Debian's package strace; not installed by scripts/setup.sh, for
no test uses it).
"""
import argparse, collections, json, os, re, subprocess, sys, tempfile


def traced(cmd, log):
    subprocess.run(["strace", "-f", "-qq", "-v", "-s", "4096", "-o", log, "-e",
                    "trace=openat,execve,clone,clone3,vfork,fork", *cmd],
                   check=True, capture_output=True)
    opens = collections.Counter()
    programs, children, vocab_args = {}, set(), 0
    for line in open(log, errors="replace"):
        resumed = re.match(r"(\d+)\s+<\.\.\. execve resumed>.*= -1 ", line)
        if resumed:  # the program was not run (PATH search, a missing file)
            programs.pop(int(resumed.group(1)), None)
            continue
        m = re.match(r"(\d+)\s+(\w+)\((.*)", line)
        if not m:
            continue
        pid, call, rest = int(m.group(1)), m.group(2), m.group(3)
        if call in ("clone", "clone3", "vfork", "fork"):
            r = re.search(r"=\s*(\d+)\s*$", line)
            if r and "CLONE_THREAD" not in line:  # a process, not a thread
                children.add(int(r.group(1)))
        elif call == "execve":  # its result may come on a later "resumed" line
            prog = re.match(r'"([^"]*)"', rest)
            if prog and not re.search(r"= -1 \w+", line):
                programs[pid] = os.path.basename(prog.group(1))
                vocab_args += "-ir2vec-vocab-path=" in rest
        elif call == "openat":
            f = re.search(r'"([^"]*)"', rest)
            if f:
                opens[(pid, f.group(1))] += 1
    return opens, programs, children, vocab_args


def measure(exe, kind, vocab, mods, d):
    log = os.path.join(d, f"{kind}.strace")
    out = os.path.join(d, kind)
    if kind == "eval":
        cmd = [exe, "mlgo", "eval", "-q", "--embeddings", vocab, "--protocol", "split",
               "--test-fraction", "0.5", "-j", "1", "-o", out + ".json", *mods]
    else:
        spec = out + ".json"
        json.dump({"corpus": mods, "split": {"test_fraction": 0.5, "seed": 1},
                   "exploration": {"budget": 2}, "model": {"kind": "linear", "epochs": 2},
                   "seeds": [1], "training_side": False,
                   "arms": [{"name": "emb", "features": ["cost", "embedding", "module"],
                             "vocabulary": vocab}]}, open(spec, "w"))
        cmd = [exe, "mlgo", "ablate", "-q", spec, "-o", out, "-j", "1"]
    opens, programs, children, vocab_args = traced(cmd, log)
    real = os.path.realpath(vocab)
    by = [(pid, n) for (pid, f), n in opens.items() if os.path.realpath(f) == real or f == vocab]
    workbench = [n for pid, n in by if programs.get(pid, "ir2vec-full").startswith("ir2vec")]
    return {"opens by the workbench": sum(workbench),
            "opens by compilers": sum(n for pid, n in by if not programs.get(pid, "ir2vec").startswith("ir2vec")),
            "processes that opened it": len({pid for pid, _ in by}),
            "forked, no program run (readers, guardians)": len([c for c in children if c not in programs]),
            "compiler processes": len([p for p, prog in programs.items() if prog.startswith(("opt", "llc", "clang"))]),
            "compilers given -ir2vec-vocab-path": vocab_args}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ir2vec")
    ap.add_argument("corpus_list")
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--limit", type=int, default=6)
    a = ap.parse_args()
    mods = [l.strip() for l in open(a.corpus_list) if l.strip()][: a.limit]
    a.vocab = os.path.abspath(a.vocab)  # a spec names files relative to itself
    builds = [("this build", a.ir2vec)] + ([("baseline", a.baseline)] if a.baseline else [])
    with tempfile.TemporaryDirectory() as d:
        for kind in ("eval", "ablation"):
            for name, exe in builds:
                r = measure(exe, kind, a.vocab, mods, d)
                print(f"{kind:8} {name:10} " + ", ".join(f"{k} {v}" for k, v in r.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
