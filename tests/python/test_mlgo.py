"""ir2vec.mlgo from Python: a Python callable answering the compiler's own decision gives
opt-22 -Oz's .text (llc-22, llvm-size-22) on the MLGO test modules; the observation is a dict
of numpy arrays; the session log read back equals the one returned; a policy's exception stops
the compiler, leaves no output and is raised; a bad answer is a TypeError."""
import os
import re
import subprocess

import numpy as np
import pytest

import ir2vec

LLVM = "/usr/lib/llvm-22/bin"
# mlgo_six.c, and a module with more call sites of every size.
CALLS = r"""
static int leaf(int x) { return x * 3 + 1; }
static int mid(int x) { int s = 0; for (int i = 0; i < x; ++i) s += leaf(i) ^ leaf(s); return s; }
static int big(int x) { int s = mid(x); if (s & 1) s += mid(s); else s -= leaf(s); return s * mid(x + 1); }
int api1(int x) { return big(x) + leaf(x); }
int api2(int x) { return mid(x) - big(leaf(x)); }
int api3(int *a, int n) { int s = 0; for (int i = 0; i < n; ++i) s += api1(a[i]) + api2(a[i]); return s; }
"""
SOURCES = ["mlgo_six.c", "calls.c"]


def bitcode(opts, tmp_path, name):
    bc = tmp_path / (name + ".bc")
    src = os.path.join(opts["data"], name)
    if name == "calls.c":
        src = tmp_path / name
        src.write_text(CALLS)
    subprocess.run([f"{LLVM}/clang", "-Oz", "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c",
                    str(src), "-o", str(bc)], check=True)
    return bc


def text_size(tmp_path, bc):
    obj = str(bc) + ".o"
    subprocess.run([f"{LLVM}/llc", "-filetype=obj", str(bc), "-o", obj], check=True)
    out = subprocess.run([f"{LLVM}/llvm-size", "-A", obj], capture_output=True, text=True,
                         check=True).stdout
    return int(re.search(r"^\.text\s+(\d+)", out, re.M).group(1))


def opt(bc, out):
    return [f"{LLVM}/opt", "-passes=default<Oz>", str(bc), "-o", str(out)]


@pytest.mark.parametrize("name", SOURCES)
def test_default_answer_gives_the_compilers_text(opts, tmp_path, name):
    bc = bitcode(opts, tmp_path, name)
    plain = tmp_path / "plain.bc"
    subprocess.run(opt(bc, plain), check=True)
    seen = []

    def policy(obs):
        seen.append(obs)
        return obs["inlining_default"]

    hosted = tmp_path / "hosted.bc"
    r = ir2vec.mlgo.run(opt(bc, hosted), policy, task="inline")
    assert r.outcome == "exited" and r.exit_status == 0 and r.clean, r.summary
    assert r.observations == len(seen) > 0
    assert text_size(tmp_path, hosted) == text_size(tmp_path, plain)
    obs = seen[0]
    assert obs["inlining_default"].dtype == np.int64 and obs["inlining_default"].shape == (1,)
    assert "callee_basic_block_count" in obs
    assert [o.features["inlining_default"].item() for o in r.log.observations] == \
        [o["inlining_default"].item() for o in seen]


def test_the_shipped_size_policy_by_name(opts, tmp_path):
    """mlgo.run(cmd, "size"): the shipped model is found beside the module (the build tree
    here), as the CLI finds it; its decisions equal the CLI's on the same module."""
    bc = bitcode(opts, tmp_path, "calls.c")
    r = ir2vec.mlgo.run(opt(bc, tmp_path / "py.bc"), "size")
    assert r.outcome == "exited" and r.exit_status == 0 and r.observations > 0, r.summary
    cli = tmp_path / "cli.log"
    subprocess.run([opts["ir2vec"], "mlgo", "run", "--policy", "size", "--log", str(cli), "--",
                    *opt(bc, tmp_path / "cli.bc")], check=True)
    want = [o.features["inlining_decision"].item() for o in ir2vec.mlgo.read_log(str(cli)).observations]
    assert [o.features["inlining_decision"].item() for o in r.log.observations] == want
    assert text_size(tmp_path, tmp_path / "py.bc") == text_size(tmp_path, tmp_path / "cli.bc")


