#!/usr/bin/python3
"""The output rules (issue 22, docs/cli.md "Outputs"): the tool never destroys what the user did
not ask to replace. Every case failed on the build before the fix (docs/robustness.md lists the
counts).

  * an output that is not a regular file is written, never replaced: a character device made
    with mknod (as root) and a terminal (a pty, always), and a FIFO, as the output of every
    subcommand that writes a file; each is still what it was afterwards, and what came through
    the FIFO is what a regular file gets;
  * a symlink output: its target is replaced (atomically, beside the target); the link stays;
    a dangling link's target is created;
  * an output that is an input (the same file, also through a symlink or a hard link), or two
    outputs of one command that are the same file: refused before any work, the input intact;
  * two runs writing the same resumable output at once: the second is refused, the first
    publishes a whole file;
  * no OUT.partial.copy after SIGINT/SIGTERM during --resume;
  * an output directory the run created is removed when the run fails (a full disk, no object
    with bitcode); `-o DIR/` with a trailing slash works;
  * what a second hostile try found: standard output and error closed (a warning must not
    land in an output file); a symlink inside an output directory (the entry is replaced, not
    its target); an object whose module would overwrite another input; OUT.partial a symlink;
    `mlgo run --log X` where X is the compiler's -o not yet written; modes kept, read-only
    files refused; --resume after an input changed; SIGTERM before the first checkpoint;
    what runs killed by SIGKILL left is removed by the next run, what a live run holds is not.

No test names a system path as an output.

    outputs_test.py --ir2vec BIN --llvm-bindir DIR --part 1|2

Two parts, each its own ctest test (whole, it took 294 s in a ctest -j2 run): each takes every
other subcommand that writes through the device, terminal, FIFO and symlink cases; part 2 then
does the rest (directories, outputs that are inputs, concurrent runs, the second hostile try).
"""
import hashlib, os, pty, resource, shutil, signal, stat, subprocess, threading, time

import harness
import h5compare
import small_corpus

T = harness.ToolTest("outputs-", parts=2)
a, res, check, tmp, W, B = T.args, T.res, T.check, T.tmp, T.W, T.B
run = T.run
tool = a.ir2vec



def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def listing(d):
    return sorted(os.listdir(d))


# ---- fixtures --------------------------------------------------------------------------------
module = W("m.ll")
open(module, "w").write("define i32 @f(i32 %x) {\n  %y = mul i32 %x, %x\n  ret i32 %y\n}\n"
                        "define i32 @g(i32 %a) {\n  %r = call i32 @f(i32 %a)\n  %s = add i32 %r, 1\n"
                        "  ret i32 %s\n}\n")
corpus = W("corpus")
modules = small_corpus.build(corpus)
listfile = W("corpus.list")
open(listfile, "w").write("".join(m + "\n" for m in modules))
fix = W("fixtures")
os.mkdir(fix)
F = lambda n: os.path.join(fix, n)
run("embeddings", "--counts", "--format", "hdf5", "-o", F("counts.h5"), module, check=True)
run("triplets", "--format", "openke", "-o", F("kg"), module, *modules, check=True)
opt_cmd = [B("opt"), "-passes=default<Oz>", modules[0], "-o", F("session.bc")]
run("mlgo", "run", "--log", F("s.log"), "--", *opt_cmd, check=True)
obj = W("plain.o")  # an object without embedded bitcode
harness.run(["clang-22", "-c", "-x", "c", "-", "-o", obj], stdin=b"int f(void) { return 1; }\n", check=True)
EXPLORE = ["--test-fraction", "0.3", "--budget", "4", "-q", "-j", "2"]
run("mlgo", "explore", *EXPLORE, "-o", F("ex.h5"), "@" + listfile, check=True)
run("mlgo", "train", F("ex.h5"), "--features", "cost,callgraph,heuristic", "--epochs", "3", "-q",
    "-o", F("model.h5"), check=True)

# Every subcommand that writes a file: (name, args given the output path, what it writes).
WRITERS = [
    ("entities", lambda o: ["entities", "-o", o], "text"),
    ("triplets", lambda o: ["triplets", "-o", o, module], "text"),
    ("embeddings text", lambda o: ["embeddings", "-o", o, module], "text"),
    ("embeddings hdf5", lambda o: ["embeddings", "--format", "hdf5", "-q", "-o", o, module], "hdf5"),
    ("embeddings counts", lambda o: ["embeddings", "--counts", "--format", "hdf5", "-q", "-o", o, module], "hdf5"),
    ("from-counts", lambda o: ["from-counts", "-o", o, F("counts.h5")], "hdf5"),
    ("vocab train -o", lambda o: ["vocab", "train", F("kg"), "--dim", "4", "--epochs", "2", "-j", "1", "-o", o], "text"),
    ("vocab train --hdf5", lambda o: ["vocab", "train", F("kg"), "--dim", "4", "--epochs", "2", "-j", "1",
                                      "--hdf5", o], "hdf5"),
    ("vocab export", lambda o: ["vocab", "export", "-o", o], "text"),
    ("mlgo run --log", lambda o: ["mlgo", "run", "--log", o, "--", *opt_cmd], "bytes"),
    ("mlgo run --transcript", lambda o: ["mlgo", "run", "--transcript", o, "--", *opt_cmd], "bytes"),
    ("mlgo collect", lambda o: ["mlgo", "collect", "-q", "-j", "2", "-o", o, modules[0], modules[2]], "hdf5"),
    ("mlgo explore", lambda o: ["mlgo", "explore", *EXPLORE, "-o", o, "@" + listfile], "hdf5"),
    ("mlgo eval -o", lambda o: ["mlgo", "eval", "-q", "--test-fraction", "0.3", "-j", "2", "-o", o,
                                "@" + listfile], "json"),
    ("mlgo eval --hdf5", lambda o: ["mlgo", "eval", "-q", "--test-fraction", "0.3", "-j", "2", "-o",
                                    F("eval-side.json"), "--hdf5", o, "@" + listfile], "hdf5"),
    ("mlgo train", lambda o: ["mlgo", "train", F("ex.h5"), "--features", "cost,callgraph,heuristic",
                              "--epochs", "3", "-q", "-o", o], "hdf5"),
    ("mlgo finetune", lambda o: ["mlgo", "finetune", F("ex.h5"), "--from-heuristic", "-q", "-j", "2",
                                 "-o", o], "hdf5"),
    ("mlgo log rewrite", lambda o: ["mlgo", "log", "rewrite", F("s.log"), "-o", o], "bytes"),
    ("mlgo log export", lambda o: ["mlgo", "log", "export", F("s.log"), "-o", o], "hdf5"),
]


