"""Comparing two HDF5 files with h5py (the independent reader of our files), for the tests."""
import h5py
import numpy as np


def same_content(f, g):
    """None when two open HDF5 files have equal attributes (of the file and of every object) and
    equal datasets (values, shapes, dtypes); else what differs first."""
    if dict(f.attrs) != dict(g.attrs):
        return "attributes differ"
    names_f, names_g = [], []
    f.visit(names_f.append)
    g.visit(names_g.append)
    if sorted(names_f) != sorted(names_g):
        return f"objects differ: {sorted(names_f)} vs {sorted(names_g)}"
    for n in names_f:
        if dict(f[n].attrs) != dict(g[n].attrs):
            return f"attributes of {n} differ"
        if isinstance(f[n], h5py.Dataset):
            x, y = f[n][()], g[n][()]
            if f[n].dtype != g[n].dtype or x.shape != y.shape:
                return f"dataset {n} differs"
            # Numbers bit for bit (NaN rows of failed modules included), strings by value.
            same = (x.tobytes() == y.tobytes() if x.dtype.kind in "fiu"
                    else np.array_equal(x, y))
            if not same:
                return f"dataset {n} differs"
    return None


def same_files(x, y):
    """same_content of two files by path."""
    with h5py.File(x, "r") as f, h5py.File(y, "r") as g:
        return same_content(f, g)
