"""The workbench's own calls: embed/counts arrays equal the CLI's HDF5 file bit for bit (h5py
reads it), embed_iter equals embed, vocabularies as the CLI sees them, failures recorded or
raised with the file named, another Python thread runs meanwhile, Ctrl-C stops a long call."""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import h5py
import numpy as np
import pytest

import ir2vec


def modules(opts):
    d = opts["data"]
    return [os.path.join(d, n) for n in sorted(os.listdir(d))
            if n.endswith(".ll") and not n.startswith("bad") and n != "empty.ll"]


def cli_h5(opts, tmp_path, inputs, *args):
    out = tmp_path / f"cli-{len(os.listdir(tmp_path))}.h5"
    subprocess.run([opts["ir2vec"], "embeddings", "-q", "--format", "hdf5", "-o", str(out), *args,
                    *inputs], check=False, capture_output=True)
    return h5py.File(out, "r")


def strs(values):
    return [os.fsencode(v) for v in values]


def assert_same_as_file(got, f, data):
    """Every dataset of the file, and every attribute, equal to the arrays of got."""
    assert strs(got.modules.path) == list(f["modules/path"][()])
    assert strs(got.modules.error) == list(f["modules/error"][()])
    mine, theirs = getattr(got.modules, data), f[f"modules/{data}"][()]
    assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
    assert mine.tobytes() == theirs.tobytes()  # NaN rows of failed modules included
    groups = {"functions": ["name", "module", data], "blocks": ["name", "function", data],
              "instructions": ["opcode", "function", "block", "text", data]}
    for g, names in groups.items():
        ours = getattr(got, g)
        assert (ours is None) == (g not in f), g
        if ours is None:
            continue
        for n in names:
            mine = getattr(ours, n)
            if f"{g}/{n}" not in f:
                assert mine is None, (g, n)
                continue
            theirs = f[f"{g}/{n}"][()]
            if theirs.dtype.kind == "O":
                assert strs(mine) == list(theirs), (g, n)
            else:
                assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, (g, n)
                assert mine.tobytes() == theirs.tobytes(), (g, n)
    assert [n.encode() for n in got.entities.name] == list(f["entities/name"][()])
    for k, v in f.attrs.items():
        v = v.decode() if isinstance(v, bytes) else v
        assert got.attrs[k] == v, k


@pytest.mark.parametrize("kind", ["symbolic", "flow-aware", "flow-aware-rd"])
@pytest.mark.parametrize("level", ["module", "func", "bb", "inst"])
def test_embed_equals_the_hdf5_file(opts, tmp_path, kind, level):
    inputs = modules(opts) * 3
    text = level == "inst"
    f = cli_h5(opts, tmp_path, inputs, "--vocab", opts["vocab"], "--kind", kind, "--level", level,
               "-j", "2", *(["--inst-text"] if text else []))
    got = ir2vec.embed(inputs, vocab=opts["vocab"], kind=kind, level=level, jobs=2,
                       instruction_text=text)
    assert_same_as_file(got, f, "embedding")
    assert got.modules.embedding.shape == (len(inputs), 75)
    if level == "module":
        assert got.functions is None
    else:
        assert got.functions.embedding.shape[0] > 50


@pytest.mark.parametrize("level", ["module", "func", "inst"])
def test_counts_equal_the_counts_file(opts, tmp_path, level):
    inputs = modules(opts)
    f = cli_h5(opts, tmp_path, inputs, "--counts", "--level", level)
    got = ir2vec.counts(inputs, level=level, jobs=2)
    assert_same_as_file(got, f, "counts")


@pytest.mark.parametrize("kind", ["flow-aware", "flow-aware-rd"])
def test_counts_of_the_flow_kinds_rebuild_their_embeddings(opts, tmp_path, kind):
    """Both flow kinds are linear in the vocabulary (their weights and damping are not the
    vocabulary's): counts are each entity's coefficient, and counts @ V is the embedding; the
    CLI's counts file and from-counts give the same."""
    inputs = modules(opts)
    c = ir2vec.counts(inputs, kind=kind)
    assert c.attrs["kind"] == kind
    assert_same_as_file(c, cli_h5(opts, tmp_path, inputs, "--counts", "--kind", kind), "counts")
    e = ir2vec.embed(inputs, vocab=opts["vocab"], kind=kind)
    v = ir2vec.Vocabulary(opts["vocab"]).matrix
    rebuilt = c.functions.counts @ v
    assert np.abs(rebuilt - e.functions.embedding).max() <= 1e-12 * np.abs(e.functions.embedding).max()
    counts_file, out = tmp_path / "c.h5", tmp_path / "fc.h5"
    subprocess.run([opts["ir2vec"], "embeddings", "-q", "--counts", "--kind", kind, "--format", "hdf5",
                    "-o", str(counts_file), *inputs], check=True)
    subprocess.run([opts["ir2vec"], "from-counts", "-q", str(counts_file), "--vocab", opts["vocab"],
                    "-o", str(out)], check=True)
    with h5py.File(out, "r") as f:
        assert f.attrs["kind"] == kind
        got = f["functions/embedding"][:]
    assert np.abs(got - e.functions.embedding).max() <= 1e-12 * np.abs(e.functions.embedding).max()


