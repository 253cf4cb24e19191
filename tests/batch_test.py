#!/usr/bin/python3
"""Batch (corpus-scale) tests of the `ir2vec` command, with Debian's python3-h5py as an
independent reader of the HDF5 files:

  * h5py reads every number of the file and it equals libLLVM's own double (oracle_print
    prints those with C's %a, exactly), for both kinds and all levels; module rows (every
    level's file, and the module level's text) equal libLLVM's function vectors summed in
    module order with LLVM's Embedding arithmetic; failed modules' rows are NaN;
  * input forms: directories, @lists, ml-compiler-opt corpus_description.json;
  * a batch with a truncated and a garbage module exits 2, records both in modules/error and
    loses no good module; a batch of only bad modules exits 1 and writes nothing;
  * -j1 and -j4 give byte-identical files (HDF5 and text);
  * a run killed (SIGKILL, SIGINT) after a checkpoint and continued with --resume has the same
    content as an uninterrupted run, also when the checkpoint is damaged (it starts over);
  * counts x vocabulary (from-counts) is within 1e-12 relative of the exact mode; version 1
    files (no module rows) are still read, their module rows computed as version 2 defines;
  * the progress line appears on a terminal and never in a pipe.

  batch_test.py --ir2vec BIN --oracle-print BIN --llvm-bindir DIR --vocab SEED.json --data DIR
                [--corpus-list LIST]   (with a list: the same checks over the real corpus)
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

import h5py
import numpy as np

import harness
from h5compare import same_content
from harness import Results, run

KINDS = ["symbolic", "flow-aware"]
LEVELS = ["module", "func", "bb", "inst"]
TABLES = {"module": "modules", "func": "functions", "bb": "blocks", "inst": "instructions"}


def oracle_levels(a, kind, path):
    """libLLVM's vectors for one module at every level, in file order, exactly (hex floats), from
    one run of the oracle: {level: rows}, or None when it fails."""
    r = run([a.oracle_print, a.vocab, kind, ",".join(LEVELS), "hex", path])
    if r.returncode != 0:
        return None
    rows, level = {}, None
    # A vector ends its line; multi-line instructions (switch) have continuation lines.
    vector = re.compile(r"\[((?:\s+-?0x[0-9a-f.]+p[+-]\d+)+)\s+\]$")
    header = re.compile(r"^Level: (" + "|".join(LEVELS) + r")$")
    for line in r.stdout.decode(errors="surrogateescape").splitlines():
        h = header.match(line)
        if h:
            level = h.group(1)
            rows[level] = []
            continue
        m = vector.search(line)
        if m and not line.startswith("Function: "):
            rows[level].append([float.fromhex(x) for x in m.group(1).split()])
    if sorted(rows) != sorted(LEVELS):
        return None
    return {lv: np.array(v, dtype=np.float64).reshape(-1, 75) if v else np.zeros((0, 75))
            for lv, v in rows.items()}


def embed(a, inputs, out, *extra):
    return run([a.ir2vec, "embeddings", "-q", "--vocab", a.vocab, "--format", "hdf5", "-o", out,
                *extra, *inputs])


def test_h5py_equals_llvm(a, res, inputs, d):
    for kind in KINDS:
        # Every level's file first, then each module's rows of every level against one run of
        # the oracle for it (a run per module and level cost a third of the corpus test).
        files = {}
        for level in LEVELS:
            out = os.path.join(d, f"{kind}-{level}.h5")
            r = embed(a, inputs, out, "--kind", kind, "--level", level)
            if res.check(f"h5py {kind} {level}: run", r.returncode == 0, r.stderr[-300:]):
                files[level] = h5py.File(out, "r")
        owners = {}  # level -> the first row of each module's owners, and the table
        for level, f in files.items():
            res.check("schema", f.attrs["schema"] == "ir2vec.embeddings/4" and f.attrs["mode"] == "llvm"
                      and f.attrs["opt_level"] == "none", str(dict(f.attrs)))
            res.check("attributes", f.attrs["kind"] == kind and f.attrs["level"] == level
                      and f.attrs["dimension"] == 75 and f.attrs["method"] == "exact"
                      and f.attrs["arg_weight"] == np.float64(np.float32(0.2))
                      and len(f.attrs["vocab_sha256"]) == 64 and f.attrs["llvm_version"] == "22.1.8",
                      str(dict(f.attrs)))
            table = TABLES[level]
            res.check(f"{table}/embedding dtype", f[f"{table}/embedding"].dtype == np.float64,
                      str(f[f"{table}/embedding"].dtype))
            paths = [p.decode() for p in f["modules/path"][()]]
            res.check("modules/path", paths == inputs, f"{paths[:3]} vs {inputs[:3]}")
            res.check(f"h5py {kind} {level}: module rows", f["modules/embedding"].shape == (len(inputs), 75),
                      str(f["modules/embedding"].shape))
            if level == "module":
                res.check("module level: no function rows", "functions" not in f, str(list(f)))
                continue
            first_fn = np.searchsorted(f["functions/module"][()], np.arange(len(inputs) + 1))
            owners[level] = first_fn if table == "functions" else \
                np.searchsorted(f[f"{table}/function"][()], first_fn)
        bad_modules = {level: [] for level in files}
        for m, path in enumerate(inputs):
            want = oracle_levels(a, kind, path)
            for level, f in files.items():
                if want is None or want["module"].tobytes() != f["modules/embedding"][m:m + 1].tobytes():
                    bad_modules[level].append(os.path.basename(path))
                if level == "module":
                    continue
                got = f[f"{TABLES[level]}/embedding"][owners[level][m]:owners[level][m + 1]]
                res.check(f"h5py {kind} {level} {os.path.basename(path)} equals libLLVM",
                          want is not None and want[level].shape == got.shape and
                          np.array_equal(want[level].view(np.uint64), got.view(np.uint64)),
                          f"shapes {None if want is None else want[level].shape} {got.shape}")
        for level, bad in bad_modules.items():
            res.check(f"h5py {kind} {level}: {len(inputs)} module rows equal libLLVM's sums", not bad, bad[:5])
        for f in files.values():
            f.close()


def test_inputs(a, res, d):
    data = sorted(os.path.join(a.data, f) for f in os.listdir(a.data) if f.endswith(".ll"))
    lst = os.path.join(d, "list.txt")
    with open(lst, "w") as f:
        f.write("# a comment\n\n" + "\n".join(data[:3]) + "\n")
    corpus = os.path.join(d, "corpus")
    os.makedirs(os.path.join(corpus, "sub"))
    mods = ["sub/calls", "types", "sub/eh"]
    for m in mods:
        subprocess.run([a.llvm_as, os.path.join(a.data, os.path.basename(m) + ".ll"), "-o",
                        os.path.join(corpus, m + ".bc")], check=True)
    with open(os.path.join(corpus, "corpus_description.json"), "w") as f:
        json.dump({"modules": mods, "has_thinlto": False}, f)
    # A list takes what an argument takes (issue 37: a corpus description in a list was "an
    # object file without LLVM bitcode"): modules, a directory, a corpus description.
    lst2 = os.path.join(d, "list2.txt")
    with open(lst2, "w") as f:
        f.write(data[0] + "\n" + os.path.join(corpus, "corpus_description.json") + "\n" + a.data + "\n")
    cases = [("directory", [a.data], data),
             ("@list", ["@" + lst], data[:3]),
             ("@list of a module, a corpus description and a directory", ["@" + lst2],
              [data[0]] + [os.path.join(corpus, m + ".bc") for m in mods] + data),
             ("corpus description", [os.path.join(corpus, "corpus_description.json")],
              [os.path.join(corpus, m + ".bc") for m in mods]),
             ("mixed", [data[0], "@" + lst], [data[0]] + data[:3])]
    for name, args, want in cases:
        out = os.path.join(d, "inputs.h5")
        r = embed(a, args, out)
        if res.check(f"inputs {name}: exit 0", r.returncode == 0, r.stderr[-300:]):
            with h5py.File(out) as f:
                got = [p.decode() for p in f["modules/path"][()]]
                res.check(f"inputs {name}: modules in order", got == want, f"{got} vs {want}")


def test_bad_modules(a, res, d, good):
    garbage = os.path.join(d, "garbage.bc")
    with open(garbage, "wb") as f:
        f.write(b"BC\xc0\xde" + bytes(range(256)) * 8)
    bc = run([a.llvm_as, "-o", "-", os.path.join(a.data, "debug.ll")]).stdout
    truncated = os.path.join(d, "truncated.bc")
    with open(truncated, "wb") as f:
        f.write(bc[: len(bc) // 2])
    mixed = good[:len(good) // 2] + [truncated] + good[len(good) // 2:] + [garbage]
    clean, dirty = os.path.join(d, "clean.h5"), os.path.join(d, "dirty.h5")
    embed(a, good, clean, "--level", "bb")
    r = embed(a, mixed, dirty, "--level", "bb")
    err = r.stderr.decode(errors="replace")
    res.check("bad modules: exit 2", r.returncode == 2, f"exit {r.returncode} {err[-300:]}")
    res.check("bad modules: both reported", "truncated.bc" in err and "garbage.bc" in err, err[-400:])
    with h5py.File(dirty) as f, h5py.File(clean) as g:
        errors = [e.decode() for e in f["modules/error"][()]]
        bad_rows = [i for i, e in enumerate(errors) if e]
        res.check("bad modules: recorded in modules/error",
                  bad_rows == [mixed.index(truncated), mixed.index(garbage)], str(bad_rows))
        for t in ["functions/name", "functions/embedding", "blocks/name", "blocks/embedding"]:
            res.check(f"bad modules: no good row lost ({t})", np.array_equal(f[t][()], g[t][()]))
        rows = f["modules/embedding"][()]
        res.check("bad modules: their module rows are NaN", np.isnan(rows[bad_rows]).all())
        good_rows = [i for i in range(len(mixed)) if i not in bad_rows]
        res.check("bad modules: the good modules' rows unchanged",
                  rows[good_rows].tobytes() == g["modules/embedding"][()].tobytes())
    r = run([a.ir2vec, "embeddings", "-q", "--vocab", a.vocab, good[0], garbage, good[1]])
    out = r.stdout.decode(errors="replace")
    res.check("text batch with a bad module: exit 2 and module headers",
              r.returncode == 2 and out.count("Module: ") == 2 and "garbage" not in out, out[:200])
    only_bad = os.path.join(d, "only_bad.h5")
    r = embed(a, [garbage, truncated], only_bad)
    res.check("only bad modules: exit 1, no output", r.returncode == 1 and not os.path.exists(only_bad)
              and not os.path.exists(only_bad + ".partial"), f"exit {r.returncode}")


def test_text_module_level(a, res, d, inputs):
    """`--level module` text: "Module: <path>" (even for one input) and the vector as
    llvm-ir2vec prints vectors, from libLLVM's function vectors summed (oracle_print)."""
    for kind in KINDS:
        want = b"".join(b"Module: " + p.encode() + b"\n" +
                        run([a.oracle_print, a.vocab, kind, "module", "2", p]).stdout.split(b"\n", 1)[1]
                        for p in inputs)
        r = run([a.ir2vec, "embeddings", "-q", "--vocab", a.vocab, "--kind", kind, "--level", "module",
                 "-j", "2", *inputs])
        res.check(f"text --level module {kind}: {len(inputs)} modules equal libLLVM's sums",
                  r.returncode == 0 and r.stdout == want, r.stderr[-300:])
    r = run([a.ir2vec, "embeddings", "-q", "--vocab", a.vocab, "--level", "module", inputs[0]])
    res.check("text --level module, one input: the header too",
              r.stdout.startswith(b"Module: " + inputs[0].encode() + b"\n [ "), r.stdout[:100])


