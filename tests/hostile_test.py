#!/usr/bin/python3
"""Hostile input and faults (issue 12): each defect the issue lists, as a user or an attacker
meets it, with what the tool must do instead. Every case failed before its fix (the closing
note lists the failures of the build before).

  * files that lie about their shapes: a training-log header whose shape overflows the byte
    count; vocabulary HDF5 files with rank-3 /relations, /entities or /entity_names; a counts
    file whose dimension is not the 110 entities;
  * outputs that cannot be written are refused before the work, and a failed run leaves
    nothing under any requested name (HDF5 embeddings into a directory, vocab train with an
    --hdf5 in a missing directory, eval with an unwritable --hdf5);
  * the host: after a timeout, a Ctrl-C or its own failure the compiler's -o file is gone; a
    compiler that stops reading its advice does not hold the host past --timeout.

Three parts, each its own ctest test (the whole took 260 s under AddressSanitizer on a loaded
machine): 1 inputs, outputs, the host and unbounded resources; 2 nested hosts; 3 signals.

  hostile_test.py --ir2vec BIN --part 1|2|3 [--sanitized]
"""
import argparse, json, os, re, shutil, signal, stat, subprocess, sys, tempfile, time

import h5py
import numpy as np

import harness

p = argparse.ArgumentParser()
p.add_argument("--ir2vec", required=True)
p.add_argument("--part", type=int, choices=(1, 2, 3), required=True, help="see above")
p.add_argument("--sanitized", action="store_true",
               help="BIN is an AddressSanitizer build: memory is capped through ASan's options, "
               "since its shadow memory cannot be reserved under an address-space limit")
a = p.parse_args()
res = harness.Results()
check = res.check
tmp = tempfile.mkdtemp(prefix=f"hostile-{a.part}-")
W = lambda *n: os.path.join(tmp, *n)
here = os.path.dirname(os.path.abspath(__file__))
fake = [sys.executable, os.path.join(here, "fake_compiler.py")]
repo = os.path.dirname(here)
default_vocab = os.path.join(repo, "vocab", "default", "ir2vec-default-75d.h5")

module = W("m.ll")
open(module, "w").write("define i32 @f(i32 %x) {\n  %y = mul i32 %x, %x\n  ret i32 %y\n}\n"
                        "define i32 @g(i32 %a) {\n  %r = call i32 @f(i32 %a)\n  ret i32 %r\n}\n")
module2 = W("m2.ll")
open(module2, "w").write("define i32 @h(i32 %x) {\n  %y = add i32 %x, 7\n  ret i32 %y\n}\n")


def leftovers(prefix):
    d, b = os.path.split(prefix)
    return sorted(n for n in os.listdir(d) if n.startswith(b))


# Sessions' processes (a /proc scan for a marker only they carry) and what they leave.


def marked(marker):
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if marker.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                    found.append(pid)
            except OSError:
                pass
    return found


def kill_marked(marker):
    for pid in marked(marker):
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass


def finish_session(proc, marker, timeout):
    """proc's stderr once it ends; after timeout it and what carries the marker are killed (an
    orphaned compiler would hold the stderr pipe open for ever)."""
    try:
        return proc.communicate(timeout=timeout)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        kill_marked(marker)
        return proc.communicate()[1]


def leftovers_of(marker, tmpdir, also=lambda: False, wait=3):
    """The marked processes and the entries of tmpdir left once the session is over (the kernel
    and a guardian get `wait` seconds); both are then cleared for the next session."""
    deadline = time.time() + wait
    while time.time() < deadline and (marked(marker) or os.listdir(tmpdir) or also()):
        time.sleep(0.05)
    left, dirs = marked(marker), os.listdir(tmpdir)
    kill_marked(marker)
    for d in dirs:
        shutil.rmtree(os.path.join(tmpdir, d), ignore_errors=True)
    return left, dirs