def test_log_file_reads_back(opts, tmp_path):
    bc = bitcode(opts, tmp_path, "mlgo_six.c")
    log = tmp_path / "s.log"
    r = ir2vec.mlgo.run(opt(bc, tmp_path / "o.bc"), lambda o: 0, log=str(log))
    assert r.clean and r.log is None and log.exists()
    back = ir2vec.mlgo.read_log(log)
    assert len(back.observations) == r.observations
    assert all(o.features["inlining_decision"].item() == 0 for o in back.observations)
    with pytest.raises(ValueError, match="garbage.log"):
        (tmp_path / "garbage.log").write_text("not a log\n")
        ir2vec.mlgo.read_log(tmp_path / "garbage.log")


def test_policy_exception_stops_the_compiler(opts, tmp_path):
    bc = bitcode(opts, tmp_path, "mlgo_six.c")
    out = tmp_path / "out.bc"

    class Boom(Exception):
        pass

    def policy(obs):
        raise Boom("no")

    with pytest.raises(Boom):
        ir2vec.mlgo.run(opt(bc, out), policy)
    assert not out.exists()  # the host removes the killed compiler's output
    with pytest.raises(TypeError, match="inlining_decision"):
        ir2vec.mlgo.run(opt(bc, out), lambda o: "yes")
    with pytest.raises(TypeError):
        ir2vec.mlgo.run(opt(bc, out), 42)
    with pytest.raises(ValueError, match="task"):
        ir2vec.mlgo.run(opt(bc, out), lambda o: 0, task="inlining")