def test_jobs_identical(a, res, d, inputs):
    for kind, level in [("flow-aware", "func"), ("flow-aware", "inst"), ("flow-aware-rd", "inst")]:
        outs = []
        for j in ["1", "4"]:
            out = os.path.join(d, f"j{j}-{kind}-{level}.h5")
            text = ["--inst-text"] if level == "inst" else []
            embed(a, inputs, out, "--level", level, "--kind", kind, *text, "-j", j)
            outs.append(open(out, "rb").read())
        res.check(f"-j1 and -j4 byte-identical HDF5 ({kind}, {level})", outs[0] == outs[1] and len(outs[0]) > 0)
    texts = [run([a.ir2vec, "embeddings", "-q", "--vocab", a.vocab, "--level", "inst", "-j", j, *inputs]).stdout
             for j in ["1", "4"]]
    res.check("-j1 and -j4 byte-identical text", texts[0] == texts[1] and len(texts[0]) > 0)


def test_resume(a, res, d, inputs, name):
    args = ["--level", "inst", "--kind", "flow-aware", "--inst-text", "-j", "1"]
    ref = os.path.join(d, "ref.h5")
    r = embed(a, inputs, ref, *args)
    res.check(f"resume ({name}): reference run", r.returncode == 0, r.stderr[-300:])
    for how in ["SIGKILL", "SIGINT", "damaged checkpoint"]:
        out = os.path.join(d, f"resumed-{how.replace(' ', '_')}.h5")
        state = out + ".resume"
        code, interrupted, _ = harness.interrupt_after_checkpoint(
            [a.ir2vec, "embeddings", "-q", "--vocab", a.vocab, "--format", "hdf5", "-o", out, *args, *inputs],
            out, signal.SIGINT if how == "SIGINT" else signal.SIGKILL)
        res.check(f"resume ({name}, {how}): run was interrupted mid-way", interrupted,
                  f"exit {code}; the run finished before the first checkpoint")
        if not interrupted:
            continue
        if how == "damaged checkpoint":
            st = json.load(open(state))
            st["checksums"][4] = "1234"
            json.dump(st, open(state, "w"))
        r = embed(a, inputs, out, *args, "--resume")
        res.check(f"resume ({name}, {how}): exit 0", r.returncode == 0, r.stderr[-300:])
        res.check(f"resume ({name}, {how}): no state left",
                  not os.path.exists(state) and not os.path.exists(out + ".partial"))
        if os.path.exists(out):
            with h5py.File(out) as f, h5py.File(ref) as g:
                diff = same_content(f, g)
                res.check(f"resume ({name}, {how}): same content as an uninterrupted run", diff is None, diff)
    # Resuming says so; a damaged checkpoint says it starts over.
    out = os.path.join(d, "resume-msg.h5")
    code, interrupted, _ = harness.interrupt_after_checkpoint(
        [a.ir2vec, "embeddings", "--vocab", a.vocab, "-q", "--format", "hdf5", "-o", out, *args, *inputs], out)
    if not res.check(f"resume ({name}): a run killed after a checkpoint", interrupted, f"exit {code}"):
        return
    r = run([a.ir2vec, "embeddings", "--vocab", a.vocab, "--format", "hdf5", "-o", out, *args, "--resume",
             *inputs])
    res.check(f"resume ({name}): reports where it resumed", b"resumed after" in r.stderr, r.stderr[-200:])


