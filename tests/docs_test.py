#!/usr/bin/python3
"""Every command the README and docs/ show runs as shown (issue 37: the README's `mlgo finetune`
example failed on a real build's corpus).

Commands are the lines of the sh (or unmarked) code blocks of README.md and docs/**/*.md that
start a program (ir2vec, cat ... | ir2vec, mpirun, cmake, ctest, scripts). Each runs, unchanged,
in a scratch directory laid out like the docs' examples: three small C projects built with
CMake exactly as docs/corpus.md builds one (their builds under build/, one merged
compile_commands.json), modules named file.ll, m.bc, prog.mir ..., vocabularies V.json,
VOCAB.json ..., with `ir2vec` the build's. A command may need what another writes (explore.h5
before train): they run in passes, in the docs' order, until none is left that can run; each
must exit 0. The commands not run here are listed below with the test that covers them or the
reason (a 35-minute benchmark, 10 MPI ranks); a listed exception that matches no command is an
error too, so the list stays true.

The commands are shared between parts so that each stays under the 5-minute budget of a test
(part 2 took 330 s under AddressSanitizer): --part 1 the commands that are not MLGO's, 2 MLGO's
inliner and the rest, 3 MLGO's register allocation (eviction and priority; they need nothing
the inliner's commands make).

    docs_test.py --ir2vec BIN --repo DIR --vocab SEED.json --part N
"""
import argparse, glob, json, os, re, shutil, subprocess, sys, tempfile, time

import harness

p = argparse.ArgumentParser()
p.add_argument("--ir2vec", required=True)
p.add_argument("--repo", required=True)
p.add_argument("--vocab", required=True, help="LLVM's seed vocabulary (test data)")
p.add_argument("--part", type=int, choices=(1, 2, 3), required=True)
a = p.parse_args()
res = harness.Results()
check = res.check

PROGRAM = re.compile(r"^\s*(ir2vec|cat \S+ \| ir2vec|mpirun|cmake|ctest|make|\./scripts/|scripts/)\b")

# Commands not run here: (pattern, why, the test that runs them instead).
ELSEWHERE = [
    (r"^\./scripts/setup\.sh", "installs packages and builds (and the second: runs this suite)",
     "readme (the first one's main job)"),
    (r"^(\./)?scripts/benchmark\.sh", "the open benchmark: 35 minutes after a 5-minute corpus", "benchmark"),
    (r"^(\./)?scripts/build-benchmark-corpus\.py", "downloads and builds 32 Debian source packages",
     "benchmark (its pins, with a fake apt-get)"),
    (r"^(\./)?scripts/perf-track\.py", "builds and runs 6 programs under valgrind", "perf (on zstd)"),
    (r"mlgo ablate -j 2 bench/ablation(-evict)?\.json", "the published studies: 988 s and 1,912 s",
     "mlgo_policy and regalloc (studies of small specs)"),
    (r"^mpirun\b", "10 ranks on several nodes", "mpi (the same subcommands under 1-3 ranks)"),
    (r"^cmake --install build", "installs into /usr/local", "vocab_cli (cmake --install to a prefix)"),
    (r"build/benchmark-corpus/", "the benchmark's corpus", "benchmark"),
    (r"\.\./shared/downstream/devmap", "the IR2Vec paper's dataset in ../shared; the full study takes 4 minutes",
     "devmap_oracle (the same command with one seed, against scikit-learn and XGBoost) and devmap_tiny"),
]


def commands(path):
    """The commands of path's sh or unmarked code blocks, continuation lines joined."""
    out, fence, buf = [], None, ""
    for line in open(path, encoding="utf-8"):
        s = line.rstrip("\n")
        if fence is None:
            m = re.match(r"^\s*```(\w*)", s)
            if m:
                fence = m.group(1) or "plain"
            continue
        if re.match(r"^\s*```\s*$", s):
            fence = None
            continue
        if fence not in ("sh", "bash", "plain", "console"):
            continue
        if s.rstrip().endswith("\\"):
            buf += s.rstrip()[:-1] + " "
            continue
        s, buf = buf + s, ""
        if PROGRAM.match(s):
            out.append(s.strip())
    return out


def part_of(cmd):
    """The part that runs cmd (see above)."""
    if " mlgo " not in f" {cmd} ":
        return 1
    return 3 if re.search(r"evict|priority", cmd) else 2


