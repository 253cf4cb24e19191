"""Vocabulary training and evaluation from Python equal `ir2vec vocab train` and `vocab eval`
on the same OpenKE directory: the same vectors bit for bit (one thread is deterministic), the
same report; progress is called every epoch and an exception in it stops the training."""
import json
import os
import subprocess

import h5py
import numpy as np
import pytest

import ir2vec


@pytest.fixture(scope="module")
def kg(opts, tmp_path_factory):
    d = tmp_path_factory.mktemp("kg")
    inputs = [os.path.join(opts["data"], n) for n in sorted(os.listdir(opts["data"]))
              if n.endswith(".ll") and not n.startswith("bad") and n != "empty.ll"]
    subprocess.run([opts["ir2vec"], "triplets", "-q", "--format", "openke", "-o", str(d / "kg"),
                    *inputs], check=True)
    return d


def test_training_equals_the_cli(opts, kg):
    out = kg / "v.h5"
    subprocess.run([opts["ir2vec"], "vocab", "train", "-q", str(kg / "kg"), "--dim", "8",
                    "--epochs", "30", "--eval-every", "10", "-o", str(kg / "v.json"),
                    "--hdf5", str(out)], check=True)
    epochs = []
    v, report = ir2vec.train_vocabulary(kg / "kg", dim=8, epochs=30, eval_every=10,
                                        progress=lambda e, loss, mrr: epochs.append((e, loss, mrr)))
    cli = ir2vec.Vocabulary(out)
    assert v.unweighted.tobytes() == cli.unweighted.tobytes()
    assert v.dimension == 8 and [e for e, _, _ in epochs] == list(range(1, len(epochs) + 1))
    assert [m is not None for e, _, m in epochs] == [e % 10 == 0 for e, _, _ in epochs]
    assert np.isfinite([l for _, l, _ in epochs]).all()
    # The report is `vocab eval --json`'s entry for the same vectors.
    ev = json.loads(subprocess.run([opts["ir2vec"], "vocab", "eval", str(kg / "kg"), "--vocab",
                                    str(out), "--json"], capture_output=True, text=True,
                                   check=True).stdout)
    cli_entry = ev["results"][0]
    ours = ir2vec.evaluate_vocabulary(kg / "kg", vocab=cli)
    strip = lambda d: {k: v for k, v in d.items() if k != "vocabulary"}
    assert strip(ours) == strip(cli_entry) and "fitted_relations" in ours
    assert report.keys() == ours.keys()
    # Trained vectors embed like any vocabulary.
    e = ir2vec.embed(os.path.join(opts["data"], "calls.ll"), vocab=v)
    assert e.functions.embedding.shape[1] == 8


def test_progress_exception_stops_training(kg):
    class Enough(Exception):
        pass

    seen = []

    def progress(epoch, loss, mrr):
        seen.append(epoch)
        if epoch == 3:
            raise Enough()

    with pytest.raises(Enough):
        ir2vec.train_vocabulary(kg / "kg", dim=4, epochs=100, progress=progress)
    assert seen == [1, 2, 3]
    with pytest.raises(ValueError, match="dim"):
        ir2vec.train_vocabulary(kg / "kg", dim=0)
    with pytest.raises(ValueError, match="nothere"):
        ir2vec.train_vocabulary(kg / "nothere")