def test_resume_settings(a, res, d, inputs):
    """Every setting that changes a vector is recorded in the file and compared on resume (issue
    37: a resumed run with another setting kept the first part's rows): the state names the
    setting that differs and the run starts over, giving the rows of the new setting."""
    args = ["--level", "bb", "-j", "1"]
    out = os.path.join(d, "settings.h5")
    code, interrupted, _ = harness.interrupt_after_checkpoint(
        [a.ir2vec, "embeddings", "-q", "--vocab", a.vocab, "--format", "hdf5", "-o", out, *args, *inputs], out)
    if not res.check("resume settings: a run interrupted after a checkpoint", interrupted, f"exit {code}"):
        return
    keep = {x: open(out + x, "rb").read() for x in (".partial", ".resume")}
    # Interrupted by Ctrl-C after a checkpoint, a run says where its work is and how to go on.
    told = os.path.join(d, "told.h5")
    code, interrupted, err = harness.interrupt_after_checkpoint(
        [a.ir2vec, "embeddings", "-q", "--vocab", a.vocab, "--format", "hdf5", "-o", told, *args, *inputs], told,
        signal.SIGINT)
    res.check("Ctrl-C after a checkpoint: the run says the partial file keeps the work and --resume continues it",
              interrupted and re.search(rb"interrupted: \S+told.h5.partial keeps the first \d+ modules; the same "
                                        rb"command with --resume continues from there", err) is not None,
              f"exit {code}: " + err[-300:].decode(errors="replace"))
    other_vocab = os.path.join(d, "other-vocab.json")
    v = json.load(open(a.vocab))
    v["Opcodes"] = {k: [x * 3 for x in vec] for k, vec in v["Opcodes"].items()}
    json.dump(v, open(other_vocab, "w"))
    changes = [("kind", ["--kind", "flow-aware"], "flow-aware"), ("opt_level", ["--opt-level", "O2"], "O2"),
               ("opc_weight", ["--ir2vec-opc-weight", "0.5"], 0.5), ("type_weight", ["--ir2vec-type-weight", "1"], 1.0),
               ("arg_weight", ["--ir2vec-arg-weight", "2"], 2.0), ("vocab_sha256", ["--vocab", other_vocab], None),
               ("level", ["--level", "func"], "func")]
    for name, extra, value in changes:
        if os.path.exists(out):
            os.remove(out)
        for x, b in keep.items():
            open(out + x, "wb").write(b)
        base = list(args)
        if extra[0] in base:  # the option replaces the run's own
            del base[base.index(extra[0]):base.index(extra[0]) + 2]
        vocab = [] if extra[0] == "--vocab" else ["--vocab", a.vocab]
        r = run([a.ir2vec, "embeddings", *vocab, "--format", "hdf5", "-o", out, *base, *extra, "--resume", *inputs])
        ok = r.returncode == 1 and f"{out}.resume: cannot resume: the interrupted run had {name} ".encode() in r.stderr \
            and all(open(out + x, "rb").read() == b for x, b in keep.items()) and not os.path.exists(out)
        if ok:
            r = run([a.ir2vec, "embeddings", *vocab, "--format", "hdf5", "-o", out, *base, *extra, *inputs])
            ref = os.path.join(d, "settings-ref.h5")
            run([a.ir2vec, "embeddings", "-q", *vocab, "--format", "hdf5", "-o", ref, *base, *extra, *inputs], check=True)
            with h5py.File(out) as f, h5py.File(ref) as g:
                diff = same_content(f, g)
                ok = r.returncode == 0 and diff is None and (value is None or f.attrs[name] == value)
        res.check(f"--resume with another {name}: refused by name, the partial and its state kept byte for byte; "
                  "without --resume = a run with it", ok, r.stderr[-400:])