docs = [os.path.join(a.repo, "README.md")] + sorted(glob.glob(os.path.join(a.repo, "docs", "**", "*.md"),
                                                              recursive=True))
found = [(os.path.relpath(d, a.repo), c) for d in docs for c in commands(d)]
# The README opens with the two set-up commands (readme_test.py runs the first one's main job).
check(f"commands found in the README and docs ({len(found)})", len(found) > 60, len(found))
elsewhere = {pat: 0 for pat, _, _ in ELSEWHERE}
to_run = []
for doc, cmd in found:
    pat = next((pt for pt, _, _ in ELSEWHERE if re.search(pt, cmd)), None)
    if pat:
        elsewhere[pat] += 1
    elif part_of(cmd) == a.part or cmd.startswith(("cmake ", "make ")):
        to_run.append((doc, cmd))
for pat, why, where in ELSEWHERE:
    check(f"the exception '{pat}' ({why}; run by: {where}) matches a command of the docs", elsewhere[pat] > 0)

# ---- the scratch directory ---------------------------------------------------------------------
work = tempfile.mkdtemp(prefix=f"docs-test-{a.part}-")
W = lambda *n: os.path.join(work, *n)
bindir = os.path.dirname(os.path.abspath(a.ir2vec))
ENV = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import small_corpus  # noqa: E402
started = time.time()

# Three C projects and a C++ one, each with its sources under src/ and a CMakeLists.txt, built
# as docs/corpus.md builds one (its C command, or its C++ one), each under build/; and a project
# with a Makefile for its make command.
SOURCES = dict(small_corpus.SOURCES)
SOURCES["cxx/shapes.cpp"] = ("#include <vector>\n#include <string>\n"
                             "struct S { std::vector<std::string> v; void add(const char *p) { v.push_back(p); } };\n"
                             "size_t f(S &s) { s.add(\"a\"); s.add(\"b\"); return s.v.size(); }\n")
SOURCES["maked/m.c"] = small_corpus.SOURCES["alpha/a.c"]
for rel, src in SOURCES.items():
    project, name = rel.split("/")
    os.makedirs(W("projects", project, "src"), exist_ok=True)
    open(W("projects", project, "src", name), "w").write(src)
build_cmds = {c: None for _, c in found if c.startswith(("cmake -S . -B build", "make "))}
check("docs/corpus.md shows a C and a C++ CMake build and a make build", len(build_cmds) == 3, list(build_cmds))
os.makedirs(W("build"))
merged = []
for project in sorted(os.listdir(W("projects"))):
    srcs = sorted(os.listdir(W("projects", project, "src")))
    if project == "maked":
        open(W("projects", project, "Makefile"), "w").write(
            "objs := $(patsubst src/%.c,obj/%.o,$(wildcard src/*.c))\nall: $(objs)\n"
            "obj/%.o: src/%.c\n\tmkdir -p obj\n\t$(CC) $(CFLAGS) -c $< -o $@\n")
        cmd = next(c for c in build_cmds if c.startswith("make "))
    else:
        lang = "CXX" if project == "cxx" else "C"
        open(W("projects", project, "CMakeLists.txt"), "w").write(
            f"cmake_minimum_required(VERSION 3.20)\nproject({project} {lang})\n"
            f"add_library({project} STATIC {' '.join('src/' + x for x in srcs)})\n")
        cmd = next(c for c in build_cmds if c.startswith("cmake ") and f"CMAKE_{lang}_FLAGS" in c)
    r = subprocess.run(cmd, shell=True, cwd=W("projects", project), capture_output=True, env=ENV)
    build_cmds[cmd] = (r.returncode, r.stderr.decode(errors="replace"), 0.0)
    if not check(f"docs/corpus.md's build of project {project}", r.returncode == 0, r.stderr[-500:]):
        sys.exit(res.summary())
    if project != "maked":
        merged += json.load(open(W("projects", project, "build", "compile_commands.json")))
        os.symlink(W("projects", project, "build"), W("build", project))
json.dump(merged, open(W("build", "compile_commands.json"), "w"), indent=1)
made = glob.glob(W("projects", "maked", "obj", "*.o"))
r = harness.run(["llvm-objcopy-22", "--dump-section=.llvmbc=" + W("made.bc"), made[0], W("made-copy.o")]) if made else None
check("the make build's object carries its module (.llvmbc)", r is not None and r.returncode == 0 and os.path.getsize(W("made.bc")) > 0)
objects = sorted(glob.glob(W("build", "*", "CMakeFiles", "*", "src", "*.o")))
open(W("objects.txt"), "w").write("".join(o + "\n" for o in objects))

