#!/usr/bin/python3
"""What a new user trips on (issue 22, items 15-21), each as the user met it, with what the tool
must do instead. Every check failed on the build before the fixes (docs/robustness.md).

  * a corpus made by `corpus extract` named as its directory is that corpus: its recorded
    command lines are used (as through its corpus_description.json), `--compile recorded`
    works, and a module named directly gets one message naming its path once;
  * the split by package takes the first component of each module's name in its corpus: a
    one-package corpus is refused by name, and a small package is held out rather than a large
    one when the fraction asks for few modules;
  * a session or an evaluation in which the compiler asked nothing says why (-O0, -flto);
  * `mlgo run COMPILER ...` without '--' says where the compiler goes;
  * `| head` ends the tool by SIGPIPE, silently;
  * C sources, objects with or without bitcode, archives and other binaries given as modules
    are named for what they are, with what to do;
  * usage errors carry the tool's prefix; a missing output directory is said to be missing;
    `mlgo run -- gcc` says that only LLVM's tools speak the protocol; `--stats` counts the
    answers that differ from the compiler's own decision.

  newuser_test.py --ir2vec BIN --llvm-bindir DIR
"""
import hashlib, json, os, signal, subprocess

import harness

T = harness.ToolTest("newuser-")
a, res, check, tmp, W, B = T.args, T.res, T.check, T.tmp, T.W, T.B
run = T.run



def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(text)


def source(i):
    return (f"static int sq{i}(int x) {{ return x * x + {i}; }}\n"
            f"static int cube{i}(int x) {{ return sq{i}(x) * x - {i}; }}\n"
            f"int api{i}(int y) {{ return sq{i}(y) + cube{i}(y + 1) + sq{i}(y - 2); }}\n")


def build(srcdir, names, flags):
    """Compiles SRC/NAME.c for each name with flags into objects beside them."""
    for n in names:
        c = os.path.join(srcdir, n + ".c")
        write(c, source(sum(map(ord, n)) % 97))
        harness.run(["clang-22", *flags, "-c", c, "-o", c[:-2] + ".o"], check=True)


# ---- 15. a corpus directory is its corpus description ------------------------------------------
src = W("src")
build(src, [f"alpha/a{i}" for i in range(3)] + [f"beta/b{i}" for i in range(3)],
      ["-Oz", "-Xclang", "-fembed-bitcode=all"])
corpus = W("corpus")
run("corpus", "extract", "-q", "-o", corpus, src, check=True)
EVAL = ["mlgo", "eval", "-q", "--test-fraction", "0.5"]
by_dir = run(*EVAL, "-o", W("by-dir.json"), corpus + "/")
by_desc = run(*EVAL, "-o", W("by-desc.json"), os.path.join(corpus, "corpus_description.json"))
if check("mlgo eval DIR/ and mlgo eval DIR/corpus_description.json both run",
         by_dir.returncode == 0 and by_desc.returncode == 0, by_dir.stderr + by_desc.stderr):
    d, e = json.load(open(W("by-dir.json"))), json.load(open(W("by-desc.json")))
    cmds = [m.get("command", "") for m in d["modules"]]
    check("mlgo eval DIR/: every module compiled with its recorded command line (clang-22 -cc1 ... -x ir), "
          "as through the description", all("-cc1" in c and "-x ir" in c for c in cmds)
          and [m["baseline_text_size"] for m in d["modules"]] == [m["baseline_text_size"] for m in e["modules"]]
          and cmds == [m.get("command", "") for m in e["modules"]], cmds)
r = run(*EVAL, "--compile", "recorded", "-o", W("rec.json"), corpus + "/")
check("mlgo eval --compile recorded DIR/: runs", r.returncode == 0, r.stderr)
one = os.path.join(corpus, "alpha", "a0.o.bc")
r = run(*EVAL, "--compile", "recorded", "-o", W("rec2.json"), one, os.path.join(corpus, "beta", "b0.o.bc"))
err = r.stderr.decode()
lines = [l for l in err.splitlines() if "error:" in l]
check("mlgo eval --compile recorded MODULE.bc: exit 1, each error names its module once, says what to do",
      r.returncode == 1 and lines and all(l.count(".o.bc") == 1 and "corpus directory" in l for l in lines), err)

# ---- 16. the split by package: first component of the module's name -----------------------------
one_lib = W("one-lib")
build(W("one-src"), [f"lib/m{i}" for i in range(6)], ["-Oz", "-Xclang", "-fembed-bitcode=all"])
run("corpus", "extract", "-q", "-o", one_lib, W("one-src"), check=True)
r = run(*EVAL, "-o", W("one.json"), one_lib)
check("a one-package corpus (every name under lib/): refused, saying it has one package and what to do",
      r.returncode == 1 and b"at least two packages" in r.stderr and b"'lib'" in r.stderr
      and b"--split-keys" in r.stderr, r.stderr)