def test_counts(a, res, d, inputs):
    exact, counts, fromc = (os.path.join(d, x) for x in ["exact.h5", "counts.h5", "fromc.h5"])
    embed(a, inputs, exact, "--level", "inst")
    r = run([a.ir2vec, "embeddings", "-q", "--counts", "--format", "hdf5", "--level", "inst", "-o", counts, *inputs])
    res.check("counts: exit 0", r.returncode == 0, r.stderr[-300:])
    r = run([a.ir2vec, "from-counts", "-q", "--vocab", a.vocab, "-o", fromc, counts])
    res.check("from-counts: exit 0", r.returncode == 0, r.stderr[-300:])
    with h5py.File(counts) as c, h5py.File(exact) as e, h5py.File(fromc) as x:
        res.check("counts: schema and columns", c.attrs["schema"] == "ir2vec.counts/4" and c.attrs["mode"] == "llvm" and
                  c["entities/name"].shape == (110,) and c["functions/counts"].shape[1] == 110)
        fc, mc = c["functions/counts"][()], c["modules/counts"][()]
        sums = np.stack([fc[c["functions/module"][()] == m].sum(axis=0) for m in range(len(mc))])
        res.check("counts: module rows are the sums of their function rows (integers, exact)",
                  mc.tobytes() == sums.tobytes())
        cnt = c["instructions/counts"][()]
        res.check("counts: integer-valued", np.array_equal(cnt, np.round(cnt)) and cnt.min() >= 0)
        res.check("from-counts: method attribute", x.attrs["method"] == "counts")
        worst = 0.0
        for t in ["modules", "functions", "blocks", "instructions"]:
            p, q = e[f"{t}/embedding"][()], x[f"{t}/embedding"][()]
            norm = np.abs(p).max(axis=1)
            diff = np.abs(p - q).max(axis=1)
            ok = norm > 0
            res.check(f"from-counts {t}: zero rows stay zero", np.all(diff[~ok] == 0))
            if ok.any():
                worst = max(worst, float((diff[ok] / norm[ok]).max()))
        res.check(f"from-counts: within 1e-12 relative of exact (worst {worst:.3g})", worst <= 1e-12)
        print(f"counts x vocabulary: worst relative difference {worst:.3g}")
    # A version 1 counts file (what earlier versions wrote: no modules/counts) and a version 2
    # one (no mode attribute: LLVM IR's) are still read, and from-counts gives the current file,
    # module rows included, bit for bit.
    for version in (1, 2):
        old, fromold = os.path.join(d, f"counts-v{version}.h5"), os.path.join(d, f"fromold{version}.h5")
        with open(counts, "rb") as src, open(old, "wb") as dst:
            dst.write(src.read())
        with h5py.File(old, "r+") as f:
            if version == 1:
                del f["modules/counts"]
            del f.attrs["mode"]
            f.attrs["schema"] = f"ir2vec.counts/{version}"
        r = run([a.ir2vec, "from-counts", "-q", "--vocab", a.vocab, "-o", fromold, old])
        res.check(f"from-counts of a version {version} file: exit 0", r.returncode == 0, r.stderr[-300:])
        if r.returncode == 0:
            with h5py.File(fromold) as f, h5py.File(fromc) as g:
                res.check(f"from-counts of a version {version} file: the same file as from version 3",
                          same_content(f, g) is None, same_content(f, g))


