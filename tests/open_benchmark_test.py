#!/usr/bin/python3
"""The open benchmark (`ir2vec mlgo benchmark`, docs/benchmark.md) and its pinned corpus, against
oracles independent of the code under test:

  * the corpus script refuses sources whose SHA-256 differs from the pin, and files the list
    does not pin, before building anything (a local fake of `apt-get` serves the downloads);
  * the heuristic's sizes are opt-22 -Oz alone (llc-22, llvm-size-22), a fixed policy's are its
    own run under the host, a trained policy's are what `mlgo eval` of its fold's model
    measures (that model records the fold as its held-out side);
  * totals, the worst package, the intervals' order and the captured headroom equal the test's
    own sums over the per-module sizes; the leaderboard is ordered by reduction;
  * two runs in different directories (-j1, -j2) write the same results.json, byte for byte;
  * the page, rendered by Debian's chromium-headless-shell, shows in its DOM exactly the
    numbers of results.json (leaderboard rows and per-package bars), and loads nothing from
    the network;
  * bad specs are refused by name, with nothing written.

  open_benchmark_test.py --ir2vec BIN --llvm-bindir DIR
"""
import hashlib, html.parser, json, os, shutil, stat, subprocess, sys

import harness
import mlgo_oracle
import small_corpus

T = harness.ToolTest("benchmark-")
a, res, check, tmp, W, B = T.args, T.res, T.check, T.tmp, T.W, T.B
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