# Single modules: m.c (calls to inline, registers under pressure), and what is made of it.
pressure = open(os.path.join(a.repo, "tests", "data", "mlgo_pressure.c")).read()
open(W("m.c"), "w").write(pressure + small_corpus.SOURCES["alpha/a.c"] +
                          "int main(int argc, char **argv) { return api_a(argc, argc + 1) + api_b(&argc, 1); }\n")
for out, args in (("file.ll", ["-O0", "-S"]), ("file.bc", ["-Oz", "-Xclang", "-disable-llvm-passes"]),
                  ("m.bc", ["-Oz", "-Xclang", "-disable-llvm-passes"]), ("m.ll", ["-O2", "-S"]),
                  ("prog.bc", ["-O2"])):
    harness.run(["clang-22", *args, "-emit-llvm", "-c", W("m.c"), "-o", W(out)], check=True)
harness.run(["llc-22", "-O2", "-stop-after=virtregrewriter", W("m.ll"), "-o", W("prog.mir")], check=True)
for name in ("V.json", "other.json", "seedEmbeddingVocab75D.json"):
    shutil.copy(a.vocab, W(name))


def refresh():
    """What the docs' placeholders stand for, once the commands that make it have run."""
    if os.path.exists(W("corpus", "corpus_description.json")):
        for alias in ("corpus_dir", "CORPUS", "OTHER", os.path.join("path", "to", "corpus")):
            if not os.path.lexists(W(alias)):
                os.makedirs(os.path.dirname(W(alias)), exist_ok=True)
                os.symlink(W("corpus"), W(alias))
        desc = json.load(open(W("corpus", "corpus_description.json")))
        mods = [W("corpus", m + ".bc") for m in desc["modules"]]
        for lst in ("more.txt", "modules.txt"):
            if not os.path.exists(W(lst)):
                open(W(lst), "w").write("".join(m + "\n" for m in mods))
    for alias, source in (("VOCAB.json", "mir.json"), ("m.h5", "lin.h5"), ("a.log", "s.log"), ("b.log", "s.log")):
        if os.path.exists(W(source)) and not os.path.exists(W(alias)):
            shutil.copy(W(source), W(alias))
    if not os.path.exists(W("stream.out")):  # a compiler's raw stream, for `log rewrite`
        harness.run([a.ir2vec, "mlgo", "run", "--transcript", W("stream.out"), "--", "opt-22",
                     "-passes=default<Oz>", W("m.bc"), "-o", W("stream.bc")], check=True)


if a.part != 1:  # the MLGO commands need the corpus the first part's commands extract
    harness.run([a.ir2vec, "corpus", "extract", "-q", "-o", W("corpus"), W("build", "compile_commands.json")],
                check=True, env=ENV)

# ---- the commands, in passes -----------------------------------------------------------------
print(f"  {time.time() - started:6.1f} s  set-up (projects built, corpus extracted)", flush=True)
pending, outcome = list(to_run), {}
for attempt in range(4):
    refresh()
    left = []
    for doc, cmd in pending:
        if cmd in build_cmds:
            outcome[(doc, cmd)] = build_cmds[cmd]  # run above, in the projects
            continue
        t = time.time()
        r = subprocess.run(cmd, shell=True, cwd=work, capture_output=True, env=ENV, timeout=240)
        outcome[(doc, cmd)] = (r.returncode, r.stderr.decode(errors="replace"), time.time() - t)
        if r.returncode != 0:
            left.append((doc, cmd))
    if len(left) == len(pending):
        break
    pending = left
for (doc, cmd), o in outcome.items():
    if o is not None:
        check(f"{doc}: `{cmd}` exits 0 ({o[2]:.1f} s)", o[0] == 0, f"exit {o[0]}: {o[1][-600:]}")
# The slowest commands, so a CI log shows where the part's time goes before a timeout bites.
for (doc, cmd), o in sorted(((k, o) for k, o in outcome.items() if o is not None), key=lambda x: -x[1][2])[:6]:
    print(f"  {o[2]:6.1f} s  {doc}: {cmd}", flush=True)
check(f"part {a.part}: every command of the part ran ({len(outcome)})", len(outcome) == len(to_run) > 10)

status = res.summary(f"docs part {a.part}: ")
if status == 0:
    shutil.rmtree(work)
sys.exit(status)
