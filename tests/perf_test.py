#!/usr/bin/python3
"""The performance track (scripts/perf-track.py, issue 25 point 2).

Oracles: a tiny program whose loop count is known, counted by valgrind, against its own
disassembly (llvm-objdump-22: the instructions, loads and stores of the loop body); the same
run twice (counts do not vary); the generated inputs twice (the same bytes); and, end to end on
one pinned package (zstd), the outputs of every policy's build against each other and the
static costs against the remarks read here from the format description.

    perf_test.py --ir2vec BIN --llvm-bindir DIR
"""
import argparse, importlib.util, json, os, re, subprocess, sys, tempfile

import harness

p = argparse.ArgumentParser()
p.add_argument("--ir2vec", required=True)
p.add_argument("--llvm-bindir", required=True)
p.add_argument("--no-download", action="store_true", help="skip the end-to-end build of zstd")
a = p.parse_args()
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("perf_track", os.path.join(REPO, "scripts", "perf-track.py"))
pt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pt)
res = harness.Results()
check = res.check
work = tempfile.mkdtemp(prefix="perf-test-")
W = lambda n: os.path.join(work, n)

# --- a loop whose count is known ---------------------------------------------------------
open(W("loop.c"), "w").write("""#include <stdlib.h>
volatile long sink;
volatile long src = 3;
int main(int argc, char **argv) {
  long n = atol(argv[1]);
  for (long i = 0; i < n; i++)
    sink = src;
  return 0;
}
""")
r = subprocess.run(["clang-22", "-O2", "-fno-unroll-loops", W("loop.c"), "-o", W("loop")], capture_output=True)
check("the tiny program builds", r.returncode == 0, r.stderr)
dis = subprocess.run([os.path.join(a.llvm_bindir, "llvm-objdump"), "-d", "--no-show-raw-insn", W("loop")],
                     capture_output=True, text=True).stdout
main = dis[dis.index("<main>:"):].split("\n\n")[0].splitlines()[1:]
insns = [(int(l.split(":")[0], 16), l.split(":", 1)[1].strip()) for l in main if re.match(r"\s*[0-9a-f]+:", l)]
# The loop: the backward branch and its target; its body is every instruction in between.
back = [(addr, int(re.search(r"0x([0-9a-f]+)", t).group(1), 16)) for addr, t in insns
        if t.startswith("j") and re.search(r"0x([0-9a-f]+)", t)
        and int(re.search(r"0x([0-9a-f]+)", t).group(1), 16) < addr]
check("the loop's backward branch is found", len(back) == 1, insns)
end, start = back[0]
body = [t for addr, t in insns if start <= addr <= end]
loads = sum(1 for t in body if "<src>" in t and re.match(r"mov\w*\s+0x", t))
stores = sum(1 for t in body if "<sink>" in t and re.search(r",\s*0x[0-9a-f]+\(%rip\)", t))
check("the loop body reads src once and writes sink once", loads == 1 and stores == 1, body)
N1, N2 = 10000, 20000  # the same number of digits: atol does the same work
t1, _, _ = pt.cachegrind([W("loop"), str(N1)], W("a.cg"), W("a.out"))
t1b, _, _ = pt.cachegrind([W("loop"), str(N1)], W("b.cg"), W("b.out"))
t2, fns2, _ = pt.cachegrind([W("loop"), str(N2)], W("c.cg"), W("c.out"))
check("valgrind's counts do not vary between runs", t1 == t1b, (t1, t1b))
d = {k: t2[k] - t1[k] for k in ("Ir", "Dr", "Dw")}
check(f"instructions: {N2 - N1} more iterations x {len(body)} instructions of the body",
      d["Ir"] == (N2 - N1) * len(body), (d, body))
check("data reads and writes: one of each per iteration", d["Dr"] == (N2 - N1) * loads
      and d["Dw"] == (N2 - N1) * stores, d)
check("the per-function counts sum to the totals",
      all(sum(f.get(k, 0) for f in fns2.values()) == t2[k] for k in ("Ir", "Dr", "Dw")), t2)
check("main holds the loop's instructions", fns2.get("main", {}).get("Ir", 0) >= N2 * len(body), fns2.get("main"))

# --- inputs are the same bytes on every run ----------------------------------------------
doc = json.load(open(os.path.join(REPO, "bench", "perf", "programs.json")))
check("every input of the spec is generated the same twice",
      all(pt.GENERATORS[q["generator"]](q) == pt.GENERATORS[q["generator"]](q) for q in doc["inputs"].values()))
programs = {q["name"]: q for q in doc["programs"]}
packages = {q["package"] for q in doc["programs"]}
check("at least 6 programs from at least 4 packages", len(programs) >= 6 and len(packages) >= 4,
      (list(programs), packages))

