#!/usr/bin/env python3
"""CLI tests for `ir2vec`.

  * compatibility: for the same options and input, stdout and exit status are byte-identical
    to the installed llvm-ir2vec (LLVM 22.1.8), for entities, triplets and embeddings at every
    level and kind, with --function, stdin, -o and single-dash options;
  * precision: `--precision N` output equals libLLVM's own doubles printed with %.Nf
    (tests/oracle_print.cpp, which uses llvm::ir2vec::Embedder);
  * bad input: each case exits 1 with a message naming the problem and leaves no output file.

Every embeddings comparison must cover vectors unless the module has no function definition
(counted independently, from llvm-dis-22's output): two tools that both fail the same way, or
both print nothing, compare equal but prove nothing.

  cli_test.py --ir2vec BIN --llvm-bindir DIR --oracle-print BIN --vocab SEED.json --data DIR
              [--corpus-list LIST]    (with a list: the compatibility checks run over every
                                       module of the corpus instead, every kind and level; the
                                       precision check at 17 digits in one kind and level per
                                       module, in turn, so each of the six sees a sixth of the
                                       corpus: the printing path is the same for every module,
                                       and OracleCorpus compares every module's doubles with
                                       libLLVM bit for bit in-process)
"""
import argparse, shutil
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile

import harness
from harness import run

KINDS = ["symbolic", "flow-aware"]
LEVELS = ["func", "bb", "inst"]
VECTOR = re.compile(rb" \[( +-?[0-9][^ ]* )+\]$", re.M)


def vectors(out):
    """Vectors in llvm-ir2vec's text output (a vector ends its line)."""
    return len(VECTOR.findall(out))


class Results(harness.Results):
    def __init__(self):
        super().__init__()
        self.vectors = 0  # vectors covered by embeddings comparisons

    def same_run(self, name, ours, theirs, expect_vectors=False):
        """Our run must match theirs: same exit status, byte-identical stdout; with
        expect_vectors, a comparison that covers no vector fails."""
        if ours.returncode != theirs.returncode:
            self.check(name, False, f"exit {ours.returncode} vs llvm-ir2vec {theirs.returncode}: "
                       f"{ours.stderr.decode(errors='replace')[:300]}")
        elif ours.stdout != theirs.stdout:
            a, b = ours.stdout.splitlines(), theirs.stdout.splitlines()
            line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            self.check(name, False, f"stdout differs at line {line + 1} "
                       f"({len(a)} vs {len(b)} lines): ours {a[line][:120] if line < len(a) else '<eof>'!r}"
                       f" theirs {b[line][:120] if line < len(b) else '<eof>'!r}")
        else:
            n = vectors(ours.stdout)
            self.vectors += n
            self.check(name, n > 0 or not expect_vectors,
                       f"no vectors compared (exit {ours.returncode}), yet the module defines functions")


def defines_functions(a, path):
    """Whether the module has a function definition, from llvm-dis-22 (independent of us)."""
    if path.endswith(".ll"):
        text = open(path, "rb").read()
    else:
        text = run([a.llvm_dis, "-o", "-", path]).stdout
    return re.search(rb"^define ", text, re.M) is not None


def compat_jobs(a, path, defines, turn):
    """(name, our command, their command, expect vectors) for one input file: every kind and
    level for the files of tests/data; over a corpus, three of the six in turn (every kind and
    every level each time; every combination on every other module). The corpus's vectors are
    compared with libLLVM's at every kind and level, every module, by oracle_corpus; what
    llvm-ir2vec adds is the text around them, which a half shows as well as the whole, at
    5 runs of each tool per module instead of 8."""
    jobs = [(f"triplets {path}", [a.ir2vec, "triplets", path], [a.llvm_ir2vec, "triplets", path], False)]
    combos = [(k, l) for k in KINDS for l in LEVELS]
    if a.corpus_list:
        combos = combos[turn % 2::2]
    for kind, level in combos:
        opts = [f"--ir2vec-vocab-path={a.vocab}", f"--ir2vec-kind={kind}", f"--level={level}"]
        jobs.append((f"embeddings {kind} {level} {path}", ours(a, ["embeddings", *opts, path]),
                     [a.llvm_ir2vec, "embeddings", *opts, path], defines))
    return jobs


def precision_jobs(a, path, defines, turn):
    """Every kind, level and precision for the files of tests/data; over a corpus, the turn-th
    (kind, level) of the six, at 17 digits."""
    jobs = []
    combos = [(k, l) for k in KINDS for l in LEVELS]
    if a.corpus_list:
        combos = [combos[turn % len(combos)]]
    for kind, level in combos:
        for prec in ([17] if a.corpus_list else [0, 5, 17]):
            jobs.append((f"precision {prec} {kind} {level} {path}",
                         [a.ir2vec, "embeddings", "-q", f"--ir2vec-vocab-path={a.vocab}",
                          f"--ir2vec-kind={kind}", f"--level={level}", "--precision",
                          str(prec), path],
                         [a.oracle_print, a.vocab, kind, level, str(prec), path], defines))
    return jobs


