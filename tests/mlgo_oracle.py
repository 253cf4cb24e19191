"""Oracles shared by the MLGO tests: a training-log reader written from the format
description (../shared/docs/mlgo-interfaces-llvm22.md §3), independent of the workbench, and
.text sizes as llvm-size reports them."""
import json, struct, subprocess

SIZES = {"float": 4, "double": 8, "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2,
         "int32_t": 4, "uint32_t": 4, "int64_t": 8, "uint64_t": 8}
FMT = {"float": "f", "double": "d", "int8_t": "b", "uint8_t": "B", "int16_t": "h",
       "uint16_t": "H", "int32_t": "i", "uint32_t": "I", "int64_t": "q", "uint64_t": "Q"}


def nbytes(s):
    n = 1
    for d in s["shape"]:
        n *= d
    return n * SIZES[s["type"]]


def values(s, raw):
    return list(struct.unpack("<%d%s" % (len(raw) // SIZES[s["type"]], FMT[s["type"]]), raw))


def read_log(data):
    """-> header, [(context, id, {name: values}, score)]"""
    pos = data.index(b"\n")
    header = json.loads(data[:pos])
    pos += 1
    feats, score = header["features"], header.get("score")
    out, ctx = [], None
    while pos < len(data):
        nl = data.index(b"\n", pos)
        rec = json.loads(data[pos:nl])
        pos = nl + 1
        if "context" in rec:
            ctx = rec["context"]
            continue
        n = rec["observation"]
        row = {}
        for f in feats:
            row[f["name"]] = values(f, data[pos:pos + nbytes(f)])
            pos += nbytes(f)
        assert data[pos:pos + 1] == b"\n", "newline after the payload"
        pos += 1
        sc = None
        if score:
            nl = data.index(b"\n", pos)
            assert json.loads(data[pos:nl])["outcome"] == n
            pos = nl + 1
            sc = values(score, data[pos:pos + nbytes(score)])
            pos += nbytes(score) + 1
        out.append((ctx, n, row, sc))
    return header, out


def text_size(llvm_size, obj):
    """Bytes of the object's .text and .text.* sections (llvm-size -A)."""
    r = subprocess.run([llvm_size, "-A", obj], capture_output=True, text=True, check=True)
    return sum(int(l.split()[1]) for l in r.stdout.splitlines()
               if l.split() and (l.split()[0] == ".text" or l.split()[0].startswith(".text.")))