def test_progress(a, res, d, inputs):
    out = os.path.join(d, "progress.h5")
    cmd = [a.ir2vec, "embeddings", "--vocab", a.vocab, "--format", "hdf5", "-o", out, "--level", "inst", *inputs]
    r = run(cmd)
    res.check("no progress line in a pipe", b"ETA" not in r.stderr, r.stderr[-200:])
    # `script` gives the command a terminal.
    r = run(["script", "-qec", " ".join(f"'{c}'" for c in cmd), "/dev/null"])
    res.check("progress line on a terminal", b"modules " in r.stdout and b"/s" in r.stdout and b"ETA" in r.stdout,
              r.stdout[-200:])
    r = run(["script", "-qec", " ".join(f"'{c}'" for c in cmd + ["--quiet"]), "/dev/null"])
    res.check("--quiet silences the progress line", b"ETA" not in r.stdout, r.stdout[-200:])
    # A log (standard error not a terminal) gets a plain line now and then: every 30 s, here
    # every 10 ms (IR2VEC_PROGRESS_SECONDS) so that a short run shows some (issue 37).
    env = dict(os.environ, IR2VEC_PROGRESS_SECONDS="0.01")
    r = run(cmd, env=env)
    lines = [l for l in r.stderr.decode().splitlines() if l.startswith("progress: ")]
    res.check("a log gets plain progress lines (count, percentage, rate, ETA), no carriage returns",
              r.returncode == 0 and lines and all(re.match(r"progress: modules \d+/\d+ \(\d+%\)  [0-9.]+/s  ETA ", l)
                                                  for l in lines) and b"\r" not in r.stderr, r.stderr[-300:])
    r = run(cmd + ["-q"], env=env)
    res.check("-q silences the log's progress lines", b"progress:" not in r.stderr, r.stderr[-200:])