def same_output(kind, got_path, ref_path):
    """None when the output at got_path equals the reference run's."""
    if kind == "hdf5":
        try:
            return h5compare.same_files(got_path, ref_path)
        except OSError as e:
            return f"not an HDF5 file: {e}"
    got, ref = open(got_path, "rb").read(), open(ref_path, "rb").read()
    if kind == "json":  # the manifest records where the report went and when
        import json
        g, r = json.loads(got), json.loads(ref)
        for d in (g, r):
            d.pop("manifest", None)
        return None if g == r else "JSON differs"
    return None if got == ref else f"{len(got)} bytes vs {len(ref)}"


def stray(d, *allowed):
    """Entries of a case directory besides the reference output and the allowed ones."""
    return [n for n in listing(d) if n not in allowed and not n.startswith("ref.")]


def drain_pty(master, sink):
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:
            return
        if not chunk:
            return
        sink.append(chunk)


can_mknod = True
try:
    os.mknod(W("probe-dev"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
except PermissionError:
    can_mknod = False  # not root: the pty below is the character device
check("the test runs as root (mknod of a character device), as on CI", can_mknod)

# Every other writer in each part; part 2 then does everything below DIR_WRITERS.
for name, args, kind in WRITERS[a.part - 1::2]:
    case = W("case-" + name.replace(" ", "_").replace("-", ""))
    os.makedirs(case)
    ext = {"hdf5": ".h5", "json": ".json"}.get(kind, ".txt")
    ref = os.path.join(case, "ref" + ext)
    t0 = time.monotonic()
    r = run(*args(ref), timeout=600)
    ref_seconds = time.monotonic() - t0
    if not check(f"{name}: the run into a regular file", r.returncode == 0 and os.path.isfile(ref), r.stderr[-500:]):
        continue

    # A character device (mknod c 1 3, the null device, in this test's directory).
    if can_mknod:
        dev = os.path.join(case, "dev")
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        r = run(*args(dev), timeout=600)
        st = os.lstat(dev)
        left = stray(case, "dev")
        check(f"{name} -o CHARACTER-DEVICE: exit 0, still the device, nothing beside it",
              r.returncode == 0 and stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3) and not left,
              (r.returncode, stat.filemode(st.st_mode), left, r.stderr[-300:]))
        os.remove(dev)

    # A terminal: the slave side of a pty, its master drained by a thread.
    master, slave = pty.openpty()
    tty_path = os.ttyname(slave)
    got = []
    t = threading.Thread(target=drain_pty, args=(master, got), daemon=True)
    t.start()
    r = run(*args(tty_path), timeout=600)
    st = os.lstat(tty_path)
    check(f"{name} -o TERMINAL: exit 0, still the terminal, something written to it",
          r.returncode == 0 and stat.S_ISCHR(st.st_mode), (r.returncode, r.stderr[-300:]))
    os.close(slave)
    t.join(timeout=5)
    os.close(master)

    # A FIFO with a reader: what comes through is what a regular file gets.
    fifo = os.path.join(case, "fifo")
    os.mkfifo(fifo)
    cap = os.path.join(case, "captured" + ext)
    reader = subprocess.Popen(["cat", fifo], stdout=open(cap, "wb"))
    r = run(*args(fifo), timeout=600)
    try:
        reader.wait(timeout=20)
        ended = True
    except subprocess.TimeoutExpired:
        reader.kill()
        reader.wait()
        ended = False
    is_fifo = stat.S_ISFIFO(os.lstat(fifo).st_mode)
    diff = same_output(kind, cap, ref) if ended and os.path.getsize(cap) else "nothing came through"
    check(f"{name} -o FIFO: exit 0, still a FIFO, its reader got the regular file's content",
          r.returncode == 0 and is_fifo and ended and diff is None,
          (r.returncode, is_fifo, ended, diff, r.stderr[-300:]))
    os.remove(fifo)
    os.remove(cap)

    # A FIFO nobody reads: the run waits for a reader as a shell's redirection does, and a
    # SIGTERM (sent when its work is done and it waits) ends the wait at once, the FIFO kept.
    # The signals are blocked in every thread, so a blocking open() outlasted every signal.
    fifo = os.path.join(case, "fifo")
    os.mkfifo(fifo)
    p = subprocess.Popen([a.ir2vec, *args(fifo)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(2 * ref_seconds + 1)
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=15)
        ended = True
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        ended = False
    check(f"{name} -o FIFO without a reader: SIGTERM ends the run (exit 130 or by the signal), the FIFO kept",
          ended and p.returncode in (130, -signal.SIGTERM) and stat.S_ISFIFO(os.lstat(fifo).st_mode)
          and not stray(case, "fifo"), (ended, p.returncode, err[-300:], stray(case, "fifo")))
    os.remove(fifo)

    # A symlink to a file in another directory: the target is replaced, the link stays.
    elsewhere = os.path.join(case, "elsewhere")
    os.mkdir(elsewhere)
    target = os.path.join(elsewhere, "target" + ext)
    open(target, "w").write("old content\n")
    link = os.path.join(case, "link" + ext)
    os.symlink(os.path.relpath(target, case), link)
    r = run(*args(link), timeout=600)
    ok = r.returncode == 0 and os.path.islink(link) and os.readlink(link) == os.path.relpath(target, case)
    diff = same_output(kind, target, ref) if ok else "-"
    left = stray(case, "link" + ext, "elsewhere") + stray(elsewhere, "target" + ext)
    check(f"{name} -o SYMLINK: exit 0, the link kept, its target replaced with the output, nothing else left",
          ok and diff is None and not left, (r.returncode, os.path.islink(link), diff, left, r.stderr[-300:]))
    # A dangling symlink: its target is created.
    os.remove(target)
    r = run(*args(link), timeout=600)
    check(f"{name} -o DANGLING-SYMLINK: the target is created, the link kept",
          r.returncode == 0 and os.path.islink(link) and os.path.isfile(target)
          and same_output(kind, target, ref) is None, (r.returncode, r.stderr[-300:]))
    shutil.rmtree(case)

# Directory outputs: a device or FIFO given as the directory is refused and left as it is.
DIR_WRITERS = [
    ("triplets --format openke", lambda o: ["triplets", "--format", "openke", "-o", o, module]),
    ("vocab split", lambda o: ["vocab", "split", F("kg"), "-o", o]),
    ("corpus extract", lambda o: ["corpus", "extract", "-q", "-o", o, W("plain.o")]),
]
for name, args in DIR_WRITERS:
    fifo = W("dir-fifo")
    os.mkfifo(fifo)
    r = run(*args(fifo), timeout=60)
    check(f"{name} -o FIFO: refused (exit 1), the FIFO left as it is",
          r.returncode == 1 and stat.S_ISFIFO(os.lstat(fifo).st_mode) and b"ir2vec" in r.stderr, r.stderr)
    os.remove(fifo)

if a.part == 1:
    T.finish()

# ---- an output that is an input -----------------------------------------------------------------
# Each case in a fresh directory of copies: a failure must not spoil the next case's files.
def same_dir(i):
    d = W(f"same-{i}")
    os.mkdir(d)
    shutil.copy(module, os.path.join(d, "calls.ll"))
    os.symlink("calls.ll", os.path.join(d, "calls-link.ll"))
    os.link(os.path.join(d, "calls.ll"), os.path.join(d, "calls-hard.ll"))
    for f in ("counts.h5", "s.log", "ex.h5", "model.h5"):
        shutil.copy(F(f), os.path.join(d, f))
    run("vocab", "export", "-o", os.path.join(d, "v.json"), check=True)
    os.makedirs(os.path.join(d, "dir"))
    shutil.copy(module, os.path.join(d, "dir", "in.ll"))
    open(os.path.join(d, "in.list"), "w").write(os.path.join(d, "calls.ll") + "\n")
    return lambda n: os.path.join(d, n)


SAME = [
    ("embeddings -o IN IN", lambda S: ["embeddings", "-o", S("calls.ll"), S("calls.ll")], "calls.ll"),
    ("embeddings -o LINK IN", lambda S: ["embeddings", "-o", S("calls-link.ll"), S("calls.ll")], "calls.ll"),
    ("embeddings -o HARDLINK IN", lambda S: ["embeddings", "-o", S("calls-hard.ll"), S("calls.ll")], "calls.ll"),
    ("embeddings hdf5 -o IN (in a directory input)",
     lambda S: ["embeddings", "--format", "hdf5", "-o", S("dir/in.ll"), S("dir")], "dir/in.ll"),
    ("embeddings -o VOCAB", lambda S: ["embeddings", "--vocab", S("v.json"), "-o", S("v.json"), S("calls.ll")], "v.json"),
    ("embeddings -o LIST @LIST", lambda S: ["embeddings", "-o", S("in.list"), "@" + S("in.list")], "in.list"),
    ("mlgo explore --all -o LIST @LIST", lambda S: ["mlgo", "explore", "--all", "-o", S("in.list"), "@" + S("in.list")], "in.list"),
    ("mlgo eval -o LIST @LIST", lambda S: ["mlgo", "eval", "-o", S("in.list"), "@" + S("in.list")], "in.list"),
    ("mlgo collect -o LIST @LIST", lambda S: ["mlgo", "collect", "-o", S("in.list"), "@" + S("in.list")], "in.list"),
    ("triplets -o LIST @LIST", lambda S: ["triplets", "-o", S("in.list"), "@" + S("in.list")], "in.list"),
    ("triplets -o IN IN", lambda S: ["triplets", "-o", S("calls.ll"), S("calls.ll")], "calls.ll"),
    ("from-counts -o IN IN", lambda S: ["from-counts", "-o", S("counts.h5"), S("counts.h5")], "counts.h5"),
    ("vocab export --vocab V -o V", lambda S: ["vocab", "export", "--vocab", S("v.json"), "-o", S("v.json")], "v.json"),
    ("mlgo log rewrite L -o L", lambda S: ["mlgo", "log", "rewrite", S("s.log"), "-o", S("s.log")], "s.log"),
    ("mlgo log export L -o L", lambda S: ["mlgo", "log", "export", S("s.log"), "-o", S("s.log")], "s.log"),
    ("mlgo train X -o X", lambda S: ["mlgo", "train", S("ex.h5"), "-o", S("ex.h5")], "ex.h5"),
    ("mlgo finetune X --model M -o M",
     lambda S: ["mlgo", "finetune", S("ex.h5"), "--model", S("model.h5"), "-o", S("model.h5")], "model.h5"),
    ("mlgo collect -o IN IN", lambda S: ["mlgo", "collect", "-o", S("calls.ll"), S("calls.ll")], "calls.ll"),
    ("mlgo run --log INPUT", lambda S: ["mlgo", "run", "--log", S("calls.ll"), "--", B("opt"), "-passes=default<Oz>",
                                        S("calls.ll"), "-o", S("out.bc")], "calls.ll"),
    ("mlgo run --log X --transcript X", lambda S: ["mlgo", "run", "--log", S("t.log"), "--transcript", S("t.log"),
                                                   "--", *opt_cmd], None),
    ("vocab train -o X --hdf5 X", lambda S: ["vocab", "train", F("kg"), "--dim", "2", "--epochs", "1",
                                             "-o", S("o.h5"), "--hdf5", S("o.h5")], None),
]
for i, (name, args, victim) in enumerate(SAME):
    S = same_dir(i)
    before = sha(S(victim)) if victim else None
    r = run(*args(S), timeout=120)
    check(f"{name}: refused before any work (exit 1, 'is also an input' or 'twice'), the file intact",
          r.returncode in (1, 64) and (b"is also an input" in r.stderr or b"twice" in r.stderr)
          and (victim is None or sha(S(victim)) == before), (r.returncode, r.stderr[-300:]))
d = W("split-same")
run("triplets", "--format", "openke", "-q", "-o", d, module, check=True)
before = sha(os.path.join(d, "train2id.txt"))
r = run("vocab", "split", d, "-o", d + "/")
check("vocab split DIR -o DIR/: refused, the knowledge graph intact",
      r.returncode == 1 and b"is the input directory" in r.stderr and sha(os.path.join(d, "train2id.txt")) == before,
      (r.returncode, r.stderr[-300:]))

# ---- two runs writing the same resumable output at once -----------------------------------------
many = W("many.list")
open(many, "w").write("".join(m + "\n" for m in modules * 150))
ref_many = W("many-ref.h5")
run("embeddings", "--format", "hdf5", "--level", "inst", "-q", "-j", "1", "-o", ref_many, "@" + many, check=True)
for attempt in range(3):
    out = W(f"twice-{attempt}.h5")
    first = subprocess.Popen([tool, "embeddings", "--format", "hdf5", "--level", "inst", "-q", "-j", "1", "-o", out,
                              "@" + many], stderr=subprocess.PIPE)
    deadline = time.time() + 20
    while time.time() < deadline and not any(n.startswith(os.path.basename(out)) for n in os.listdir(tmp)):
        time.sleep(0.01)
    second = run("embeddings", "--format", "hdf5", "--level", "inst", "-q", "-j", "1", "-o", out, "@" + many)
    _, err1 = first.communicate(timeout=300)
    try:
        diff = h5compare.same_files(out, ref_many) if first.returncode == 0 and os.path.exists(out) else "no file"
    except OSError as e:  # a corrupt file published
        diff = f"h5py cannot read it: {e}"
    check(f"two HDF5 runs on one -o at once ({attempt + 1}/3): the second refused naming the other run, the "
          "first publishes the whole file",
          second.returncode == 1 and b"another run" in second.stderr and first.returncode == 0 and diff is None,
          (second.returncode, second.stderr[-300:], first.returncode, err1[-300:], diff))
    check(f"  ... and nothing is left beside it ({attempt + 1}/3)",
          [n for n in os.listdir(tmp) if n.startswith(f"twice-{attempt}.h5")] == [f"twice-{attempt}.h5"],
          os.listdir(tmp))
# mlgo collect: the same rule for its parts directory.
out = W("collect-twice.h5")
first = subprocess.Popen([tool, "mlgo", "collect", "-q", "-j", "1", "-o", out, *modules], stderr=subprocess.PIPE)
deadline = time.time() + 20
while time.time() < deadline and not os.path.exists(out + ".parts"):
    time.sleep(0.01)
second = run("mlgo", "collect", "-q", "-j", "1", "-o", out, *modules)
first.wait(timeout=300)
check("two mlgo collect runs on one -o at once: the second refused, the first completes",
      second.returncode == 1 and b"another run" in second.stderr and first.returncode == 0 and os.path.exists(out),
      (second.returncode, second.stderr[-300:], first.returncode))

# ---- SIGINT/SIGTERM while --resume copies the checkpointed rows --------------------------------
# A run killed after a few checkpoints of a large module list, then resumed and interrupted
# while its copy of the checkpointed rows exists (the copy runs in a child process).
wide = W("wide.ll")
body = "".join(f"  %v{i} = add i32 %v{i - 1}, {i}\n" for i in range(1, 400))
open(wide, "w").write(f"define i32 @w(i32 %x) {{\n  %v0 = add i32 %x, 1\n{body}  ret i32 %v399\n}}\n")
big = W("big.list")
open(big, "w").write((wide + "\n") * 5000)
copies_left = 0
tries = 0
for i in range(8):
    out = W(f"resume-{i}.h5")
    victim = subprocess.Popen([tool, "embeddings", "--format", "hdf5", "--level", "inst", "-q", "-j", "2", "-o", out,
                               "@" + big])
    deadline = time.time() + 60
    while time.time() < deadline and not os.path.exists(out + ".resume") and victim.poll() is None:
        time.sleep(0.005)
    time.sleep(0.3)
    victim.kill()
    victim.wait()
    if not os.path.exists(out + ".resume"):
        continue
    resumed = subprocess.Popen([tool, "embeddings", "--format", "hdf5", "--level", "inst", "-q", "-j", "2", "-o", out,
                                "--resume", "@" + big], stderr=subprocess.PIPE)
    deadline = time.time() + 30
    seen = False
    while time.time() < deadline and resumed.poll() is None:
        if any(".copy" in n or ".partial.tmp-" in n for n in os.listdir(tmp) if n.startswith(f"resume-{i}.h5")):
            seen = True
            break
    if not seen:
        resumed.kill()
        resumed.wait()
        continue
    tries += 1
    resumed.send_signal(signal.SIGINT if i % 2 == 0 else signal.SIGTERM)
    resumed.wait(timeout=60)
    time.sleep(0.2)
    stray = [n for n in os.listdir(tmp) if n.startswith(f"resume-{i}.h5") and (".copy" in n or ".tmp-" in n)]
    copies_left += bool(stray)
print(f"interrupted while --resume copied its checkpoint: {tries} runs, {copies_left} left a copy")
check(f"SIGINT/SIGTERM while --resume copies the checkpoint: no temporary copy left ({copies_left} of {tries})",
      tries >= 3 and copies_left == 0, (tries, copies_left))

# ---- output directories: removed when the run that created them fails; DIR/ works -----------------
kg_full = W("kg-full")
r = subprocess.run([tool, "triplets", "--format", "openke", "-o", kg_full, *modules], capture_output=True,
                   preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64)))
