"""Options of the Python module's tests (ctest passes them; tests/CMakeLists.txt)."""
import os
import re
import subprocess

import pytest


def pytest_configure(config):
    # LLVM's seed vocabulary lacks 48 keys and has one LLVM 22 ignores: the warnings about it
    # are expected here (a test of its own checks that they are raised).
    config.addinivalue_line("filterwarnings", "ignore:.*seedEmbeddingVocab75D.json.*:UserWarning")


def pytest_addoption(parser):
    parser.addoption("--oracle-print", required=True, help="tests/oracle_print (libLLVM's values)")
    parser.addoption("--vocab", required=True, help="LLVM's seed vocabulary JSON (test data)")
    parser.addoption("--data", required=True, help="tests/data")
    parser.addoption("--ir2vec", required=True, help="the ir2vec command")
    parser.addoption("--build", required=True, help="the build directory (cmake --install)")
    parser.addoption("--corpus-list", default=None,
                     help="the shared corpus's module list: the corpus tests run (else skipped "
                          "by selection: ctest runs them as python_module_corpus)")


@pytest.fixture(scope="session")
def opts(request):
    return {k: request.config.getoption(k) for k in ("oracle_print", "vocab", "data", "ir2vec", "build", "corpus_list")}


def oracle_module(opts, vocab, kind, path):
    """The module level from libLLVM-22's function vectors (oracle_print's "module": LLVM's
    Embedding::operator+= over the defined functions, module order, from zero)."""
    out = subprocess.run([opts["oracle_print"], vocab, kind, "module", "hex", path],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "Module:" and len(out) == 2, out
    return [float.fromhex(x) for x in out[1].strip()[1:-1].split()]


def oracle(opts, vocab, kind, level, path):
    """libLLVM-22's Embedder on every defined function: {function: value}, where value is the
    vector (func), [(block name, vector)] (bb) or [(instruction text, vector)] (inst), layout
    order."""
    return parse_oracle(oracle_text(opts, vocab, kind, level, path), level)


def oracle_levels(opts, vocab, kind, levels, path):
    """oracle() at each of levels from one oracle_print run (one parse of the file): each
    level's text follows a line "Level: NAME"."""
    out = oracle_text(opts, vocab, kind, ",".join(levels), path)
    parts = re.split(r"^Level: (\w+)\n", out, flags=re.M)
    assert parts[0] == "" and parts[1::2] == list(levels), parts[1::2]
    return {lvl: parse_oracle(text, lvl) for lvl, text in zip(parts[1::2], parts[2::2])}


def oracle_text(opts, vocab, kind, level, path):
    return subprocess.run([opts["oracle_print"], vocab, kind, level, "hex", path],
                          capture_output=True, text=True, encoding="utf-8", errors="surrogateescape",
                          check=True).stdout


def parse_oracle(out, level):
    result, fn, pending = {}, None, []
    for line in out.splitlines():
        if line.startswith("Function: ") and not pending:
            fn = line[len("Function: "):]
            result[fn] = None if level == "func" else []
            continue
        m = re.match(r"^(.*) \[((?: \S+ )*)\]$", line, re.S)
        if not m:
            pending.append(line)  # an instruction printed on several lines (switch)
            continue
        vec = [float.fromhex(x) for x in m.group(2).split()]
        if level == "func":
            result[fn] = vec
            continue
        key = "\n".join(pending + [m.group(1)])
        pending = []
        key = key[:-1] if level == "bb" else key[2:]  # "name:" / AsmWriter's indentation
        result[fn].append((key, vec))
    assert not pending, pending
    return result
