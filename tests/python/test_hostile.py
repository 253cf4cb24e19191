"""Bad input never crashes the interpreter: every fuzz finding of fuzz/findings through the
Python calls raises ValueError naming the file (LLVM 22 crashing or looping on a module,
libhdf5 crashing on a vocabulary, a model-sized allocation in an embeddings file), and the
interpreter goes on."""
import glob
import os

import pytest

import ir2vec

FINDINGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fuzz", "findings")


def findings(prefix):
    found = sorted(glob.glob(os.path.join(FINDINGS, prefix + "*")))
    assert found, prefix
    return found


def test_modules_llvm_crashes_or_loops_on():
    crash = findings("llvm22-bitcode-metadata-loader-segv")[0]
    for call in (lambda: ir2vec.initEmbedding(filename=crash), lambda: ir2vec.triplets(crash),
                 lambda: ir2vec.embed(crash)):
        with pytest.raises(ValueError, match="LLVM crashed on it"):
            call()
    # LLVM 22 spins for ever on this one in a fresh process ("did not finish within 3 s");
    # after the crash above, LLVM's reader may refuse it instead: either way an error.
    hang = findings("llvm22-bitcode-reader-hang")[0]
    with pytest.raises(ValueError, match="reader-hang.bc: (LLVM did not finish|invalid bitcode)"):
        ir2vec.embed(hang, module_time_limit=3)
    cyclic = findings("llvm22-verifier-cyclic-scope")[0]  # LLVM's verifier would loop
    with pytest.raises(ValueError, match="cyclic"):
        ir2vec.initEmbedding(filename=cyclic)
    outdated = findings("llvm22-outdated-debug-cyclic-scope")[0]  # outdated debug info: dropped
    with pytest.warns(UserWarning, match="debug info"):
        assert ir2vec.initEmbedding(filename=outdated).getFuncNames()


def test_hdf5_files_that_crash_libhdf5():
    for f in findings("vocabulary-hdf5-"):
        with pytest.raises(ValueError, match=os.path.basename(f)):
            ir2vec.Vocabulary(f)
        with pytest.raises(ValueError, match=os.path.basename(f)):
            ir2vec.initEmbedding(filename=os.path.join(FINDINGS, "..", "..", "examples", "example.ll"),
                                 vocabPath=f)
    for f in findings("model-hdf5-") + findings("embeddings-hdf5-"):
        with pytest.raises(ValueError, match=os.path.basename(f)):
            ir2vec.mlgo.read_dataset(f)


def test_a_failed_export_raises(tmp_path):
    """Vocabulary.export raised its error without the GIL: the interpreter died (SIGSEGV) on
    /dev/full, a missing directory or a file-size limit (issue 37's hostile try). Run in a child
    so that a crash fails this test instead of ending pytest."""
    import subprocess
    import sys
    code = ("import ir2vec, sys\n"
            "for path in sys.argv[1:]:\n"
            "    try:\n"
            "        ir2vec.Vocabulary().export(path)\n"
            "    except ValueError as e:\n"
            "        print('raised', e)\n")
    r = subprocess.run([sys.executable, "-c", code, "/dev/full", str(tmp_path / "missing" / "v.json")],
                       capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and "/dev/full" in lines[0] and "missing" in lines[1], r.stdout


def test_a_vocabulary_argument_of_another_type_is_named():
    """embed(vocab=5) raised RuntimeError "Unable to cast Python instance to C++ type", naming
    nothing (issue 37's hostile try)."""
    with pytest.raises(TypeError, match="vocab: expected an ir2vec.Vocabulary, a path or None, not int"):
        ir2vec.embed([], vocab=5)