# Two packages, 12 and 3 modules, named so that the large one comes first in the split's order
# (seed 1): --test-fraction 0.2 asks for 3 modules.
cands = [f"pkg{c}" for c in "abcdefghijklmnopqrstuvwxyz"]
order = sorted(cands, key=lambda k: hashlib.sha256(f"1\n{k}".encode()).hexdigest())
big, small = order[0], order[1]
two = W("two-src")
build(two, [f"{big}/m{i}" for i in range(12)] + [f"{small}/n{i}" for i in range(3)], ["-Oz", "-Xclang", "-fembed-bitcode=all"])
two_corpus = W("two-lib")
run("corpus", "extract", "-q", "-o", two_corpus, two, check=True)
r = run("mlgo", "eval", "-q", "--test-fraction", "0.2", "-o", W("two.json"), two_corpus)
if check("a two-package corpus of 12 + 3 modules evaluates", r.returncode == 0, r.stderr):
    split = json.load(open(W("two.json")))["manifest"]["split"]
    check("--test-fraction 0.2 holds out the 3-module package, not the 12 (the large one comes first)",
          split["test_modules"] == 3 and split["test_keys"] == [small], split)

# Found by trying the tool on lz4 as a new user: a corpus whose names all start with lib/ can
# still be evaluated whole (--test-fraction 1), and split by a keys file that names its modules
# as the corpus does.
r = run(*EVAL[:-2], "--test-fraction", "1", "-o", W("all.json"), one_lib)
check("--test-fraction 1: every module of a one-package corpus evaluated",
      r.returncode == 0 and json.load(open(W("all.json")))["manifest"]["split"]["test_modules"] == 6, r.stderr)
desc = json.load(open(os.path.join(one_lib, "corpus_description.json")))
keys = W("keys.tsv")
open(keys, "w").write("".join(f"{m}\t{'x' if i % 2 else 'y'}\n" for i, m in enumerate(desc["modules"])))
for spelled in (one_lib, one_lib + "/", os.path.join(one_lib, "corpus_description.json")):
    r = run(*EVAL, "--split-keys", keys, "-o", W("keyed.json"), spelled)
    check(f"--split-keys with the modules' names in their corpus, the corpus given as {os.path.basename(spelled) or 'DIR/'}",
          r.returncode == 0 and json.load(open(W("keyed.json")))["manifest"]["split"]["test_modules"] == 3, r.stderr)
mode = {d: oct(os.stat(os.path.join(one_lib, d)).st_mode & 0o777) for d in ("lib",)}
check("corpus extract's subdirectories follow the umask as its files do (0755 under 022)",
      mode["lib"] == oct(0o777 & ~0o022), mode)
shared = W("liblib.so")
harness.run(["clang-22", "-Oz", "-Xclang", "-fembed-bitcode=all", "-fPIC", "-shared",
             *(os.path.join(W("one-src"), "lib", f"m{i}.c") for i in range(2)), "-o", shared], check=True)
r = run("corpus", "extract", "-q", "--obj-base-dir", tmp, "-o", W("so-corpus"), shared)
check("corpus extract of a shared library (the modules of its objects concatenated): refused, no corpus",
      r.returncode == 1 and b"linked file" in r.stderr and not os.path.exists(W("so-corpus")), r.stderr)
r = run("embeddings", shared)
check("a shared library with embedded bitcode as a module: says to extract its objects",
      r.returncode == 1 and b"linked file" in r.stderr and b"OBJECTS" in r.stderr, r.stderr)

# ---- 17. nothing decided: said ---------------------------------------------------------------
o0 = W("o0-src")
build(o0, [f"alpha/a{i}" for i in range(2)] + [f"beta/b{i}" for i in range(2)], ["-O0", "-Xclang", "-fembed-bitcode=all"])
o0_corpus = W("o0-corpus")
run("corpus", "extract", "-q", "-o", o0_corpus, o0, check=True)
r = run("mlgo", "eval", "--test-fraction", "0.5", "-o", W("o0.json"), o0_corpus)
check("mlgo eval of a corpus built at -O0: a warning that no inlining question was asked, naming -O0",
      r.returncode == 0 and b"asked no inlining question" in r.stderr and b"-O0" in r.stderr, r.stderr)
write(W("o0.c"), source(5))
harness.run(["clang-22", "-O0", "-emit-llvm", "-c", W("o0.c"), "-o", W("o0.bc")], check=True)
r = run("mlgo", "run", "--", B("opt"), "-passes=default<Oz>", W("o0.bc"), "-o", W("o0-out.bc"))
check("mlgo run on -O0 IR: exit 0 and a warning saying why nothing was asked (optnone, -O0)",
      r.returncode == 0 and b"asked no inlining question" in r.stderr and b"-O0" in r.stderr, r.stderr)
write(W("leaf.c"), "int leaf(int x) { return x * 3; }\n")
r = run("mlgo", "run", "--", "clang-22", "-Oz", "-c", W("leaf.c"), "-o", W("leaf.o"))
check("mlgo run on a source without calls at -Oz: a warning that names no -O0 cause (found by a new user)",
      r.returncode == 0 and b"asked no inlining question" in r.stderr and b"-O0" not in r.stderr, r.stderr)