# ---- files that lie about their shapes ------------------------------------------------------
if a.part == 1:
    log = W("overflow.log")
    header = {"features": [{"name": "a", "type": "int64_t", "port": 0, "shape": [4294967296, 4294967296]}]}
    open(log, "wb").write(json.dumps(header).encode() + b'\n{"observation":0}\n\n')
    for args in (["dump", log], ["rewrite", log, "-o", W("copy.log")]):
        r = harness.run([a.ir2vec, "mlgo", "log", *args])
        check(f"mlgo log {args[0]} of a header whose shape overflows: exit 1, the shape named, no output",
              r.returncode == 1 and b"is more than 1024 MiB" in r.stderr and b"overflow.log" in r.stderr
              and not r.stdout and not leftovers(W("copy.log")), r.stderr)


    def vocab_with(name, data):
        path = W(f"vocab-{name}.h5")
        shutil.copy(default_vocab, path)
        with h5py.File(path, "r+") as f:
            del f[name]
            f[name] = data
        return path


    with h5py.File(default_vocab) as f:
        names = f["entity_names"][:]
    for name, data, needle in (("relations", np.zeros((101, 75, 4)), b"/relations has rank 3"),
                               ("entities", np.zeros((110, 75, 4)), b"/entities must be a 2-D dataset"),
                               ("entity_names", np.stack([names] * 3, axis=1).reshape(110, 3, 1), b"rank 3"),
                               ("entities", np.zeros((110, 1 << 17)), b"0 < D <= 65536")):
        path = vocab_with(name, data)
        r = harness.run([a.ir2vec, "embeddings", "--vocab", path, module])
        check(f"a vocabulary whose /{name} has shape {data.shape}: exit 1, named ({needle.decode()})",
              r.returncode == 1 and needle in r.stderr, r.stderr)

    # Found by fuzz_vocabulary: libhdf5 1.10 copies 1 GiB over itself in H5HG_read (SIGSEGV) on this
    # file's forged variable-length string; the read runs behind a process boundary.
    crafted = os.path.join(repo, "fuzz", "findings", "vocabulary-hdf5-global-heap-overlap")
    for cmd in (["embeddings", "--vocab", crafted, module], ["vocab", "export", "--vocab", crafted, "-o", W("x.json")]):
        r = harness.run([a.ir2vec, *cmd], timeout=180)
        check(f"{cmd[0]} with a vocabulary that crashes libhdf5: exit 1, the file named, no crash of the tool",
              # (a signal in a normal build; under AddressSanitizer the child stops itself, exit 1)
              r.returncode == 1 and (b"crashed the HDF5 library" in r.stderr or b"failed in the HDF5 library" in r.stderr)
              and crafted.encode() in r.stderr
              and b"Stack dump" not in r.stderr and not leftovers(W("x.json")), r.stderr[-600:])

    # Every HDF5 input the fuzz campaign kept (fuzz/findings; docs/robustness.md): each crashed or
    # overflowed inside libhdf5 in the isolated reader's child. The tool: exit 1, the file named, no
    # crash, nothing written.
    replays = {"vocabulary-": lambda f: ["vocab", "export", "--vocab", f, "-o", W("replay.json")],
               "model-": lambda f: ["mlgo", "predict", "--model", f, W("no-such.log")],
               "embeddings-": lambda f: ["from-counts", "-o", W("replay.h5"), f]}
    findings = sorted(os.listdir(os.path.join(repo, "fuzz", "findings")))
    for prefix, cmd in replays.items():
        for name in (n for n in findings if n.startswith(prefix)):
            f = os.path.join(repo, "fuzz", "findings", name)
            r = harness.run([a.ir2vec, *cmd(f)], timeout=900)
            check(f"fuzz finding {name}: exit 1, the file named, no crash, no output",
                  r.returncode == 1 and f.encode() in r.stderr and b"Stack dump" not in r.stderr
                  and not leftovers(W("replay")), (r.returncode, r.stderr[-500:]))

# ---- LLVM's own crashes: recorded per module, the run goes on ------------------------------
# Found by fuzz_ir: LLVM 22's bitcode reader dies with SIGSEGV in MetadataLoader::parseMetadata
# on this module (opt-22 is the oracle: it dies too). Corpus runs recover (CrashRecoveryContext)
# and record the module as failed with the signal.
if a.part == 1:
    llvm_crash = os.path.join(repo, "fuzz", "findings", "llvm22-bitcode-metadata-loader-segv.bc")
    r = harness.run(["opt-22", "-passes=verify", "-disable-output", llvm_crash])
    check("opt-22 itself crashes on the fuzz-found module (the oracle)", r.returncode < 0, r.returncode)
    for jobs in ("1", "2"):
        out, ref_out = W(f"crash-{jobs}.h5"), W(f"nocrash-{jobs}.h5")
        r = harness.run([a.ir2vec, "embeddings", "--format", "hdf5", "--level", "inst", "-j", jobs, "-o", out,
                         module, llvm_crash, module2, llvm_crash])
        ok = (r.returncode == 2 and b"signal 11" in r.stderr and llvm_crash.encode() in r.stderr
              and b"Stack dump" not in r.stderr and os.path.exists(out))
        if check(f"HDF5 embeddings -j{jobs} over a module that crashes LLVM: exit 2, the module and signal named",
                 ok, (r.returncode, r.stderr[-600:])):
            harness.run([a.ir2vec, "embeddings", "--format", "hdf5", "--level", "inst", "-o", ref_out,
                         module, module2], check=True)
            with h5py.File(out) as f, h5py.File(ref_out) as g:
                errors = [e.decode() for e in f["modules/error"][()]]
                check(f"-j{jobs}: modules/error records the signal for both crashing rows and nothing else",
                      errors[0] == "" and errors[2] == "" and all("signal 11" in errors[i] for i in (1, 3)), errors)
                check(f"-j{jobs}: the good modules' rows equal a run without the crashing module",
                      all(np.array_equal(f[t][()], g[t][()]) for t in
                          ("functions/embedding", "blocks/embedding", "instructions/embedding")), "")
    r = harness.run([a.ir2vec, "embeddings", module, llvm_crash, module2])
    check("text embeddings over a module that crashes LLVM: exit 2, both good modules printed",
          r.returncode == 2 and r.stdout.count(b"Module: ") == 2 and b"signal 11" in r.stderr, (r.returncode, r.stderr[-400:]))
    for fmt in ("text", "openke"):
        out = W(f"triplets-{fmt}")
        r = harness.run([a.ir2vec, "triplets", "--format", fmt, "-o", out, module, llvm_crash, module2])
        check(f"triplets ({fmt}) over a module that crashes LLVM: exit 2, the module and signal named",
              r.returncode == 2 and b"signal 11" in r.stderr and os.path.exists(out), (r.returncode, r.stderr[-400:]))

    # Found by fuzz_ir: bitcode on which LLVM 22's parseIR spins for ever in some heap states (not
    # in all: bench/parse_only spins with its output on a terminal and fails at once into a pipe;
    # the time limit itself is tested in batch_files). Whatever LLVM does with it, the run ends with
    # the module recorded as failed, the others embedded.
    hang = os.path.join(repo, "fuzz", "findings", "llvm22-bitcode-reader-hang.bc")
    for jobs in ("1", "2"):
        t0 = time.time()
        r = harness.run([a.ir2vec, "embeddings", "--module-time-limit", "3", "-j", jobs, module, hang, module2],
                        timeout=300)
        check(f"embeddings -j{jobs} --module-time-limit 3 over it: exit 2 within seconds, the module failed by "
              "name, both good modules printed",
              r.returncode == 2 and b"llvm22-bitcode-reader-hang.bc: " in r.stderr
              and r.stdout.count(b"Module: ") == 2 and time.time() - t0 < 60, (r.returncode, r.stderr[-400:]))
    r = harness.run([a.ir2vec, "triplets", "--format", "openke", "--module-time-limit", "3", "-o", W("hang-openke"),
                     module, hang, module2], timeout=300)
    check("triplets --format openke over it: exit 2, the module failed by name, the directory written",
          r.returncode == 2 and b"llvm22-bitcode-reader-hang.bc: " in r.stderr and os.path.isdir(W("hang-openke")),
          (r.returncode, r.stderr[-400:]))

    # Found by fuzz_ir: lexical blocks that are each other's scope. LLVM 22's verifier loops for
    # ever on them (opt-22 hangs); the reader refuses the module first and the run goes on.
    cyclic = os.path.join(repo, "fuzz", "findings", "llvm22-verifier-cyclic-scope.ll")
    try:
        r = subprocess.run(["opt-22", "-passes=verify", "-disable-output", cyclic], capture_output=True, timeout=10)
        opt_hangs = False
    except subprocess.TimeoutExpired:
        opt_hangs = True
    check("opt-22 loops for ever on the cyclic scope chain (the oracle: still running after 10 s)", opt_hangs)
    r = harness.run([a.ir2vec, "embeddings", module, cyclic, module2], timeout=120)
    check("embeddings over a module with a cyclic scope chain: exit 2, the module refused by name, the others printed",
          r.returncode == 2 and b"llvm22-verifier-cyclic-scope.ll: invalid module: a debug location's chain of "
          b"lexical-block scopes is cyclic" in r.stderr and r.stdout.count(b"Module: ") == 2, (r.returncode, r.stderr[-400:]))
    # The fuzz input itself has debug info of an outdated version: LLVM drops it unverified (so
    # opt-22 does not loop), and so does the reader, in LLVM's order: the same output as llvm-ir2vec.
    outdated = os.path.join(repo, "fuzz", "findings", "llvm22-outdated-debug-cyclic-scope.ll")
    json_vocab = os.path.join(repo, "vocab", "default", "ir2vec-default-75d.json")
    ours = harness.run([a.ir2vec, "embeddings", "--vocab", json_vocab, "--level", "bb", outdated], timeout=120)
    theirs = harness.run(["llvm-ir2vec-22", "embeddings", "--ir2vec-vocab-path=" + json_vocab, "--level=bb", outdated],
                         timeout=120)
    check("outdated debug info with cyclic scopes: dropped unverified as LLVM does, byte-identical to llvm-ir2vec-22",
          ours.returncode == 0 and theirs.returncode == 0 and ours.stdout == theirs.stdout and b"version 2" in ours.stderr,
          (ours.returncode, theirs.returncode, ours.stderr[-300:]))