class DOM(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.bars, self.row, self.cell, self.drawn, self.links = [], [], None, None, False, []
        self.perf_rows, self.perf_cells, self.perf_hidden, self.program = [], [], None, None

    def handle_starttag(self, tag, attrs):
        at = dict(attrs)
        if tag == "body" and at.get("data-drawn") == "yes":
            self.drawn = True
        for k in ("src", "href"):
            if k in at:
                self.links.append(at[k])
        if tag == "section" and at.get("id") == "perf":
            self.perf_hidden = "hidden" in at
        if tag == "tr" and "data-policy" in at:
            self.row = {"policy": at["data-policy"], "cells": {}}
            self.rows.append(self.row)
        elif tag == "tr" and "data-perf-policy" in at:
            self.row = {"policy": at["data-perf-policy"], "cells": {}}
            self.perf_rows.append(self.row)
        elif tag == "tr" and "data-perf-program" in at:
            self.program = at["data-perf-program"]
        elif tag == "td" and self.program is not None and "data-policy" in at:
            self.perf_cells.append((self.program, at["data-policy"], int(at["data-value"])))
        elif tag == "td" and self.row is not None:
            self.cell = at.get("data-field")
            self.row["cells"][self.cell] = {"value": at.get("data-value"), "text": ""}
        elif tag == "rect" and "data-reduction" in at:
            self.bars.append((at["data-policy"], at["data-package"], float(at["data-reduction"])))

    def handle_endtag(self, tag):
        if tag == "td":
            self.cell = None
        elif tag == "tr":
            self.row, self.program = None, None

    def handle_data(self, data):
        if self.row is not None and self.cell is not None:
            self.row["cells"][self.cell]["text"] += data


# ---- 1. the pinned corpus refuses what it did not pin ---------------------------------------
# A package list of one package whose files a fake apt-get serves: first as pinned, then with
# one byte changed, then with a file more.
src = W("src")
os.makedirs(src)
payload = {"demo_1.0-1.dsc": b"Format: 3.0 (quilt)\nSource: demo\n", "demo_1.0.orig.tar.gz": b"not a tarball"}
for n, b in payload.items():
    open(os.path.join(src, n), "wb").write(b)
fakebin = W("fakebin")
os.makedirs(fakebin)
fake_apt = os.path.join(fakebin, "apt-get")
open(fake_apt, "w").write(f"#!/bin/sh\ncp {src}/* .\n")
os.chmod(fake_apt, 0o755)
pins = {n: hashlib.sha256(b).hexdigest() for n, b in payload.items()}
plist = W("packages.json")
json.dump({"schema": "ir2vec.benchmark-packages/1", "compiler": {"c": "clang-22", "c++": "clang++-22"},
           "flags": ["-Oz"], "tools": [], "packages": [
               {"name": "demo", "source": "demo", "version": "1.0-1", "language": "c", "build": "make",
                "files": pins}]}, open(plist, "w"))
env = dict(os.environ, PATH=fakebin + ":" + os.environ["PATH"])
script = os.path.join(REPO, "scripts", "build-benchmark-corpus.py")


def build_corpus(out):
    return subprocess.run(["/usr/bin/python3", script, "--list", plist, "-o", out, "--ir2vec", a.ir2vec],
                          env=env, capture_output=True)


open(os.path.join(src, "demo_1.0.orig.tar.gz"), "wb").write(b"not a tarbalL")
r = build_corpus(W("c1"))
check("corpus: a source whose SHA-256 differs from the pin is refused, exit 1, nothing built",
      r.returncode == 1 and b"demo_1.0.orig.tar.gz has SHA-256" in r.stderr and b"refusing" in r.stderr
      and not os.path.exists(W("c1")), r.stderr)
open(os.path.join(src, "demo_1.0.orig.tar.gz"), "wb").write(payload["demo_1.0.orig.tar.gz"])
open(os.path.join(src, "demo_1.0-1.debian.tar.xz"), "wb").write(b"extra")
r = build_corpus(W("c2"))
check("corpus: a downloaded file the list does not pin is refused, exit 1",
      r.returncode == 1 and b"does not pin: demo_1.0-1.debian.tar.xz" in r.stderr and not os.path.exists(W("c2")), r.stderr)
os.remove(os.path.join(src, "demo_1.0-1.debian.tar.xz"))
# With the pinned bytes the sources pass the check and go on to unpacking, which fails on the
# fake tarball: a build failure, reported by package, not a refusal.
r = build_corpus(W("c3"))
check("corpus: pinned files pass the check; a package that fails is reported by name",
      r.returncode == 1 and b"demo failed to build" in r.stderr and b"SHA-256" not in r.stderr, r.stderr)
# A directory of the user's that happens to hold a manifest.json is not a corpus to replace.
foreign = W("userproj")
os.makedirs(foreign)
open(os.path.join(foreign, "manifest.json"), "w").write('{"name": "my app"}')
open(os.path.join(foreign, "main.js"), "w").write("keep me")
r = build_corpus(foreign)
check("corpus: a directory with someone else's manifest.json is refused, left as it was",
      r.returncode == 1 and b"not a benchmark corpus" in r.stderr and sorted(os.listdir(foreign)) == ["main.js", "manifest.json"],
      r.stderr)
bad_list = W("array.json")
open(bad_list, "w").write("[1]")
r = subprocess.run(["/usr/bin/python3", script, "--list", bad_list, "-o", W("c4")], env=env, capture_output=True)
check("corpus: a list that is not an object is refused naming the file (no traceback)",
      r.returncode == 1 and b"array.json: expected a JSON object" in r.stderr and b"Traceback" not in r.stderr, r.stderr)
# The shipped list: every package has its source, version, a .dsc and SHA-256 pins.
shipped = json.load(open(os.path.join(REPO, "bench", "benchmark", "packages.json")))
ok = shipped["schema"] == "ir2vec.benchmark-packages/1" and len(shipped["packages"]) >= 30
cxx = sum(p["language"] == "c++" for p in shipped["packages"])
for p in shipped["packages"]:
    ok &= sum(f.endswith(".dsc") for f in p["files"]) == 1 and all(len(h) == 64 for h in p["files"].values())
check("corpus: the shipped list pins at least 30 packages, at least 10 of them C++", ok and cxx >= 10, cxx)

# ---- 2. the benchmark on a small corpus of three packages -----------------------------------
corpus = W("corpus")
modules = small_corpus.build(corpus)
listfile = W("corpus.list")
open(listfile, "w").write("".join(m + "\n" for m in modules))
spec = {"corpus": ["@" + listfile], "folds": 2, "seed": 1, "exploration": {"budget": 4},
        "model": {"kind": "mlp", "hidden": [8], "epochs": 5},
        "policies": [{"name": "heuristic", "policy": "default"},
                     {"name": "size", "policy": "size"},
                     {"name": "cloned", "train": {"features": ["cost", "callgraph", "heuristic"]}},
                     {"name": "searched", "search": {"add": [10, 80], "add_max_callee_users": [2, None],
                                                     "refuse": [None, 10]}}]}
spec_file = W("spec.json")
json.dump(spec, open(spec_file, "w"))
out1, out2 = W("run1"), W("run2")
r1 = harness.run([a.ir2vec, "mlgo", "benchmark", spec_file, "-o", out1, "-j", "2"])
r2 = harness.run([a.ir2vec, "mlgo", "benchmark", "-q", spec_file, "-o", out2, "-j", "1"])
if check("benchmark: exit 0 twice", r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr):
    check("benchmark: two runs in different directories (-j2, -j1) give the same results.json",
          open(os.path.join(out1, "results.json"), "rb").read() == open(os.path.join(out2, "results.json"), "rb").read())
    res_ = json.load(open(os.path.join(out1, "results.json")))
    man = json.load(open(os.path.join(out1, "manifest.json")))
    check("benchmark: schemas, the corpus and the protocol",
          res_["schema"] == "ir2vec.benchmark-results/2" and man["schema"] == "ir2vec.benchmark-manifest/2"
          and res_["perf_track"] is None and man["perf_track"] is None
          and res_["corpus"]["modules"] == len(modules) and res_["corpus"]["packages"] == ["alpha", "beta", "gamma"]
          and res_["protocol"]["name"] == "transfer" and res_["protocol"]["folds"]["folds"] == 2)
    check("benchmark: the manifest names versions, commands, seeds and hashes",
          man["llvm_version"].startswith("22.") and len(man["spec"]["sha256"]) == 64
          and len(man["exploration"]["sha256"]) == 64 and "opt-22" in man["opt"] and man["wall_seconds"] > 0)
    pol = {p["name"]: p for p in res_["policies"]}
    # The heuristic: -Oz alone, measured here.
    for i, m in enumerate(pol["heuristic"]["modules"]):
        bc, obj = W(f"oz{i}.bc"), W(f"oz{i}.o")
        harness.run([B("opt"), "-passes=default<Oz>", m["path"], "-o", bc], check=True)
        harness.run([B("llc"), "-O2", "-filetype=obj", bc, "-o", obj], check=True)
        oz = mlgo_oracle.text_size(B("llvm-size"), obj)
        check(f"benchmark heuristic {os.path.basename(m['path'])}: -Oz .text and the heuristic's = opt-22 -Oz alone",
              m["baseline_text_size"] == oz and m["policy_text_size"] == oz, (m, oz))
    check("benchmark size: its model named by file name and hash, not by where it is installed",
          [m_["file"] for m_ in pol["size"]["models"]] == ["inline-size.h5"] and len(pol["size"]["models"][0]["sha256"]) == 64,
          pol["size"]["models"])
    # A fixed policy: its own run under the host.
    m = pol["size"]["modules"][0]
    bc, obj = W("size.bc"), W("size.o")
    harness.run([a.ir2vec, "mlgo", "run", "--policy", "size", "--", B("opt"), "-passes=default<Oz>", m["path"], "-o", bc],
                check=True)
    harness.run([B("llc"), "-O2", "-filetype=obj", bc, "-o", obj], check=True)
    check("benchmark size: a module's .text = the policy's own run (llvm-size)",
          m["policy_text_size"] == mlgo_oracle.text_size(B("llvm-size"), obj), m)
    # A trained policy: each fold's model judged by mlgo eval (transfer) measures the same .text.
    cl = pol["cloned"]
    folds = res_["protocol"]["folds"]["packages"]
    check("benchmark cloned: a model per fold, every module judged once",
          len(cl["models"]) == 2 and sorted(x["path"] for x in cl["modules"]) == sorted(modules), cl["models"])
    for k, mf in enumerate(cl["models"]):
        evj = W(f"ev{k}.json")
        r = harness.run([a.ir2vec, "mlgo", "eval", "-q", "--policy", "mlp", "--model", os.path.join(out1, mf["file"]),
                         "-o", evj, "@" + listfile])
        if check(f"benchmark cloned fold {k}: mlgo eval of its model runs", r.returncode == 0, r.stderr):
            ev = json.load(open(evj))
            mine = {x["path"]: x["policy_text_size"] for x in cl["modules"] if x["package"] in folds[k]}
            check(f"benchmark cloned fold {k}: judged on its fold only, with the same .text as mlgo eval",
                  {x["path"]: x["policy_text_size"] for x in ev["modules"]} == mine, (ev["modules"], mine))
    # A searched policy: each fold's rule is the best qualifying candidate on the other folds
    # (by the scores it records), its file judged by mlgo eval measures the same .text, and the
    # final rule's file, judged on every module, has the overall score recorded for it.
    se = pol["searched"]
    srch = se["search"]
    names = [c["rule"] for c in srch["candidates"]]
    check("benchmark searched: the heuristic first, then the grid's distinct combinations",
          names[0] == "heuristic" and len(names) == len(set(names)) and len(names) == 1 + 2 * 2 * 2
          and {"inline+10[users<=2]", "inline+80", "refuse-10+inline+80[users<=2]"} <= set(names), names)
    check("benchmark searched: a rule file per fold, then the final one",
          [m_["file"] for m_ in se["models"]] == ["models/searched-fold0.h5", "models/searched-fold1.h5", "models/searched.h5"],
          se["models"])

    def best_of(scores):
        q = [i for i, x in enumerate(scores) if x["worst_package_reduction"] >= -0.001]
        pool = q or range(len(scores))
        key = (lambda i: scores[i]["reduction"]) if q else (lambda i: scores[i]["worst_package_reduction"])
        return max(pool, key=lambda i: (key(i), -i))

    def eval_rule(model, paths, name):
        lst = W(name + ".list")
        open(lst, "w").write("".join(x + "\n" for x in paths))
        evj = W(name + ".json")
        # The final rule was chosen on every package: judged on all of them (split, fraction 1).
        extra = ["--test-fraction", "1"] if name == "srchall" else []
        r = harness.run([a.ir2vec, "mlgo", "eval", "-q", "--policy", "rule", "--model", model, "-o", evj] + extra + ["@" + lst])
        return json.load(open(evj))["modules"] if r.returncode == 0 else r.stderr

    for k, f in enumerate(srch["folds"]):
        check(f"benchmark searched fold {k}: its rule is the best qualifying candidate on the other folds",
              f["packages"] == folds[k] and [x["rule"] for x in f["scores"]] == names
              and f["rule"] == names[best_of(f["scores"])], f)
        mine = {x["path"]: x["policy_text_size"] for x in se["modules"] if x["package"] in folds[k]}
        ev = eval_rule(os.path.join(out1, se["models"][k]["file"]), sorted(mine), f"srch{k}")
        check(f"benchmark searched fold {k}: mlgo eval of its rule file measures the same .text",
              isinstance(ev, list) and {x["path"]: x["policy_text_size"] for x in ev} == mine, (ev, mine))
    ev = eval_rule(os.path.join(out1, se["models"][2]["file"]), modules, "srchall")
    if check("benchmark searched: mlgo eval of the final rule file runs", isinstance(ev, list), ev):
        base = {x["path"]: x["baseline_text_size"] for x in se["modules"]}
        pk = {x["path"]: x["package"] for x in se["modules"]}
        per = {}
        for x in ev:
            b_, q_ = per.get(pk[x["path"]], (0, 0))
            per[pk[x["path"]]] = (b_ + base[x["path"]], q_ + x["policy_text_size"])
        total = 1 - sum(q_ for _, q_ in per.values()) / sum(b_ for b_, _ in per.values())
        worst = min(1 - q_ / b_ for b_, q_ in per.values())
        fin = srch["candidates"][names.index(srch["final_rule"])]
        check("benchmark searched: the final rule is the best qualifying candidate overall, with the score "
              "its own file gives on every module",
              srch["final_rule"] == names[best_of(srch["candidates"])] and abs(fin["reduction"] - total) < 1e-12
              and abs(fin["worst_package_reduction"] - worst) < 1e-12, (fin, total, worst))
    # Totals, worst package, captured headroom: the test's own sums.
    for name, p in pol.items():
        ms = [x for x in p["modules"] if not x["error"]]
        base = sum(x["baseline_text_size"] for x in ms)
        polsum = sum(x["policy_text_size"] for x in ms)
        best = sum(x["best_text_size"] for x in ms)
        s = p["summary"]
        per = {}
        for x in ms:
            b_, q_ = per.get(x["package"], (0, 0))
            per[x["package"]] = (b_ + x["baseline_text_size"], q_ + x["policy_text_size"])
        red = {k: 1 - q_ / b_ for k, (b_, q_) in per.items()}
        worst = min(red, key=lambda k: (red[k], list(per).index(k)))
        check(f"benchmark {name}: reduction, worst package and captured headroom = the test's sums",
              abs(s["reduction"] - (1 - polsum / base)) < 1e-12 and s["worst_package"]["package"] == worst
              and abs(s["worst_package"]["reduction"] - red[worst]) < 1e-12
              and (s["headroom"]["captured"] is None if base == best else abs(s["headroom"]["captured"] - (base - polsum) / (base - best)) < 1e-12)
              and s["ci95"][0] <= s["reduction"] <= s["ci95"][1], (name, s, red))
    check("benchmark: the leaderboard is ordered by reduction",
          [pol[n]["summary"]["reduction"] for n in res_["leaderboard"]] ==
          sorted((p["summary"]["reduction"] for p in res_["policies"]), reverse=True) and sorted(res_["leaderboard"]) == sorted(pol))
    rerun = harness.run([a.ir2vec, "mlgo", "benchmark", spec_file, "-o", out1, "-j", "2"])
    check("benchmark again: the exploration is reused, the results are the same",
          rerun.returncode == 0 and b"reusing the exploration" in rerun.stderr
          and json.load(open(os.path.join(out1, "results.json"))) == res_, rerun.stderr)

    # ---- 3. the page in a real browser ------------------------------------------------------
    page = os.path.join(out1, "index.html")
    browser = shutil.which("chromium-headless-shell")
    if check("the browser is installed (Debian's chromium-headless-shell, scripts/setup.sh)", browser is not None):
        r = subprocess.run([browser, "--no-sandbox", "--disable-gpu", "--user-data-dir=" + W("chrome"),
                            "--dump-dom", "file://" + page], capture_output=True, timeout=120)
        d = DOM()
        d.feed(r.stdout.decode())
        check("page: the browser ran its script", r.returncode == 0 and d.drawn, r.stderr[-800:])
        check("page: the leaderboard rows in results.json's order", [x["policy"] for x in d.rows] == res_["leaderboard"],
              [x["policy"] for x in d.rows])
        for row in d.rows:
            s = pol[row["policy"]]["summary"]
            c = row["cells"]
            shown = float(c["reduction"]["text"].replace("%", "").strip()) / 100
            check(f"page {row['policy']}: reduction, intervals, worst package, captured, counts = results.json",
                  float(c["reduction"]["value"]) == s["reduction"] and abs(shown - s["reduction"]) <= 0.00005 + 1e-12
                  and [float(v) for v in c["ci95"]["value"].split()] == s["ci95"]
                  and [float(v) for v in c["ci95_packages"]["value"].split()] == s["ci95_packages"]
                  and c["worst_package"]["text"].startswith(s["worst_package"]["package"] + " ")
                  and float(c["worst_package"]["value"]) == s["worst_package"]["reduction"]
                  and int(c["modules"]["value"]) == s["modules"] - s["failed"]
                  and int(c["grown"]["value"]) == s["grown"] and int(c["shrunk"]["value"]) == s["shrunk"]
                  and (s["headroom"]["captured"] is None or float(c["captured"]["value"]) == s["headroom"]["captured"]), c)
        want = sorted((p["name"], q["package"], q["reduction"]) for p in res_["policies"] for q in p["packages"])
        check("page: one bar per policy and package, each the package's reduction", sorted(d.bars) == want, (d.bars, want))
        check("page: nothing loaded from anywhere (no src or href)", d.links == [], d.links)
        check("page: without a performance track its section stays hidden and empty",
              d.perf_hidden is True and d.perf_rows == [] and d.perf_cells == [], (d.perf_hidden, d.perf_rows))

# ---- 3b. the performance track (--perf-results): checked, pinned and drawn ---------------------
# A results file of scripts/perf-track.py written here by hand: two programs, the baseline and
# one policy, with the changes worked out below from the counts.
H = lambda c: hashlib.sha256(c.encode()).hexdigest()
track = {
    "schema": "ir2vec.perf-results/1", "spec": "bench/perf/programs.json", "spec_sha256": H("spec"),
    "packages_sha256": H("packages"), "sources": {"pkga": {"pkga_1.dsc": H("dsc"), "pkga_1.orig.tar.gz": H("tar")}},
    "inputs_sha256": {"text": H("text")}, "valgrind": "valgrind-3.19.0", "compiler": "Debian clang version 22.1.8",
    "policies": [{"name": "default", "label": "default"}, {"name": "linear", "model": "m.h5", "label": "x"}],
    "baseline": "default",
    "programs": {
        "default": {"a": {"Ir": 1000, "Dr": 100, "Dw": 10, "D1mr": 5, "D1mw": 1, "static_cost": 12.5,
                          "valgrind_seconds": 0.25, "output_sha256": H("out a")},
                    "b": {"Ir": 3000, "Dr": 200, "Dw": 0, "D1mr": 7, "D1mw": 2, "static_cost": 30.0,
                          "valgrind_seconds": 0.5, "output_sha256": H("out b")}},
        "x": {"a": {"Ir": 1100, "Dr": 150, "Dw": 20, "D1mr": 6, "D1mw": 1, "static_cost": 10.0,
                    "valgrind_seconds": 0.3, "output_sha256": H("out a")},
              "b": {"Ir": 2900, "Dr": 200, "Dw": 0, "D1mr": 7, "D1mw": 3, "static_cost": 31.0,
                    "valgrind_seconds": 0.75, "output_sha256": H("out b")}}},
    # What perf-track.py computes: (sum policy - sum baseline) / sum baseline.
    "versus_baseline": {"x": {"per_program": {}, "total": {"Ir": 0.0, "Dr": 50 / 300, "Dw": 1.0},
                              "interval_programs": {"Ir": [-1 / 30, 0.1], "Dr": [0.0, 0.5], "Dw": [1.0, 1.0]},
                              "worst_program": "a", "programs_slower": 1, "programs_faster": 1}},
    "static_vs_dynamic": {"x": {"functions": 10, "functions_changed": 3, "spearman_static_vs_data_refs": 0.5,
                                "spearman_static_vs_instructions": 0.25, "spearman_over_programs": None}},
    "outputs_differ": []}
track_file = W("perf-results.json")
json.dump(track, open(track_file, "w"))
pspec = W("perf-spec.json")
json.dump({"corpus": ["@" + listfile], "folds": 2, "exploration": {"budget": 1},
           "policies": [{"name": "heuristic", "policy": "default"}]}, open(pspec, "w"))
pout = W("perf-run")
r = harness.run([a.ir2vec, "mlgo", "benchmark", "-q", pspec, "-o", pout, "--perf-results", track_file])
if check("benchmark --perf-results: exit 0", r.returncode == 0, r.stderr):
    pres = json.load(open(os.path.join(pout, "results.json")))
    pman = json.load(open(os.path.join(pout, "manifest.json")))
    pt_ = pres["perf_track"]
    pol_ = {p["label"]: p for p in pt_["policies"]}
    counts = lambda lab, g: {k: track["programs"][lab][g][k] for k in ("Ir", "Dr", "Dw", "D1mr", "D1mw")}
    check("perf track in results.json: the baseline, the programs and every count as the file gives them",
          pt_["baseline"] == "default" and pt_["programs"] == ["a", "b"] and list(pol_) == ["default", "x"]
          and all({k: pol_[lab]["programs"][g][k] for k in ("Ir", "Dr", "Dw", "D1mr", "D1mw")} == counts(lab, g)
                  and pol_[lab]["programs"][g]["static_cost"] == track["programs"][lab][g]["static_cost"]
                  for lab in ("default", "x") for g in ("a", "b"))
          and pol_["x"]["policy"] == {"name": "linear", "model": "m.h5"}
          and pol_["default"]["total"] == {"Ir": 4000, "Dr": 300, "Dw": 10, "D1mr": 12, "D1mw": 3}
          and pol_["default"]["versus_baseline"] is None, pt_)
    v = pol_["x"]["versus_baseline"]
    check("perf track: the changes worked out by hand (totals 0, +1/6, +1; a +10 % Ir, b -1/30; Dw of b null)",
          v["total"] == {"Ir": 0.0, "Dr": 50 / 300, "Dw": 1.0}
          and v["per_program"] == {"a": {"Ir": 0.1, "Dr": 0.5, "Dw": 1.0}, "b": {"Ir": -100 / 3000, "Dr": 0.0, "Dw": None}}
          and v["worst_program"] == "a" and v["worst_program_Ir"] == 0.1
          and v["programs_slower"] == 1 and v["programs_faster"] == 1
          and v["interval_programs"] == track["versus_baseline"]["x"]["interval_programs"]
          and pol_["x"]["static_vs_dynamic"] == track["static_vs_dynamic"]["x"], v)
    check("perf track: results.json holds no wall times", "valgrind_seconds" not in json.dumps(pres))
    pm = pman["perf_track"]
    check("perf track pinned in manifest.json: the file's SHA-256, sources, inputs, spec, tools, valgrind's seconds",
          pm["file"] == track_file and pm["sha256"] == hashlib.sha256(open(track_file, "rb").read()).hexdigest()
          and pm["sources"] == track["sources"] and pm["inputs_sha256"] == track["inputs_sha256"]
          and pm["spec_sha256"] == track["spec_sha256"] and pm["packages_sha256"] == track["packages_sha256"]
          and pm["valgrind"] == "valgrind-3.19.0" and pm["compiler"] == track["compiler"]
          and pm["valgrind_seconds"] == {"default": {"a": 0.25, "b": 0.5}, "x": {"a": 0.3, "b": 0.75}}, pm)
    browser = shutil.which("chromium-headless-shell")
    if check("perf page: the browser is installed", browser is not None):
        r = subprocess.run([browser, "--no-sandbox", "--disable-gpu", "--user-data-dir=" + W("chrome3"),
                            "--dump-dom", "file://" + os.path.join(pout, "index.html")], capture_output=True, timeout=120)
        d = DOM()
        d.feed(r.stdout.decode())
        rows = {x["policy"]: x["cells"] for x in d.perf_rows}
        check("perf page: drawn, the section shown, one row per policy in the file's order",
              d.drawn and d.perf_hidden is False and [x["policy"] for x in d.perf_rows] == ["default", "x"], d.perf_rows)
        cx = rows.get("x", {})
        check("perf page: the policy's changes, interval, worst program and counts = results.json",
              cx and float(cx["Ir"]["value"]) == v["total"]["Ir"] and float(cx["Dr"]["value"]) == v["total"]["Dr"]
              and float(cx["Dw"]["value"]) == v["total"]["Dw"] and cx["Dr"]["text"] == "+16.67 %"
              and [float(t) for t in cx["ci95_Ir"]["value"].split()] == v["interval_programs"]["Ir"]
              and cx["worst_program"]["text"] == "a +10.00 %" and cx["slower_faster"]["value"] == "1 1"
              and float(cx["spearman"]["value"]) == 0.5
              and int(rows["default"]["Ir"]["value"]) == 4000, rows)
        check("perf page: every program's instructions under every policy",
              sorted(d.perf_cells) == sorted((g, lab, track["programs"][lab][g]["Ir"]) for lab in ("default", "x")
                                             for g in ("a", "b")), d.perf_cells)

# Files that do not hold up are refused by key before any work, nothing written.
def tampered(f):
    t = json.loads(json.dumps(track))
    f(t)
    return t

def setp(path, value):
    def f(t):
        x = t
        for k in path[:-1]:
            x = x[k]
        x[path[-1]] = value
    return f

bad_tracks = [
    (setp(["schema"], "ir2vec.perf-results/9"), b'schema: expected "ir2vec.perf-results/1"'),
    (setp(["programs", "x", "a", "Ir"], 1.5), b"results.programs.x.a.Ir: expected a count"),
    (setp(["programs", "x", "a", "Dr"], -1), b"results.programs.x.a.Dr: expected a count"),
    (setp(["programs", "x", "b", "output_sha256"], H("other")), b"output differs from the baseline"),
    (setp(["versus_baseline", "x", "total", "Ir"], 0.01), b"versus_baseline.x.total.Ir: does not agree"),
    (lambda t: t["programs"]["x"].pop("b"), b"no counts for 'b'"),
    (setp(["outputs_differ"], ["x a"]), b"outputs_differ"),
    (setp(["versus_baseline", "x", "worst_program"], "b"), b"worst_program: 'b' is not the program"),
    (setp(["versus_baseline", "x", "programs_slower"], 2), b"do not agree with the counts"),
    (setp(["versus_baseline", "x", "interval_programs", "Ir"], [0.1, -0.1]), b"interval_programs.Ir"),
    (setp(["static_vs_dynamic", "x", "spearman_static_vs_data_refs"], 2), b"spearman_static_vs_data_refs"),
    (setp(["colour"], 1), b'unknown key "colour"'),
    (lambda t: t.pop("sources"), b"results.sources: expected an object"),
    (setp(["spec_sha256"], "xyz"), b"spec_sha256: expected a SHA-256"),
    (setp(["baseline"], "x"), b"results.baseline"),
    (setp(["policies", 1, "label"], "de\u0000fault"), b"policies[1].label"),
]
for i, (f, needle) in enumerate(bad_tracks):
    bt = W(f"bad-track{i}.json")
    json.dump(tampered(f), open(bt, "w"))
    bo = W(f"bad-track-out{i}")
    r = harness.run([a.ir2vec, "mlgo", "benchmark", "-q", pspec, "-o", bo, "--perf-results", bt])
    check(f"benchmark --perf-results with a bad file ({needle.decode()}): exit 1, named, nothing written",
          r.returncode == 1 and needle in r.stderr and bt.encode() in r.stderr and not os.path.exists(bo), r.stderr)
huge = W("huge-track.json")  # sparse: 300 MiB of NUL bytes
with open(huge, "wb") as f:
    f.truncate(300 << 20)
r = harness.run([a.ir2vec, "mlgo", "benchmark", "-q", pspec, "-o", W("huge-out"), "--perf-results", huge])
check("benchmark --perf-results with a 300 MiB file: refused by its size, named, nothing written",
      r.returncode == 1 and b"huge-track.json" in r.stderr and b"256 MiB" in r.stderr and not os.path.exists(W("huge-out")),
      r.stderr[-300:])
os.remove(huge)
deep = W("deep-track.json")
open(deep, "w").write("[" * 200000 + "]" * 200000)
r = harness.run([a.ir2vec, "mlgo", "benchmark", "-q", pspec, "-o", W("deep-out"), "--perf-results", deep])
check("benchmark --perf-results with JSON nested 200,000 deep: refused, no crash",
      r.returncode == 1 and b"nested more than" in r.stderr and not os.path.exists(W("deep-out")), r.stderr[-300:])
# The track's file inside the output directory under an output's name: an input, never replaced.
inside = W("perf-inside")
os.makedirs(inside)
shutil.copy(track_file, os.path.join(inside, "manifest.json"))
r = harness.run([a.ir2vec, "mlgo", "benchmark", "-q", pspec, "-o", inside, "--perf-results",
                 os.path.join(inside, "manifest.json")])
check("benchmark: --perf-results naming one of the run's outputs is refused, the file intact",
      r.returncode == 1 and open(os.path.join(inside, "manifest.json"), "rb").read() == open(track_file, "rb").read(),
      r.stderr)

# ---- 3c. reruns that cannot reuse what is there (found by a user) -------------------------------
# The spec names its corpus relative to itself; the first run, from the spec's parent, keeps the
# module paths as it reached them. A rerun from the spec's own directory reaches the same modules
# by other paths: the exploration is made again (it was reused, and every module failed).
rel = W("relrun")
os.makedirs(os.path.join(rel, "spec"))
shutil.copytree(corpus, os.path.join(rel, "corpus"))
json.dump({"corpus": ["../corpus"], "folds": 2, "exploration": {"budget": 1},
           "policies": [{"name": "heuristic", "policy": "default"}]}, open(os.path.join(rel, "spec", "s.json"), "w"))
r1 = harness.run([a.ir2vec, "mlgo", "benchmark", "spec/s.json", "-o", "spec/out"], cwd=rel)
if check("benchmark run from the spec's parent: exit 0", r1.returncode == 0, r1.stderr):
    first = json.load(open(os.path.join(rel, "spec", "out", "results.json")))
    r2 = harness.run([a.ir2vec, "mlgo", "benchmark", "s.json", "-o", "out"], cwd=os.path.join(rel, "spec"))
    second = json.load(open(os.path.join(rel, "spec", "out", "results.json"))) if r2.returncode == 0 else None
    check("a rerun from the spec's directory: the exploration made again, exit 0, the same sizes",
          r2.returncode == 0 and b"reusing the exploration" not in r2.stderr
          and [m["policy_text_size"] for m in second["policies"][0]["modules"]]
          == [m["policy_text_size"] for m in first["policies"][0]["modules"]], (r2.returncode, r2.stderr[-500:]))
    # The same modules, whose exploration is reused, but every evaluation fails (a compiler
    # timeout too short for any of them): nothing usable (exit 1), the results left as they were.
    keep = {n: open(os.path.join(rel, "spec", "out", n), "rb").read() for n in ("results.json", "manifest.json", "index.html")}
    json.dump({"corpus": ["../corpus"], "folds": 2, "exploration": {"budget": 1}, "timeout": 0.001,
               "policies": [{"name": "heuristic", "policy": "default"}]}, open(os.path.join(rel, "spec", "t.json"), "w"))
    r3 = harness.run([a.ir2vec, "mlgo", "benchmark", "t.json", "-o", "out"], cwd=os.path.join(rel, "spec"))
    same = all(open(os.path.join(rel, "spec", "out", n), "rb").read() == b for n, b in keep.items())
    check("a rerun in which every evaluation fails: exit 1, named, the results already there untouched",
          r3.returncode == 1 and b"reusing the exploration" in r3.stderr and b"every evaluation failed" in r3.stderr
          and same, (r3.returncode, r3.stderr[-500:]))
    # The corpus gone (the same names, no longer modules): the exploration is not reused (the
    # modules' bytes are not those explored), exploring every module fails: nothing usable
    # (exit 1), each module named, and the results already there are left as they were.
    keep = {n: open(os.path.join(rel, "spec", "out", n), "rb").read() for n in ("results.json", "manifest.json", "index.html")}
    os.rename(os.path.join(rel, "corpus"), os.path.join(rel, "corpus-moved"))
    os.makedirs(os.path.join(rel, "corpus"))
    for d_, _, fs in os.walk(os.path.join(rel, "corpus-moved")):
        for f_ in fs:  # the same names, no longer modules
            dest = os.path.join(rel, "corpus", os.path.relpath(os.path.join(d_, f_), os.path.join(rel, "corpus-moved")))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            open(dest, "wb").write(b"not bitcode")
    r3 = harness.run([a.ir2vec, "mlgo", "benchmark", "s.json", "-o", "out"], cwd=os.path.join(rel, "spec"))
    same = all(open(os.path.join(rel, "spec", "out", n), "rb").read() == b for n, b in keep.items())
    check("a rerun in which every module fails: exit 1, named, the results already there untouched",
          r3.returncode == 1 and b"changed since the exploration" in r3.stderr
          and b"none of the 6 modules could be explored" in r3.stderr and b"gamma/f.bc" in r3.stderr
          and same, (r3.returncode, r3.stderr[-500:]))

# ---- 4. bad specs -----------------------------------------------------------------------------
one_pkg = W("one-package.list")
open(one_pkg, "w").write(modules[0] + "\n")  # one module: one package
for change, needle in (({"colour": 1}, b'unknown key "colour"'),
                       ({"policies": [{"name": "x", "policy": "nonsense"}]}, b"policies[0].policy"),
                       ({"policies": [{"name": "x", "policy": "default"}, {"name": "x", "policy": "size"}]},
                        b"policy 'x' is named twice"),
                       ({"policies": [{"name": "x"}]}, b"a policy is fixed"),
                       ({"policies": [{"name": "x", "train": {"features": ["nonsense"]}}]}, b"unknown feature group"),
                       ({"policies": [{"name": "x", "search": {"add": list(range(100)), "refuse": list(range(100))}}]},
                        b"10000 combinations; at most 256"),
                       ({"policies": [{"name": "x", "search": {"add": [-1]}}]}, b"policies[0].search.add: expected integers >= 0"),
                       ({"policies": [{"name": "x", "search": None}]}, b"policies[0].search: expected an object"),
                       ({"policies": [{"name": "s", "search": {"add": [5]}}, {"name": "s-fold0", "search": {"add": [10]}}]},
                        b"-foldN and -seedN are reserved"),
                       ({"policies": [{"name": "a\u0000b", "policy": "default"}]}, b"no spaces, slashes or control characters"),
                       ({"policies": [{"name": "a\u0000b", "search": {"add": [5]}}]}, b"expected 1 to 64 letters"),
                       ({"policies": [{"name": "x", "search": {"add": [5], "colour": 1}}]}, b"colour: unknown key"),
                       ({"policies": [{"name": "x", "search": {"max_package_growth": 2}}]}, b"expected a fraction"),
                       ({"folds": 1}, b"one fold leaves nothing to train on"),
                       ({"policies": [{"name": "m", "policy": "mlp", "model": W("missing.h5")}]}, b"missing.h5"),
                       ({"corpus": ["@" + one_pkg]}, b"at least two packages"),
                       ({"model": {"hidden": [100000000]}}, b"layer widths must be 1 to"),
                       ({"timeout": -1}, b"spec.timeout")):
    bad = W("bad-spec.json")
    json.dump({**spec, **change}, open(bad, "w"))
    r = harness.run([a.ir2vec, "mlgo", "benchmark", bad, "-o", W("bad-out")])
    check(f"benchmark with a bad spec ({needle.decode()}): exit 1, named, nothing written",
          r.returncode == 1 and needle in r.stderr and not os.path.exists(W("bad-out")), r.stderr)

# ---- 5. outputs that are inputs, links inside the output directory, names that are markup ----
hostile = W("hostile")
os.makedirs(hostile)
shutil.copy(spec_file, os.path.join(hostile, "results.json"))
before = open(os.path.join(hostile, "results.json"), "rb").read()
r = harness.run([a.ir2vec, "mlgo", "benchmark", os.path.join(hostile, "results.json"), "-o", hostile])
check("benchmark: a spec that is one of the run's outputs is refused before any work, kept intact",
      r.returncode == 1 and open(os.path.join(hostile, "results.json"), "rb").read() == before
      and not os.path.exists(os.path.join(hostile, "exploration.h5")), r.stderr)
linked = W("linked")
os.makedirs(linked)
victim = W("victim.txt")
open(victim, "w").write("the user's file\n")
os.symlink(victim, os.path.join(linked, "results.json"))
markup = dict(spec, policies=[{"name": "<!--<script>", "policy": "default"}, {"name": "b", "policy": "size"}])
json.dump(markup, open(W("markup.json"), "w"))
r = harness.run([a.ir2vec, "mlgo", "benchmark", "-q", W("markup.json"), "-o", linked])
check("benchmark: a symlink inside the output directory is replaced, its target untouched",
      r.returncode == 0 and open(victim).read() == "the user's file\n"
      and not os.path.islink(os.path.join(linked, "results.json")), r.stderr)
browser = shutil.which("chromium-headless-shell")
if check("benchmark with markup in a name: a page to render", browser is not None and r.returncode == 0):
    r = subprocess.run([browser, "--no-sandbox", "--disable-gpu", "--user-data-dir=" + W("chrome2"),
                        "--dump-dom", "file://" + os.path.join(linked, "index.html")], capture_output=True, timeout=120)
    d = DOM()
    d.feed(r.stdout.decode())
    check("page: a policy named '<!--<script>' is drawn as text, the page still drawn",
          d.drawn and "<!--<script>" in [x["policy"] for x in d.rows], [x["policy"] for x in d.rows])

linked2 = W("linked2")
os.makedirs(linked2)
os.symlink(victim, os.path.join(linked2, "exploration.h5"))
r = harness.run([a.ir2vec, "mlgo", "benchmark", "-q", spec_file, "-o", linked2])
check("benchmark: a link named exploration.h5 in the output directory is refused, its target untouched",
      r.returncode == 1 and b"a link inside the output directory" in r.stderr and open(victim).read() == "the user's file\n",
      r.stderr)

sys.exit(T.finish())
