#!/usr/bin/python3
"""Faults during a corpus run (issue 12), with Debian's python3-h5py as the independent reader:

  * an HDF5 batch killed with SIGKILL at 50 random moments and continued with --resume ends,
    every time, with the content of an uninterrupted run (every attribute and dataset) and
    nothing else beside it; before the fix a few percent of resumes failed ("H5Dwrite failed")
    or crashed in libhdf5 (H5HG_remove) cutting half-written strings off in place;
  * a partial file cut short by hand: --resume starts over instead of looping in libhdf5;
  * output that cannot be written in full (a file-size limit, RLIMIT_FSIZE, as a full disk
    would): a clear error naming the file, nothing under the requested name, the earlier
    checkpoint kept, and --resume without the limit completes it;
  * SIGINT (once, or twice in a row as an impatient Ctrl-C), SIGTERM and SIGHUP at random moments
    of a text run: the run ends by the signal, leaves nothing beside the requested name, and
    under it only the complete output committed before the signal came. Before the interrupts
    had their own thread, two SIGINTs in a row left OUT.tmp-* or OUT in 4 of 47 tries (ASan,
    the clean-clone CI run).

  fault_test.py --ir2vec BIN [--runs N] [--part kill|limits|signals ...]

The parts run as separate tests (each under five minutes in the sanitizer build); no --part runs
all three.
"""
import argparse, os, random, resource, signal, subprocess, tempfile, time

import harness
from h5compare import same_files

p = argparse.ArgumentParser()
p.add_argument("--ir2vec", required=True)
p.add_argument("--runs", type=int, default=50)
p.add_argument("--part", action="append", choices=["kill", "limits", "signals"])
a = p.parse_args()
parts = set(a.part or ["kill", "limits", "signals"])
res = harness.Results()
check = res.check
tmp = tempfile.mkdtemp(prefix="fault-")
W = lambda *n: os.path.join(tmp, *n)
here = os.path.dirname(os.path.abspath(__file__))

data = sorted(os.path.join(here, "data", n) for n in os.listdir(os.path.join(here, "data"))
              if n.endswith(".ll") and not n.startswith("bad") and n != "empty.ll")
inputs = data * 150
args = ["-q", "--format", "hdf5", "--level", "inst", "--kind", "flow-aware",
        "--inst-text", "-j", "1"]


def leftovers(prefix):
    d, b = os.path.split(prefix)
    return sorted(n for n in os.listdir(d) if n.startswith(b))


ref = W("ref.h5")
t0 = time.time()
r = harness.run([a.ir2vec, "embeddings", *args, "-o", ref, *inputs])
t_ref = time.time() - t0
if not check("the uninterrupted run", r.returncode == 0, r.stderr[-300:]):
    raise SystemExit(res.summary())
rng = random.Random(12)