@pytest.mark.parametrize("opt", ["O0", "O2", "Oz"])
def test_opt_level_equals_the_cli(opts, tmp_path, opt):
    """opt_level runs the pipeline `embeddings --opt-level` runs (which tests/cli_test.py compares
    with llvm-ir2vec on opt-22's output); the level is recorded."""
    inputs = modules(opts)
    f = cli_h5(opts, tmp_path, inputs, "--vocab", opts["vocab"], "--level", "bb", "--opt-level", opt)
    got = ir2vec.embed(inputs, vocab=opts["vocab"], level="bb", opt_level=opt)
    assert_same_as_file(got, f, "embedding")
    assert got.attrs["opt_level"] == opt
    plain = ir2vec.embed(inputs, vocab=opts["vocab"], level="bb")
    assert plain.attrs["opt_level"] == "none"
    if opt == "O2":
        assert plain.blocks.embedding.shape != got.blocks.embedding.shape  # the pipeline ran
        f = cli_h5(opts, tmp_path, inputs, "--counts", "--opt-level", opt)
        assert_same_as_file(ir2vec.counts(inputs, opt_level=opt), f, "counts")
        streamed = [m.functions.embedding for m in ir2vec.embed_iter(inputs, vocab=opts["vocab"], opt_level=opt)]
        whole = ir2vec.embed(inputs, vocab=opts["vocab"], opt_level=opt)
        assert np.array_equal(np.concatenate(streamed), whole.functions.embedding)
    with pytest.raises(ValueError, match="O4"):
        ir2vec.embed(inputs, opt_level="O4")


def test_embed_iter_yields_embed_module_by_module(opts):
    inputs = modules(opts)
    whole = ir2vec.embed(inputs, vocab=opts["vocab"], level="bb", jobs=2)
    parts = list(ir2vec.embed_iter(inputs, vocab=opts["vocab"], level="bb", jobs=2))
    assert [p.index for p in parts] == list(range(len(inputs)))
    assert [p.modules.path[0] for p in parts] == whole.modules.path
    assert np.concatenate([p.functions.embedding for p in parts]).tobytes() == \
        whole.functions.embedding.tobytes()
    assert np.concatenate([p.blocks.embedding for p in parts]).tobytes() == \
        whole.blocks.embedding.tobytes()
    assert all((p.functions.module == 0).all() for p in parts)
    assert np.concatenate([p.modules.embedding for p in parts]).tobytes() == \
        whole.modules.embedding.tobytes()
    top = list(ir2vec.embed_iter(inputs, vocab=opts["vocab"], level="module"))
    assert all(p.functions is None and p.modules.embedding.shape == (1, 75) for p in top)
    assert np.concatenate([p.modules.embedding for p in top]).tobytes() == \
        whole.modules.embedding.tobytes()
    # Leaving early stops the run.
    stream = ir2vec.embed_iter(inputs * 50, vocab=opts["vocab"], jobs=2)
    next(stream)
    stream.close()


def test_failed_modules_are_recorded_and_all_failed_raises(opts, tmp_path):
    bad = tmp_path / "bad.ll"
    bad.write_text("define i32 @f() {\n  ret i64 0\n}\n")
    good = modules(opts)[:2]
    with pytest.warns(UserWarning, match="1 of 3 modules failed"):
        got = ir2vec.embed([good[0], str(bad), good[1]], vocab=opts["vocab"])
    assert got.modules.error[0] == "" and got.modules.error[2] == ""
    assert "bad.ll" in got.modules.error[1]
    assert set(got.functions.module) <= {0, 2}
    # Module rows: NaN for the failed module, the in-order sum of the function rows otherwise.
    assert np.isnan(got.modules.embedding[1]).all()
    for m in (0, 2):
        want = np.zeros(75)
        for row in got.functions.embedding[got.functions.module == m]:
            want = want + row
        assert got.modules.embedding[m].tobytes() == want.tobytes()
    with pytest.raises(ValueError, match="bad.ll"):
        ir2vec.embed(str(bad), vocab=opts["vocab"])
    with pytest.raises(ValueError, match="missing.ll"):
        ir2vec.embed(str(tmp_path / "missing.ll"))
    with pytest.raises(ValueError, match="level"):
        ir2vec.embed(good, level="module-ish")
    with pytest.raises(ValueError, match="kind"):
        ir2vec.embed(good, kind="sym")
    with pytest.raises(ValueError):
        ir2vec.embed(good, jobs=0)
    # Time limits as the command line takes them: finite, 0 or more (issue 37: -1 and nan ran).
    for bad_limit in (-1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="module_time_limit"):
            ir2vec.embed(good, module_time_limit=bad_limit)
        with pytest.raises(ValueError, match="module_time_limit"):
            ir2vec.counts(good, module_time_limit=bad_limit)
    # function=: that function's rows only, as `--function`; a name no module defines is an error.
    name = ir2vec.initEmbedding(filename=good[0]).getFuncNames()[0]
    one = ir2vec.embed(good, vocab=opts["vocab"], function=name)
    assert one.functions.name[0] == name and set(one.functions.name) == {name}
    with pytest.raises(ValueError, match="function 'no_such_fn' not found in any of the 2 inputs"):
        ir2vec.embed(good, function="no_such_fn")
    with pytest.raises(ValueError, match="does not go with level='module'"):
        ir2vec.embed(good, function=name, level="module")