# --- end to end on zstd: default and no-evict ---------------------------------------------
if not a.no_download:
    out = W("track")
    r = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "perf-track.py"), "-o", out,
                        "--programs", "zstd", "--ir2vec", a.ir2vec, "--policy", "default",
                        "--policy", "no-evict"], capture_output=True, text=True, timeout=3000)
    check("perf-track on zstd, default and no-evict", r.returncode == 0, r.stderr[-2000:])
    if r.returncode == 0:
        R = json.load(open(os.path.join(out, "results.json")))
        d0, d1 = R["programs"]["default"]["zstd"], R["programs"]["no-evict"]["zstd"]
        check("schema and the programs' output: the same bytes under both policies",
              R["schema"] == "ir2vec.perf-results/1" and not R["outputs_differ"]
              and d0["output_sha256"] == d1["output_sha256"], R["outputs_differ"])
        check("never evicting costs more statically and makes more data references (Dr + Dw)",
              d1["static_cost"] > d0["static_cost"] and d1["Dr"] + d1["Dw"] > d0["Dr"] + d0["Dw"], (d0, d1))
        import hashlib
        pk = json.load(open(os.path.join(REPO, "bench", "benchmark", "packages.json")))
        zstd_files = next(q["files"] for q in pk["packages"] if q["name"] == "zstd")
        check("the results pin the sources, the inputs and the spec",
              R["sources"] == {"zstd": zstd_files}
              and all(R["inputs_sha256"][n] == hashlib.sha256(pt.GENERATORS[q["generator"]](q)).hexdigest()
                      for n, q in doc["inputs"].items())
              and R["spec_sha256"] == hashlib.sha256(open(os.path.join(REPO, "bench", "perf", "programs.json"), "rb").read()).hexdigest(),
              (R["sources"], R["inputs_sha256"]))
        v = R["versus_baseline"]["no-evict"]
        check("one program: its change is the total, the interval a point, the worst itself",
              v["worst_program"] == "zstd" and v["interval_programs"]["Ir"][0] == v["interval_programs"]["Ir"][1]
              and abs(v["interval_programs"]["Ir"][0] - v["total"]["Ir"]) < 1e-15
              and abs(v["total"]["Ir"] - (d1["Ir"] - d0["Ir"]) / d0["Ir"]) < 1e-15, v)
        c = R["static_vs_dynamic"]["no-evict"]
        check("the static reward's rank correlation with the data references is reported",
              c["functions_changed"] > 0 and c["spearman_static_vs_data_refs"] is not None, c)
        check("nothing is left in the output but results.json", os.listdir(out) == ["results.json"],
              os.listdir(out))
        # The open benchmark takes the track's file as it is written (the reader in C++ against
        # the writer in Python): every count in its results, the file's hash in its manifest.
        import small_corpus
        mods = small_corpus.build(W("corpus"))
        open(W("corpus.list"), "w").write("".join(m + "\n" for m in mods))
        json.dump({"corpus": ["@" + W("corpus.list")], "folds": 2, "exploration": {"budget": 1},
                   "policies": [{"name": "heuristic", "policy": "default"}]}, open(W("bench.json"), "w"))
        r = subprocess.run([a.ir2vec, "mlgo", "benchmark", "-q", W("bench.json"), "-o", W("bench"),
                            "--perf-results", os.path.join(out, "results.json")], capture_output=True, text=True)
        if check("mlgo benchmark --perf-results takes the track's results.json", r.returncode == 0, r.stderr):
            B = json.load(open(W("bench/results.json")))["perf_track"]
            M = json.load(open(W("bench/manifest.json")))["perf_track"]
            got = {p_["label"]: {g: {k: v for k, v in x.items() if k != "output_sha256"} for g, x in p_["programs"].items()}
                   for p_ in B["policies"]}
            want = {lab: {g: {k: x[k] for k in ("Ir", "Dr", "Dw", "D1mr", "D1mw", "static_cost")}
                          for g, x in progs.items()} for lab, progs in R["programs"].items()}
            vb = next(p_ for p_ in B["policies"] if p_["label"] == "no-evict")["versus_baseline"]
            check("the benchmark's perf_track: the track's counts, changes and pins",
                  got == want and vb["total"] == R["versus_baseline"]["no-evict"]["total"]
                  and M["sha256"] == hashlib.sha256(open(os.path.join(out, "results.json"), "rb").read()).hexdigest()
                  and M["sources"] == R["sources"] and M["inputs_sha256"] == R["inputs_sha256"], (got, want, vb))

sys.exit(res.summary("perf: "))