check("triplets --format openke -o NEW-DIR on a full disk (RLIMIT_FSIZE): exit 1, the directory it created is gone",
      r.returncode == 1 and not os.path.exists(kg_full) and b"kg-full" in r.stderr,
      (r.returncode, os.path.exists(kg_full) and listing(kg_full), r.stderr[-300:]))
extract_out = W("extracted")
r = run("corpus", "extract", "-q", "-o", extract_out, obj)
check("corpus extract of an object without bitcode: exit 1, the output directory it created is gone",
      r.returncode == 1 and not os.path.exists(extract_out), (r.returncode, r.stderr[-300:]))
for name, args in (("triplets --format openke", lambda o: ["triplets", "--format", "openke", "-q", "-o", o, module]),
                   ("vocab split", lambda o: ["vocab", "split", F("kg"), "-o", o])):
    d = W("slash-" + name.split()[0])
    r = run(*args(d + "/"))
    check(f"{name} -o DIR/ (a trailing slash, as the docs write it): exit 0, DIR created",
          r.returncode == 0 and os.path.isdir(d) and listing(d), (r.returncode, r.stderr[-300:]))

# ---- a hostile user's second try (issue 22): what the first fixes left open ---------------------
here = os.path.dirname(os.path.abspath(__file__))
olddebug = os.path.join(here, "data", "olddebug.ll")  # its debug-info warning goes to stderr