def run_pairs(res, jobs, workers):
    def one(job):
        name, ours, theirs, expect = job
        return name, run(ours), run(theirs), expect
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for name, ours, theirs, expect in pool.map(one, jobs):
            res.same_run(name, ours, theirs, expect)


def ours(a, args):
    """Our command for llvm-ir2vec's arguments; -q after the subcommand keeps stderr quiet."""
    return [a.ir2vec, args[0], "-q", *args[1:]] if args else [a.ir2vec]


def compat_extras(a, res, data):
    """Options and input forms beyond the plain file: entities, --function, stdin, -o."""
    v = f"--ir2vec-vocab-path={a.vocab}"
    res.same_run("entities", run([a.ir2vec, "entities"]), run([a.llvm_ir2vec, "entities"]))
    res.same_run("entities ignores input", run([a.ir2vec, "entities", f"{data}/calls.ll"]),
                 run([a.llvm_ir2vec, "entities", f"{data}/calls.ll"]))
    for fn, f in [("caller", "calls.ll"), ("loops", "phi_cycles.ll"), ("only_declared", "decls.ll"),
                  ("name with spaces.and:punct", "decls.ll"), ("\x01mangled", "decls.ll"),
                  ("classify", "debug.ll")]:
        for level in LEVELS:
            args = ["embeddings", v, f"--level={level}", f"--function={fn}", f"{data}/{f}"]
            res.same_run(f"--function={fn!r} {level}", run(ours(a, args)),
                         run([a.llvm_ir2vec] + args), expect_vectors=fn != "only_declared")
    text = open(f"{data}/phi_cycles.ll", "rb").read()
    for level in LEVELS:
        args = ["embeddings", v, "--ir2vec-kind=flow-aware", f"--level={level}", "-"]
        res.same_run(f"stdin {level}", run(ours(a, args), stdin=text),
                     run([a.llvm_ir2vec] + args, stdin=text), expect_vectors=True)
    bc = subprocess.run([a.llvm_as, "-o", "-", f"{data}/types.ll"], capture_output=True).stdout
    res.same_run("stdin bitcode triplets", run([a.ir2vec, "triplets", "-"], stdin=bc),
                 run([a.llvm_ir2vec, "triplets", "-"], stdin=bc))
    # Single-dash long options, accepted by LLVM's option parser.
    args = ["embeddings", f"-ir2vec-vocab-path={a.vocab}", "-level=bb", "-ir2vec-kind=flow-aware",
            f"{data}/debug.ll"]
    res.same_run("single-dash options", run(ours(a, args)),
                 run([a.llvm_ir2vec] + args), expect_vectors=True)
    # Non-default weights (parsed like cl::opt<float>).
    w = ["--ir2vec-opc-weight=0.3", "--ir2vec-type-weight=1.7", "--ir2vec-arg-weight=0.1"]
    args = ["embeddings", v, *w, "--level=inst", f"{data}/types.ll"]
    res.same_run("weights", run(ours(a, args)), run([a.llvm_ir2vec] + args), expect_vectors=True)
    # LLVM's seed vocabulary: one short warning line with the counts (issue 37: two lines naming
    # 48 entities on every run).
    r = run([a.ir2vec, "embeddings", v, f"{data}/calls.ll"])
    lines = r.stderr.decode().splitlines()
    res.check("the seed vocabulary: one warning line, short, with both counts",
              r.returncode == 0 and len(lines) == 1 and len(lines[0]) < 400 and "48 of 110 entities have no key" in lines[0]
              and "1 key is not an LLVM 22.1.8 IR2Vec entity" in lines[0], lines)
    # --opt-level X: the vectors of the module opt-22 -O X writes (LLVM's pipeline in-process).
    # clang -O0's output (every function optnone): opt-22 leaves it as it is (issue 37's hostile
    # try: ours optimised it); with optnone dropped the pipeline changes it, so the check can fail.
    with tempfile.TemporaryDirectory() as d:
        src = f"{d}/optnone.c"
        open(src, "w").write("int g(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) "
                             "{ if (a[i] > 3) s += a[i] * 2; else s -= a[i]; } return s; }\n")
        clang = os.path.join(a.llvm_bindir, "clang")
        for name, extra in (("optnone.ll", []), ("optable.ll", ["-Xclang", "-disable-O0-optnone"])):
            run([clang, "-O0", *extra, "-S", "-emit-llvm", src, "-o", f"{d}/{name}"], check=True)
        o2 = [run(ours(a, ["embeddings", v, "--opt-level", "O2", f"{d}/{n}"])).stdout
              for n in ("optnone.ll", "optable.ll")]
        res.check("clang -O0's module: without optnone -O2 changes its vectors", o2[0] != o2[1] and o2[1], o2)
        for f in ("calls.ll", "phi_cycles.ll", "eh.ll", "types.ll", "optnone.ll"):
            src_dir = d if f == "optnone.ll" else data
            for level in ("O0", "O1", "O2", "O3", "Os", "Oz"):
                optimised = f"{d}/{level}-{f}"
                r = run([os.path.join(a.llvm_bindir, "opt"), f"-passes=default<{level}>", "-S", f"{src_dir}/{f}",
                         "-o", optimised])
                if not res.check(f"opt-22 -{level} {f}", r.returncode == 0, r.stderr):
                    continue
                for kind, lvl in (("symbolic", "func"), ("flow-aware", "inst")):
                    args = ["embeddings", v, f"--ir2vec-kind={kind}", f"--level={lvl}"]
                    res.same_run(f"--opt-level {level} {kind} {lvl} {f} = llvm-ir2vec on opt-22's output",
                                 run(ours(a, args + ["--opt-level", level, f"{src_dir}/{f}"])),
                                 run([a.llvm_ir2vec] + args + [optimised]), expect_vectors=True)
    with tempfile.TemporaryDirectory() as d:
        for tool, name in [(a.ir2vec, "ours.txt"), (a.llvm_ir2vec, "theirs.txt")]:
            r = run([tool, "embeddings", v, "--level=bb", "-o", f"{d}/{name}", f"{data}/eh.ll"])
            res.check(f"-o {tool}", r.returncode == 0 and r.stdout == b"", r.stderr[:200])
        res.check("-o same file", open(f"{d}/ours.txt", "rb").read() == open(f"{d}/theirs.txt", "rb").read())
        res.check("-o leaves no temporary", sorted(os.listdir(d)) == ["ours.txt", "theirs.txt"],
                  str(os.listdir(d)))


