"""ir2vec.evaluate_devmap (issue 38): the same study as `ir2vec evaluate devmap`, its tables as
numpy arrays equal to the CLI's report.json and results.h5."""
import json
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

import ir2vec

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import devmap_data  # noqa: E402


def test_evaluate_devmap_equals_the_cli(opts, tmp_path):
    data = str(tmp_path / "data")
    devmap_data.make(data, devmap_data.separable, kernels=12)
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"seeds": [104, 105], "folds": 4}))
    r = ir2vec.evaluate_devmap(data, spec=str(spec), jobs=2)
    cli = tmp_path / "cli"
    subprocess.run([opts["ir2vec"], "evaluate", "devmap", data, "--spec", str(spec), "-o", str(cli), "-q"], check=True)
    rep = json.loads((cli / "report.json").read_text())
    assert r["arms"] == [a["name"] for a in rep["arms"]] == ["static", "grewe", "histogram", "default-symbolic",
                                                              "default-flow-aware"]
    assert r["protocols"] == ["paper", "kernel", "suite"] and r["platforms"] == ["one", "mean"]
    assert r["accuracy"].shape == (5, 3, 2, 3)
    for i, arm in enumerate(rep["arms"]):
        for j, proto in enumerate(r["protocols"]):
            for k, plat in enumerate(r["platforms"]):
                cell = arm["protocols"][proto]["platforms"][plat]
                for field in ("accuracy", "speedup", "vs_histogram"):
                    got = r[field][i, j, k]
                    want = [cell[field][x] for x in ("mean", "low", "high")]
                    assert np.array_equal(got, want), (arm["name"], proto, plat, field, got, want)
    h = h5py.File(cli / "results.h5", "r")
    for j, proto in enumerate(r["protocols"]):
        assert np.array_equal(r["folds"]["one"][j], h["one/folds/" + proto][:].astype(int))
        for i, name in enumerate(r["arms"]):
            assert np.array_equal(r["predictions"]["one"][i, j], h[f"one/arms/{name}/predicted_gpu_{proto}"][:].astype(int))
    assert r["report"] == rep


def test_evaluate_devmap_bad_input(tmp_path):
    data = str(tmp_path / "data")
    devmap_data.make(data, devmap_data.separable, kernels=4)
    os.remove(os.path.join(data, "kernels_ir", "suite1-1.1-prog1-kern_B.ll"))
    with pytest.raises(ValueError, match=r"cgo17-one\.csv: line 17: kernel suite1-1\.1-prog1-kern \(data set B\)"):
        ir2vec.evaluate_devmap(data)
    with pytest.raises(ValueError, match="vocabularies add arms to the built-in spec"):
        ir2vec.evaluate_devmap(data, spec="x.json", vocabularies=["v.json"])