def test_vocabulary(opts, tmp_path):
    seed = ir2vec.Vocabulary(opts["vocab"])
    entities = subprocess.run([opts["ir2vec"], "entities"], capture_output=True, text=True,
                              check=True).stdout.splitlines()[1:]
    assert seed.entities == [e.split("\t")[0] for e in entities]
    assert seed.dimension == 75 and seed.matrix.shape == (110, 75)
    assert seed.weights == (1.0, 0.5, np.float32(0.2).item())
    # Weighted rows: value * (double)weight, as LLVM applies them.
    w = np.array([1.0] * 68 + [0.5] * 12 + [np.float32(0.2).item()] * 30)
    assert (seed.matrix == seed.unweighted * w[:, None]).all()
    out = tmp_path / "seed.h5"
    seed.export(out)
    again = ir2vec.Vocabulary(out)
    assert again.unweighted.tobytes() == seed.unweighted.tobytes()
    default = ir2vec.Vocabulary()
    assert default.source == "<default vocabulary>" and default.relations is None  # JSON
    with pytest.raises(ValueError, match="nothere.json"):
        ir2vec.Vocabulary(tmp_path / "nothere.json")
    # A Vocabulary object serves many calls.
    a = ir2vec.embed(modules(opts), vocab=seed)
    b = ir2vec.embed(modules(opts), vocab=opts["vocab"])
    assert a.functions.embedding.tobytes() == b.functions.embedding.tobytes()


def test_another_thread_runs_meanwhile(opts):
    ticks, stop = [0], threading.Event()

    def count():
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    t0 = time.time()
    ir2vec.embed(modules(opts) * 150, vocab=opts["vocab"], level="inst", jobs=1)
    elapsed = time.time() - t0
    stop.set()
    t.join()
    # With the GIL held for the whole call the other thread would not run at all.
    assert elapsed > 0.2 and ticks[0] > 50, (elapsed, ticks[0])


def test_ctrl_c_interrupts_a_long_call(opts):
    script = textwrap.dedent(f"""
        import sys, time, ir2vec
        inputs = {modules(opts)!r} * 5000
        print("start", flush=True)
        try:
            ir2vec.embed(inputs, vocab={opts['vocab']!r}, level="inst", jobs=2)
            print("finished")
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ))
    assert p.stdout.readline().strip() == "start"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert out.strip() == "interrupted" and p.returncode == 0, (out, p.returncode)


def test_from_counts_equals_the_cli(opts, tmp_path):
    inputs = modules(opts)
    counts_file, emb_file = tmp_path / "c.h5", tmp_path / "e.h5"
    subprocess.run([opts["ir2vec"], "embeddings", "-q", "--counts", "--format", "hdf5", "--level",
                    "bb", "-o", str(counts_file), *inputs], check=True)
    subprocess.run([opts["ir2vec"], "from-counts", "-q", "--vocab", opts["vocab"], "-o",
                    str(emb_file), str(counts_file)], check=True)
    c = ir2vec.counts(inputs, level="bb")
    f = h5py.File(emb_file, "r")
    for group in ("functions", "blocks"):
        got = ir2vec.from_counts(getattr(c, group).counts, vocab=opts["vocab"])
        assert got.tobytes() == f[f"{group}/embedding"][()].tobytes(), group
    with pytest.raises(ValueError, match="110"):
        ir2vec.from_counts(np.zeros((3, 75)))
    with pytest.raises(ValueError, match="110"):
        ir2vec.from_counts(np.zeros(110))


def test_triplets_equal_llvm_ir2vec(opts):
    for path in modules(opts):
        rows, max_rel = ir2vec.triplets(path)
        ref = subprocess.run(["/usr/lib/llvm-22/bin/llvm-ir2vec", "triplets", path],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        assert ref[0] == f"MAX_RELATION={max_rel}", path
        assert rows.dtype == np.int64 and rows.shape == (len(ref) - 1, 3), path
        assert [tuple(map(int, l.split("\t"))) for l in ref[1:]] == [tuple(r) for r in rows.tolist()]
    with pytest.raises(ValueError, match="nothere.ll"):
        ir2vec.triplets(os.path.join(opts["data"], "nothere.ll"))
