#!/usr/bin/python3
"""The performance track of the open benchmark (docs/perf.md): register-allocation policies
judged by what the programs they compile do, counted by valgrind.

    scripts/perf-track.py -o OUT [--policy SPEC]... [--programs a,b] [--ir2vec PATH]
                          [--spec bench/perf/programs.json] [--sources DIR]

SPEC is NAME[,model=FILE][,seed=N][,explore=P] for `ir2vec mlgo run --task evict` (default:
`default`, the compiler's own advisor, and `no-evict`). The first policy is the baseline.

Each program of the spec is built from its package's pinned Debian source (the SHA-256 of
bench/benchmark/packages.json; `apt-get source --download-only`, `dpkg-source -x`), with its
own build system, once per policy, with CC a wrapper that runs every compiler command under
`ir2vec mlgo run --task evict --policy ...` and keeps the greedy allocator's remarks of every
translation unit (clang's -fsave-optimization-record). Each build then runs its workload on a
generated input (seeded: the same bytes on every machine) under
`valgrind --tool=cachegrind --cache-sim=yes`, which counts instructions (Ir) and data reads
and writes (Dr, Dw), totals and per function. The programs' outputs must be byte-identical
under every policy (a policy changes registers, never results).

OUT/results.json (schema ir2vec.perf-results/1): per policy and program the counts, the
static cost (features/RegallocScore.h: the sum over its translation units), wall seconds (shown
beside, never instead); per policy the change against the baseline, in total with a 95 %
bootstrap interval over programs and the worst program; and how well the static
reward predicts the dynamic counts: Spearman's rank correlation, over functions, of the change
in static cost with the change in data references (Dr + Dw) and in instructions.

Exit status: 0 done; 1 a usage error, a refused source, a build or run that failed, or outputs
that differ between policies.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = "ir2vec.perf-results/1"
SPEC_SCHEMA = "ir2vec.perf-programs/1"


def corpus_script():
    """scripts/build-benchmark-corpus.py: the pinned download, check and unpack."""
    spec = importlib.util.spec_from_file_location(
        "build_benchmark_corpus", os.path.join(REPO, "scripts", "build-benchmark-corpus.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Failed(Exception):
    pass


# ---- inputs: deterministic for a seed, the same bytes everywhere --------------------------
def gen_text(p):
    rng = random.Random(p["seed"])
    words = ["register", "allocation", "spill", "reload", "copy", "evict", "loop", "block",
             "frequency", "live", "range", "split", "the", "a", "of", "and", "in", "to"]
    out, n = [], 0
    while n < p["bytes"]:
        w = rng.choice(words) + (" " if rng.random() < 0.9 else "\n")
        out.append(w)
        n += len(w)
    return "".join(out).encode()[:p["bytes"]]


def gen_json(p):
    rng = random.Random(p["seed"])
    recs = [{"id": i, "name": "item%d" % rng.randrange(10**6), "price": round(rng.random() * 100, 3),
             "tags": [rng.choice("abcdefgh") * rng.randint(1, 5) for _ in range(rng.randint(0, 4))],
             "nested": {"x": rng.randint(-1000, 1000), "ok": rng.random() < 0.5}}
            for i in range(p["records"])]
    return json.dumps({"records": recs}).encode()


def gen_wav(p):
    rng = random.Random(p["seed"])
    n = p["seconds"] * p["rate"]
    import math
    samples = [int(8000 * math.sin(2 * math.pi * 440 * i / p["rate"]) + rng.randint(-500, 500))
               for i in range(n)]
    data = struct.pack("<%dh" % n, *samples)
    hdr = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack(
        "<IHHIIHH", 16, 1, 1, p["rate"], p["rate"] * 2, 2, 16) + b"data" + struct.pack("<I", len(data))
    return hdr + data


def gen_ppm(p):
    rng = random.Random(p["seed"])
    w, h = p["width"], p["height"]
    px = bytearray()
    for y in range(h):
        for x in range(w):
            px += bytes(((x * 3 + rng.randint(0, 15)) % 256, (y * 2 + rng.randint(0, 15)) % 256,
                         ((x ^ y) + rng.randint(0, 15)) % 256))
    return b"P6\n%d %d\n255\n" % (w, h) + bytes(px)


GENERATORS = {"text": gen_text, "json": gen_json, "wav": gen_wav, "ppm": gen_ppm}


# ---- valgrind -------------------------------------------------------------------------------
def cachegrind(argv, out_file, stdout_path, env=None):
    """Runs argv under cachegrind; -> (totals {event: count}, per function {fn: {event: count}},
    seconds). Functions are named by their symbol, not demangled (the remarks' names)."""
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--demangle=no",
           "--cachegrind-out-file=" + out_file] + argv
    t0 = time.monotonic()
    with open(stdout_path, "wb") as so:
        r = subprocess.run(cmd, stdout=so, stderr=subprocess.PIPE, timeout=3600,
                           env=env or {"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
    secs = time.monotonic() - t0
    if r.returncode != 0:
        raise Failed(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.decode(errors='replace')[-600:]}")
    return read_cachegrind(out_file) + (secs,)


def read_cachegrind(path):
    """The cachegrind out file (its documented format): 'events:' names the columns, 'fn='
    starts a function, cost lines are 'LINE c1 c2 ...', 'summary:' the totals."""
    events, per_fn, totals, fn = [], {}, None, None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("fn="):
                fn = line[3:].strip()
                per_fn.setdefault(fn, [0] * len(events))
            elif line.startswith("summary:"):
                totals = [int(x) for x in line.split()[1:]]
            elif line[:1].isdigit() and fn is not None:
                vals = line.split()[1:]
                acc = per_fn[fn]
                for i, v in enumerate(vals):
                    acc[i] += int(v)
    if totals is None:
        raise Failed(f"{path}: no summary line")
    return (dict(zip(events, totals)),
            {fn: dict(zip(events, v)) for fn, v in per_fn.items()})


# ---- building ---------------------------------------------------------------------------
def wrapper(path, ir2vec, compiler, policy):
    """A CC that compiles under the host with the policy and keeps the allocator's remarks
    beside each object (clang names them after -o: X.o -> X.opt.yaml)."""
    args = [ir2vec, "mlgo", "run", "-q", "--task", "evict", "--policy", policy["name"]]
    for k in ("model", "seed", "explore"):
        if k in policy:
            args += ["--" + k, str(policy[k])]
    sh = "#!/bin/sh\nexec " + " ".join("'%s'" % a for a in args) + " -- " + compiler + \
        ' "$@" -fsave-optimization-record=yaml -foptimization-record-passes=regalloc\n'
    with open(path, "w") as f:
        f.write(sh)
    os.chmod(path, 0o755)


def static_cost(tree, ir2vec):
    """The static cost of a build: every remark file under tree, scored by `ir2vec mlgo
    regalloc-cost` (LLVM's remark parser). -> (total, {function: cost})."""
    files = sorted(os.path.join(root, f) for root, _dirs, fs in os.walk(tree) for f in fs
                   if f.endswith(".opt.yaml"))
    if not files:
        return 0.0, {}
    r = subprocess.run([ir2vec, "mlgo", "regalloc-cost"] + files, capture_output=True, text=True)
    if r.returncode != 0:
        raise Failed(f"ir2vec mlgo regalloc-cost: {r.stderr[-600:]}")
    doc = json.loads(r.stdout)
    per_fn = {}
    for f in doc["files"]:
        for fn in f["functions"]:
            per_fn[fn["function"]] = per_fn.get(fn["function"], 0.0) + fn["cost"]
    return doc["total"], per_fn


def parse_policy(text):
    parts = text.split(",")
    p = {"name": parts[0]}
    for kv in parts[1:]:
        k, _, v = kv.partition("=")
        if k not in ("model", "seed", "explore") or not v:
            raise Failed(f"--policy {text}: expected NAME[,model=FILE][,seed=N][,explore=P]")
        p[k] = os.path.abspath(v) if k == "model" else v
    p["label"] = text.replace(",", "_").replace("=", "").replace("/", "_")
    return p


def bootstrap(base, pol, key, resamples=1000, seed=1):
    """95 % percentile interval of the total relative change of key, resampling programs."""
    import numpy as np
    names = sorted(base)
    b = np.array([base[g][key] for g in names], dtype=float)
    p = np.array([pol[g][key] for g in names], dtype=float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(names), size=(resamples, len(names)))
    ch = np.sort((p[idx].sum(1) - b[idx].sum(1)) / b[idx].sum(1))
    return [float(ch[int(0.025 * (resamples - 1) + 0.5)]), float(ch[int(0.975 * (resamples - 1) + 0.5)])]


def spearman(x, y):
    from scipy.stats import spearmanr
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    return float(spearmanr(x, y).statistic)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--policy", action="append", default=[])
    ap.add_argument("--programs", default="")
    ap.add_argument("--spec", default=os.path.join(REPO, "bench", "perf", "programs.json"))
    ap.add_argument("--packages", default=os.path.join(REPO, "bench", "benchmark", "packages.json"))
    ap.add_argument("--ir2vec", default=os.path.join(REPO, "build", "bin", "ir2vec"))
    ap.add_argument("--sources", default="", help="a directory of downloads to reuse (dl/PACKAGE)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    try:
        return run(a)
    except (Failed, corpus_script().Refused) as e:
        print("perf-track: error: " + str(e), file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"perf-track: error: {' '.join(e.cmd)} failed (exit {e.returncode}); its log is "
              f"in the work directory under {a.output}", file=sys.stderr)
        return 1


def run(a):
    cs = corpus_script()
    spec = json.load(open(a.spec))
    if spec.get("schema") != SPEC_SCHEMA:
        raise Failed(f"{a.spec}: schema {spec.get('schema')!r}, expected {SPEC_SCHEMA!r}")
    pkgs = {p["name"]: p for p in cs.read_list(a.packages)["packages"]}
    policies = [parse_policy(p) for p in (a.policy or ["default", "no-evict"])]
    want = set(filter(None, a.programs.split(",")))
    programs = [p for p in spec["programs"] if not want or p["name"] in want]
    if want - {p["name"] for p in programs}:
        raise Failed("unknown programs: " + ", ".join(sorted(want - {p["name"] for p in programs})))
    for p in programs:
        if p.get("same_build_as") and p["same_build_as"] not in {q["name"] for q in programs}:
            raise Failed(f"{p['name']} is built by {p['same_build_as']}: name both")
    out = os.path.abspath(a.output)
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="perf-", dir=out)
    ir2vec = os.path.abspath(a.ir2vec)
    tty = sys.stderr.isatty()
    say = (lambda m: sys.stderr.write("\r\033[K" + m)) if tty else (lambda m: None)
    # inputs
    inputs = {}
    for name, p in spec["inputs"].items():
        path = os.path.join(work, "input." + name)
        with open(path, "wb") as f:
            f.write(GENERATORS[p["generator"]](p))
        inputs[name] = path
    # sources, once
    srcs = {}
    for pkg in sorted({p["package"] for p in programs}):
        dl = os.path.join(a.sources, pkg) if a.sources and os.path.isdir(os.path.join(a.sources, pkg)) \
            else os.path.join(work, "dl", pkg)
        with open(os.path.join(work, pkg + ".log"), "a") as log:
            if not os.path.isdir(dl) or not os.listdir(dl):
                cs.download(pkgs[pkg], dl, log)
            cs.check_files(pkgs[pkg], dl)
        srcs[pkg] = dl
    results, per_fn = {}, {}
    t_start = time.monotonic()
    steps, done = len(policies) * len(programs), 0
    for pol in policies:
        cc = os.path.join(work, "cc-" + pol["label"])
        wrapper(cc, ir2vec, spec["compiler"]["c"], pol)
        built, outputs = {}, {}
        results[pol["label"]] = {}
        per_fn[pol["label"]] = {}
        for prog in programs:
            el = time.monotonic() - t_start
            eta = f", ETA {int(el / done * (steps - done))} s" if done else ""
            say(f"perf: {done}/{steps} builds and runs, {int(el)} s{eta}: {pol['label']} {prog['name']}")
            pkg = prog["package"]
            owner = prog.get("same_build_as", prog["name"])
            if owner not in built:
                tree = os.path.join(work, pol["label"], owner)
                dsc = [f for f in pkgs[pkg]["files"] if f.endswith(".dsc")][0]
                os.makedirs(os.path.dirname(tree), exist_ok=True)
                with open(os.path.join(work, f"{pol['label']}-{owner}.log"), "w") as log:
                    cs.run(["dpkg-source", "--no-check", "-x", os.path.join(srcs[pkg], dsc), tree],
                           work, log, os.environ, 600)
                    env = dict(os.environ, CC=cc, LC_ALL="C", SOURCE_DATE_EPOCH="0",
                               MAKEFLAGS=f"-j{a.jobs}", CMAKE_BUILD_PARALLEL_LEVEL=str(a.jobs))
                    for step in next(q for q in programs if q["name"] == owner)["build"]:
                        cmd = [s.replace("{CC}", cc).replace("{FLAGS}", " ".join(spec["flags"]))
                               for s in step]
                        try:
                            cs.run(cmd, tree, log, env, 3600)
                        except subprocess.CalledProcessError:
                            raise Failed(f"{owner} ({pol['label']}): build step failed: {' '.join(cmd)} "
                                         f"(log: {log.name})")
                built[owner] = (tree,) + static_cost(tree, ir2vec)
            tree, cost, fn_cost = built[owner]
            argv = [os.path.join(tree, prog["binary"])]
            for x in prog["run"]:
                if x.startswith("{input:"):
                    x = inputs[x[7:-1]]
                elif x.startswith("{output:"):
                    x = outputs[x[8:-1]]
                argv.append(x)
            so = os.path.join(work, f"{pol['label']}-{prog['name']}.out")
            tot, fns, secs = cachegrind(argv, os.path.join(work, f"{pol['label']}-{prog['name']}.cg"), so)
            outputs[prog["name"]] = so
            # What a program prints about its own run (json_parse's peak memory) is no result.
            kept = open(so, "rb").read()
            if prog.get("output_ignore"):
                kept = b"".join(l for l in kept.splitlines(keepends=True)
                                if not re.match(prog["output_ignore"].encode(), l))
            results[pol["label"]][prog["name"]] = {
                "Ir": tot.get("Ir"), "Dr": tot.get("Dr"), "Dw": tot.get("Dw"),
                "D1mr": tot.get("D1mr"), "D1mw": tot.get("D1mw"),
                "static_cost": cost, "valgrind_seconds": round(secs, 2),
                "output_sha256": hashlib.sha256(kept).hexdigest()}
            per_fn[pol["label"]][prog["name"]] = {"dynamic": fns, "static": fn_cost}
            done += 1
    say("")
    if tty:
        sys.stderr.write("\r\033[K")
    base = policies[0]["label"]
    differ = [f"{p['label']} {g}" for p in policies for g in results[p["label"]]
              if results[p["label"]][g]["output_sha256"] != results[base][g]["output_sha256"]]
    compare, corr = {}, {}
    for pol in policies[1:]:
        L = pol["label"]
        rows = {}
        ds, dd, di = [], [], []
        for g in results[L]:
            b, r = results[base][g], results[L][g]
            rows[g] = {k: (r[k] - b[k]) / b[k] if b[k] else None
                       for k in ("Ir", "Dr", "Dw", "static_cost")}
            fb, fp = per_fn[base][g], per_fn[L][g]
            for fn in set(fp["static"]) | set(fb["static"]):
                if fn in fp["dynamic"] and fn in fb["dynamic"]:
                    ds.append(fp["static"].get(fn, 0.0) - fb["static"].get(fn, 0.0))
                    db, dp = fb["dynamic"][fn], fp["dynamic"][fn]
                    dd.append(dp.get("Dr", 0) + dp.get("Dw", 0) - db.get("Dr", 0) - db.get("Dw", 0))
                    di.append(dp.get("Ir", 0) - db.get("Ir", 0))
        sums = {k: sum(results[L][g][k] for g in results[L]) for k in ("Ir", "Dr", "Dw")}
        bsums = {k: sum(results[base][g][k] for g in results[base]) for k in ("Ir", "Dr", "Dw")}
        compare[L] = {"per_program": rows,
                      "total": {k: (sums[k] - bsums[k]) / bsums[k] for k in sums},
                      "interval_programs": {k: bootstrap(results[base], results[L], k) for k in sums},
                      "worst_program": max(rows, key=lambda g: rows[g]["Ir"]),
                      "programs_slower": sum(1 for g in rows if rows[g]["Ir"] > 0),
                      "programs_faster": sum(1 for g in rows if rows[g]["Ir"] < 0)}
        changed = [i for i in range(len(ds)) if ds[i] != 0 or dd[i] != 0 or di[i] != 0]
        corr[L] = {"functions": len(ds), "functions_changed": len(changed),
                   "spearman_static_vs_data_refs": spearman([ds[i] for i in changed], [dd[i] for i in changed]),
                   "spearman_static_vs_instructions": spearman([ds[i] for i in changed], [di[i] for i in changed]),
                   "spearman_over_programs": spearman(
                       [results[L][g]["static_cost"] - results[base][g]["static_cost"] for g in results[L]],
                       [results[L][g]["Dr"] + results[L][g]["Dw"] - results[base][g]["Dr"] - results[base][g]["Dw"]
                        for g in results[L]])}
    doc = {"schema": SCHEMA, "spec": os.path.relpath(a.spec, REPO) if a.spec.startswith(REPO) else a.spec,
           "spec_sha256": hashlib.sha256(open(a.spec, "rb").read()).hexdigest(),
           "packages_sha256": hashlib.sha256(open(a.packages, "rb").read()).hexdigest(),
           "sources": {pkg: pkgs[pkg]["files"] for pkg in sorted(srcs)},
           "inputs_sha256": {n: hashlib.sha256(open(p, "rb").read()).hexdigest() for n, p in inputs.items()},
           "valgrind": subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip(),
           "compiler": cs.tool_version(spec["compiler"]["c"]),
           "policies": [{k: v for k, v in p.items() if k != "label"} | {"label": p["label"]} for p in policies],
           "baseline": base, "programs": results, "versus_baseline": compare,
           "static_vs_dynamic": corr, "outputs_differ": differ}
    tmp = os.path.join(out, "results.json.tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    os.replace(tmp, os.path.join(out, "results.json"))
    shutil.rmtree(work, ignore_errors=True)
    for L, c in compare.items():
        lo, hi = c["interval_programs"]["Ir"]
        print(f"{L} vs {base}: Ir {100 * c['total']['Ir']:+.3f} % (95 % over programs {100 * lo:+.3f} .. "
              f"{100 * hi:+.3f} %; worst {c['worst_program']}), Dr {100 * c['total']['Dr']:+.3f} %, "
              f"Dw {100 * c['total']['Dw']:+.3f} %; static vs data refs over {corr[L]['functions_changed']} "
              f"changed functions: Spearman {corr[L]['spearman_static_vs_data_refs']}")
    if differ:
        print("perf-track: error: outputs differ from the baseline's: " + ", ".join(differ), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