def closing(*fds):
    return lambda: [os.close(fd) for fd in fds]


# Standard output and error closed: a warning must not land in the first file the tool opens.
want_txt = run("embeddings", olddebug, check=True).stdout
out = W("closed-2.txt")
r = subprocess.run([tool, "embeddings", "-o", out, olddebug], preexec_fn=closing(2))
check("embeddings -o FILE with standard error closed (2>&-): exit 0, the file holds the embeddings only",
      r.returncode == 0 and open(out, "rb").read() == want_txt, (r.returncode, open(out, "rb").read()[:120]))
ref_h5 = W("closed-ref.h5")
run("embeddings", "--format", "hdf5", "-q", "-o", ref_h5, olddebug, check=True)
for what, fds in (("2>&-", (2,)), (">&- 2>&-", (1, 2))):
    out = W(f"closed-{len(fds)}.h5")
    r = subprocess.run([tool, "embeddings", "--format", "hdf5", "-o", out, olddebug], preexec_fn=closing(*fds))
    try:
        diff = h5compare.same_files(out, ref_h5) if r.returncode == 0 else "exit"
    except OSError as e:
        diff = f"h5py cannot read it: {e}"
    check(f"embeddings --format hdf5 with {what}: exit 0, the file equals a run with them open", diff is None,
          (r.returncode, diff))
