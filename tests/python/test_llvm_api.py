"""LLVM's Python API (../shared/docs/python-api-peers.md) on LLVM 22: every call against
libLLVM-22's own Embedder (oracle_print, exact doubles) on every test module, kind and level;
every ValueError case; keywords and types."""
import os
import pathlib
import subprocess
import warnings

import numpy as np
import pytest

import ir2vec
from conftest import oracle, oracle_module

KINDS = [("sym", "symbolic"), ("fa", "flow-aware")]


def modules(opts):
    d = opts["data"]
    return [os.path.join(d, n) for n in sorted(os.listdir(d))
            if n.endswith(".ll") and not n.startswith("bad") and n != "empty.ll"]


def same(vec, ref):
    """Bit for bit, float64, one dimension."""
    return (isinstance(vec, np.ndarray) and vec.dtype == np.float64 and vec.ndim == 1
            and vec.tobytes() == np.array(ref, dtype=np.float64).tobytes())


@pytest.mark.parametrize("mode,kind", KINDS)
def test_functions_equal_libllvm(opts, mode, kind):
    checked = 0
    for path in modules(opts):
        ref = oracle(opts, opts["vocab"], kind, "func", path)
        tool = ir2vec.initEmbedding(filename=path, mode=mode, vocabPath=opts["vocab"])
        assert tool.getFuncNames() == list(ref), path
        got = tool.getFuncEmbMap()
        assert isinstance(got, dict) and list(got) == list(ref), path
        for name, vec in ref.items():
            assert same(got[name], vec), (path, name)
            if name == "":
                # Unnamed functions cannot be looked up by name (Module::getFunction("")).
                raises("Function '' not found", tool.getFuncEmb, funcName=name)
                continue
            assert same(tool.getFuncEmb(funcName=name), vec), (path, name)
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("mode,kind", KINDS)
@pytest.mark.parametrize("level", ["bb", "inst"])
def test_blocks_and_instructions_equal_libllvm(opts, mode, kind, level):
    checked = 0
    for path in modules(opts):
        ref = oracle(opts, opts["vocab"], kind, level, path)
        tool = ir2vec.initEmbedding(filename=path, mode=mode, vocabPath=opts["vocab"])
        for fn, rows in ref.items():
            if fn == "":
                continue  # not reachable by name
            got = tool.getBBEmbMap(funcName=fn) if level == "bb" else tool.getInstEmbMap(funcName=fn)
            want = dict(rows)  # a name given twice keeps the last row, as a dict filled in order
            assert list(got) == list(want), (path, fn)
            for key, vec in want.items():
                assert same(got[key], vec), (path, fn, key)
                checked += 1
    assert checked > (40 if level == "bb" else 100), checked


@pytest.mark.parametrize("mode,kind", KINDS)
def test_module_level_equals_the_sum_of_libllvm_function_vectors(opts, mode, kind):
    # The extension getModuleEmb and embed(level="module") against libLLVM's function vectors
    # added in module order with LLVM's own Embedding arithmetic.
    paths = modules(opts)
    table = ir2vec.embed(paths, vocab=opts["vocab"], kind=kind, level="module")
    assert table.functions is None and table.modules.embedding.shape == (len(paths), 75)
    for i, path in enumerate(paths):
        want = oracle_module(opts, opts["vocab"], kind, path)
        tool = ir2vec.initEmbedding(filename=path, mode=mode, vocabPath=opts["vocab"])
        assert same(tool.getModuleEmb(), want), path
        assert same(table.modules.embedding[i], want), path
    # No defined function: the zero vector (+0.0 everywhere).
    empty = os.path.join(opts["data"], "empty.ll")
    tool = ir2vec.initEmbedding(filename=empty, mode=mode, vocabPath=opts["vocab"])
    assert tool.getFuncNames() == [] and tool.getModuleEmb().tobytes() == bytes(8 * 75)


def test_default_vocabulary_when_no_vocab_path(opts, tmp_path):
    # The extension: no vocabPath means the workbench's default vocabulary, which the CLI
    # exports as LLVM JSON for libLLVM to load.
    exported = tmp_path / "default.json"
    subprocess.run([opts["ir2vec"], "vocab", "export", "-o", str(exported)], check=True)
    for path in modules(opts)[:4]:
        ref = oracle(opts, str(exported), "symbolic", "func", path)
        got = ir2vec.initEmbedding(filename=path).getFuncEmbMap()
        assert list(got) == list(ref)
        assert all(same(got[n], v) for n, v in ref.items()), path


def test_paths_and_positional_arguments(opts):
    path = modules(opts)[0]
    a = ir2vec.initEmbedding(pathlib.Path(path), "fa", pathlib.Path(opts["vocab"]))
    b = ir2vec.initEmbedding(filename=path, mode="fa", vocabPath=opts["vocab"])
    name = a.getFuncNames()[0]
    assert a.getFuncEmb(name).tobytes() == b.getFuncEmb(name).tobytes()
    assert type(a).__name__ == "IR2VecTool"


def raises(match, fn, *args, **kw):
    with pytest.raises(ValueError, match=match):
        fn(*args, **kw)


