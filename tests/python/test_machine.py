"""Machine IR from Python (mode="mir", issue 26): embed and embed_iter equal the file
`ir2vec embeddings --mode=mir --format hdf5` writes (whose rows tests/mir_test.py compares with
libLLVM's MIR2Vec), and initEmbedding(mode="mir") gives those rows through LLVM's API."""
import os
import subprocess

import h5py
import numpy as np
import pytest

import ir2vec

LEVELS = ["module", "func", "bb", "inst"]


@pytest.fixture(scope="module")
def inputs(opts):
    return [os.path.join(opts["data"], n) for n in ("calls.ll", "debug.ll", "eh.ll")]


def cli_file(opts, tmp_path, level, inputs, *extra):
    out = str(tmp_path / f"mir-{level}.h5")
    text = ["--inst-text"] if level == "inst" else []
    subprocess.run([opts["ir2vec"], "embeddings", "--mode=mir", "-q", "--format", "hdf5", "--level", level,
                    *text, *extra, "-o", out, *inputs], check=True)
    return out


@pytest.mark.parametrize("level", LEVELS)
def test_embed_mir_equals_the_hdf5_file(opts, tmp_path, inputs, level):
    got = ir2vec.embed(inputs, mode="mir", level=level, jobs=2, instruction_text=level == "inst")
    with h5py.File(cli_file(opts, tmp_path, level, inputs)) as f:
        assert dict(got.attrs) == {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
        assert got.attrs["mode"] == "mir" and got.attrs["target"].startswith("x86_64")
        for group in ("modules", "functions", "blocks", "instructions"):
            if group not in f:
                assert getattr(got, group) is None
                continue
            for name, ds in f[group].items():
                mine = getattr(getattr(got, group), name)
                want = ds[()]
                if want.dtype.kind == "O":
                    assert [x.decode() if isinstance(x, bytes) else x for x in want] == list(mine), (group, name)
                else:
                    assert np.array_equal(mine, want, equal_nan=True) and mine.dtype == want.dtype, (group, name)
        assert list(got.entities.name) == [x.decode() for x in f["entities/name"][()]]


def test_embed_iter_mir(inputs):
    whole = ir2vec.embed(inputs, mode="mir", level="bb")
    rows = [m.functions.embedding for m in ir2vec.embed_iter(inputs, mode="mir", level="bb")]
    assert np.array_equal(np.concatenate(rows), whole.functions.embedding)


def test_init_embedding_mir(inputs):
    path = inputs[0]
    tool = ir2vec.initEmbedding(path, mode="mir")
    rows = ir2vec.embed([path], mode="mir", level="inst", instruction_text=True)
    names = list(rows.functions.name)
    assert tool.getFuncNames() == names
    for i, name in enumerate(names):
        assert np.array_equal(tool.getFuncEmb(name), rows.functions.embedding[i])
        assert np.array_equal(tool.getFuncEmbMap()[name], rows.functions.embedding[i])
        blocks = {n: rows.blocks.embedding[b] for b, n in enumerate(rows.blocks.name) if rows.blocks.function[b] == i}
        got = tool.getBBEmbMap(name)
        assert got.keys() == blocks.keys() and all(np.array_equal(got[k], blocks[k]) for k in blocks)
        insts = {t: rows.instructions.embedding[j] for j, t in enumerate(rows.instructions.text)
                 if rows.instructions.function[j] == i}
        got = tool.getInstEmbMap(name)
        assert got.keys() == insts.keys() and all(np.array_equal(got[k], insts[k]) for k in insts)
    assert np.array_equal(tool.getModuleEmb(), rows.modules.embedding[0])
    with pytest.raises(ValueError, match="nosuch"):
        tool.getFuncEmb("nosuch")


def test_mir_refusals(inputs, tmp_path):
    with pytest.raises(ValueError, match="counts"):
        ir2vec.embed_iter(inputs, mode="mir", counts=True)
    with pytest.raises(ValueError, match="symbolic"):
        ir2vec.embed(inputs, mode="mir", kind="flow-aware")
    with pytest.raises(ValueError, match="late"):
        ir2vec.embed(inputs, mode="mir", mir_stage="late")
    with pytest.raises(ValueError, match="no default MIR vocabulary for aarch64"):
        ir2vec.embed(inputs, mode="mir", mtriple="aarch64-linux-gnu")
    with pytest.raises(ValueError, match="mode"):
        ir2vec.embed(inputs, mode="machine")
    with pytest.raises(ValueError):
        ir2vec.initEmbedding(str(tmp_path / "missing.ll"), mode="mir")


def test_python_names_and_paths(inputs, tmp_path):
    """Messages name the Python arguments, not the command line's options; file names that are
    not UTF-8 work as in IR mode (issue 37: UnicodeDecodeError, and ValueError('') when missing)."""
    with pytest.raises(ValueError, match="name one with vocab$") as e:
        ir2vec.embed(inputs, mode="mir", mtriple="aarch64-linux-gnu")
    assert "--" not in str(e.value)
    with pytest.raises(ValueError, match="vocabPath is empty") as e:
        ir2vec.initEmbedding(inputs[0], mode="mir", vocabPath="")
    odd = os.path.join(str(tmp_path), os.fsdecode(b"caf\xe9.ll"))
    import shutil
    shutil.copy(inputs[0], odd)
    got = ir2vec.embed([odd], mode="mir", level="func")
    assert got.modules.path == [odd] and got.functions.embedding.shape[0] > 0
    tool = ir2vec.initEmbedding(odd, mode="mir")
    assert tool.getFuncNames() == list(got.functions.name)
    missing = os.path.join(str(tmp_path), os.fsdecode(b"miss\xe9.ll"))
    for call in (lambda: ir2vec.embed([missing], mode="mir"), lambda: ir2vec.initEmbedding(missing, mode="mir"),
                 lambda: ir2vec.embed([odd], mode="mir", vocab=missing)):
        with pytest.raises(ValueError) as e:
            call()
        assert os.fsdecode(b"miss\xe9.ll") in str(e.value)
    # No warning per module for registers without a class (LLVM's later behaviour).
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ir2vec.embed(inputs, mode="mir", level="inst")


def test_target_options_as_the_cli(opts, tmp_path, inputs):
    """mcpu and mattr as the command line's --mcpu and --mattr (the new-user try of issue 37)."""
    ll = [p for p in inputs if p.endswith(".ll")]
    got = ir2vec.embed(ll, mode="mir", level="func", mattr="+avx2", mcpu="skylake")
    with h5py.File(cli_file(opts, tmp_path, "func", ll, "--mattr=+avx2", "--mcpu", "skylake")) as f:
        assert got.functions.embedding.tobytes() == f["functions/embedding"][()].tobytes()
        assert got.attrs["mattr"] == "+avx2" and got.attrs["mcpu"] == "skylake" == f.attrs["mcpu"]
    with pytest.raises(ValueError, match="notacpu"):
        ir2vec.embed(ll, mode="mir", mcpu="notacpu")


def test_threads_at_different_stages(inputs):
    """LLVM's stop option is process-wide: threads embedding at different stages must each get
    their own stage's vectors (issue 37: a thread got the other's stage in 5 of 10 calls)."""
    import threading
    stages = ("isel", "post-ra", "pre-ra")
    alone = {s: ir2vec.embed(inputs, mode="mir", mir_stage=s, level="bb").blocks.embedding for s in stages}
    assert not np.array_equal(alone["isel"], alone["post-ra"])  # else the test could not fail
    got, errors = {s: [] for s in stages}, []

    def work(stage):
        try:
            for i in range(8):
                if i % 2:
                    got[stage].append(ir2vec.embed(inputs, mode="mir", mir_stage=stage, level="bb", jobs=2)
                                      .blocks.embedding)
                else:  # a generator held open across modules must not hold the stage either
                    got[stage].append(np.concatenate([m.blocks.embedding for m in ir2vec.embed_iter(
                        inputs, mode="mir", mir_stage=stage, level="bb")]))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in stages for _ in range(2)]
    for t in threads:
        t.start()
    # A generator paused in this thread at one stage while the others run at theirs.
    paused = ir2vec.embed_iter(inputs, mode="mir", mir_stage="isel", level="bb")
    first = next(paused)
    for t in threads:
        t.join()
    rest = [m.blocks.embedding for m in paused]
    assert np.array_equal(np.concatenate([first.blocks.embedding, *rest]), alone["isel"])
    assert not errors, errors
    for s in stages:
        assert len(got[s]) == 16
        wrong = sum(not np.array_equal(g, alone[s]) for g in got[s])
        assert wrong == 0, f"{wrong} of 16 calls at {s} got other vectors"
