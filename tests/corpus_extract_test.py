#!/usr/bin/python3
"""A corpus from a real build, used as built: `ir2vec corpus extract` and recorded command
lines in collection, exploration and evaluation, against oracles outside the workbench:

  * each extracted .bc and .cmd equals what llvm-objcopy-22 --dump-section writes (the way
    LLVM's extract_ir extracts), and the description lists extract_ir's module names;
  * directories, @lists and compilation databases ("arguments" and "command" forms) give the
    same corpus; --cmd-filter keeps the modules whose recorded arguments match;
  * an object without embedded bitcode is reported and skipped (exit 2); names that leave the
    output directory, repeated names and missing objects are errors naming the input;
  * evaluation and collection of the extracted corpus compile each module with its own
    command line: the heuristic's .text equals the build's own object (llvm-size-22 -A), and
    a global_command_override equals clang-22 run with it by hand;
  * exploration of the extracted corpus: replaying the best decisions with
    `mlgo run --policy replay -- clang-22 <recorded command>` gives the best .text;
  * ThinLTO corpora and extract_ir's <UNSPECIFIED> placeholder are refused, naming the file;
    --compile recorded on an IR-only corpus names the missing command;
  * objects built at -O0 give a warning naming the recorded -O0, not a silent empty dataset;
  * collection resumes after SIGINT with the same bytes as an uninterrupted run.

  corpus_extract_test.py --ir2vec BIN --llvm-bindir DIR
"""
import json, os, shutil, signal, struct, subprocess, time

import h5py

import harness
import mlgo_oracle

T = harness.ToolTest("corpus-extract-")
a, res, check, tmp, W, B = T.args, T.res, T.check, T.tmp, T.W, T.B
text_size = lambda obj: mlgo_oracle.text_size(B("llvm-size"), obj)

SOURCES = {
    "alpha/a.c": "static int sq(int x) { return x * x; }\nstatic int cube(int x) { return sq(x) * x; }\n"
                 "int api(int x, int y) { return cube(x) - sq(y) + cube(x + y); }\n",
    "alpha/sub/b.c": "static int clamp(int v, int l, int h) { return v < l ? l : v > h ? h : v; }\n"
                     "int level(int v) { return clamp(v, 0, 255) + clamp(v * 2, 1, 9); }\n",
    "beta/c.c": "static unsigned mix(unsigned h, unsigned v) { h ^= v; return h * 16777619u; }\n"
                "unsigned hash(const char *s) { unsigned h = 2166136261u; while (*s) h = mix(h, *s++); return h; }\n"
                "unsigned twice(const char *s) { return mix(hash(s), hash(s + 1)); }\n",
    "gamma/d.c": "static long fact(int n) { return n < 2 ? 1 : n * fact(n - 1); }\n"
                 "static long choose(int n, int k) { return fact(n) / (fact(k) * fact(n - k)); }\n"
                 "long row(int n) { long s = 0; for (int k = 0; k <= n; ++k) s += choose(n, k); return s; }\n",
}

# ---- a build with embedded bitcode (and a compilation database) ----------------------------
build = W("build")
db = []
objects = []
for rel, src in SOURCES.items():
    c = os.path.join(build, "src", rel)
    os.makedirs(os.path.dirname(c), exist_ok=True)
    open(c, "w").write(src)
    obj_rel = os.path.join("obj", rel[:-2] + ".o")
    os.makedirs(os.path.join(build, os.path.dirname(obj_rel)), exist_ok=True)
    args = ["clang-22", "-Oz", "-Xclang", "-fembed-bitcode=all", "-c", os.path.join("src", rel), "-o", obj_rel]
    harness.run(args, check=True, cwd=build)
    objects.append(obj_rel)
    db.append({"directory": build, "file": os.path.join("src", rel), "arguments": args})