def test_ctrl_c_kills_the_compiler_and_raises(opts, tmp_path):
    import signal, sys, textwrap
    bc = bitcode(opts, tmp_path, "calls.c")
    out = tmp_path / "out.bc"
    script = textwrap.dedent(f"""
        import time, ir2vec
        def slow(obs):
            print("asked", flush=True)
            time.sleep(0.5)
            return obs["inlining_default"]
        try:
            ir2vec.mlgo.run({opt(bc, out)!r}, slow)
            print("finished")
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "asked"
    p.send_signal(signal.SIGINT)
    rest, _ = p.communicate(timeout=60)
    assert rest.split()[-1] == "interrupted" and p.returncode == 0, rest
    assert not out.exists()


def test_read_dataset_equals_h5py(opts, tmp_path):
    import h5py
    bcs = [str(bitcode(opts, tmp_path, n)) for n in SOURCES]
    out = tmp_path / "data.h5"
    subprocess.run([opts["ir2vec"], "mlgo", "collect", "-q", "-o", str(out), *bcs], check=True,
                   env=dict(os.environ, PATH=f"{LLVM}:" + os.environ["PATH"]))
    d = ir2vec.mlgo.read_dataset(out)
    assert d.task == "inline" and len(d.decisions) > 10
    f = h5py.File(out, "r")
    names = list(d.features)
    assert "callee_basic_block_count" in names
    # The independent reader: h5py over the file's own datasets (docs/formats/mlgo-dataset.md).
    n = len(d.decisions)
    for name in names:
        theirs = f[f"features/{name}"][()]
        ours = d.features[name]
        assert ours.dtype == theirs.dtype and ours.shape[0] == n, name
        assert ours.reshape(n, -1).tobytes() == theirs.reshape(n, -1).tobytes(), name
    assert d.decisions.tolist() == f["decision"][()][:, 0].tolist()
    assert d.module.tolist() == f["row/module"][()].tolist()
    assert [os.fsencode(p) for p in d.module_paths] == list(f["modules/path"][()])
    # Everything else the file holds (issue 37: rewards and sizes were not returned).
    for mine, theirs in ((d.reward, "row/reward"), (d.context, "row/context"), (d.observation, "row/observation")):
        assert mine.dtype == f[theirs].dtype and mine.tobytes() == f[theirs][()].tobytes(), theirs
    assert [os.fsencode(c) for c in d.contexts] == list(f["contexts"][()])
    assert sorted(vars(d.modules)) == sorted(f["modules"].keys())
    for name in f["modules"].keys():
        mine, theirs = getattr(d.modules, name), f[f"modules/{name}"][()]
        if theirs.dtype.kind == "O":
            assert [os.fsencode(x) for x in mine] == list(theirs), name
        else:
            assert mine.dtype == theirs.dtype and mine.tobytes() == theirs.tobytes(), name
    assert d.context_costs is None and (d.modules.reward != 0).any() or (d.modules.text_size ==
                                                                           d.modules.baseline_text_size).all()
    # A register-allocation dataset: the costs per module and per context too.
    ev = tmp_path / "evict.h5"
    subprocess.run([opts["ir2vec"], "mlgo", "collect", "-q", "--task", "evict", "--policy", "no-evict", "-o", str(ev),
                    str(bitcode(opts, tmp_path, "mlgo_pressure.c"))], check=True, env=dict(os.environ, PATH=f"{LLVM}:" + os.environ["PATH"]))
    e, g = ir2vec.mlgo.read_dataset(ev), h5py.File(ev, "r")
    assert sorted(vars(e.context_costs)) == sorted(g["context"].keys()) == ["baseline_cost", "cost", "reward"]
    for name in g["context"].keys():
        assert getattr(e.context_costs, name).tobytes() == g[f"context/{name}"][()].tobytes(), name
    for name in ("cost", "baseline_cost", "reward"):
        assert getattr(e.modules, name).tobytes() == g[f"modules/{name}"][()].tobytes(), name
    assert len(e.reward) > 0 and e.reward.tobytes() == g["row/reward"][()].tobytes() and np.isfinite(e.reward).all()
    with pytest.raises(ValueError, match="garbage.h5"):
        (tmp_path / "garbage.h5").write_bytes(b"\x89HDF\r\n\x1a\n" + b"\x00" * 64)
        ir2vec.mlgo.read_dataset(tmp_path / "garbage.h5")


# ---- ir2vec.mlgo.benchmark: Python callables judged as policies of the open benchmark ----------

def benchmark_corpus(opts, tmp_path):
    """Two packages (the folds need two), each one module of the MLGO test sources."""
    mods = []
    for pkg, name in (("one", "mlgo_six.c"), ("two", "calls.c")):
        (tmp_path / pkg).mkdir()
        bc = bitcode(opts, tmp_path, name)
        dest = tmp_path / pkg / (name + ".bc")
        bc.rename(dest)
        mods.append(dest)
    listfile = tmp_path / "corpus.list"
    listfile.write_text("".join(f"{m}\n" for m in mods))
    spec = tmp_path / "spec.json"
    spec.write_text('{"corpus": ["@%s"], "folds": 2, "exploration": {"budget": 2}, '
                    '"policies": [{"name": "heuristic", "policy": "default"}]}' % listfile)
    return mods, spec


def test_benchmark_judges_python_policies(opts, tmp_path):
    import json
    mods, spec = benchmark_corpus(opts, tmp_path)
    never = lambda obs: 0
    r = ir2vec.mlgo.benchmark(str(spec), str(tmp_path / "out"), jobs=2,
                              policies={"py-default": lambda obs: obs["inlining_default"], "never": never})
    assert r.complete and os.path.exists(r.page)
    res = json.load(open(r.results))
    pol = {p["name"]: p for p in res["policies"]}
    assert pol["py-default"]["policy"] == "python" and pol["py-default"]["excluded_packages"] == []
    # The compiler's own answers from Python: the heuristic's sizes, module by module.
    assert [m["policy_text_size"] for m in pol["py-default"]["modules"]] == \
        [m["policy_text_size"] for m in pol["heuristic"]["modules"]]
    # Never inlining: each module's .text is what mlgo.run with the same callable under opt-22,
    # then llc-22 and llvm-size-22, gives.
    for m in pol["never"]["modules"]:
        out = tmp_path / "never.bc"
        s = ir2vec.mlgo.run(opt(m["path"], out), never)
        assert s.outcome == "exited" and s.exit_status == 0
        assert m["policy_text_size"] == text_size(tmp_path, out)
        assert m["baseline_text_size"] == text_size(tmp_path, _plain(tmp_path, m["path"]))


def _plain(tmp_path, path):
    out = tmp_path / "plain-oz.bc"
    subprocess.run(opt(path, out), check=True)
    return out


def test_benchmark_raises_the_policys_exception_and_refuses_bad_names(opts, tmp_path):
    mods, spec = benchmark_corpus(opts, tmp_path)

    def broken(obs):
        raise RuntimeError("policy bug")

    with pytest.raises(RuntimeError, match="policy bug"):
        ir2vec.mlgo.benchmark(str(spec), str(tmp_path / "out"), policies={"broken": broken})
    assert not os.path.exists(tmp_path / "out" / "results.json")
    with pytest.raises(ValueError, match="named twice"):
        ir2vec.mlgo.benchmark(str(spec), str(tmp_path / "o2"), policies={"heuristic": lambda o: 0})
    with pytest.raises(TypeError, match="not a callable"):
        ir2vec.mlgo.benchmark(str(spec), str(tmp_path / "o3"), policies={"x": 3})


def test_benchmark_takes_a_performance_track(opts, tmp_path):
    import hashlib, json
    mods, spec = benchmark_corpus(opts, tmp_path)
    h = lambda t: hashlib.sha256(t.encode()).hexdigest()
    run = lambda ir, out: {"Ir": ir, "Dr": 10, "Dw": 5, "D1mr": 1, "D1mw": 1, "static_cost": 2.0,
                           "valgrind_seconds": 0.5, "output_sha256": h(out)}
    track = {"schema": "ir2vec.perf-results/1", "spec": "bench/perf/programs.json", "spec_sha256": h("s"),
             "packages_sha256": h("p"), "sources": {"zstd": {"zstd.dsc": h("d")}}, "inputs_sha256": {"text": h("t")},
             "valgrind": "valgrind-3.19.0", "compiler": "clang", "baseline": "default",
             "policies": [{"name": "default", "label": "default"}, {"name": "no-evict", "label": "no-evict"}],
             "programs": {"default": {"zstd": run(200, "z")}, "no-evict": {"zstd": run(250, "z")}},
             "versus_baseline": {"no-evict": {"total": {"Ir": 0.25, "Dr": 0.0, "Dw": 0.0},
                                              "interval_programs": {"Ir": [0.25, 0.25], "Dr": [0, 0], "Dw": [0, 0]},
                                              "worst_program": "zstd", "programs_slower": 1, "programs_faster": 0}},
             "static_vs_dynamic": {"no-evict": {"functions": 1, "functions_changed": 0,
                                                "spearman_static_vs_data_refs": None,
                                                "spearman_static_vs_instructions": None,
                                                "spearman_over_programs": None}},
             "outputs_differ": []}
    tf = tmp_path / "perf.json"
    tf.write_text(json.dumps(track))
    r = ir2vec.mlgo.benchmark(str(spec), str(tmp_path / "out"), perf_results=str(tf))
    p = json.load(open(r.results))["perf_track"]
    assert [x["programs"]["zstd"]["Ir"] for x in p["policies"]] == [200, 250]
    assert p["policies"][1]["versus_baseline"]["total"]["Ir"] == 0.25
    # A file whose totals disagree with its counts is refused, naming the key.
    track["versus_baseline"]["no-evict"]["total"]["Ir"] = 0.5
    tf.write_text(json.dumps(track))
    with pytest.raises(ValueError, match="versus_baseline.no-evict.total.Ir"):
        ir2vec.mlgo.benchmark(str(spec), str(tmp_path / "o2"), perf_results=str(tf))
    assert not os.path.exists(tmp_path / "o2")


def _remark_cost(path):
    """The cost of a remarks file read by hand from its SpillReloadCopies documents: 0.2 x
    copies + 4 x (reloads + folded reloads) + 1 x (spills + folded spills)."""
    total = 0.0
    for doc in open(path).read().split("\n---"):
        if "Name:            SpillReloadCopies" not in doc:
            continue
        v = {k: float(x) for k, x in re.findall(r"- (Total\w+Cost):\s+'([^']*)'", doc)}
        g = lambda k: v.get(k, 0.0)
        total += (0.2 * g("TotalCopiesCost") + 4 * (g("TotalReloadsCost") + g("TotalFoldedReloadsCost"))
                  + g("TotalSpillsCost") + g("TotalFoldedSpillsCost"))
    return total


def test_files_a_policy_does_not_read_are_refused(opts, tmp_path):
    """model= with a policy that reads none, or with a Python policy, is an error (issue 37:
    the CLI's --model without --policy ran the default); timeouts as the CLI takes them."""
    bc = bitcode(opts, tmp_path, "mlgo_six.c")
    shipped = os.path.join(opts["build"], "share", "ir2vec", "policies", "inline-size.h5")
    for policy in ("default", "random", lambda o: 0):
        with pytest.raises(ValueError, match="model"):
            ir2vec.mlgo.run(opt(bc, tmp_path / "o.bc"), policy, model=shipped)
    # Named as this module's arguments, not as the CLI's options.
    with pytest.raises(ValueError, match="model=" + re.escape(shipped) + ": policy 'default' reads no model; "
                       "name the policy that does with policy "):
        ir2vec.mlgo.run(opt(bc, tmp_path / "o.bc"), "default", model=shipped)
    with pytest.raises(ValueError, match="policy 'mlp' reads a model file: give it with model=FILE"):
        ir2vec.mlgo.run(opt(bc, tmp_path / "o.bc"), "mlp")
    with pytest.raises(ValueError, match="policy 'replay' replays a session log: run\\(\\) takes none"):
        ir2vec.mlgo.run(opt(bc, tmp_path / "o.bc"), "replay")
    for bad in (-1, float("nan")):
        with pytest.raises(ValueError, match="timeout"):
            ir2vec.mlgo.run(opt(bc, tmp_path / "o.bc"), "default", timeout=bad)
    assert not (tmp_path / "o.bc").exists()


def test_regalloc_reward(opts, tmp_path):
    ll = tmp_path / "p.ll"
    subprocess.run([f"{LLVM}/clang", "-O2", "-S", "-emit-llvm",
                    os.path.join(opts["data"], "mlgo_pressure.c"), "-o", str(ll)], check=True)
    y = tmp_path / "plain.yaml"
    subprocess.run([f"{LLVM}/llc", "-O2", str(ll), "-o", str(tmp_path / "plain.s"),
                    f"-pass-remarks-output={y}", "-pass-remarks-filter=regalloc"], check=True)
    expected = _remark_cost(y)
    fs = ir2vec.mlgo.read_regalloc_remarks(str(y))
    assert {f["function"] for f in fs} >= {"mix"}
    assert sum(f["cost"] for f in fs) == pytest.approx(expected, rel=1e-12)
    # The compiler's own advisor under the host: the same object, the same cost.
    r = ir2vec.mlgo.run([f"{LLVM}/llc", "-O2", str(ll), "-o", str(tmp_path / "host.s")],
                        "default", task="evict", reward=True)
    assert r.clean and (tmp_path / "host.s").read_bytes() == (tmp_path / "plain.s").read_bytes()
    assert r.regalloc_cost == pytest.approx(expected, rel=1e-12)
    # A Python policy: never evict (the last legal column); the log carries LLVM's scores.
    def never(obs):
        legal = np.flatnonzero(obs["mask"])
        return int(legal[-1])
    r = ir2vec.mlgo.run([f"{LLVM}/llc", "-O2", str(ll), "-o", str(tmp_path / "py.s")],
                        never, task="evict", reward=True)
    assert r.clean and r.observations > 0 and r.regalloc_cost != pytest.approx(expected)
    last = [o.score[0] for i, o in enumerate(r.log.observations)
            if i + 1 == len(r.log.observations) or r.log.observations[i + 1].context != o.context]
    assert sum(last) == pytest.approx(sum(f["cost"] for f in r.regalloc
                                          if f["function"] in {o.context for o in r.log.observations}),
                                      rel=1e-6)
    with pytest.raises(ValueError):
        ir2vec.mlgo.run([f"{LLVM}/opt", "-O2", str(ll), "-o", str(tmp_path / "x.bc")], "default",
                        reward=True)
