#!/usr/bin/python3
"""Compare two runs of scripts/mlgo-snapshot.sh (issue 40: a refactor must change no output).

    scripts/mlgo-snapshot-compare.py BEFORE AFTER

Both runs must have been made under the same path (move the first away before the second):
reports record their inputs' paths. Every file of either tree is compared byte for byte;
for a JSON or HDF5 file that differs, the differing keys, datasets and attributes are listed,
so that a difference confined to fields that record time can be told from a real one.
Exit status: 0 when every file is byte-identical, 1 when some differ, 2 on a usage error.
"""
import json
import os
import sys

import h5py
import numpy


def files(root):
    out = set()
    for d, _, names in os.walk(root):
        out.update(os.path.relpath(os.path.join(d, n), root) for n in names)
    return out


def json_diff(a, b, path=""):
    if type(a) is not type(b):
        return [path or "/"]
    if isinstance(a, dict):
        keys = sorted(set(a) | set(b))
        return [d for k in keys for d in (json_diff(a.get(k), b.get(k), f"{path}/{k}")
                                          if k in a and k in b else [f"{path}/{k}"])]
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}[len]"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in json_diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [path or "/"]


def json_attr_diff(a, b):
    """For attributes holding JSON text (a report, a manifest): the keys that differ."""
    try:
        ja, jb = json.loads(a), json.loads(b)
    except (TypeError, ValueError):
        return ""
    return " (" + ", ".join(json_diff(ja, jb)) + ")"


def h5_items(f):
    items = {}

    def visit(name, obj):
        items[name] = obj
    f.visititems(visit)
    items["/"] = f
    return items


def h5_diff(pa, pb):
    out = []
    with h5py.File(pa, "r") as a, h5py.File(pb, "r") as b:
        ia, ib = h5_items(a), h5_items(b)
        for name in sorted(set(ia) | set(ib)):
            if name not in ia or name not in ib:
                out.append(f"{name} (only in one)")
                continue
            x, y = ia[name], ib[name]
            for k in sorted(set(x.attrs) | set(y.attrs)):
                if k not in x.attrs or k not in y.attrs or not numpy.array_equal(
                        numpy.asarray(x.attrs[k]), numpy.asarray(y.attrs[k])):
                    out.append(f"{name}@{k}" + json_attr_diff(x.attrs.get(k), y.attrs.get(k)))
            if isinstance(x, h5py.Dataset):
                if not isinstance(y, h5py.Dataset) or x.shape != y.shape or x.dtype != y.dtype \
                        or not numpy.array_equal(x[()], y[()]):
                    out.append(name)
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    before, after = sys.argv[1:]
    fa, fb = files(before), files(after)
    differ = 0
    for rel in sorted(fa | fb):
        if rel not in fa or rel not in fb:
            print(f"{rel}: only in {'after' if rel in fb else 'before'}")
            differ += 1
            continue
        pa, pb = os.path.join(before, rel), os.path.join(after, rel)
        with open(pa, "rb") as x, open(pb, "rb") as y:
            if x.read() == y.read():
                continue
        differ += 1
        what = ""
        try:
            if rel.endswith(".json"):
                what = ", ".join(json_diff(json.load(open(pa)), json.load(open(pb))))
            elif h5py.is_hdf5(pa):
                what = ", ".join(h5_diff(pa, pb)) or "same content, other bytes"
        except (OSError, ValueError) as e:
            what = f"(not compared: {e})"
        print(f"{rel}: differs {what}")
    print(f"{len(fa | fb)} files, {len(fa | fb) - differ} byte-identical, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
