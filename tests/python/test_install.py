"""`cmake --install` puts the module where Debian's /usr/bin/python3 looks (prefix /usr/local):
installed into a DESTDIR, the file lands in a directory of a fresh python3's sys.path (with the
prefix), and it imports from there and embeds."""
import os
import subprocess

import pytest


def test_install_goes_where_debian_python_looks(opts, tmp_path):
    dest = tmp_path / "root"
    subprocess.run(["cmake", "--install", opts["build"], "--prefix", "/usr/local"],
                   env=dict(os.environ, DESTDIR=str(dest)), check=True, capture_output=True)
    found = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs if f.startswith("ir2vec.cpython")]
    assert len(found) == 1, found
    installed_dir = os.path.dirname(found[0])[len(str(dest)):]
    fresh = subprocess.run(["/usr/bin/python3", "-c", "import sys; print('\\n'.join(sys.path))"],
                           env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, check=True)
    assert installed_dir in fresh.stdout.splitlines(), (installed_dir, fresh.stdout)
    example = os.path.join(os.path.dirname(opts["data"]), "..", "examples", "example.ll")
    r = subprocess.run(["/usr/bin/python3", "-c",
                        "import ir2vec; print(ir2vec.__file__); "
                        f"print(ir2vec.initEmbedding(filename={example!r}).getFuncNames())"],
                       env={"PATH": "/usr/bin:/bin", "PYTHONPATH": os.path.dirname(found[0])},
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith(str(dest)) and "'hash'" in r.stdout, r