def test_small_files(a, res, d, inputs):
    """HDF5 allocates whole chunks: a small run's file is small (issue 37: a 7-module file at
    module level took 541 KB), and a large run keeps its ~256 KiB chunks of vectors."""
    small = os.path.join(d, "small.h5")
    embed(a, inputs[:7], small, "--level", "module")
    res.check(f"a 7-module file at module level is small ({os.path.getsize(small)} bytes)",
              os.path.getsize(small) < 64 * 1024, os.path.getsize(small))
    with h5py.File(small) as f:
        res.check("its module rows: 7, chunked by 16 rows", f["modules/embedding"].shape == (7, 75)
                  and f["modules/embedding"].chunks == (16, 75), f["modules/embedding"].chunks)
    big = os.path.join(d, "big.h5")
    embed(a, inputs * 150, big, "--level", "func")
    with h5py.File(big) as f:
        res.check("a large run's vectors keep ~256 KiB chunks", f["functions/embedding"].chunks == (436, 75),
                  f["functions/embedding"].chunks)


def test_usage(a, res, d, inputs):
    for name, args in [("--counts without hdf5", ["--counts"]), ("hdf5 without -o", ["--format", "hdf5"]),
                       ("--resume with text", ["--resume"]), ("--inst-text at func level", ["--format", "hdf5", "-o",
                        os.path.join(d, "u.h5"), "--inst-text"]),
                       ("--function at module level", ["--level", "module", "--function", "main"])]:
        r = run([a.ir2vec, "embeddings", "-q", "--vocab", a.vocab, *args, inputs[0]])
        res.check(f"usage error {name}: exit 1", r.returncode == 1, f"exit {r.returncode}")


