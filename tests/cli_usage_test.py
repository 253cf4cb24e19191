#!/usr/bin/python3
"""The command line a newcomer meets: what each subcommand's help promises holds.

  * each subcommand lists and accepts only its own options, every option has a description,
    the options a user tunes show their defaults, --vocab says what it takes;
  * `-o -` works wherever the help offers it;
  * each subcommand's help lists its own exit statuses, 130 wherever an interruption can
    happen;
  * usage errors are usage errors (`mlgo run`: 64, with the missing `--` explained); `mlgo run
    --task evict` runs the task's default policy; `mlgo collect --task` offers every task;
  * one message per failure; an HDF5 run ends with a summary line on a terminal only;
  * a corpus description is recognised by its content; an output directory needs an existing
    parent, like an output file;
  * seconds (--timeout, --module-time-limit) are finite and not negative; '-' is read once.

  cli_usage_test.py --ir2vec BIN --llvm-bindir DIR --data DIR
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import harness
from harness import run

p = argparse.ArgumentParser()
p.add_argument("--ir2vec", required=True)
p.add_argument("--llvm-bindir", required=True)
p.add_argument("--data", required=True)
a = p.parse_args()
ir2vec = a.ir2vec
res = harness.Results()
check = res.check
tmp = tempfile.mkdtemp(prefix="cli-usage-")
W = lambda *n: os.path.join(tmp, *n)
data = sorted(glob.glob(os.path.join(a.data, "*.ll")))
calls = os.path.join(a.data, "calls.ll")

SUBCOMMANDS = [["entities"], ["triplets"], ["embeddings"], ["from-counts"], ["vocab", "train"],
               ["vocab", "eval"], ["vocab", "split"], ["vocab", "export"], ["mlgo", "run"],
               ["mlgo", "collect"], ["mlgo", "log", "dump"], ["mlgo", "log", "rewrite"],
               ["mlgo", "log", "export"], ["mlgo", "features"], ["mlgo", "policies"]]


def help_of(sub):
    r = run([ir2vec, *sub, "--help"])
    check(f"{' '.join(sub)} --help exits 0", r.returncode == 0, r.stderr)
    return r.stdout.decode()


def options(text):
    """{option names: (line, description)} from a CLI11 help page: names and type in a
    30-column field, the description after it, or on the next line when the field overflows."""
    out, lines = {}, text.split("\n")
    section = None
    for i, line in enumerate(lines):
        if line.endswith(":") and not line.startswith(" "):
            section = line
            continue
        if section != "Options:" or not line.startswith("  -"):
            continue
        head = line.split(" ")[2]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        desc = nxt.strip() if nxt.startswith(" " * 30) else line[30:].strip()
        out[head] = (line, desc)
    return out


# ---- 1. own options, descriptions, defaults -----------------------------------------------
helps = {" ".join(s): help_of(s) for s in SUBCOMMANDS}
for name, text in helps.items():
    for opt, (line, desc) in options(text).items():
        check(f"{name} {opt}: has a description", bool(desc.strip()), line)
    check(f"{name} --help lists its own exit statuses", "Exit status:" in text, text[-300:])
for name in ["vocab train", "mlgo log dump", "mlgo features", "mlgo policies", "entities"]:
    check(f"{name} --help does not describe embedding runs",
          "--function" not in helps[name] and "modules/error" not in helps[name], helps[name])
check("vocab split does not list --distance", "--distance" not in helps["vocab split"])
check("from-counts does not list --kind (the counts file decides)",
      "--kind" not in helps["from-counts"] and "--ir2vec-kind" not in helps["from-counts"])
check("entities does not list --vocab", "--vocab" not in helps["entities"])
for name, opt, default in [("vocab train", "--epochs", "1000"), ("vocab train", "--margin", "4"), ("vocab train", "--eval-every", "10"),
                           ("vocab train", "--lr", "0.01"), ("vocab train", "--batch-size", "256"),
                           ("vocab train", "--seed", "1"), ("vocab train", "--dim", "75"),
                           ("mlgo run", "--explore", "0.1"), ("mlgo run", "--seed", "0"),
                           ("mlgo run", "--task", "inline"), ("mlgo collect", "--task", "inline"),
                           ("embeddings", "--level", "func"), ("embeddings", "--precision", "2"),
                           ("triplets", "--format", "text")]:
    line = next((l for o, (l, _) in options(helps[name]).items() if opt in o.split(",")), "")
    check(f"{name} {opt} shows its default {default}", f"={default}" in line, line)
for name in ["embeddings", "from-counts"]:
    line, desc = options(helps[name])["--vocab,--ir2vec-vocab-path"]
    check(f"{name} --vocab says JSON or HDF5 and the built-in default",
          all(w in desc for w in ("JSON", "HDF5", "default vocabulary", "built into")), desc)
for args, what in [(["entities", "--vocab", W("nosuch.json")], "--vocab"),
                   (["from-counts", "--kind", "symbolic", "-o", W("x.h5"), W("c.h5")], "--kind"),
                   (["vocab", "split", W("kg"), "--distance", "l2", "-o", W("s")], "--distance")]:
    r = run([ir2vec, *args])
    check(f"{' '.join(args[:2])}: {what} is refused (exit 1, named)",
          r.returncode == 1 and what.encode() in r.stderr, r.stderr)
check("no output for refused options", not os.path.exists(W("x.h5")) and not os.path.exists(W("s")))

# ---- 2. -o - wherever the help offers it ---------------------------------------------------
kg = W("kg")
run([ir2vec, "triplets", "-q", "--format", "openke", "-o", kg, *data], check=True)
log = W("s.log")
run([ir2vec, "mlgo", "run", "--log", log, "--", os.path.join(a.llvm_bindir, "opt"),
     "-passes=default<Oz>", calls, "-o", W("calls.bc")], check=True)
stdout_runs = {
    "entities": ["entities"],
    "triplets": ["triplets", calls],
    "embeddings": ["embeddings", calls],
    "vocab train": ["vocab", "train", kg, "--dim", "4", "--epochs", "2", "-q"],
    "vocab export": ["vocab", "export"],
    "mlgo log rewrite": ["mlgo", "log", "rewrite", log],
}
for name, text in helps.items():
    o = options(text).get("-o")
    offers = o is not None and "'-' = " in o[0] + o[1]
    check(f"{name}: -o - offered exactly where it is known to work", offers == (name in stdout_runs),
          o)
for name, args in stdout_runs.items():
    r = run([ir2vec, *args, "-o", "-"])
    check(f"{name} -o -: exit 0 and output on standard output", r.returncode == 0 and len(r.stdout) > 0,
          r.stderr)
try:
    sections = json.loads(run([ir2vec, "vocab", "export", "-o", "-"]).stdout).keys()
except ValueError as e:
    sections = str(e)
check("vocab export -o - prints LLVM's JSON", sections == {"Opcodes", "Types", "Arguments"}, sections)

# ---- 3. exit statuses and 130 --------------------------------------------------------------
for name in ["triplets", "embeddings", "vocab train", "mlgo run", "mlgo collect"]:
    check(f"{name} --help documents 130 (interruption)", re.search(r"^  130 ", helps[name], re.M),
          helps[name][-600:])
check("mlgo run --help documents 64 (usage), 124, 125", all(re.search(rf"^  {s} ", helps["mlgo run"], re.M)
                                                          for s in ("64", "124", "125")))

# ---- 4. usage errors -----------------------------------------------------------------------
LLC, OPT = os.path.join(a.llvm_bindir, "llc"), os.path.join(a.llvm_bindir, "opt")
r = run([ir2vec, "mlgo", "run", "--policy", "default"])
check("mlgo run without a compiler: 64, explained", r.returncode == 64 and b"after '--'" in r.stderr, r.stderr)
r = run([ir2vec, "mlgo", "run", "--policy", "default", OPT, calls])
check("mlgo run with the compiler before --: 64, the missing -- explained",
      r.returncode == 64 and b"goes after '--'" in r.stderr and OPT.encode() in r.stderr, r.stderr)
r = run([ir2vec, "mlgo", "run", "--policy", "nosuch", "--", OPT, calls, "-o", W("y.bc")])
check("mlgo run with an unknown policy: 64", r.returncode == 64 and b"nosuch" in r.stderr, r.stderr)
r = run([ir2vec, "mlgo", "run", "--task", "priority", "--", LLC, "-O2", calls, "-o", W("p.s")])
check("mlgo run --task priority without a policy: 64, says why", r.returncode == 64 and b"no default policy" in r.stderr,
      r.stderr)
run([os.path.join(a.llvm_bindir, "llvm-as"), calls, "-o", W("calls0.bc")], check=True)
ev = [LLC, "-O2", W("calls0.bc"), "-o", W("e.s")]
r1 = run([ir2vec, "mlgo", "run", "--task", "evict", "--log", W("e1.log"), "--", *ev])
r2 = run([ir2vec, "mlgo", "run", "--task", "evict", "--policy", "no-evict", "--log", W("e2.log"), "--", *ev])
check("mlgo run --task evict runs the task's default policy (no-evict)",
      r1.returncode == 0 and r2.returncode == 0 and os.path.exists(W("e1.log"))
      and open(W("e1.log"), "rb").read() == open(W("e2.log"), "rb").read(), r1.stderr + r2.stderr)
check("mlgo collect --task offers every task", "{inline,evict,priority}" in helps["mlgo collect"],
      helps["mlgo collect"][:800])
r = run([ir2vec, "mlgo", "collect", "--task", "evict", "-o", W("c.h5"), calls])
check("mlgo collect --task evict: a dataset scored by the register allocator's cost",
      r.returncode == 0 and b"register allocation cost" in r.stderr and os.path.exists(W("c.h5")), r.stderr)

# ---- 5. one message per failure; the HDF5 summary on a terminal only -----------------------
bad = W("bad.ll")
open(bad, "w").write("define i32 @f( {\n")
for args in (["embeddings", bad], ["triplets", bad], ["embeddings", "--format", "hdf5", "-o", W("b.h5"), bad],
             ["mlgo", "collect", "-o", W("c1.h5"), bad]):
    r = run([ir2vec, *args])
    errors = [l for l in r.stderr.decode().splitlines() if "error:" in l]
    check(f"{args[0]} of one bad module: exit 1 and one message", r.returncode == 1 and len(errors) == 1, errors)
r = run([ir2vec, "embeddings", "--format", "hdf5", "-o", W("pipe.h5"), *data])
check("HDF5 run in a pipe: no summary", r.returncode == 0 and b"modules" not in r.stderr, r.stderr)
cmd = f"{ir2vec} embeddings --format hdf5 --level bb -o {W('tty.h5')} {' '.join(data)}"
r = run(["script", "-qec", cmd, "/dev/null"])
out = r.stdout.decode(errors="replace")
check("HDF5 run on a terminal: ends with a one-line summary",
      r.returncode == 0 and re.search(rf"tty.h5: {len(data)} modules, \d+ functions, \d+ blocks", out), out[-300:])

# ---- 6. corpus descriptions by content; output directories -------------------------------
desc = W("my-corpus.json")  # not named corpus_description.json
shutil.copy(calls, W("m1.ll"))
shutil.copy(os.path.join(a.data, "types.ll"), W("m2.ll"))
run([os.path.join(a.llvm_bindir, "llvm-as"), W("m1.ll"), "-o", W("m1.bc")], check=True)
run([os.path.join(a.llvm_bindir, "llvm-as"), W("m2.ll"), "-o", W("m2.bc")], check=True)
json.dump({"modules": ["m1", "m2"]}, open(desc, "w"))
r1 = run([ir2vec, "embeddings", "-q", desc])
r2 = run([ir2vec, "embeddings", "-q", W("m1.bc"), W("m2.bc")])
check("a corpus description under another name is read as one", r1.returncode == 0 and r1.stdout == r2.stdout
      and r1.stdout.count(b"Module: ") == 2, r1.stderr)
for args in (["triplets", "-q", "--format", "openke", "-o", W("no", "such", "dir"), calls],
             ["vocab", "split", kg, "-o", W("no", "such", "dir")]):
    r = run([ir2vec, *args])
    check(f"{args[0]}: an output directory whose parent is missing is an error",
          r.returncode == 1 and b"does not exist" in r.stderr and not os.path.exists(W("no")), r.stderr)
r = run([ir2vec, "vocab", "split", kg, "-o", W("split")])
check("vocab split: a new output directory under an existing parent is created",
      r.returncode == 0 and os.path.exists(W("split", "train2id.txt")), r.stderr)

# Seconds are finite and not negative, said in one short line; standard input is read once.
for args in (["mlgo", "run", "--timeout", "-1", "--", "true"], ["mlgo", "run", "--timeout", "nan", "--", "true"],
             ["embeddings", "--module-time-limit", "-5", calls], ["embeddings", "--module-time-limit", "inf", calls]):
    r = run([ir2vec, *args])
    msg = r.stderr.decode()
    check(f"{' '.join(args[:3])}: a usage error saying it is not a number of seconds, one short line",
          r.returncode in (1, 64) and "is not a number of seconds" in msg and max(map(len, msg.splitlines())) < 120,
          (r.returncode, msg[-300:]))
r = run([ir2vec, "embeddings", "-", "-"], stdin=open(calls, "rb").read())
check("embeddings - -: refused (standard input named twice), no output",
      r.returncode == 1 and b"more than once" in r.stderr and r.stdout == b"", (r.returncode, r.stderr[-200:]))

# A file that is not HDF5 where HDF5 is expected: said in those words, not as HDF5's H5Fopen.
junk = W("junk.h5")
open(junk, "w").write("not hdf5\n")
for args in (["mlgo", "run", "--policy", "linear", "--model", junk, "--", "true"],
             ["from-counts", "-o", W("fc.h5"), junk]):
    r = run([ir2vec, *args])
    check(f"{' '.join(args[:2])} given a file that is not HDF5: 'not an HDF5 file', naming it",
          r.returncode != 0 and b"junk.h5: not an HDF5 file" in r.stderr, r.stderr[-300:])

# Messages a hostile try found unclear.
r = run([ir2vec, "embeddings", calls, "--vocab"])
check("--vocab without a value: the error names --vocab (the name users type)",
      r.returncode != 0 and b"--vocab" in r.stderr and b"--ir2vec-vocab-path" not in r.stderr, r.stderr[-200:])
os.symlink("nowhere", W("dangling"))
r = run([ir2vec, "triplets", "--format", "openke", "-o", W("dangling"), calls])
check("an output directory that is a dangling symlink: said so", r.returncode == 1
      and b"symbolic link to a directory that does not exist" in r.stderr, r.stderr[-200:])
r = run([ir2vec, "mlgo", "run", "--", os.path.join(a.llvm_bindir, "opt"), "-passes=default<Oz>", calls, "-onew.bc"])
check("mlgo run whose opt fails on its own command line: opt's exit status and error, no word about pipelines "
      "without an inliner", r.returncode == 1 and b"Unknown command line argument" in r.stderr
      and b"no inliner" not in r.stderr, r.stderr[-400:])

fake = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_compiler.py")]
proc = subprocess.Popen([ir2vec, "mlgo", "run", "--"] + fake + ["hang", "3"], stderr=subprocess.PIPE)
time.sleep(0.6)
proc.send_signal(signal.SIGTERM)
_, err = proc.communicate(timeout=60)
check("mlgo run stopped by SIGTERM says 'interrupted', as every other command does (exit 130)",
      proc.returncode == 130 and b"interrupted" in err, (proc.returncode, err[-200:]))

status = res.summary()
if status == 0:
    shutil.rmtree(tmp)
sys.exit(status)