# an object from assembly-like input: no embedded bitcode
harness.run(["clang-22", "-Oz", "-c", os.path.join(build, "src/alpha/a.c"), "-o", os.path.join(build, "obj/plain.o")], check=True)
json.dump(db, open(os.path.join(build, "compile_commands.json"), "w"))
# the "command" form, split by the shell rules
db2 = [{"directory": e["directory"], "file": e["file"], "command": " ".join(e["arguments"])} for e in db]
json.dump(db2, open(W("commands-as-strings.json"), "w"))

objdir = os.path.join(build, "obj")
out = W("corpus")
r = harness.run([a.ir2vec, "corpus", "extract", "-o", out, objdir])
check("extract a directory: exit 2, the object without bitcode is reported",
      r.returncode == 2 and b"plain.o: no .llvmbc section" in r.stderr and b"-fembed-bitcode=all" in r.stderr, r.stderr)
names = sorted(o[len("obj/"):] for o in objects)
desc = json.load(open(os.path.join(out, "corpus_description.json")))
check("extract: the description lists extract_ir's names (object path relative to the base directory)",
      desc == {"has_thinlto": False, "modules": names}, desc)
for n in names:
    obj = os.path.join(objdir, n)
    harness.run([B("llvm-objcopy"), "--dump-section=.llvmbc=" + W("oracle.bc"), "--dump-section=.llvmcmd=" + W("oracle.cmd"),
                 obj, "/dev/null"], check=True)
    check(f"extract {n}: .bc and .cmd equal llvm-objcopy's sections",
          open(os.path.join(out, n + ".bc"), "rb").read() == open(W("oracle.bc"), "rb").read()
          and open(os.path.join(out, n + ".cmd"), "rb").read() == open(W("oracle.cmd"), "rb").read())

for label, inputs, extra in (("a compilation database (arguments)", [os.path.join(build, "compile_commands.json")], []),
                             ("a compilation database (command strings)", [W("commands-as-strings.json")], []),
                             ("an @list with --obj-base-dir", ["@" + W("objs.list")], ["--obj-base-dir", objdir])):
    open(W("objs.list"), "w").write("".join(os.path.join(objdir, n) + "\n" for n in names))
    o2 = W("corpus-" + str(abs(hash(label))))
    r = harness.run([a.ir2vec, "corpus", "extract", "-q", "-j", "2", "-o", o2, *extra, *inputs])
    d2 = json.load(open(os.path.join(o2, "corpus_description.json"))) if r.returncode == 0 else None
    # A database names modules below the project (the deepest directory of the sources and the
    # build directory: here build/), not below the build directory alone (issue 37: every
    # module of a CMake build was in package CMakeFiles).
    want = names if extra else ["build/obj/" + n for n in names]
    check(f"extract from {label}: the same modules and bytes", r.returncode == 0 and d2["modules"] == want and all(
        open(os.path.join(o2, m + ".bc"), "rb").read() == open(os.path.join(out, n + ".bc"), "rb").read()
        for m, n in zip(want, names)), r.stderr)

# A CMake build (objects under build/CMakeFiles/<target>.dir/): modules are named under the
# project, so their package is the project's name; all in one package, a note says how to split.
proj = W("tinyproj")
cdb = []
for n in ("a", "b", "tools/c"):
    # tools/c: a subdirectory of the project, built in its own build directory (CMake's
    # add_subdirectory), still the same project (issue 37: it became a package of its own).
    sub, n = os.path.split(n)
    os.makedirs(os.path.join(proj, "src", sub), exist_ok=True)
    open(os.path.join(proj, "src", sub, n + ".c"), "w").write(
        SOURCES["gamma/d.c"] if sub else SOURCES["alpha/a.c"].replace("api_", "api_" + n))
    bdir = os.path.join(proj, "build", sub)
    obj = os.path.join("CMakeFiles", "tiny.dir", n + ".c.o")
    os.makedirs(os.path.join(bdir, os.path.dirname(obj)), exist_ok=True)
    args = ["clang-22", "-Oz", "-Xclang", "-fembed-bitcode=all", "-c", os.path.join(proj, "src", sub, n + ".c"), "-o", obj]
    harness.run(args, check=True, cwd=bdir)
    cdb.append({"directory": bdir, "file": os.path.join(proj, "src", sub, n + ".c"), "arguments": args, "output": obj})
