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