def main():
    ap = argparse.ArgumentParser()
    for opt in ["--ir2vec", "--oracle-print", "--llvm-bindir", "--vocab", "--data"]:
        ap.add_argument(opt, required=True)
    ap.add_argument("--corpus-list")
    ap.add_argument("--shard", help="K/N: every N-th module of the corpus list, from the K-th")
    a = ap.parse_args()
    a.llvm_as = os.path.join(a.llvm_bindir, "llvm-as")
    res = Results()
    data = sorted(os.path.join(a.data, f) for f in os.listdir(a.data) if f.endswith(".ll"))
    with tempfile.TemporaryDirectory() as d:
        if a.corpus_list:
            corpus = [l.strip() for l in open(a.corpus_list) if l.strip()]
            if a.shard:  # every N-th module, from the K-th: the halves of one run
                k, n = map(int, a.shard.split("/"))
                corpus = corpus[k - 1::n]
            if len(corpus) < 40:  # a half of the sample of 91 or more
                print(f"corpus list has only {len(corpus)} modules")
                return 1
            test_h5py_equals_llvm(a, res, corpus, d)
            test_text_module_level(a, res, d, corpus)
            test_bad_modules(a, res, d, corpus)
            # Twice over: a checkpoint comes every 64 modules, and a half of the sample has 45.
            test_resume(a, res, d, corpus * 2, "corpus, twice over")
            test_counts(a, res, d, corpus)
        else:
            test_h5py_equals_llvm(a, res, data, d)
            test_text_module_level(a, res, d, data)
            test_inputs(a, res, d)
            test_bad_modules(a, res, d, data)
            test_jobs_identical(a, res, d, data * 4)
            test_resume(a, res, d, data * 150, "test data x150")
            test_resume_settings(a, res, d, data * 150)
            test_counts(a, res, d, data)
            test_progress(a, res, d, data * 40)
            test_small_files(a, res, d, data)
            test_usage(a, res, d, data)
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