r = subprocess.run([tool, "embeddings", olddebug], preexec_fn=closing(1), capture_output=False,
                   stderr=subprocess.PIPE)
check("embeddings to a closed standard output (>&-): exit 1 with a write error, as before",
      r.returncode == 1 and b"write error" in r.stderr, (r.returncode, r.stderr[-200:]))

# A symlink left inside an output directory: the entry is replaced, never what it points to.
sd = W("symlink-in-dir")
os.mkdir(sd)
victim = os.path.join(sd, "m.ll")
shutil.copy(module, victim)
before = sha(victim)
kg = os.path.join(sd, "kg")
os.mkdir(kg)
os.symlink("../m.ll", os.path.join(kg, "train2id.txt"))
r = run("triplets", "-q", "--format", "openke", "-o", kg, victim)
check("triplets --format openke -o DIR whose train2id.txt is a symlink to the input: exit 0, the input intact, "
      "the entry now the triplets",
      r.returncode == 0 and sha(victim) == before and not os.path.islink(os.path.join(kg, "train2id.txt"))
      and open(os.path.join(kg, "train2id.txt")).readline().strip().isdigit(), (r.returncode, r.stderr[-300:]))
kg2 = os.path.join(sd, "kg2")
os.mkdir(kg2)
os.symlink("../kg/train2id.txt", os.path.join(kg2, "train2id.txt"))
before_kg = sha(os.path.join(kg, "train2id.txt"))
r = run("vocab", "split", kg, "-o", kg2)
check("vocab split KG -o KG2 whose train2id.txt links to KG's: exit 0, KG intact",
      r.returncode == 0 and sha(os.path.join(kg, "train2id.txt")) == before_kg
      and not os.path.islink(os.path.join(kg2, "train2id.txt")), (r.returncode, r.stderr[-300:]))