json.dump(cdb, open(os.path.join(proj, "build", "compile_commands.json"), "w"))
r = harness.run([a.ir2vec, "corpus", "extract", "-o", W("cmake-corpus"), os.path.join(proj, "build", "compile_commands.json")])
d4 = json.load(open(W("cmake-corpus", "corpus_description.json"))) if r.returncode == 0 else {}
check("extract of a CMake build's database: modules named under the project (tinyproj/CMakeFiles/...), a note that "
      "they are all in one package and how to name more", d4.get("modules") ==
      ["tinyproj/CMakeFiles/tiny.dir/a.c.o", "tinyproj/CMakeFiles/tiny.dir/b.c.o",
       "tinyproj/tools/CMakeFiles/tiny.dir/c.c.o"]
      and b"one package ('tinyproj'" in r.stderr and b"--obj-base-dir" in r.stderr, (r.stderr, d4))
# The build directory given as it is: the same project name (not CMakeFiles).
r = harness.run([a.ir2vec, "corpus", "extract", "-o", W("cmake-dir-corpus"), os.path.join(proj, "build")])
d5 = json.load(open(W("cmake-dir-corpus", "corpus_description.json"))) if r.returncode == 0 else {}
check("extract of a CMake build directory: modules under the project's name, not CMakeFiles/",
      r.returncode == 0 and all(m.startswith("tinyproj/") for m in d5.get("modules", [])) and len(d5["modules"]) == 3,
      (r.stderr, d5))

# A directory of objects given to embeddings points to corpus extract (files already did).
r = harness.run([a.ir2vec, "embeddings", objdir])
check("embeddings of a directory of objects: exit 1, the way named (corpus extract)",
      r.returncode == 1 and b"corpus extract -o DIR " + objdir.encode() in r.stderr, r.stderr)
# The driver's -fembed-bitcode records -disable-llvm-passes: said at extraction, naming the object.
drv = W("driver-embed.o")
harness.run(["clang-22", "-Oz", "-fembed-bitcode", "-c", os.path.join(build, "src/alpha/a.c"), "-o", drv], check=True)
r = harness.run([a.ir2vec, "corpus", "extract", "-o", W("driver-corpus"), "--obj-base-dir", W(), drv,
                 os.path.join(objdir, "beta/c.o")])
check("extract of an object built with the driver's -fembed-bitcode: a warning naming it and -disable-llvm-passes, "
      "once", r.returncode == 0 and r.stderr.count(b"warning") == 1 and b"driver-embed.o: its recorded command turns "
      b"LLVM's passes off (-disable-llvm-passes" in r.stderr, r.stderr)

# --cmd-filter: one more object built at -O2 is left out
harness.run(["clang-22", "-O2", "-Xclang", "-fembed-bitcode=all", "-c", os.path.join(build, "src/beta/c.c"), "-o",
             os.path.join(build, "obj/beta/c2.o")], check=True)
r = harness.run([a.ir2vec, "corpus", "extract", "-q", "--cmd-filter", "^-Oz$", "-o", W("filtered"), objdir])
d3 = json.load(open(W("filtered", "corpus_description.json")))
check("extract --cmd-filter '^-Oz$': the -O2 object is left out", "beta/c2.o" not in d3["modules"] and len(d3["modules"]) == 4, (r.stderr, d3))
os.remove(os.path.join(build, "obj/beta/c2.o"))