def test_value_errors_of_init(opts, tmp_path):
    good = modules(opts)[0]
    vocab = opts["vocab"]
    raises("filename is empty", ir2vec.initEmbedding, filename="", vocabPath=vocab)
    missing = str(tmp_path / "missing.ll")
    raises("missing.ll", ir2vec.initEmbedding, filename=missing, vocabPath=vocab)
    garbage = tmp_path / "garbage.bc"
    garbage.write_bytes(b"BC\xc0\xde" + b"\x00" * 37)
    raises("garbage.bc", ir2vec.initEmbedding, filename=str(garbage), vocabPath=vocab)
    invalid = tmp_path / "invalid.ll"
    invalid.write_text("define i32 @f() {\n  ret i64 0\n}\n")
    raises(r"invalid\.ll.*:2", ir2vec.initEmbedding, filename=str(invalid), vocabPath=vocab)
    bad_debug = os.path.join(opts["data"], "baddebug.ll")
    # A module the verifier rejects is an error (LLVM's reader would abort the interpreter).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ir2vec.initEmbedding(filename=bad_debug, vocabPath=vocab)
        except ValueError as e:
            assert "baddebug.ll" in str(e)
    raises("invalid mode 'symbolic'", ir2vec.initEmbedding, filename=good, mode="symbolic",
           vocabPath=vocab)
    raises("vocabPath is empty", ir2vec.initEmbedding, filename=good, vocabPath="")
    raises("nothere.json", ir2vec.initEmbedding, filename=good, vocabPath=str(tmp_path / "nothere.json"))
    notjson = tmp_path / "notjson.json"
    notjson.write_text("{ this is not JSON")
    raises("notjson.json", ir2vec.initEmbedding, filename=good, vocabPath=str(notjson))
    short = tmp_path / "short.json"
    short.write_text('{"Opcodes": {"Add": [1.0, 2.0]}, "Types": {"VoidTy": [1.0]}, "Arguments": {}}')
    raises("short.json", ir2vec.initEmbedding, filename=good, vocabPath=str(short))


def test_value_errors_of_queries(opts):
    tool = ir2vec.initEmbedding(filename=os.path.join(opts["data"], "decls.ll"), vocabPath=opts["vocab"])
    for call in (tool.getFuncEmb, tool.getBBEmbMap, tool.getInstEmbMap):
        raises("Function 'nonexistent' not found", call, "nonexistent")
        raises("Function 'nonexistent' not found", call, funcName="nonexistent")
    raises("'only_declared' is a declaration", tool.getFuncEmb, "only_declared")
    assert "only_declared" not in tool.getFuncNames()
    assert "only_declared" not in tool.getFuncEmbMap()


def test_names_that_are_not_utf8(opts, tmp_path):
    # IR names are bytes: a byte that is not UTF-8 comes back as a surrogate (os.fsdecode's
    # rule) and the same str finds the function again.
    ll = tmp_path / "bytes.ll"
    ll.write_text('define i32 @"\\FFf"(i32 %a) {\nentry:\n  %b = add i32 %a, 1\n  ret i32 %b\n}\n')
    tool = ir2vec.initEmbedding(filename=str(ll), vocabPath=opts["vocab"])
    assert tool.getFuncNames() == ["\udcfff"]
    ref = oracle(opts, opts["vocab"], "symbolic", "func", str(ll))
    assert same(tool.getFuncEmb("\udcfff"), next(iter(ref.values())))
    assert list(tool.getBBEmbMap("\udcfff")) == ["entry"]


def test_unnamed_blocks_keep_llvms_keys_and_warn_once(opts, tmp_path):
    """clang's IR names no block: LLVM's API keys them all '' (one entry, the last block's
    vector). Kept, with one warning per tool object saying how many were merged and how to name
    them (opt -passes=instnamer); after instnamer every block has its own key, equal to
    libLLVM's vector for it."""
    src = tmp_path / "loop.c"
    src.write_text("int f(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; "
                   "return s > 10 ? s : -s; }\n")
    ll, named = tmp_path / "loop.ll", tmp_path / "named.ll"
    subprocess.run(["clang-22", "-O1", "-emit-llvm", "-S", str(src), "-o", str(ll)], check=True)
    tool = ir2vec.initEmbedding(filename=str(ll), mode="sym", vocabPath=opts["vocab"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = tool.getBBEmbMap("f")
        second = tool.getBBEmbMap("f")
    assert list(first.keys()) == [""] and list(second.keys()) == [""]
    merged = [w for w in caught if "share a key" in str(w.message)]
    assert len(merged) == 1 and "instnamer" in str(merged[0].message), [str(w.message) for w in caught]
    subprocess.run(["opt-22", "-passes=instnamer", str(ll), "-S", "-o", str(named)], check=True)
    tool = ir2vec.initEmbedding(filename=str(named), mode="sym", vocabPath=opts["vocab"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        blocks = tool.getBBEmbMap("f")
    assert not [w for w in caught if "share a key" in str(w.message)]
    want = oracle(opts, opts["vocab"], "sym", "bb", str(named))
    assert len(blocks) > 1 and len(blocks) == len(want["f"])
    for name, vec in want["f"]:
        assert blocks[name].tolist() == vec


def test_flow_aware_rd_mode_equals_the_corpus_api(opts):
    """mode='fa-rd' (the workbench's third kind) gives, for every function, the vector the
    batch engine gives for kind='flow-aware-rd' (checked against hand-worked values and
    permutations in unit_tests), and its block vectors sum to it in depth-first order."""
    checked = 0
    for path in modules(opts):
        tool = ir2vec.initEmbedding(filename=path, mode="fa-rd", vocabPath=opts["vocab"])
        batch = ir2vec.embed([path], vocab=opts["vocab"], kind="flow-aware-rd", level="func")
        got = tool.getFuncEmbMap()
        if batch.functions is None or len(batch.functions.embedding) == 0:
            assert got == {}, path
            continue
        names = [n.decode() if isinstance(n, bytes) else n for n in batch.functions.name]
        assert list(got) == names, path
        for name, row in zip(names, batch.functions.embedding):
            assert got[name].tobytes() == np.asarray(row, dtype=np.float64).tobytes(), (path, name)
            checked += 1
    assert checked > 20
    raises("invalid mode 'fa-rdx'", ir2vec.initEmbedding, filename=modules(opts)[0], mode="fa-rdx")