def make_bad_inputs(a, d, data):
    """Bad input files: name -> path."""
    good_bc = subprocess.run([a.llvm_as, "-o", "-", f"{data}/debug.ll"], capture_output=True).stdout
    files = {
        "garbage.bc": b"BC\xc0\xde" + bytes(range(256)) * 4,
        "truncated.bc": good_bc[: len(good_bc) // 2],
        "text.ll": b"define i32 @f( {\n",
        "notir.ll": b"garbage\n",
        "broken.ll": b"define i32 @f(i32 %a) {\n  %x = add i32 %y, 1\n  %y = add i32 %a, 1\n"
                     b"  ret i32 %x\n}\n",
        "broken_dbg.ll": b"define i32 @f(i32 %a) {\n  %x = add i32 %y, 1\n  %y = add i32 %a, 1\n"
                         b"  ret i32 %x\n}\n!llvm.module.flags = !{!0}\n"
                         b"!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n",
        "badvocab.json": b'{"Opcodes": {"Add": [1, 2]}, "Types": {"VoidTy": [1, "x"]}, "Arguments": {"Variable": [1, 2]}}',
        "badjson.json": b'{"Opcodes": {\n  "Add": [1, 2,\n',
    }
    paths = {}
    for name, content in files.items():
        paths[name] = os.path.join(d, name)
        with open(paths[name], "wb") as f:
            f.write(content)
    return paths


def bad_input_tests(a, res, data):
    v = f"--ir2vec-vocab-path={a.vocab}"
    with tempfile.TemporaryDirectory() as d:
        p = make_bad_inputs(a, d, data)
        os.mkdir(f"{d}/emptydir")
        out = os.path.join(d, "out.txt")
        good = f"{data}/calls.ll"
        shutil.copy(good, f"{d}/ir-named.mir")  # LLVM IR under a machine IR file's name
        cases = [
            # name, arguments, substrings the message must contain
            ("missing input", ["embeddings", v, f"{d}/nope.ll"], ["nope.ll", "No such file"]),
            ("directory without IR", ["triplets", f"{d}/emptydir"], ["emptydir", "no .bc or .ll files"]),
            ("invalid text IR", ["embeddings", v, p["text.ll"]], ["text.ll:2:1", "expected type"]),
            ("not IR at all", ["triplets", p["notir.ll"]], ["notir.ll:1:1", "expected top-level entity"]),
            ("garbage bitcode", ["embeddings", v, p["garbage.bc"]], ["garbage.bc", "invalid bitcode"]),
            ("truncated bitcode", ["embeddings", v, p["truncated.bc"]], ["truncated.bc", "invalid bitcode"]),
            ("verifier failure", ["embeddings", v, p["broken.ll"]], ["broken.ll", "verifier", "dominate"]),
            ("verifier failure with debug info (llvm-ir2vec aborts)", ["triplets", p["broken_dbg.ll"]],
             ["broken_dbg.ll", "verifier", "dominate"]),
            ("unknown function", ["embeddings", v, "--function=nope", good], ["'nope' not found"]),
            ("missing vocabulary", ["embeddings", "--ir2vec-vocab-path", f"{d}/none.json", good],
             ["none.json", "No such file"]),
            ("bad vocabulary value", ["embeddings", "--ir2vec-vocab-path", p["badvocab.json"], good],
             ["badvocab.json", "section \"Types\"", "key \"VoidTy\"", "element 1"]),
            ("invalid vocabulary JSON", ["embeddings", "--ir2vec-vocab-path", p["badjson.json"], good],
             ["badjson.json:", "invalid JSON"]),
            ("bad weight", ["embeddings", v, "--ir2vec-opc-weight=abc", good], ["ir2vec-opc-weight", "abc"]),
            ("bad kind", ["embeddings", v, "--ir2vec-kind=flowaware", good], ["flowaware"]),
            ("bad level", ["embeddings", v, "--level=loop", good], ["loop"]),
            ("precision out of range", ["embeddings", v, "--precision", "101", good], ["precision"]),
            ("LLVM IR in a .mir file", ["triplets", "--mode=mir", f"{d}/ir-named.mir"], ["ir-named.mir", "this is LLVM IR"]),
            ("no subcommand", [], ["subcommand"]),
            ("unwritable output", ["triplets", "-o", "/nonexistent-dir/out.txt", good], ["/nonexistent-dir/out.txt"]),
        ]
        for name, args, needles in cases:
            uses_o = "-o" in args
            cmd = [a.ir2vec] + args + ([] if uses_o or not args else ["-o", out])
            r = run(cmd)
            err = r.stderr.decode(errors="replace")
            res.check(f"bad input: {name}: exit 1", r.returncode == 1, f"exit {r.returncode}, stderr {err[:300]!r}")
            for n in needles:
                res.check(f"bad input: {name}: message names {n!r}", n in err, err[-400:])
            res.check(f"bad input: {name}: no crash report", "Stack dump" not in err and "LLVM ERROR" not in err, err[:300])
            leftovers = [f for f in os.listdir(d) if f.startswith("out.txt")]
            res.check(f"bad input: {name}: no output file", not leftovers, str(leftovers))
        # Help lists the exit statuses.
        r = run([a.ir2vec, "--help"])
        res.check("--help exits 0 and documents exit status", r.returncode == 0 and b"Exit status" in r.stdout,
                  r.stdout[-300:])


def main():
    ap = argparse.ArgumentParser()
    for opt in ["--ir2vec", "--llvm-bindir", "--oracle-print", "--vocab", "--data"]:
        ap.add_argument(opt, required=True)
    ap.add_argument("--corpus-list")
    ap.add_argument("--shard", help="K/N: every N-th module of the corpus list, from the K-th")
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    a.llvm_ir2vec = os.path.join(a.llvm_bindir, "llvm-ir2vec")
    a.llvm_as = os.path.join(a.llvm_bindir, "llvm-as")
    a.llvm_dis = os.path.join(a.llvm_bindir, "llvm-dis")
    res = Results()
    if a.corpus_list:
        files = [l.strip() for l in open(a.corpus_list) if l.strip()]
        if len(files) < 60:  # the sample of 91 (every third module) or the whole corpus
            print(f"corpus list {a.corpus_list} has only {len(files)} modules", file=sys.stderr)
            return 1
        if a.shard:  # every N-th module, from the K-th: the shards of one run
            k, n = map(int, a.shard.split("/"))
            files = files[k - 1::n]
    else:
        files = sorted(glob.glob(os.path.join(a.data, "*.ll")))
        compat_extras(a, res, a.data)
        bad_input_tests(a, res, a.data)
    jobs = []
    for turn, f in enumerate(files):
        defines = defines_functions(a, f)
        jobs += compat_jobs(a, f, defines, turn) + precision_jobs(a, f, defines, turn)
    run_pairs(res, jobs, a.j)
    res.check("the comparisons covered vectors", res.vectors > 0, "no vector was compared at all")
    return res.summary(f"{len(files)} input files, {res.vectors} vectors compared: ")


if __name__ == "__main__":
    sys.exit(main())