# ---- issue 22: inputs that overflow LLVM's stack, nest without bound, never end or loop ----------
# A global initialised with a constant expression 8,000 levels deep: LLVM's parser recurses once
# per level and overflows a thread's stack (opt-22 dies by SIGSEGV: the oracle). The module is
# recorded as failed, the others are written, nothing is left beside the output.
if a.part == 1:
    deep = W("deep-constexpr.ll")
    expr = "ptr @g"
    for _ in range(8000):
        expr = f"ptr getelementptr (i8, {expr}, i64 1)"
    open(deep, "w").write(f"@g = global i8 0\n@p = global {expr}\n"
                          "define ptr @f() {\n  %x = load ptr, ptr @p\n  ret ptr %x\n}\n")
    r = harness.run(["opt-22", "-passes=verify", "-disable-output", deep])
    check("opt-22 itself dies on the 8,000-deep constant expression (the oracle)", r.returncode < 0, r.returncode)
    for jobs in ("1", "2"):
        out, ref_out = W(f"deep-{jobs}.h5"), W(f"nodeep-{jobs}.h5")
        r = harness.run([a.ir2vec, "embeddings", "--format", "hdf5", "--level", "inst", "-j", jobs, "-o", out,
                         module, deep, module2], timeout=300)
        ok = (r.returncode == 2 and b"deep-constexpr.ll: LLVM ran out of stack on it" in r.stderr
              and b"Stack dump" not in r.stderr and os.path.exists(out) and leftovers(out) == [os.path.basename(out)])
        if check(f"HDF5 embeddings -j{jobs} over a module nested too deep for LLVM's stack: exit 2, the module "
                 "named, the others written, nothing beside the output", ok, (r.returncode, r.stderr[-600:], leftovers(out))):
            harness.run([a.ir2vec, "embeddings", "--format", "hdf5", "--level", "inst", "-o", ref_out, module, module2],
                        check=True)
            with h5py.File(out) as f, h5py.File(ref_out) as g:
                check(f"-j{jobs}: the good modules' rows equal a run without the deep module",
                      all(np.array_equal(f[t][()], g[t][()]) for t in
                          ("functions/embedding", "blocks/embedding", "instructions/embedding")), "")
    r = harness.run([a.ir2vec, "embeddings", "-o", W("deep.txt"), module, deep, module2], timeout=300)
    check("text embeddings over it: exit 2, both good modules written",
          r.returncode == 2 and open(W("deep.txt"), "rb").read().count(b"Module: ") == 2, (r.returncode, r.stderr[-400:]))
    r = harness.run([a.ir2vec, "triplets", "--format", "openke", "-o", W("deep-kg"), module, deep, module2], timeout=300)
    check("triplets --format openke over it: exit 2, the graph written",
          r.returncode == 2 and os.path.isfile(W("deep-kg", "train2id.txt")), (r.returncode, r.stderr[-400:]))

    # JSON nested 50,000 levels deep: LLVM's JSON parser recurses per level (it crashed, or hung in
    # the crash handler). Every JSON reader bounds the nesting first and names the file.
    nested = "[" * 50000 + "]" * 50000
    for what, text, cmd in (
            ("a vocabulary", '{"Opcodes": ' + nested + "}", lambda f: ["embeddings", "--vocab", f, module]),
            ("a corpus description", '{"modules": ' + nested + "}", lambda f: ["embeddings", f]),
            ("a training log header", '{"features": ' + nested + "}\n", lambda f: ["mlgo", "log", "dump", f]),
            ("an ablation spec", '{"corpus": ' + nested + "}", lambda f: ["mlgo", "ablate", f, "-o", W("abl-deep")])):
        f = W("nested-" + what.split()[-1] + ".json")
        open(f, "w").write(text)
        try:
            r = harness.run([a.ir2vec, *cmd(f)], timeout=60)
            status, err = r.returncode, r.stderr
        except subprocess.TimeoutExpired:
            status, err = "timeout", b""
        check(f"{what} nested 50,000 deep: exit 1 at once, the file and the nesting named",
              status == 1 and b"nested more than 256 levels deep" in err and f.encode() in err
              and b"Stack dump" not in err, (status, err[-300:]))

    # /dev/zero never ends: as an input it is read up to a bound and refused; in a directory walk a
    # link to it is skipped with a warning. (Before: memory grew until the machine ran out.)
    try:
        r = harness.run([a.ir2vec, "embeddings", module, "/dev/zero", module2], timeout=120)
        status, err, out = r.returncode, r.stderr, r.stdout
    except subprocess.TimeoutExpired:
        status, err, out = "timeout", b"", b""
    check("/dev/zero as an input: refused after the bound (exit 2), the other modules printed",
          status == 2 and b"/dev/zero: cannot read input: it is not a regular file" in err
          and out.count(b"Module: ") == 2, (status, err[-300:]))
    walk = W("walk")
    os.makedirs(W("walk", "sub", "deeper"))
    shutil.copy(module, W("walk", "a.ll"))
    shutil.copy(module2, W("walk", "sub", "b.ll"))
    shutil.copy(module, W("walk", "sub", "deeper", "c.ll"))
    os.symlink("../..", W("walk", "sub", "deeper", "loop"))  # back to walk/
    os.symlink("/dev/zero", W("walk", "zero.bc"))
    os.symlink("a.ll", W("walk", "alias.ll"))
    try:
        r = harness.run([a.ir2vec, "embeddings", walk], timeout=120)
        status, err, out = r.returncode, r.stderr, r.stdout
    except subprocess.TimeoutExpired:
        status, err, out = "timeout", b"", b""
    check("a directory with a symlink loop, a link to /dev/zero and a second link to a file: each real module "
          "embedded once (3), exit 0",
          status == 0 and out.count(b"Module: ") == 3, (status, out.count(b"Module: "), err[-400:]))
    check("  ... the loop reported once, /dev/zero's link reported and skipped",
          err.count(b"loop: leads to a directory already walked") == 1 and b"zero.bc: not a regular file" in err,
          err[-600:])

    counts = W("c.h5")
    r = harness.run([a.ir2vec, "embeddings", "--counts", "--format", "hdf5", "-o", counts, module])
    if check("counts file written", r.returncode == 0, r.stderr):
        with h5py.File(counts, "r+") as f:
            f.attrs["dimension"] = np.int64(75)
            c = f["functions/counts"][:]
            del f["functions/counts"]
            f["functions/counts"] = c[:, :75]
        r = harness.run([a.ir2vec, "from-counts", "-o", W("fc.h5"), counts])
        check("from-counts of a counts file of dimension 75: exit 1, 'expected 110', no output",
              r.returncode == 1 and b"expected 110" in r.stderr and not leftovers(W("fc.h5")), r.stderr)

