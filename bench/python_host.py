#!/usr/bin/env python3
"""A Python MLGO host in the manner of LLVM's interactive_host.py (llvm/lib/Analysis/models),
answering the inliner's own default decision; the baseline the workbench's host is compared
with in bench/mlgo_corpus.py. usage: python_host.py -- COMPILER ARGS..."""
import ctypes, json, os, subprocess, sys, tempfile

TYPES = {"int64_t": ctypes.c_int64, "float": ctypes.c_float, "int32_t": ctypes.c_int32,
         "double": ctypes.c_double}


def main():
    cmd = sys.argv[sys.argv.index("--") + 1:]
    with tempfile.TemporaryDirectory() as d:
        base = os.path.join(d, "channel")
        os.mkfifo(base + ".in")
        os.mkfifo(base + ".out")
        p = subprocess.Popen(cmd + ["-enable-ml-inliner=release", "-inliner-interactive-include-default",
                                    f"-inliner-interactive-channel-base={base}"])
        with open(base + ".in", "wb") as tc, open(base + ".out", "rb") as fc:
            header = json.loads(fc.readline())
            specs = [(f["name"], TYPES[f["type"]], max(1, __import__("math").prod(f["shape"])))
                     for f in header["features"]]
            while p.poll() is None or True:
                line = fc.readline()
                if not line:
                    break
                rec = json.loads(line)
                if "context" in rec:
                    continue
                values = {}
                for name, ty, n in specs:
                    buf = fc.read(ctypes.sizeof(ty) * n)
                    values[name] = (ty * n).from_buffer_copy(buf)
                fc.readline()
                tc.write(bytes(ctypes.c_int64(values["inlining_default"][0])))
                tc.flush()
        return p.wait()


if __name__ == "__main__":
    sys.exit(main())