# ---- SIGKILL at random moments, then --resume ------------------------------------------------
# A seeded generator: the same moments in every run of the test. A kill before the first
# checkpoint resumes by starting over, one after the last by finding the whole file written.
failures, killed_mid, resumed = [], 0, 0
for k in range(a.runs if "kill" in parts else 0):
    out = W("killed.h5")
    for leftover in leftovers(out):
        os.remove(W(leftover))
    p_ = subprocess.Popen([a.ir2vec, "embeddings", *args, "-o", out, *inputs], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    time.sleep(rng.uniform(0, t_ref))
    p_.kill()
    p_.wait()
    killed_mid += p_.returncode == -signal.SIGKILL
    r = harness.run([a.ir2vec, "embeddings", *args[1:], "-o", out, "--resume", *inputs])  # not -q: the note
    resumed += b"resumed after" in r.stderr
    diff = same_files(out, ref) if r.returncode == 0 and os.path.exists(out) else "no result"
    if r.returncode != 0 or diff or leftovers(out) != ["killed.h5"]:
        failures.append((k, r.returncode, diff, leftovers(out), r.stderr[-300:]))
"kill" in parts and check(f"{a.runs} runs killed by SIGKILL at random moments ({killed_mid} mid-run, {resumed} resumed "
      f"from a checkpoint; an uninterrupted run takes {t_ref:.2f} s) end with the uninterrupted run's "
      "content and nothing else", not failures and killed_mid >= a.runs // 2 and resumed >= a.runs // 4,
      failures[:5])
if "kill" in parts:
    print(f"kill-and-resume: {a.runs} runs, {killed_mid} killed mid-run, {resumed} resumed from a checkpoint")

if "limits" in parts:
    # ---- output that cannot be written in full ---------------------------------------------------
    # The limit lets a few checkpoints through and stops the file well before its end.
    ref_size = os.path.getsize(ref)


    def limited(bytes_):
        def set_limit():
            resource.setrlimit(resource.RLIMIT_FSIZE, (bytes_, bytes_))
        return set_limit


    out = W("limited.h5")
    r = subprocess.run([a.ir2vec, "embeddings", *args, "-o", out, *inputs], capture_output=True,
                       preexec_fn=limited(ref_size // 2))
    check("HDF5 output over a file-size limit: exit 1 with an error naming the file and the cause",
          r.returncode == 1 and b"limited.h5" in r.stderr and b"too large" in r.stderr.lower(),
          (r.returncode, r.stderr[-500:]))
    check("HDF5 output over a file-size limit: nothing under the requested name, the checkpoint kept",
          not os.path.exists(out) and os.path.exists(out + ".partial") and os.path.exists(out + ".resume"),
          leftovers(out))
    r = harness.run([a.ir2vec, "embeddings", *args[1:], "-o", out, "--resume", *inputs])
    check("HDF5 output over a file-size limit: --resume without the limit continues from the checkpoint "
          "and ends with the uninterrupted run's content",
          r.returncode == 0 and b"resumed after" in r.stderr and same_files(out, ref) is None
          and leftovers(out) == ["limited.h5"],
          (r.returncode, r.stderr[:300], os.path.exists(out) and same_files(out, ref), leftovers(out)))

    # A partial file cut short by hand (not by a kill): libhdf5 looped for 10 minutes reading the
    # zero-extended file in the isolated copy (found by the hostile try); the copy's time now scales
    # with the file's size, so the run gives the partial file up and starts over. The subprocess
    # limit only keeps a hang from stalling the test; nothing is asserted about time.
    out = W("cut.h5")
    subprocess.run([a.ir2vec, "embeddings", *args, "-o", out, *inputs], capture_output=True,
                   preexec_fn=limited(ref_size // 2))
    if check("a run stopped by a file-size limit leaves a checkpoint to cut",
             os.path.exists(out + ".partial") and os.path.exists(out + ".resume"), leftovers(out)):
        os.truncate(out + ".partial", 1000)
        try:
            r = harness.run([a.ir2vec, "embeddings", *args[1:], "-o", out, "--resume", *inputs], timeout=400)
            ok = r.returncode == 0 and b"starting over" in r.stderr and same_files(out, ref) is None \
                and leftovers(out) == ["cut.h5"]
            why = (r.returncode, r.stderr[-400:], leftovers(out))
        except subprocess.TimeoutExpired:
            ok, why = False, "no end within 400 s"
        check("--resume on a partial file cut to 1000 bytes: starts over and ends with the uninterrupted "
              "run's content, nothing beside it", ok, why)

    text_out = W("limited.txt")
    r = subprocess.run([a.ir2vec, "embeddings", "-q", "--level", "inst", "-o", text_out, *inputs],
                       capture_output=True, preexec_fn=limited(1 << 16))
    check("text output over a file-size limit: exit 1 with an error naming the file, nothing left",
          r.returncode == 1 and b"limited.txt" in r.stderr and not leftovers(text_out),
          (r.returncode, r.stderr[-500:], leftovers(text_out)))

if "signals" in parts:
    # ---- Ctrl-C during a text run ------------------------------------------------------------------
    # The issue saw OUT.tmp-* left twice in about 95 tries. Every other try here presses Ctrl-C twice
    # (two SIGINTs in a row): before the interrupts had their own thread (support/Interrupts.h), the
    # second one killed the process while LLVM's handler, already unregistered, was removing the
    # files; the clean-clone CI run under ASan left OUT.tmp-* or OUT in 4 of 47 tries. Every fourth
    # try sends SIGTERM or SIGHUP instead. An interrupted run ends by its signal (a shell then stops
    # its loop too) and leaves nothing beside OUT, and OUT only if it was committed, complete, before
    # the signal came.
    t0 = time.time()
    text_ref = W("text-ref.txt")
    harness.run([a.ir2vec, "embeddings", "-q", "--level", "inst", "-j", "2", "-o", text_ref, *inputs])
    t_text = time.time() - t0
    ref_bytes = open(text_ref, "rb").read()
    bad, interrupted, doubled = [], 0, 0
    for k in range(a.runs):
        out = W("interrupted.txt")
        sig = [signal.SIGINT, signal.SIGINT, signal.SIGINT, [signal.SIGTERM, signal.SIGHUP][k // 4 % 2]][k % 4]
        p_ = subprocess.Popen([a.ir2vec, "embeddings", "-q", "--level", "inst", "-j", "2", "-o", out, *inputs],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, t_text))
        twice = k % 2 == 1
        for _ in range(1 + twice):
            p_.send_signal(sig)
        p_.wait()
        interrupted += p_.returncode != 0
        doubled += twice and p_.returncode != 0
        beside = [n for n in leftovers(out) if n != os.path.basename(out)]
        complete = not os.path.exists(out) or open(out, "rb").read() == ref_bytes
        if p_.returncode not in (0, -sig) or beside or not complete or (p_.returncode == 0 and not os.path.exists(out)):
            bad.append((k, sig.name, "twice" if twice else "once", p_.returncode, leftovers(out)))
        for n in leftovers(out):
            os.remove(W(n))
    print(f"interrupts: {a.runs} runs, {interrupted} interrupted, {doubled} by two signals in a row")
    check(f"SIGINT (once or twice in a row), SIGTERM, SIGHUP at {a.runs} random moments of a text run "
          f"({interrupted} interrupted, {doubled} of them by two signals; a run takes {t_text:.2f} s): "
          f"ended by the signal, nothing beside the output, the output complete or absent",
          not bad and interrupted >= a.runs // 4 and doubled >= a.runs // 8, bad)

raise SystemExit(res.summary())