src_c = os.path.join(sd, "a.c")
open(src_c, "w").write("int f(int x) { return x * 3; }\n")
objs = []
for n in ("a.o", "b.o"):
    objs.append(os.path.join(sd, n))
    harness.run(["clang-22", "-O1", "-Xclang", "-fembed-bitcode=all", "-c", src_c, "-o", objs[-1]], check=True)
ex = os.path.join(sd, "ex")
os.mkdir(ex)
os.symlink("../a.o", os.path.join(ex, "a.o.bc"))
before = sha(objs[0])
r = run("corpus", "extract", "-q", "--obj-base-dir", sd, "-o", ex, *objs)
check("corpus extract -o DIR whose a.o.bc links to the object a.o: exit 0, the object intact",
      r.returncode == 0 and sha(objs[0]) == before and not os.path.islink(os.path.join(ex, "a.o.bc")),
      (r.returncode, r.stderr[-300:]))
full_ex = os.path.join(sd, "full-ex")
r = subprocess.run([tool, "corpus", "extract", "-q", "--obj-base-dir", sd, "-o", full_ex, *objs], capture_output=True,
                   preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64)))
check("corpus extract on a full disk (RLIMIT_FSIZE): exit 1, the write error named, no word about "
      "-fembed-bitcode (the objects have it), the directory it created gone",
      r.returncode == 1 and b"too large" in r.stderr and b"fembed-bitcode" not in r.stderr
      and not os.path.exists(full_ex), (r.returncode, r.stderr[-400:]))
dq = os.path.join(sd, "d")
os.mkdir(dq)
shutil.copy(objs[0], os.path.join(dq, "q"))
shutil.copy(objs[0], os.path.join(dq, "q.bc"))
before = sha(os.path.join(dq, "q.bc"))
r = run("corpus", "extract", "--obj-base-dir", dq, "-o", dq, os.path.join(dq, "q"), os.path.join(dq, "q.bc"))
check("corpus extract whose module q would be written over the input object q.bc: refused before any work, "
      "the object intact", r.returncode in (1, 64) and b"is also an input" in r.stderr
      and sha(os.path.join(dq, "q.bc")) == before and sorted(os.listdir(dq)) == ["q", "q.bc"],
      (r.returncode, r.stderr[-300:], os.listdir(dq)))

# OUT.partial (the run's own state) a symlink to an input: refused, the input intact, no lock left.
pd = W("partial-link")
os.mkdir(pd)
shutil.copy(module, os.path.join(pd, "m.ll"))
before = sha(os.path.join(pd, "m.ll"))
os.symlink("m.ll", os.path.join(pd, "out.h5.partial"))
r = run("embeddings", "--format", "hdf5", "-o", os.path.join(pd, "out.h5"), os.path.join(pd, "m.ll"))
check("embeddings --format hdf5 -o OUT where OUT.partial is a symlink to the input: exit 1 naming it, the input "
      "intact, no OUT.lock left", r.returncode == 1 and b"out.h5.partial" in r.stderr
      and sha(os.path.join(pd, "m.ll")) == before and sorted(os.listdir(pd)) == ["m.ll", "out.h5.partial"],
      (r.returncode, r.stderr[-300:], os.listdir(pd)))

# mlgo run --log X where X is the compiler's -o, not yet existing (compared by name).
ld = W("log-is-out")
os.mkdir(ld)
for spelling in (["-o", os.path.join(ld, "new.bc")], ["-o=" + os.path.join(ld, "new.bc")]):
    r = run("mlgo", "run", "--log", os.path.join(ld, ".", "new.bc"), "--", B("opt"), "-passes=default<Oz>",
            modules[0], *spelling)
    check(f"mlgo run --log X -- opt ... {spelling[0][:3]} X (X does not exist yet): refused before the compiler "
          "runs, nothing written", r.returncode in (1, 64) and b"is also an input" in r.stderr and os.listdir(ld) == [],
          (r.returncode, r.stderr[-300:], os.listdir(ld)))

# A replaced file keeps its permissions; a read-only one is refused to a user who cannot write it.
md = W("modes")
os.mkdir(md)
os.chmod(tmp, 0o711)
os.chmod(md, 0o777)
priv = os.path.join(md, "private.txt")
open(priv, "w").write("old\n")
os.chmod(priv, 0o600)
r = run("embeddings", "-o", priv, module)
check("embeddings -o FILE (mode 0600): replaced, still 0600",
      r.returncode == 0 and stat.S_IMODE(os.stat(priv).st_mode) == 0o600, (r.returncode, oct(os.stat(priv).st_mode)))
ro = os.path.join(md, "readonly.txt")
open(ro, "w").write("keep me\n")
os.chmod(ro, 0o444)
r = subprocess.run([tool, "embeddings", "-o", ro, module], capture_output=True, user=65534, group=65534)
check("as another user, embeddings -o FILE that is read-only (0444, root's) in a writable directory: exit 1, the "
      "file intact", r.returncode == 1 and open(ro).read() == "keep me\n" and b"Permission denied" in r.stderr,
      (r.returncode, r.stderr[-300:]))