write(W("main.c"), "int api5(int);\nint main(void) { return api5(3); }\n")
for c in ("o0.c", "main.c"):
    harness.run(["clang-22", "-Oz", "-flto", "-c", W(c), "-o", W(c[:-2] + ".lto.o")], check=True)
r = run("mlgo", "run", "--", "clang-22", "-Oz", "-flto", W("o0.lto.o"), W("main.lto.o"), "-o", W("prog"))
check("mlgo run -- clang-22 -flto (the link step): a warning that nothing was asked, naming -flto",
      r.returncode == 0 and b"never opened the channel" in r.stderr and b"-flto" in r.stderr, r.stderr)

# ---- 18. the compiler command without '--' -------------------------------------------------------
r = run("mlgo", "run", "--policy", "size", "clang-22", "-Oz", "-c", W("o0.c"))
check("mlgo run --policy size clang-22 -Oz -c f.c (no '--'): 64, says the compiler goes after '--'",
      r.returncode == 64 and b"goes after '--'" in r.stderr and b"clang-22 -Oz -c" in r.stderr, r.stderr)

# ---- 19. | head --------------------------------------------------------------------------------
many = W("many.list")
mod = W("m.ll")
write(mod, "define i32 @f(i32 %x) {\n  %y = mul i32 %x, %x\n  ret i32 %y\n}\n")
open(many, "w").write((mod + "\n") * 2000)
for args in (["embeddings", "--level", "inst", "@" + many], ["triplets", "@" + many],
             ["vocab", "export", "-o", "-"]):
    proc = subprocess.Popen([a.ir2vec, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()  # `| head -1`
    err = proc.stderr.read()
    proc.wait(timeout=60)
    check(f"{args[0]} ... | head -1: ends by SIGPIPE, nothing on standard error",
          proc.returncode == -signal.SIGPIPE and err == b"", (proc.returncode, err[-300:]))

# ---- 20. things that are not IR ----------------------------------------------------------------
write(W("f.c"), source(7))
harness.run(["clang-22", "-c", W("f.c"), "-o", W("plain.o")], check=True)
harness.run(["clang-22", "-Oz", "-Xclang", "-fembed-bitcode=all", "-c", W("f.c"), "-o", W("embedded.o")], check=True)
harness.run(["ar", "rc", W("lib.a"), W("plain.o")], check=True)
open(W("noise.bin"), "wb").write(bytes(range(200, 256)) * 3)
for path, want in ((W("f.c"), b"a C/C++ source file, not LLVM IR: compile it to IR first"),
                   (W("plain.o"), b"an object file without LLVM bitcode"),
                   (W("embedded.o"), b"an object file with embedded bitcode, not LLVM IR: `ir2vec corpus extract"),
                   (W("lib.a"), b"an archive (ar), not LLVM IR"),
                   (W("noise.bin"), b"a binary file that is neither LLVM bitcode nor text IR")):
    r = run("embeddings", path)
    ok_text = True
    try:
        r.stderr.decode("utf-8")
    except UnicodeDecodeError:
        ok_text = False
    check(f"{os.path.basename(path)} as a module: exit 1, named for what it is and what to do, no raw bytes",
          r.returncode == 1 and want in r.stderr and ok_text and r.stderr.count(b"\n") == 1, r.stderr[-400:])

# ---- 21. messages --------------------------------------------------------------------------------
r = run("embeddings", "--level", "function", mod)
check("a usage error (--level function) carries the tool's prefix 'ir2vec: error:'",
      r.returncode == 1 and r.stderr.startswith(b"ir2vec: error: --level"), r.stderr)
r = run("embeddings", "--format", "hdf5", "-o", W("outdir") + "/", mod)
check("-o NAME/ for a file output: says the name is a directory's",
      r.returncode == 1 and b"ends with '/'" in r.stderr, r.stderr)
r = run("embeddings", "-o", W("nodir", "out.txt"), mod)
check("an output in a directory that does not exist: 'does not exist', not 'is not a directory'",
      r.returncode == 1 and b"does not exist" in r.stderr and b"is not a directory" not in r.stderr, r.stderr)
r = run("mlgo", "run", "--", "gcc", "-c", W("f.c"), "-o", W("gcc.o"))
check("mlgo run -- gcc: says that only LLVM's opt, llc and clang speak the protocol",
      b"only LLVM 22's opt, llc and clang" in r.stderr, r.stderr)
bc = W("calls.bc")
harness.run(["clang-22", "-Oz", "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c", W("f.c"), "-o", bc], check=True)
r1 = run("mlgo", "run", "--stats", "--", B("opt"), "-passes=default<Oz>", bc, "-o", W("s1.bc"))
r2 = run("mlgo", "run", "--stats", "--policy", "random", "--seed", "2", "--", B("opt"), "-passes=default<Oz>", bc,
         "-o", W("s2.bc"))
check("--stats says how many answers differ from the compiler's own decision (0 for the default policy)",
      r1.returncode == 0 and b"(0 answered otherwise than the compiler's own decision)" in r1.stderr
      and r2.returncode == 0 and b"answered otherwise than the compiler's own decision" in r2.stderr,
      r1.stderr + r2.stderr)

T.finish()
