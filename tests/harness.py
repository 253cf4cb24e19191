"""The harness every Python test of the workbench uses: named checks that are counted, a
failure printed when it happens (with its detail), and one summary line at the end.

    import harness
    res = harness.Results()
    res.check("what is checked", ok, detail)
    r = harness.run([tool, ...])              # CompletedProcess with stdout/stderr as bytes
    sys.exit(res.summary())                   # "N passed, M failed"; 1 on a failure or no check

Tests of the tool's command line start from a ToolTest (below): its arguments, checks and
scratch directory.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


class Results:
    def __init__(self):
        self.passed = 0
        self.failures = []

    def check(self, name, ok, detail=""):
        """Counts one check; prints it at once when it fails. Returns ok."""
        if ok:
            self.passed += 1
        else:
            text = detail.decode(errors="replace") if isinstance(detail, bytes) else str(detail)
            self.failures.append(name)
            print("FAIL", name, text[:2000], flush=True)
        return bool(ok)

    def summary(self, what=""):
        """Prints the counts and returns the exit status: 1 when a check failed or when nothing
        was checked at all (a test that checks nothing cannot pass)."""
        total = self.passed + len(self.failures)
        print(f"{what}{self.passed} passed, {len(self.failures)} failed ({total} checks)")
        return 1 if self.failures or total == 0 else 0


def run(cmd, stdin=None, check=False, **kw):
    """Runs cmd with stdout and stderr captured (bytes). With check, a failing command ends the
    test at once: what follows would only report consequences."""
    r = subprocess.run(cmd, input=stdin, capture_output=True, **kw)
    if check and r.returncode != 0:
        sys.exit("command failed (%d): %s\n%s" % (r.returncode, " ".join(map(str, cmd)),
                                                  r.stderr.decode(errors="replace")[-2000:]))
    return r


def interrupt_after_checkpoint(cmd, out, sig=None, tries=3):
    """Starts cmd (which writes the HDF5 file out with checkpoints), sends sig (SIGKILL by
    default) once out.resume appears, and returns the run's exit status, whether it was
    interrupted mid-way (out.partial and out.resume left, no out) and what it wrote to stderr.
    On a loaded machine the signal may land only after the run has finished (then it has
    nothing to resume): such a try does not count, and is made again (tries at most)."""
    import signal
    import time
    state = out + ".resume"
    p, err = None, b""
    for _ in range(tries):
        for f in (out, state, out + ".partial"):
            if os.path.exists(f):
                os.remove(f)
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 120
        while not os.path.exists(state) and p.poll() is None and time.time() < deadline:
            time.sleep(0.001)
        p.send_signal(sig if sig is not None else signal.SIGKILL)
        err = p.communicate()[1]
        if not os.path.exists(out):
            break
    interrupted = p.returncode != 0 and not os.path.exists(out) and os.path.exists(state) \
        and os.path.exists(out + ".partial")
    return p.returncode, interrupted, err


class ToolTest:
    """The frame of a test of the tool's command line: the arguments --ir2vec BIN and
    --llvm-bindir DIR, counted checks (check, res), a scratch directory (tmp, W(names...)),
    LLVM's tools (B(name)) and the tool (run(args...)). finish() prints the summary, removes
    the scratch directory when every check passed (a failure keeps it to look into) and exits."""

    def __init__(self, prefix, parts=0, options=()):
        """options: further arguments, (name, argparse keywords) each."""
        p = argparse.ArgumentParser()
        p.add_argument("--ir2vec", required=True)
        p.add_argument("--llvm-bindir", required=True)
        if parts:  # a test run as several ctest tests, each under the 5 minutes a test may take
            p.add_argument("--part", type=int, choices=range(1, parts + 1), required=True)
        for name, kw in options:
            p.add_argument(name, **kw)
        self.args = p.parse_args()
        self.res = Results()
        self.check = self.res.check
        self.tmp = tempfile.mkdtemp(prefix=prefix)

    def W(self, *names):
        return os.path.join(self.tmp, *names)

    def B(self, tool):
        return os.path.join(self.args.llvm_bindir, tool)

    def run(self, *args, **kw):
        return run([self.args.ir2vec, *args], **kw)

    def finish(self):
        status = self.res.summary()
        if status == 0:
            shutil.rmtree(self.tmp)
        sys.exit(status)