os.chmod(tmp, 0o700)

# --resume after an input changed: the changed module is embedded again, not taken from the
# interrupted run (the output equals a fresh run over the inputs as they are).
rc = W("resume-changed")
os.mkdir(rc)
names = []
for i in range(200):
    names.append(os.path.join(rc, f"w{i:03}.ll"))
    shutil.copy(wide, names[-1])
rlist = os.path.join(rc, "list")
open(rlist, "w").write("".join(n + "\n" for n in names))
out = os.path.join(rc, "out.h5")
victim = subprocess.Popen([tool, "embeddings", "--format", "hdf5", "--level", "inst", "-q", "-j", "1", "-o", out,
                           "@" + rlist])
deadline = time.time() + 60
while time.time() < deadline and not os.path.exists(out + ".resume") and victim.poll() is None:
    time.sleep(0.005)
victim.kill()
victim.wait()
had_checkpoint = os.path.exists(out + ".resume")
time.sleep(0.05)  # a new modification time, whatever the file system's clock granularity
shutil.copy(module, names[0])
r = run("embeddings", "--format", "hdf5", "--level", "inst", "-j", "1", "-o", out, "--resume", "@" + rlist)
fresh = os.path.join(rc, "fresh.h5")
run("embeddings", "--format", "hdf5", "--level", "inst", "-q", "-j", "1", "-o", fresh, "@" + rlist, check=True)
diff = h5compare.same_files(out, fresh) if r.returncode == 0 else "exit"
check("embeddings --resume after the first module was rewritten: starts over (says why), the output equals a "
      "fresh run", had_checkpoint and diff is None and b"starting over" in r.stderr,
      (had_checkpoint, r.returncode, diff, r.stderr[-300:]))

# SIGTERM before the first checkpoint: the partial file resumes nothing and goes.
bad, tried = [], 0
for i in range(5):
    out = os.path.join(rc, f"early-{i}.h5")
    p_ = subprocess.Popen([tool, "embeddings", "--format", "hdf5", "--level", "inst", "-q", "-j", "1", "-o", out,
                           "@" + rlist])
    deadline = time.time() + 30
    while time.time() < deadline and not os.path.exists(out + ".partial") and p_.poll() is None:
        time.sleep(0.001)
    early = not os.path.exists(out + ".resume")
    p_.send_signal(signal.SIGTERM)
    p_.wait(timeout=60)
    if not early or os.path.exists(out + ".resume"):
        continue  # a checkpoint came first: another case
    tried += 1
    left = [n for n in os.listdir(rc) if n.startswith(f"early-{i}.h5")]
    if left:
        bad.append((i, left))
check(f"SIGTERM before the first checkpoint: nothing left beside the output ({tried} runs)", tried >= 3 and not bad,
      (tried, bad))

# What a run killed by SIGKILL left (no handler runs): the next run removes it, unless a live
# run holds it (its flock). The leftovers are aged by a minute, as the sweep asks.
def age(path):
    t = time.time() - 120
    os.utime(path, (t, t), follow_symlinks=False)


sk = W("sigkill")
os.mkdir(sk)
sk_tmp = os.path.join(sk, "tmpdir")
os.mkdir(sk_tmp)
skenv = dict(os.environ, TMPDIR=sk_tmp)
out = os.path.join(sk, "out.txt")
def entries(d, prefix):
    return [n for n in os.listdir(d) if n.startswith(prefix)]


def kill_once_made(args, d, prefix):
    """Starts the tool, SIGKILLs its process group (`kill -9 -PGID`: the run and the workers it
    forked, which hold its locks too) once an entry named prefix... exists in d; those entries.
    A per-module entry (mlgo collect's directory) may be gone again by the time the kill lands,
    between two modules: then the run is tried again (the sanitizer CI run saw it once)."""
    for _ in range(5):
        proc = subprocess.Popen([tool, *args], env=skenv, start_new_session=True)
        deadline = time.time() + 30
        while time.time() < deadline and not entries(d, prefix):
            time.sleep(0.005)
        time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        time.sleep(0.3)  # the forked workers' exit (their descriptors close when they die)
        if entries(d, prefix):
            break
    return entries(d, prefix)


left_tmp = kill_once_made(["embeddings", "--level", "inst", "-j", "1", "-q", "-o", out, "@" + rlist], sk, "out.txt.tmp-")
left_dirs = kill_once_made(["mlgo", "collect", "-q", "-j", "1", "-o", os.path.join(sk, "c.h5"), *modules * 20],
                           sk_tmp, "ir2vec-collect")
for n in left_tmp:
    age(os.path.join(sk, n))
for n in left_dirs:
    age(os.path.join(sk_tmp, n))
r = run("embeddings", "-q", "-o", out, module, env=skenv)
check("after SIGKILL of a text run and of mlgo collect, the next run removes OUT.tmp-* and $TMPDIR/ir2vec-collect-*",
      left_tmp and left_dirs and r.returncode == 0 and not [n for n in os.listdir(sk) if ".tmp-" in n]
      and not [n for n in os.listdir(sk_tmp) if n.startswith("ir2vec-collect")],
      (left_tmp, left_dirs, r.returncode, os.listdir(sk), os.listdir(sk_tmp)))
# A live run's temporary file (aged too) is never taken for a leftover.
live_ref = os.path.join(sk, "live-ref.txt")
run("embeddings", "--level", "inst", "-j", "1", "-q", "-o", live_ref, "@" + rlist, check=True)
live_out = os.path.join(sk, "live.txt")
first = subprocess.Popen([tool, "embeddings", "--level", "inst", "-j", "1", "-q", "-o", live_out, "@" + rlist],
                         env=skenv)