# ---- outputs: checked before the work, all or nothing -----------------------------------------
if a.part == 1:
    os.mkdir(W("outdir"))
    for args in (["embeddings", "--format", "hdf5"], ["embeddings", "--counts", "--format", "hdf5"]):
        r = harness.run([a.ir2vec, *args, "-o", W("outdir"), module])
        check(f"{' '.join(args)} -o DIRECTORY: exit 1 before any work ('is a directory'), no .partial",
              r.returncode == 1 and b"it is a directory" in r.stderr and leftovers(W("outdir")) == ["outdir"], r.stderr)
    kg = W("kg")
    r = harness.run([a.ir2vec, "triplets", "--format", "openke", "-o", kg, module])
    if check("triplets for a tiny knowledge graph", r.returncode == 0, r.stderr):
        r = harness.run([a.ir2vec, "vocab", "train", kg, "--dim", "4", "--epochs", "3", "-o", W("v.json"),
                         "--hdf5", W("missing", "v.h5")])
        check("vocab train -o v.json --hdf5 missing/v.h5: exit 1 before training, v.json not written",
              r.returncode == 1 and b"missing" in r.stderr and b"epochs" not in r.stderr and not leftovers(W("v.json")),
              r.stderr)
        os.chmod(W("outdir"), 0o500)
        r = harness.run([a.ir2vec, "vocab", "train", kg, "--dim", "4", "--epochs", "3", "-o", W("v2.json"),
                         "--hdf5", W("outdir", "v.h5")])
        os.chmod(W("outdir"), 0o700)
        # (as root the directory stays writable: then both files appear, which is also all or nothing)
        both = os.path.exists(W("v2.json")) and os.path.exists(W("outdir", "v.h5"))
        check("vocab train with an unwritable --hdf5 directory: both outputs or neither",
              (r.returncode == 1 and not leftovers(W("v2.json"))) or (r.returncode == 0 and both), r.stderr)