for args, needle in ((["-o", W("bad1"), "/nonexistent/x.o"], b"/nonexistent/x.o"),
                     (["-o", W("bad2"), "--obj-base-dir", os.path.join(objdir, "alpha"), os.path.join(objdir, "beta/c.o")],
                      b"is not below the base directory"),
                     (["-o", W("bad3"), "--obj-base-dir", objdir, os.path.join(objdir, "plain.o")], b"no .llvmbc section"),
                     (["-o", W("bad4"), "--cmd-filter", "(", objdir], b"--cmd-filter")):
    r = harness.run([a.ir2vec, "corpus", "extract", "-q", *args])
    check(f"extract {' '.join(args[2:])}: exit 1, named, no description",
          r.returncode == 1 and needle in r.stderr and not os.path.exists(os.path.join(args[1], "corpus_description.json")), r.stderr)
os.chdir(W())
dup = W("dup.list")
open(dup, "w").write(os.path.relpath(os.path.join(objdir, "alpha/a.o")) + "\n" + "./" + os.path.relpath(os.path.join(objdir, "alpha/a.o")) + "\n")
r = harness.run([a.ir2vec, "corpus", "extract", "-q", "-o", W("bad5"), "@" + dup])
check("extract: an object named twice is an error", r.returncode == 1 and b"a second object named" in r.stderr, r.stderr)
r = harness.run([a.ir2vec, "corpus", "extract", "-q", "-o", W("bad6"), "../x.o"])
check("extract: a name outside the current directory needs --obj-base-dir", r.returncode == 1 and b"--obj-base-dir" in r.stderr, r.stderr)

# ---- evaluation and collection compile with the recorded command lines --------------------
built = {n: text_size(os.path.join(objdir, n)) for n in names}
desc_file = os.path.join(out, "corpus_description.json")
r = harness.run([a.ir2vec, "mlgo", "eval", "-q", "--test-fraction", "0.5", "-o", W("ev.json"), desc_file])
if check("eval of the extracted corpus: exit 0", r.returncode == 0, r.stderr):
    ev = json.load(open(W("ev.json")))
    for m in ev["modules"]:
        n = os.path.relpath(m["path"], out)[:-3]
        check(f"eval {n}: -Oz .text = the build's own object (llvm-size -A)", m["baseline_text_size"] == built[n],
              (m["baseline_text_size"], built[n]))
        check(f"eval {n}: compiled with its recorded command line", m["command"].startswith("clang-22 -cc1 ") and " -x ir " in m["command"])
r = harness.run([a.ir2vec, "mlgo", "collect", "-q", "-o", W("col.h5"), desc_file])
if check("collect of the extracted corpus: exit 0", r.returncode == 0, r.stderr):
    with h5py.File(W("col.h5")) as f:
        paths = [x.decode() for x in f["modules/path"][:]]
        check("collect: every heuristic .text = the build's own object",
              [int(x) for x in f["modules/baseline_text_size"][:]] == [built[os.path.relpath(x, out)[:-3]] for x in paths])
r = harness.run([a.ir2vec, "mlgo", "eval", "-q", "--compile", "pipeline", "--test-fraction", "0.5", "-o", W("evp.json"), desc_file])
if check("eval --compile pipeline: exit 0", r.returncode == 0, r.stderr):
    for m in json.load(open(W("evp.json")))["modules"]:
        bc, o = W("pp.bc"), W("pp.o")
        harness.run([B("opt"), "-passes=default<Oz>", m["path"], "-o", bc], check=True)
        harness.run([B("llc"), "-O2", "-filetype=obj", bc, "-o", o], check=True)
        check(f"eval --compile pipeline {os.path.basename(m['path'])}: opt-22 -Oz + llc-22, the recorded command ignored",
              m["baseline_text_size"] == text_size(o) and m["command"].startswith("opt-22"))