deadline = time.time() + 30
while time.time() < deadline and not [n for n in os.listdir(sk) if n.startswith("live.txt.tmp-")]:
    time.sleep(0.005)
live_tmp = [n for n in os.listdir(sk) if n.startswith("live.txt.tmp-")]
for n in live_tmp:
    age(os.path.join(sk, n))
r = run("embeddings", "-q", "-o", live_out, module, env=skenv)
kept = all(os.path.exists(os.path.join(sk, n)) for n in live_tmp) if first.poll() is None else None
first.wait(timeout=300)
check("a second run on the same text output while the first writes (its temporary file aged): the first's file is "
      "kept, the first ends with the whole output", live_tmp and kept is not False and r.returncode == 0
      and first.returncode == 0 and sha(live_out) == sha(live_ref), (live_tmp, kept, r.returncode, first.returncode))

# A third try's findings. $TMPDIR entries that merely start like the tool's own stay.
user_tmp = os.path.join(sk, "user-tmp")
os.makedirs(os.path.join(user_tmp, "ir2vec-src", "sub"))
open(os.path.join(user_tmp, "ir2vec-src", "main.cpp"), "w").write("code\n")
open(os.path.join(user_tmp, "ir2vec-notes.txt"), "w").write("notes\n")
os.mkdir(os.path.join(user_tmp, "ir2vec-collect-mine"))
for n in os.listdir(user_tmp):
    age(os.path.join(user_tmp, n))
r = run("embeddings", "-q", "-o", os.path.join(sk, "ut.txt"), module, env=dict(os.environ, TMPDIR=user_tmp))
check("a run leaves a user's $TMPDIR/ir2vec-src/, ir2vec-notes.txt and ir2vec-collect-mine/ alone (only names the "
      "tool makes are swept)", r.returncode == 0 and sorted(os.listdir(user_tmp)) ==
      ["ir2vec-collect-mine", "ir2vec-notes.txt", "ir2vec-src"], os.listdir(user_tmp))

# An output named like a live run's state file is refused; the live run publishes its own output.
st_out = os.path.join(sk, "live.h5")
st_ref = os.path.join(sk, "live-ref.h5")
run("embeddings", "--format", "hdf5", "--level", "inst", "-j", "1", "-q", "-o", st_ref, "@" + rlist, check=True)
first = subprocess.Popen([tool, "embeddings", "--format", "hdf5", "--level", "inst", "-j", "1", "-q", "-o", st_out,
                          "@" + rlist])
deadline = time.time() + 30
while time.time() < deadline and not os.path.exists(st_out + ".lock"):
    time.sleep(0.005)
r = run("embeddings", "--counts", "--format", "hdf5", "-q", "-o", st_out + ".partial", module)
first.wait(timeout=300)
check("embeddings -o OUT.partial while another run writes OUT: refused naming that run's output, which is published "
      "whole", r.returncode in (1, 64) and b"is the state of a run writing" in r.stderr and first.returncode == 0
      and h5compare.same_files(st_out, st_ref) is None, (r.returncode, r.stderr[-300:], first.returncode))

# Temporary and state files are no more readable than the output they replace.
priv_txt = os.path.join(sk, "private.txt")
open(priv_txt, "w").write("old\n")
os.chmod(priv_txt, 0o600)
priv_h5 = os.path.join(sk, "private.h5")
shutil.copy(st_ref, priv_h5)
os.chmod(priv_h5, 0o600)
modes = {}
for target, args, pattern in ((priv_txt, ["embeddings", "--level", "inst", "-j", "1", "-q"], "private.txt.tmp-"),
                              (priv_h5, ["embeddings", "--format", "hdf5", "--level", "inst", "-j", "1", "-q"],
                               "private.h5.partial")):
    proc = subprocess.Popen([tool, *args, "-o", target, "@" + rlist])
    deadline = time.time() + 30
    while time.time() < deadline and not entries(sk, pattern) and proc.poll() is None:
        time.sleep(0.002)
    modes[pattern] = [stat.S_IMODE(os.stat(os.path.join(sk, n)).st_mode) for n in entries(sk, pattern)]
    proc.kill()
    proc.wait()
    for n in entries(sk, os.path.basename(target) + "."):
        if os.path.isfile(os.path.join(sk, n)):
            os.remove(os.path.join(sk, n))
check("while replacing a 0600 output, its temporary file (text) and OUT.partial (HDF5) are 0600 too",
      all(m and all(x & 0o077 == 0 for x in m) for m in modes.values()), {k: list(map(oct, v)) for k, v in modes.items()})

# Standard error closed: the host's warnings vanish, its status stays the compiler's.
nocall = os.path.join(sk, "nocall.ll")
open(nocall, "w").write("define i32 @f(i32 %x) {\n  ret i32 %x\n}\n")
r = subprocess.run([tool, "mlgo", "run", "--", B("opt"), "-passes=default<Oz>", nocall, "-o",
                    os.path.join(sk, "nocall.bc")], preexec_fn=closing(2))
check("mlgo run 2>&- with a warning to give (no inlining question): exit 0, the compiler's status",
      r.returncode == 0, r.returncode)

# A refused run leaves OUT.lock as it found it.
os.symlink("elsewhere", os.path.join(sk, "locked.h5.lock"))
r = run("embeddings", "--format", "hdf5", "-o", os.path.join(sk, "locked.h5"), module)
check("OUT.lock a symlink: refused, the link left in place", r.returncode == 1
      and os.path.islink(os.path.join(sk, "locked.h5.lock")), (r.returncode, r.stderr[-200:]))

T.finish()
