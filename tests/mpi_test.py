#!/usr/bin/python3
"""MPI runs (issue 14) under Open MPI's mpirun --oversubscribe, against the same command run as
one process (the oracle: the single-process tool, itself tested against LLVM):

  * every command that spreads (embeddings HDF5 and text, triplets text and OpenKE, mlgo
    collect, explore, eval and train-evict) writes the same bytes for 1, 2 and 3 ranks (with -j1
    and -j2 among them) as the plain command;
  * bad modules handled by ranks other than 0 (--root-jobs 0) are reported as a single process
    reports them (the same error lines, exit status and recorded errors);
  * a rank killed mid-run (SIGKILL) ends the job, leaves no output under the requested name,
    and the same command with --resume (under mpirun) gives the uninterrupted file
    (embeddings HDF5, mlgo collect and train-evict);
  * a subcommand that does not spread, standard input, and a rank that fails alone are refused
    with a message, and nothing is left behind.

  mpi_test.py --ir2vec BIN --vocab SEED.json --data DIR --mpirun MPIRUN --part 1|2 [--sanitized]
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import h5py

import harness
import small_corpus
from h5compare import same_content
from harness import Results, run

p = argparse.ArgumentParser()
for opt in ["--ir2vec", "--vocab", "--data", "--mpirun"]:
    p.add_argument(opt, required=True)
# Two parts, each its own ctest test (whole, it took 463 s in a ctest -j2 run of the normal
# build): 1 the same bytes for any number of ranks; 2 --root-jobs 0, bad modules, killed ranks
# and --resume, refusals.
p.add_argument("--part", type=int, choices=(1, 2), required=True)
p.add_argument("--sanitized", action="store_true",
               help="a sanitizer build: the ranks run without LeakSanitizer (Open MPI's plugins "
                    "allocate through code that cannot be unwound or named)")
a = p.parse_args()
res = Results()
check = res.check
# Root may run mpirun here (CI containers); every rank's threads may use every core (the
# workbench runs -j workers per rank).
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
MPI = [a.mpirun, "--oversubscribe", "--bind-to", "none"]
if a.sanitized:
    env["ASAN_OPTIONS"] = "detect_leaks=0"
    MPI += ["-x", "ASAN_OPTIONS"]


def mpi(np_, args, **kw):
    return run(MPI + ["-np", str(np_), a.ir2vec] + args, env=env, **kw)


def plain(args, **kw):
    return run([a.ir2vec] + args, env=env, **kw)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def outputs(path):
    """The bytes of an output file, or of every file of an output directory."""
    if os.path.isdir(path):
        return {n: read(os.path.join(path, n)) for n in sorted(os.listdir(path))}
    return read(path)


with tempfile.TemporaryDirectory(prefix="mpi-test-") as d:
    W = lambda *n: os.path.join(d, *n)
    good = [os.path.join(a.data, f) for f in sorted(os.listdir(a.data))
            if f.endswith(".ll") and not f.startswith("bad") and f != "empty.ll"]
    irlist = W("ir.list")
    open(irlist, "w").write("".join(m + "\n" for m in good * 6))
    # x86-64 code generation cannot lower types.ll's scalable vectors (a module error of its own)
    mirlist = W("mir.list")
    open(mirlist, "w").write("".join(m + "\n" for m in good * 6 if not m.endswith("types.ll")))
    modules = small_corpus.build(W("corpus"))
    mlist = W("mlgo.list")
    open(mlist, "w").write("".join(m + "\n" for m in modules))

    # A machine IR vocabulary for x86-64, every entity (--mode=mir).
    ents = [l.split("\t")[0] for l in subprocess.run(
        [a.ir2vec, "entities", "--mode=mir", "--mtriple", "x86_64-linux-gnu"],
        capture_output=True, text=True).stdout.splitlines()[1:]]
    sec = [ents.index("Immediate"), next(i for i, e in enumerate(ents) if e.startswith("PhyReg_")),
           next(i for i, e in enumerate(ents) if e.startswith("VirtReg_")), len(ents)]
    val = lambda i: [((i * 7 + k) % 11) / 3.0 for k in range(4)]
    json.dump({"Opcodes": {ents[i]: val(i) for i in range(sec[0])},
               "CommonOperands": {ents[i]: val(i) for i in range(sec[0], sec[1])},
               "PhysicalRegisters": {ents[i][7:]: val(i) for i in range(sec[1], sec[2])},
               "VirtualRegisters": {ents[i][8:]: val(i) for i in range(sec[2], sec[3])}},
              open(W("mir-vocab.json"), "w"))

    # ---- the same bytes for any number of ranks and any -j -----------------------------------
    V = ["--vocab", a.vocab]
    MIRV = ["--mode=mir", "--mir2vec-vocab-path", W("mir-vocab.json"), "--mtriple", "x86_64-linux-gnu"]
    cases = [
        ("embeddings hdf5 inst", lambda o: ["embeddings", "-q", *V, "--format", "hdf5", "--level",
                                            "inst", "--kind", "flow-aware", "--inst-text", "-o", o,
                                            "@" + irlist]),
        ("embeddings hdf5 bb flow-aware-rd", lambda o: ["embeddings", "-q", *V, "--format", "hdf5", "--level",
                                                        "bb", "--kind", "flow-aware-rd", "-o", o, "@" + irlist]),
        ("embeddings hdf5 module", lambda o: ["embeddings", "-q", *V, "--format", "hdf5", "--level",
                                              "module", "-o", o, "@" + irlist]),
        ("embeddings counts", lambda o: ["embeddings", "-q", "--counts", "--format", "hdf5",
                                         "--level", "bb", "-o", o, "@" + irlist]),
        ("embeddings mir hdf5 inst", lambda o: ["embeddings", "-q", *MIRV, "--format", "hdf5", "--level",
                                                "inst", "--inst-text", "-o", o, "@" + mirlist]),
        ("embeddings text", lambda o: ["embeddings", "-q", *V, "--level", "bb", "--precision", "6",
                                       "-o", o, "@" + irlist]),
        ("triplets text", lambda o: ["triplets", "-q", "-o", o, "@" + irlist]),
        ("triplets openke", lambda o: ["triplets", "-q", "--format", "openke", "--extended-relations",
                                       "--opt-levels", "O0,Oz", "--opt-sample", "1", "--seed", "3",
                                       "-o", o, "@" + irlist]),
        ("mlgo collect", lambda o: ["mlgo", "collect", "--quiet", "-o", o, "@" + mlist]),
        ("mlgo explore", lambda o: ["mlgo", "explore", "-q", "--budget", "4", "-o", o, "@" + mlist]),
        ("mlgo eval", lambda o: ["mlgo", "eval", "--quiet", "-o", o, "@" + mlist]),
        # Evolution strategies: rank 0 shares each step's fitness; every rank compiles.
        ("mlgo train-evict", lambda o: ["mlgo", "train-evict", "-q", "--steps", "3", "--pairs", "2",
                                        "--modules-per-step", "3", "--test-fraction", "0.3",
                                        "-o", o, "@" + mlist]),
    ]
    if a.part == 1:
        for name, args in cases:
            ref = W(name.replace(" ", "-") + "-plain")
            r = plain(args(ref) + ["-j", "2"])
            if not check(f"{name}: the plain command works", r.returncode == 0, r.stderr[-400:]):
                continue
            want = outputs(ref)
            # Every rank count and both -j in three runs, not every pair's five: the mpirun launches
            # are most of this test's time, under the sanitizers most of all.
            for np_, jobs in [(1, "1"), (2, "2"), (3, "1")]:
                out = W(f"{name.replace(' ', '-')}-{np_}-{jobs}")
                r = mpi(np_, args(out) + ["-j", jobs])
                same = r.returncode == 0 and outputs(out) == want
                check(f"{name}: {np_} ranks -j{jobs}: the same bytes as one process", same,
                      f"exit {r.returncode} {r.stderr[-400:]}")
    if a.part == 2:
        # Rank 0 only coordinates: every module is handled by the other ranks.
        out, ref = W("emb-root0.h5"), W("emb-root0-plain.h5")
        r1 = plain(cases[0][1](ref) + ["-j", "2"])
        r = mpi(3, cases[0][1](out) + ["-j", "1", "--root-jobs", "0"])
        check("embeddings with --root-jobs 0 (all work on ranks 1 and 2): the same bytes",
              r1.returncode == 0 and r.returncode == 0 and read(out) == read(ref), r.stderr[-300:])

        # ---- bad modules on other ranks are reported as one process reports them ----------------
        garbage = W("garbage.bc")
        open(garbage, "wb").write(b"BC\xc0\xde" + bytes(range(256)) * 8)
        invalid = W("invalid.ll")
        open(invalid, "w").write("define i32 @f() {\n  ret i64 0\n}\n")
        mixed = good[:3] + [garbage] + good[3:] + [invalid]

        def errors(stderr):
            return sorted(l for l in stderr.decode(errors="replace").splitlines() if ": error: " in l)

        single = W("bad-plain.h5")
        r1 = plain(["embeddings", *V, "--format", "hdf5", "-o", single, "-j", "1", *mixed])
        r3 = mpi(3, ["embeddings", *V, "--format", "hdf5", "-o", W("bad-mpi.h5"), "-j", "1",
                     "--root-jobs", "0", *mixed])
        check("bad modules on ranks 1 and 2: exit 2 as one process", r1.returncode == 2 and r3.returncode == 2,
              f"{r1.returncode} {r3.returncode} {r3.stderr[-300:]}")
        check("bad modules on ranks 1 and 2: the same error lines, once each",
              errors(r3.stderr) == errors(r1.stderr) and len(errors(r1.stderr)) == 2,
              f"{errors(r3.stderr)} vs {errors(r1.stderr)}")
        check("bad modules on ranks 1 and 2: the same file (modules/error recorded)",
              os.path.exists(W("bad-mpi.h5")) and read(W("bad-mpi.h5")) == read(single))
        r1 = plain(["triplets", "-o", W("bad.txt"), "-j", "1", *mixed])
        r3 = mpi(3, ["triplets", "-o", W("bad-mpi.txt"), "-j", "1", "--root-jobs", "0", *mixed])
        check("triplets with bad modules on other ranks: the same exit, errors and output",
              r1.returncode == r3.returncode == 2 and errors(r3.stderr) == errors(r1.stderr)
              and read(W("bad.txt")) == read(W("bad-mpi.txt")), r3.stderr[-300:])

        # ---- a killed rank, then --resume ---------------------------------------------------------
        def rank_pid(out, rank):
            """The pid of the given rank of the job writing out (by its command line and its
            environment)."""
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    envb = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
                    cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
                    exe = os.readlink(f"/proc/{pid}/exe")
                except OSError:
                    continue
                if exe.endswith("ir2vec-full") and out.encode() in cmd \
                        and f"OMPI_COMM_WORLD_RANK={rank}".encode() in envb:
                    return int(pid)
            return None

        def kill_and_resume(name, args, out, ready, resumed):
            """Runs args under 2 ranks, kills rank 1 once ready() holds, then resumes (the resumed
            run's messages say so: resumed)."""
            ref = out + ".ref"
            r = plain(args(ref))
            if not check(f"{name}: reference run", r.returncode == 0, r.stderr[-300:]):
                return
            proc = subprocess.Popen(MPI + ["-np", "2", a.ir2vec] + args(out), env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            deadline = time.time() + 120
            while not ready() and proc.poll() is None and time.time() < deadline:
                time.sleep(0.005)
            victim = rank_pid(out, 1)
            killed = victim is not None and proc.poll() is None
            if killed:
                os.kill(victim, signal.SIGKILL)
            try:
                _, err = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
                check(f"{name}: the job ends when a rank is killed", False, "mpirun still running after 120 s")
                return
            if not check(f"{name}: rank 1 killed mid-run", killed,
                         f"the run ended before it could be killed (exit {proc.returncode})"):
                return
            check(f"{name}: the job fails and leaves nothing under the name",
                  proc.returncode != 0 and not os.path.exists(out), f"exit {proc.returncode}")
            r = mpi(2, args(out) + ["--resume"])
            check(f"{name}: --resume under mpirun: exit 0, continued from the killed run's work",
                  r.returncode == 0 and resumed in r.stderr, r.stderr[-400:])
            if os.path.exists(out):
                if out.endswith(".h5") and name.startswith("embeddings"):
                    with h5py.File(out) as f, h5py.File(ref) as g:
                        diff = same_content(f, g)
                    check(f"{name}: the resumed file has the uninterrupted run's content", diff is None, diff)
                else:
                    check(f"{name}: the resumed file is the uninterrupted run's, byte for byte",
                          read(out) == read(ref))

        big = W("big.list")
        open(big, "w").write("".join(m + "\n" for m in good * 150))
        emb = W("killed.h5")
        kill_and_resume("embeddings", lambda o: ["embeddings", *V, "--format", "hdf5", "--level",
                                                 "inst", "--inst-text", "-j", "1", "-o", o, "@" + big],
                        emb, lambda: os.path.exists(emb + ".resume"), b"resumed after")
        coll = W("killed-collect.h5")
        many = W("many.list")
        open(many, "w").write("".join(m + "\n" for m in modules * 8))
        kill_and_resume("mlgo collect", lambda o: ["mlgo", "collect", "-j", "1", "-o", o, "@" + many],
                        coll, lambda: os.path.isdir(coll + ".parts") and
                        len([f for f in os.listdir(coll + ".parts") if f.endswith(".json")]) >= 6,
                        b"finished by the interrupted run were taken from")

        evict = W("killed-evict.h5")

        def evict_steps():
            try:
                with open(evict + ".parts/es-steps.json") as f:
                    return len(json.load(f)["steps"]) >= 1
            except (OSError, ValueError, KeyError):
                return False
        kill_and_resume("mlgo train-evict", lambda o: ["mlgo", "train-evict", "-j", "1", "--steps", "12",
                                                       "--pairs", "2", "--modules-per-step", "3",
                                                       "--test-fraction", "0.3", "-o", o, "@" + many],
                        evict, evict_steps, b"steps taken from the interrupted run")

        # ---- refused runs -----------------------------------------------------------------------------
        r = mpi(2, ["vocab", "export", "-o", W("v.json")])
        check("a subcommand that does not spread: refused once, exit 1, no file",
              r.returncode == 1 and r.stderr.count(b"runs as one process") == 1
              and not os.path.exists(W("v.json")), r.stderr[-300:])
        r = run(MPI + ["-np", "2", a.ir2vec, "embeddings", *V, "-"], env=env, stdin=read(good[0]))
        check("standard input under mpirun: refused", r.returncode == 1 and b"standard input" in r.stderr,
              r.stderr[-300:])
        # A rank that fails alone (MPMD: rank 1 gets a vocabulary that does not exist): the job ends
        # with that rank's error, and no output is left.
        out = W("alone.h5")
        t0 = time.time()
        r = run(MPI + ["-np", "1", a.ir2vec, "embeddings", *V, "--format", "hdf5",
                 "-o", out, "@" + big, ":", "-np", "1", a.ir2vec, "embeddings", "--vocab", W("nothere.json"),
                 "--format", "hdf5", "-o", out, "@" + big], env=env, timeout=300)
        check("a rank that fails alone: the job fails with its error, nothing under the name",
              r.returncode != 0 and b"nothere.json" in r.stderr and not os.path.exists(out),
              f"exit {r.returncode} after {time.time() - t0:.0f} s: {r.stderr[-400:]}")

sys.exit(res.summary("mpi: "))