# a global_command_override replaces every recorded command
ov = W("override")
shutil.copytree(out, ov)
d = json.load(open(os.path.join(ov, "corpus_description.json")))
d["global_command_override"] = ["-O1", "-c"]
json.dump(d, open(os.path.join(ov, "corpus_description.json"), "w"))
r = harness.run([a.ir2vec, "mlgo", "eval", "-q", "--test-fraction", "0.5", "-o", W("evo.json"), os.path.join(ov, "corpus_description.json")])
if check("eval with global_command_override: exit 0", r.returncode == 0, r.stderr):
    for m in json.load(open(W("evo.json")))["modules"]:
        o = W("ov.o")
        harness.run(["clang-22", "-O1", "-c", "-x", "ir", m["path"], "-o", o], check=True)
        check(f"override {os.path.basename(m['path'])}: .text = clang-22 -O1 -c -x ir by hand", m["baseline_text_size"] == text_size(o))
for change, needle in (({"global_command_override": ["<UNSPECIFIED>"]}, b"<UNSPECIFIED>"),
                       ({"has_thinlto": True}, b"ThinLTO")):
    bad = W("badcorpus")
    shutil.rmtree(bad, ignore_errors=True)
    shutil.copytree(out, bad)
    json.dump({**desc, **change}, open(os.path.join(bad, "corpus_description.json"), "w"))
    r = harness.run([a.ir2vec, "mlgo", "eval", "-q", "-o", W("bad.json"), os.path.join(bad, "corpus_description.json")])
    check(f"eval with {change}: exit 1, the description named", r.returncode == 1 and needle in r.stderr
          and b"corpus_description.json" in r.stderr and not os.path.exists(W("bad.json")), r.stderr)
bad = W("badcmd")
shutil.rmtree(bad, ignore_errors=True)
shutil.copytree(out, bad)
open(os.path.join(bad, names[0] + ".cmd"), "wb").write(b"-Oz\0-c\0")
r = harness.run([a.ir2vec, "mlgo", "collect", "-q", "-o", W("bad.h5"), os.path.join(bad, "corpus_description.json")])
check("a .cmd that is not a -cc1 command line: exit 1, the file named",
      r.returncode == 1 and (names[0] + ".cmd").encode() in r.stderr and b"-cc1" in r.stderr, r.stderr)
irlist = W("ir.list")
open(irlist, "w").write(os.path.join(out, names[0] + ".bc") + "\n")
r = harness.run([a.ir2vec, "mlgo", "collect", "-q", "--compile", "recorded", "-o", W("bad.h5"), "@" + irlist])
check("--compile recorded on a module named outside its corpus: exit 1, says its .cmd is read through the corpus",
      r.returncode == 1 and b"read only through its corpus" in r.stderr, r.stderr)
shutil.copy(os.path.join(out, names[0] + ".bc"), W("ir-only.bc"))
r = harness.run([a.ir2vec, "mlgo", "collect", "-q", "--compile", "recorded", "-o", W("bad.h5"), W("ir-only.bc")])
check("--compile recorded on an IR-only module: exit 1, the missing command named",
      r.returncode == 1 and b"recorded no command line" in r.stderr, r.stderr)