# ---- the host -----------------------------------------------------------------------------------
if a.part == 1:
    for mode, extra, sig, status in (("hang", ["--timeout", "1"], None, 124),
                                     ("hang", [], signal.SIGINT, 130),
                                     ("bad-feature", [], None, 125)):
        out = W(f"compiler-{mode}-{status}.o")
        proc = subprocess.Popen([a.ir2vec, "mlgo", "run", *extra, "--", *fake, mode, "3", "-o", out],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if sig:
            deadline = time.time() + 20
            while time.time() < deadline and not os.path.exists(out):
                time.sleep(0.05)
            time.sleep(0.3)
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        check(f"mlgo run, compiler '{mode}' {' '.join(extra)}{' + ' + sig.name if sig else ''}: exit {status}, "
              "the compiler's -o file removed", proc.returncode == status and not os.path.exists(out), (proc.returncode, err))

    start = time.time()
    out = W("no-read.o")
    r = harness.run([a.ir2vec, "mlgo", "run", "--timeout", "3", "--", *fake, "no-read", "20000", "-o", out], timeout=120)
    took = time.time() - start
    check(f"a compiler that stops reading its advice: the host stops at --timeout 3 (exit 124 after {took:.1f} s)",
          r.returncode == 124 and took < 30 and not os.path.exists(out), (r.returncode, r.stderr[-300:]))

# ---- nested hosts: timed out and interrupted at both levels ----------------------------------
# An outer `mlgo run` whose compiler is an inner `mlgo run` (in its own process group) whose
# compiler (in a third group) hangs. Whatever level times out or is interrupted, afterwards no
# process of the session remains (a /proc scan for a marker only its processes carry) and the
# hosts' private directories are gone (TMPDIR is this test's).
if a.part == 2:
    nest_tmp = W("nested-tmp")
    os.mkdir(nest_tmp)
    env = dict(os.environ, TMPDIR=nest_tmp)


    SESSIONS = 100
    bad = []
    start = time.time()
    for i in range(SESSIONS):
        marker = f"-hostile-marker-{os.getpid()}-{i}"
        case = i % 4   # 0: outer timeout, 1: inner timeout, 2: SIGINT to the outer, 3: SIGTERM to the outer
        outer = [a.ir2vec, "mlgo", "run"] + (["--timeout", "1"] if case == 0 else []) + ["--"]
        inner = [a.ir2vec, "mlgo", "run"] + (["--timeout", "1"] if case == 1 else []) + ["--"]
        proc = subprocess.Popen(outer + inner + fake + ["hang", "3", marker], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if case >= 2:
            time.sleep(0.6)
            proc.send_signal(signal.SIGINT if case == 2 else signal.SIGTERM)
        err = finish_session(proc, marker, 30)
        want = {0: 124, 1: 124, 2: 130, 3: 130}[case]
        left, dirs = leftovers_of(marker, nest_tmp)
        if proc.returncode != want or left or dirs:
            bad.append((i, case, proc.returncode, left, dirs, err[-200:]))
    check(f"{SESSIONS} nested-host sessions timed out or interrupted at both levels: the expected status, no process, "
          f"FIFO or temporary directory left ({time.time() - start:.0f} s)", not bad, bad[:5])

# ---- issue 22: signals inherited as ignored, a host killed by SIGKILL, nested hosts -------------
if a.part == 3:
    def ignoring(*sigs):
        return lambda: [signal.signal(x, signal.SIG_IGN) for x in sigs]


    many = W("many.list")
    open(many, "w").write("".join(m + "\n" for m in [module, module2] * 20000))
    ref = harness.run([a.ir2vec, "embeddings", "-j", "1", "-q", "@" + many], check=True).stdout
    for sig in (signal.SIGHUP, signal.SIGINT):
        out = W(f"ignored-{sig.name}.txt")
        proc = subprocess.Popen([a.ir2vec, "embeddings", "-j", "1", "-q", "-o", out, "@" + many],
                                stderr=subprocess.PIPE, preexec_fn=ignoring(sig))
        deadline = time.time() + 30  # the run is under way once its temporary output exists
        while time.time() < deadline and not leftovers(out + ".tmp-") and proc.poll() is None:
            time.sleep(0.005)
        sent = proc.poll() is None
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=300)
        check(f"embeddings started with {sig.name} ignored (nohup, a background job): {sig.name} changes nothing, "
              "exit 0, the whole output", sent and proc.returncode == 0 and open(out, "rb").read() == ref,
              (sent, proc.returncode, err[-300:]))
    proc = subprocess.Popen([a.ir2vec, "mlgo", "run", "--", *fake, "slow", "3", "-o", W("slow.o")],
                            stderr=subprocess.PIPE, preexec_fn=ignoring(signal.SIGHUP))
    time.sleep(0.4)
    proc.send_signal(signal.SIGHUP)
    _, err = proc.communicate(timeout=60)
    check("mlgo run under nohup: SIGHUP ignored, the session completes (exit 0), and the compiler inherits the "
          "ignored SIGHUP", proc.returncode == 0 and b"sighup-ignored" in err, (proc.returncode, err[-300:]))

    # SIGKILL of the host mid-session: its guardian kills the compiler and removes the FIFOs, the
    # private directory and the compiler's -o; the compiler, bound to the host's death, dies anyway.
    kill_tmp = W("killed-host-tmp")
    os.mkdir(kill_tmp)
    kenv = dict(os.environ, TMPDIR=kill_tmp)
    bad = []
    for i in range(10):
        marker = f"-killed-host-{os.getpid()}-{i}"
        out = W(f"killed-{i}.o")
        mode = "mkdirs-hang" if i % 4 >= 2 else "hang"
        cmd = [a.ir2vec, "mlgo", "run", "--log", W(f"killed-{i}.log"), "--"]
        if i % 2:  # nested: the inner host outlives the outer one only as long as it is bound to it
            cmd += [a.ir2vec, "mlgo", "run", "--"]
        proc = subprocess.Popen(cmd + fake + [mode, "3", marker, "-o", out], env=kenv,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.time() + 20
        while time.time() < deadline and not os.path.exists(out):
            time.sleep(0.02)
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGKILL)  # the host and everything in its group, as `kill -9 -PGID`
        proc.wait()
        left, dirs = leftovers_of(marker, kill_tmp, also=lambda: os.path.exists(out), wait=5)
        logs = [n for n in os.listdir(tmp) if n.startswith(f"killed-{i}.log")]
        if left or dirs or os.path.exists(out) or logs:
            bad.append((i, left, dirs, os.path.exists(out), logs))
    check("10 hosts (plain and nested) killed with SIGKILL mid-session: no compiler left running, no FIFO or "
          "private directory, no -o file, no temporary log", not bad, bad[:5])

    # Nested hosts whose innermost compiler ignores SIGTERM: the outer grace period ends first, yet
    # nothing is left (the inner host's guardian cleans up after it).
    bad = []
    for i in range(6):
        marker = f"-ignore-term-{os.getpid()}-{i}"
        outer = [a.ir2vec, "mlgo", "run"] + (["--timeout", "1"] if i % 2 == 0 else []) + ["--"]
        inner = [a.ir2vec, "mlgo", "run", "--"]
        proc = subprocess.Popen(outer + inner + fake + ["hang-ignore-term", "3", marker], env=kenv,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if i % 2:
            time.sleep(0.6)
            proc.send_signal(signal.SIGTERM)
        err = finish_session(proc, marker, 60)
        left, dirs = leftovers_of(marker, kill_tmp, wait=5)
        if proc.returncode != (124 if i % 2 == 0 else 130) or left or dirs:
            bad.append((i, proc.returncode, left, dirs, err[-200:]))
    check("6 nested sessions whose innermost compiler ignores SIGTERM (outer timeout or SIGTERM): the expected "
          "status, no process, FIFO or private directory left", not bad, bad[:5])

    # A compiler that makes subdirectories (one read-only) in the host's private directory: the
    # whole tree goes, after a clean session and after a timeout.
    for mode, extra, want in (("mkdirs", [], 0), ("mkdirs-hang", ["--timeout", "1"], 124)):
        r = harness.run([a.ir2vec, "mlgo", "run", *extra, "--", *fake, mode, "3"], env=kenv, timeout=60)
        check(f"a compiler that makes subdirectories (one read-only) in the private directory, {mode}: exit {want}, "
              "the whole tree is removed", r.returncode == want and os.listdir(kill_tmp) == [],
              (r.returncode, os.listdir(kill_tmp), r.stderr[-200:]))

    # The guardian after SIGKILL of the host, as a hostile user's second try found: it removes only
    # what the compiler wrote. A -o that is a device, a FIFO or a symlink stays what it was; an old
    # -o the compiler never touched stays; the compiler gets SIGTERM first (clang removes its
    # temporary object then), and one that ignores SIGTERM still dies.
    def kill_host_mid_session(i, mode, out_args, env_extra, wait=5):
        marker = f"-guardian-{os.getpid()}-{i}"
        proc = subprocess.Popen([a.ir2vec, "mlgo", "run", "--"] + fake + [mode, "3", marker] + out_args,
                                env=dict(kenv, **env_extra), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        deadline = time.time() + 20
        while time.time() < deadline and not os.listdir(kill_tmp):
            time.sleep(0.02)
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return leftovers_of(marker, kill_tmp, wait=wait)


    gd = W("guardian")
    os.mkdir(gd)
    dev = os.path.join(gd, "dev")
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    left = kill_host_mid_session(0, "hang", ["-o", dev], {})
    st = os.lstat(dev)
    check("host killed by SIGKILL, the compiler's -o a character device (mknod c 1 3): still the device",
          stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3) and left == ([], []), (stat.filemode(st.st_mode), left))
    fifo = os.path.join(gd, "fifo")
    os.mkfifo(fifo)
    drain = subprocess.Popen(["sh", "-c", f"while :; do cat '{fifo}' > /dev/null; done"], start_new_session=True)
    left = kill_host_mid_session(1, "hang", ["-o", fifo], {})
    os.killpg(drain.pid, signal.SIGKILL)
    drain.wait()
    check("host killed by SIGKILL, the compiler's -o a FIFO: still the FIFO",
          stat.S_ISFIFO(os.lstat(fifo).st_mode) and left == ([], []), left)
    target = os.path.join(gd, "target.o")
    open(target, "w").write("x")
    link = os.path.join(gd, "link.o")
    os.symlink("target.o", link)
    left = kill_host_mid_session(2, "hang", ["-o", link], {})
    check("host killed by SIGKILL, the compiler's -o a symlink: the link and its target stay",
          os.path.islink(link) and os.path.exists(target) and left == ([], []), left)
    precious = os.path.join(gd, "precious.o")
    open(precious, "w").write("an old build's object\n")
    left = kill_host_mid_session(3, "hang", ["-o", precious], {"FAKE_NO_OUT": "1"})
    check("host killed by SIGKILL, the compiler's -o an old file it never touched: kept as it was",
          open(precious).read() == "an old build's object\n" and left == ([], []), left)
    r = harness.run([a.ir2vec, "mlgo", "run", "--timeout", "1", "--"] + fake + ["hang", "3", "-o", precious],
                    env=dict(kenv, FAKE_NO_OUT="1"), timeout=60)
    check("mlgo run --timeout 1 whose compiler never touched its old -o: exit 124, the old file kept",
          r.returncode == 124 and open(precious).read() == "an old build's object\n", (r.returncode, r.stderr[-200:]))
    note = os.path.join(gd, "term-note")
    new_out = os.path.join(gd, "new.o")
    left = kill_host_mid_session(4, "hang", ["-o", new_out], {"FAKE_TERM_NOTE": note})
    check("host killed by SIGKILL: the compiler gets SIGTERM first (it could remove its temporaries), the -o it "
          "created is removed", os.path.exists(note) and not os.path.exists(new_out) and left == ([], []),
          (os.path.exists(note), os.path.exists(new_out), left))
    left = kill_host_mid_session(5, "hang-ignore-term", ["-o", new_out], {}, wait=6)
    check("host killed by SIGKILL, its compiler ignoring SIGTERM: killed after the grace period, -o removed",
          left == ([], []) and not os.path.exists(new_out), left)

    # Another process writes the compiler's -o name during the session (a second build of the same
    # target): the host stopping its own compiler, which never opened it, leaves that file alone.
    for i, how in enumerate(("timeout", "SIGKILL")):
        other = os.path.join(gd, f"other-{i}.o")
        extra = ["--timeout", "2"] if how == "timeout" else []
        marker = f"-other-writer-{os.getpid()}-{i}"
        proc = subprocess.Popen([a.ir2vec, "mlgo", "run", *extra, "--"] + fake + ["hang", "3", marker, "-o", other],
                                env=dict(kenv, FAKE_NO_OUT="1"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        time.sleep(0.5)
        open(other, "w").write("written by another build\n")
        if how == "SIGKILL":
            time.sleep(0.3)
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        left = leftovers_of(marker, kill_tmp, wait=5)
        check(f"the host ended by {how} while another process wrote the compiler's -o name: that file is kept",
              os.path.exists(other) and open(other).read() == "written by another build\n" and left == ([], []),
              (os.path.exists(other), left))

# ---- issue 37: unbounded resources, refused before the work -----------------------------------
if a.part == 1:
    import resource


    def capped(cmd, gib, **kw):
        """Runs cmd with its memory capped at gib GiB: a reader without a bound aborts (or is killed)
        instead of swapping the machine. Normally the address space is capped; AddressSanitizer
        reserves terabytes of shadow at start and cannot run so, so there no single allocation may
        pass the cap and the process dies past that resident size."""
        if not a.sanitized:
            return subprocess.run(cmd, capture_output=True, timeout=300,
                                  preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (gib << 30, gib << 30)),
                                  **kw)
        env = dict(kw.pop("env", os.environ))
        env["ASAN_OPTIONS"] = f"max_allocation_size_mb={gib << 10}:hard_rss_limit_mb={gib << 10}"
        return subprocess.run(cmd, capture_output=True, timeout=300, env=env, **kw)


    # mlgo regalloc-cost /dev/zero grew to 22.9 GB: non-regular inputs are capped at 1 GiB.
    r = capped([a.ir2vec, "mlgo", "regalloc-cost", "/dev/zero"], 3)
    check("mlgo regalloc-cost /dev/zero: exit 1 naming the device and the 1024 MiB bound, no abort",
          r.returncode == 1 and b"/dev/zero" in r.stderr and b"1024 MiB" in r.stderr, r.stderr[-300:])
    # A MIR vocabulary of 5 keys x 200,000 dimensions asked 11.3 GB (7,158 entities x D doubles);
    # one of 30,000 dimensions, within the IR readers' bound, still asks 1.6 GiB.
    for dim, needle in ((200000, b"65536"), (30000, b"MiB")):
        vocab_path = W(f"mir-{dim}.json")
        row = "[" + ",".join(["0.5"] * dim) + "]"
        open(vocab_path, "w").write('{"Opcodes": {"ADD": %s}, "CommonOperands": {"Immediate": %s}, "PhysicalRegisters": '
                                    '{"GR32": %s}, "VirtualRegisters": {"GR32": %s, "GR64": %s}}' % ((row,) * 5))
        r = capped([a.ir2vec, "embeddings", "--mode=mir", "--mir2vec-vocab-path", vocab_path, module], 3)
        check(f"a MIR vocabulary of dimension {dim}: exit 1 naming the file and the bound ({needle.decode()})",
              r.returncode == 1 and f"mir-{dim}.json".encode() in r.stderr and needle in r.stderr, r.stderr[-300:])

    # An ablation whose MLP asks for 32 GB ([65536, 65536]) is refused before any work; no models/.
    import small_corpus
    sc = small_corpus.build(W("small"))
    open(W("small.list"), "w").write("".join(m + "\n" for m in sc))
    for task in ("inline", "evict"):
        spec = W(f"huge-{task}.json")
        json.dump({"corpus": ["@" + W("small.list")], "task": task, "seeds": [1],
                   "model": {"kind": "mlp", "hidden": [65536, 65536]},
                   "arms": [{"name": "a", "features": ["register" if task == "evict" else "cost"]}]}, open(spec, "w"))
        r = capped([a.ir2vec, "mlgo", "ablate", spec, "-o", W(f"abl-{task}")], 3)
        check(f"mlgo ablate ({task}) with hidden [65536, 65536]: exit 1 naming model.hidden and the bound, no output "
              "directory", r.returncode == 1 and b"model.hidden" in r.stderr and b"16777216" in r.stderr
              and not os.path.exists(W(f"abl-{task}")), r.stderr[-300:])
    # vocab train --negatives 100000000 listed every touched column of a batch: all memory, then
    # LLVM's out-of-memory abort (issue 37's hostile try). Bounded now, and refused above 4096.
    harness.run([a.ir2vec, "triplets", "--format", "openke", "-o", W("neg-kg"), module], check=True)
    r = capped([a.ir2vec, "vocab", "train", W("neg-kg"), "-q", "--negatives", "100000000", "-o", W("neg.json")], 3)
    check("vocab train --negatives 100000000: refused naming the bound, nothing written",
          r.returncode == 1 and b"--negatives must be 1 to 4096" in r.stderr and not os.path.exists(W("neg.json")),
          r.stderr[-300:])
    r = capped([a.ir2vec, "vocab", "train", W("neg-kg"), "-q", "--negatives", "4096", "--batch-size", "100000",
                "--epochs", "2", "--dim", "8", "-o", W("neg.json")], 1)
    check("vocab train --negatives 4096 with one batch of every triplet: done within 1 GiB",
          r.returncode == 0 and os.path.exists(W("neg.json")), r.stderr[-300:])
    r = subprocess.run([a.ir2vec, "mlgo", "train", W("none.h5"), "--model", "mlp", "--hidden", "65536", "65536",
                        "-o", W("huge.h5")], capture_output=True, timeout=300)
    check("mlgo train --hidden 65536 65536: a usage error naming the bound, nothing written",
          r.returncode == 1 and b"16777216" in r.stderr and not os.path.exists(W("huge.h5")), r.stderr[-300:])

    # train-evict with descriptors exhausted (issue 37: every compile failed, yet a model and a "0
    # modules" report were written, exit 2). With 7 descriptors no compile can start: a failure
    # (exit 1) naming the cause, no model or report, and no private directory left in TMPDIR. With
    # 8 to 13, some compiles fail depending on timing: never a model judged on nothing (exit 1 or 2
    # with the failures reported), and nothing left in TMPDIR (removing a directory needs
    # descriptors too).
    fd_tmp = W("fd-tmp")
    os.makedirs(fd_tmp)


    def runtime_out_of_descriptors(stderr):
        """Under the sanitizers a run out of descriptors can be stopped by UndefinedBehaviorSanitizer
        itself: its vptr check reads the object's memory through a pipe(), which fails, so it calls
        the object invalid ("<memory cannot be printed>") and halts. That is the runtime's limit,
        not a fault of ours; any other report still fails the test."""
        reports = stderr.count(b"runtime error:") + stderr.count(b"ERROR: AddressSanitizer")
        return (a.sanitized and reports > 0 and stderr.count(b"object has invalid vptr") == reports
                and stderr.count(b"<memory cannot be printed>") == reports)


    halted_by_runtime = []
    for n in (7, 9, 11, 13):
        for f in (W("ev.h5"), W("ev.json")):
            if os.path.exists(f):
                os.remove(f)
        shutil.rmtree(W("ev.h5.parts"), ignore_errors=True)
        # What a run halted by the runtime left may still be in use by its compilers, which
        # die a moment after it (CI: a halted run's directory, still being written, outlived
        # its removal and was charged to the next count): only what this run adds counts.
        before = set(os.listdir(fd_tmp))
        r = subprocess.run([a.ir2vec, "mlgo", "train-evict", "-o", W("ev.h5"), "--report", W("ev.json"), "--steps", "1",
                            "--pairs", "1", "--modules-per-step", "2", "@" + W("small.list")], capture_output=True,
                           env=dict(os.environ, TMPDIR=fd_tmp), timeout=300,
                           preexec_fn=lambda n=n: resource.setrlimit(resource.RLIMIT_NOFILE, (n, n)))
        if runtime_out_of_descriptors(r.stderr):
            halted_by_runtime.append(n)
        elif n == 7:
            check("train-evict with 7 descriptors: exit 1, 'every one of the 4 training modules failed' with the cause, "
                  "no model or report", r.returncode == 1 and b"every one of the 4 training modules failed" in r.stderr
                  and b"Too many open files" in r.stderr and b"Linux 5.3" not in r.stderr
                  and not os.path.exists(W("ev.h5")) and not os.path.exists(W("ev.json")), r.stderr[-600:])
        else:
            judged = re.search(rb"held-out \((\d+) modules", r.stderr)
            check(f"train-evict with {n} descriptors: exit 1 with nothing written, or a report judged on at least one "
                  "module", (r.returncode == 1 and not os.path.exists(W("ev.h5")) and not os.path.exists(W("ev.json")))
                  or (r.returncode in (0, 2) and judged is not None and int(judged.group(1)) > 0), r.stderr[-600:])
        if n not in halted_by_runtime:
            added = sorted(set(os.listdir(fd_tmp)) - before)
            check(f"train-evict with {n} descriptors: nothing left in TMPDIR", added == [], added)
        # Each count judged on its own: what one left does not fail the next (retried while the
        # halted run's compilers still write into it).
        for _ in range(50):
            for left in os.listdir(fd_tmp):
                shutil.rmtree(os.path.join(fd_tmp, left), ignore_errors=True)
            if not os.listdir(fd_tmp):
                break
            time.sleep(0.1)
    if halted_by_runtime:
        print(f"note: with {halted_by_runtime} descriptors UndefinedBehaviorSanitizer's vptr check ran out of descriptors "
              "and stopped the run; the normal build's run of this test judges those counts")
    r = subprocess.run([a.ir2vec, "mlgo", "train-evict", "--help"], capture_output=True, text=True)
    check("train-evict --help lists exit status 2 (some held-out modules failed)",
          re.search(r"^\s+2\s+some held-out modules failed", r.stdout, re.M) is not None, r.stdout[-800:])

status = res.summary(f"hostile part {a.part}: ")
if status == 0:
    shutil.rmtree(tmp)
sys.exit(status)