# ---- exploration: replaying the best decisions through clang-22 with the recorded command --
r = harness.run([a.ir2vec, "mlgo", "explore", "-q", "--test-fraction", "0.25", "--budget", "5", "-o", W("ex.h5"), desc_file])
if check("explore of the extracted corpus: exit 0", r.returncode == 0, r.stderr):
    with h5py.File(W("ex.h5")) as f:
        check("explore: the file says how modules were compiled", f.attrs["compile"] == "auto"
              and all(c.decode().startswith("clang-22 -cc1") for c in f["modules/command"][:]))
        paths = [x.decode() for x in f["modules/path"][:]]
        base, best = f["modules/baseline_text_size"][:], f["modules/best_text_size"][:]
        bestrow, rfirst, rcount = f["modules/best_rollout"][:], f["rollouts/first_decision"][:], f["rollouts/decision_count"][:]
        dec = f["rollouts/decisions"][:]
        for m, path in enumerate(paths):
            n = os.path.relpath(path, out)[:-3]
            check(f"explore {n}: the heuristic's .text = the build's object", base[m] == built[n])
            decisions = dec[rfirst[bestrow[m]]: rfirst[bestrow[m]] + rcount[bestrow[m]]]
            log = W(f"replay{m}.log")
            spec = {"name": "inlining_decision", "type": "int64_t", "port": 0, "shape": [1]}
            with open(log, "wb") as fh:
                fh.write(json.dumps({"features": [spec]}, separators=(",", ":")).encode() + b"\n")
                fh.write(b'{"context":"replayed"}\n')
                for i, x in enumerate(decisions):
                    fh.write(b'{"observation":%d}\n' % i + struct.pack("<q", int(x)) + b"\n")
            cmd = open(path[:-3] + ".cmd", "rb").read().split(b"\0")
            o = W(f"replay{m}.o")
            r = harness.run([a.ir2vec, "mlgo", "run", "--policy", "replay", "--replay", log, "--", "clang-22",
                             *[x.decode() for x in cmd if x], "-x", "ir", path, "-o", o])
            check(f"explore {n}: replaying the best decisions under clang-22 gives the best .text",
                  r.returncode == 0 and text_size(o) == best[m], (r.stderr, best[m]))

# ---- a build at -O0: no decisions, a warning naming the cause ------------------------------
o0 = W("build-o0")
for rel in SOURCES:
    obj = os.path.join(o0, rel[:-2] + ".o")
    os.makedirs(os.path.dirname(obj), exist_ok=True)
    harness.run(["clang-22", "-O0", "-Xclang", "-fembed-bitcode=all", "-c", os.path.join(build, "src", rel), "-o", obj], check=True)
harness.run([a.ir2vec, "corpus", "extract", "-q", "-o", W("corpus-o0"), o0], check=True)
r = harness.run([a.ir2vec, "mlgo", "collect", "-o", W("o0.h5"), W("corpus-o0", "corpus_description.json")])
check("collect of a -O0 build: a warning naming the recorded -O0", r.returncode == 0 and b"warning" in r.stderr
      and b"compile at -O0" in r.stderr, r.stderr)

# ---- collection resumes after an interruption ----------------------------------------------
slow = W("cc-slow")  # not named clang*: the recorded command says it is clang
open(slow, "w").write(f"#!/bin/sh\nsleep 0.3\nexec clang-22 \"$@\"\n")
os.chmod(slow, 0o755)
ref = W("ref.h5")
harness.run([a.ir2vec, "mlgo", "collect", "-q", "-j", "1", "--clang", slow, "-o", ref, desc_file], check=True)
part = W("part.h5")
proc = subprocess.Popen([a.ir2vec, "mlgo", "collect", "-q", "-j", "1", "--clang", slow, "-o", part, desc_file], stderr=subprocess.PIPE)
deadline = time.time() + 60
while time.time() < deadline and not (os.path.isdir(part + ".parts") and
                                      any(n.endswith(".json") for n in os.listdir(part + ".parts"))):
    time.sleep(0.05)
proc.send_signal(signal.SIGINT)
rc = proc.wait(timeout=60)
err = proc.stderr.read()
check("collect interrupted: 130, no output, finished modules kept", rc == 130 and not os.path.exists(part)
      and os.path.isdir(part + ".parts") and b"--resume" in err, (rc, err[-300:]))
r = harness.run([a.ir2vec, "mlgo", "collect", "-j", "2", "--clang", slow, "--resume", "-o", part, desc_file])
check("collect --resume: the same bytes as an uninterrupted run, the finished modules not compiled again",
      r.returncode == 0 and open(part, "rb").read() == open(ref, "rb").read() and b"taken from" in r.stderr
      and not os.path.exists(part + ".parts"), r.stderr)

T.finish()
