#!/usr/bin/python3
"""The MLGO host end to end, with the real opt-22/llc-22 and a misbehaving stand-in compiler.

Oracles: a training-log reader written from the format description (tests/mlgo_oracle.py,
independent of the workbench), the compiler's own echo of every reply it read
(-interactive-model-runner-echo-reply), opt-22 alone plus llc-22 and llvm-size-22 for .text
sizes, llvm-ir2vec for embeddings, h5py for the HDF5 files. After every session the private
TMPDIR must be empty and no process may still carry the session's channel in its command
line. Run with the system python (python3-h5py).
"""
import argparse, glob, hashlib, json, os, random, re, signal, struct, subprocess, sys, tempfile, time

import h5py
import numpy as np

import harness
import mlgo_oracle
from mlgo_oracle import read_log

p = argparse.ArgumentParser()
p.add_argument("--ir2vec", required=True)
p.add_argument("--llvm-bindir", required=True)
p.add_argument("--data", required=True)
p.add_argument("--vocab", required=True)  # LLVM's seed vocabulary (75-D)
p.add_argument("--fake", required=True)
p.add_argument("--sessions", type=int, default=100)
a = p.parse_args()
B = lambda t: os.path.join(a.llvm_bindir, t)
OPT, LLC, CLANG = B("opt"), B("llc"), "clang-22"
res = harness.Results()
check = res.check


work = tempfile.mkdtemp(prefix="mlgo-test-")
TMP = os.path.join(work, "tmp")  # the host's TMPDIR: must be empty after every session
os.makedirs(TMP)
ENV = dict(os.environ, TMPDIR=TMP)


def leftovers():
    """Files in the host's TMPDIR and processes whose command line mentions it."""
    files = os.listdir(TMP)
    procs = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(d + "/cmdline", "rb") as f:
                if TMP.encode() in f.read():
                    procs.append(d)
        except OSError:
            pass
    return files, procs


def host(args, timeout=120, **kw):
    r = subprocess.run([a.ir2vec, "mlgo"] + args, capture_output=True, env=ENV, timeout=timeout, **kw)
    r.stdout_text = r.stdout.decode(errors="replace")
    r.stderr_text = r.stderr.decode(errors="replace")
    return r


def clean(name):
    files, procs = leftovers()
    check(name + ": nothing left behind", not files and not procs, (files, procs))


def text_size(obj):
    return mlgo_oracle.text_size(B("llvm-size"), obj)


def object_text(bc):
    subprocess.run([LLC, "-filetype=obj", bc, "-o", bc + ".o"], check=True)
    return text_size(bc + ".o")


def W(name):
    return os.path.join(work, name)


# ---- inputs ---------------------------------------------------------------------------------
six, pressure = W("six.bc"), W("pressure.bc")
subprocess.run([CLANG, "-Oz", "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c",
                os.path.join(a.data, "mlgo_six.c"), "-o", six], check=True)
subprocess.run([CLANG, "-O2", "-emit-llvm", "-c", os.path.join(a.data, "mlgo_pressure.c"),
                "-o", pressure], check=True)
OZ = [OPT, "-passes=default<Oz>"]

# ---- 1. a real opt-22 session ---------------------------------------------------------------
r = host(["run", "--task", "inline", "--policy", "default", "--log", W("s.log"), "--transcript",
          W("s.out"), "--", *OZ, six, "-o", W("six.host.bc"), "-interactive-model-runner-echo-reply"])
check("opt session exits 0", r.returncode == 0, r.stderr_text)
clean("opt session")
th, tobs = read_log(open(W("s.out"), "rb").read())
sh, sobs = read_log(open(W("s.log"), "rb").read())
names = [f["name"] for f in th["features"]]
check("transcript: 38 features then inlining_default", len(names) == 39 and names[-1] == "inlining_default", names)
check("transcript: advice int64[1]", th.get("advice") == {"name": "inlining_decision", "type": "int64_t", "port": 0, "shape": [1]})
check("transcript: observations, one context ''", len(tobs) > 3 and all(o[0] == "" for o in tobs), len(tobs))
check("session log = transcript features + decision", sh["features"] == th["features"] + [th["advice"]] and "advice" not in sh)
check("session log rows = transcript rows", [o[2] | {} for o in tobs] == [{k: v for k, v in o[2].items() if k != "inlining_decision"} for o in sobs])
check("default policy answers inlining_default", all(o[2]["inlining_decision"] == o[2]["inlining_default"] for o in sobs))
echo = [int(x) for x in re.findall(r"inlining_decision: (-?\d+)", r.stderr_text)]
check("the compiler read exactly the answers logged", echo == [o[2]["inlining_decision"][0] for o in sobs], (echo, len(sobs)))
plain = W("six.plain.bc")
subprocess.run(OZ + [six, "-o", plain], check=True)
check("default policy: same .text as opt-22 alone", object_text(plain) == object_text(W("six.host.bc")))
rw = subprocess.run([a.ir2vec, "mlgo", "log", "rewrite", W("s.out")], capture_output=True)
check("transcript from opt-22 rewrites byte for byte", rw.returncode == 0 and rw.stdout == open(W("s.out"), "rb").read())
dump = subprocess.run([a.ir2vec, "mlgo", "log", "dump", W("s.log")], capture_output=True, text=True).stdout.splitlines()
first = dict(kv.split("=") for kv in next(l for l in dump if l.startswith("observation")).split()[3:])
check("log dump agrees with the independent reader", all(int(first[k]) == v[0] for k, v in sobs[0][2].items()), first)

# clang-22: flags go after -mllvm; the default policy gives plain clang -Oz's .text
src = os.path.join(a.data, "mlgo_six.c")
subprocess.run([CLANG, "-Oz", "-c", src, "-o", W("clang.plain.o")], check=True)
r = host(["run", "--log", W("clang.log"), "--", CLANG, "-Oz", "-c", src, "-o", W("clang.host.o")])
ch, cobs = read_log(open(W("clang.log"), "rb").read())
check("clang-22 session: decisions, same .text as clang -Oz alone",
      r.returncode == 0 and cobs and text_size(W("clang.host.o")) == text_size(W("clang.plain.o")), r.stderr_text)

# two channels in one clang-22 -O2, one host each (nested): the inner host forwards the outer
# host's flags to clang with -mllvm
both = W("both.c")
open(both, "w").write(open(src).read() + open(os.path.join(a.data, "mlgo_pressure.c")).read())
r = host(["run", "--task", "inline", "--log", W("n1.log"), "--", a.ir2vec, "mlgo", "run", "--task", "evict",
          "--policy", "no-evict", "--log", W("n2.log"), "--", CLANG, "-O2", "-c", both, "-o", W("nested.o")])
n1 = read_log(open(W("n1.log"), "rb").read())[1] if os.path.exists(W("n1.log")) else []
n2 = read_log(open(W("n2.log"), "rb").read())[1] if os.path.exists(W("n2.log")) else []
check("nested hosts: inliner and eviction channels of one clang-22 -O2", r.returncode == 0 and n1 and n2, (r.stderr_text, len(n1), len(n2)))

# default policy on more modules: .text equal to opt-22 alone
for ll in ["calls.ll", "phi_cycles.ll", "eh.ll", "predicates.ll", "debug.ll"]:
    src = os.path.join(a.data, ll)
    out1, out2 = W(ll + ".plain.bc"), W(ll + ".host.bc")
    subprocess.run(OZ + [src, "-o", out1], check=True)
    r = host(["run", "--policy", "default", "--", *OZ, src, "-o", out2])
    check(f"{ll}: session ok", r.returncode == 0, r.stderr_text)
    check(f"{ll}: same .text as opt-22 alone", object_text(out1) == object_text(out2))
clean("data modules")

# ---- 2. models: always-inline (linear) changes the code; versioning --------------------------
def model(path, task, inputs, layers, kind=None):
    with h5py.File(path, "w") as f:
        f.attrs["schema"] = "ir2vec.mlgo-model/1"
        f.attrs["task"] = task
        f.attrs["kind"] = kind or ("linear" if len(layers) == 1 else "mlp")
        f.attrs["feature_set_version"] = "test"
        f.attrs["feature_set"] = json.dumps(inputs, separators=(",", ":"))
        f.attrs["inputs"] = json.dumps(inputs, separators=(",", ":"))
        f.attrs["layers"] = np.int64(len(layers))
        for i, (w, b) in enumerate(layers):
            f[f"layer{i}/weight"] = np.array(w, dtype="f8")
            f[f"layer{i}/bias"] = np.array(b, dtype="f8")


spec = lambda n, t="int64_t", s=(1,): {"name": n, "type": t, "port": 0, "shape": list(s)}
model(W("always.h5"), "inline", [spec("inlining_default")], [([[0.0]], [1.0])])
r = host(["run", "--policy", "linear", "--model", W("always.h5"), "--log", W("a.log"), "--", *OZ, six, "-o", W("six.always.bc")])
check("linear always-inline runs", r.returncode == 0, r.stderr_text)
_, aobs = read_log(open(W("a.log"), "rb").read())
check("linear always-inline answers 1", aobs and all(o[2]["inlining_decision"] == [1] for o in aobs))
check("always-inline changes .text", object_text(W("six.always.bc")) != object_text(plain))
emb_model = [spec("num_loops"), spec("callee_embedding", "float", (75,))]
model(W("emb.h5"), "inline", emb_model, [([[0.0] * 76], [-1.0])])
r = host(["run", "--policy", "linear", "--model", W("emb.h5"), "--", *OZ, six, "-o", W("x.bc")])
check("versioning: missing feature is an error naming it", r.returncode == 125 and "callee_embedding" in r.stderr_text, r.stderr_text)
r = host(["run", "--policy", "linear", "--model", W("emb.h5"), "--zero-missing", "--", *OZ, six, "-o", W("x.bc")])
check("versioning: --zero-missing runs", r.returncode == 0 and "sees zeros" in r.stderr_text, r.stderr_text)
r = host(["run", "--policy", "linear", "--model", W("emb.h5"), "--embeddings", a.vocab, "--log", W("e.log"), "--", *OZ, six, "-o", W("x.bc")])
check("versioning: the embedding model with --embeddings", r.returncode == 0, r.stderr_text)
r = host(["run", "--policy", "linear", "--model", W("always.h5"), "--embeddings", a.vocab, "--", *OZ, six, "-o", W("x.bc")])
check("versioning: a 1-feature model under the 42-feature set", r.returncode == 0, r.stderr_text)
model(W("wrongdim.h5"), "inline", [spec("callee_embedding", "float", (8,))], [([[0.0] * 8], [0.0])])
r = host(["run", "--policy", "linear", "--model", W("wrongdim.h5"), "--embeddings", a.vocab, "--", *OZ, six, "-o", W("x.bc")])
check("versioning: same name, other shape is an error", r.returncode == 125 and "float[8] in the model but float[75]" in r.stderr_text, r.stderr_text)
# A file the policy does not read is refused, not ignored (issue 37: --model without --policy
# ran the default policy, exit 0): run (launcher and full tool), collect, eval.
for args, what in ((["--model", W("always.h5")], "--model"),
                   (["--policy", "default", "--model", W("always.h5")], "--model"),
                   (["--policy", "random", "--model", W("always.h5")], "--model"),
                   (["--policy", "default", "--replay", W("a.log")], "--replay"),
                   (["--task", "evict", "--policy", "default", "--model", W("always.h5")], "--model")):
    r = host(["run", *args, "--", *OZ, six, "-o", W("refused.bc")])
    check(f"mlgo run {' '.join(a_ for a_ in args if not a_.startswith('/'))}: usage error (64) naming "
          f"{what}, nothing compiled", r.returncode == 64 and what in r.stderr_text and "--policy" in r.stderr_text
          and not os.path.exists(W("refused.bc")), r.stderr_text)
# A policy missing its file is told which option gives it.
for policy, expect in (("mlp", "policy 'mlp' reads a model file: give it with --model FILE"),
                       ("replay", "policy 'replay' replays a session log: give it with --replay LOG")):
    r = host(["run", "--policy", policy, "--", *OZ, six, "-o", W("refused.bc")])
    check(f"mlgo run --policy {policy} without its file: usage error (64) saying '{expect}'",
          r.returncode == 64 and expect in r.stderr_text and not os.path.exists(W("refused.bc")), r.stderr_text)
# A session's warnings name the compile they are about (issue 37: in a parallel build's log
# "the compiler asked no inlining question" named nothing).
open(W("nocall.ll"), "w").write("define i32 @f(i32 %x) {\n  ret i32 %x\n}\n")
r = host(["run", "--", CLANG, "-Oz", "-c", "-x", "ir", W("nocall.ll"), "-o", W("nocall.o")])
check("mlgo run: the session's warning starts with the compile's output",
      r.returncode == 0 and f"{W('nocall.o')}: the compiler asked no inlining question".encode() in r.stderr, r.stderr_text)
for cmd in (["collect", "-o", W("refused.h5")], ["eval", "-o", W("refused.json")]):
    r = host([*cmd, "--model", W("always.h5"), six])
    check(f"mlgo {cmd[0]} --model without --policy: refused (exit 1), nothing written",
          r.returncode == 1 and "--model" in r.stderr_text and not os.path.exists(cmd[-1]), r.stderr_text)
clean("models")

# ---- 3. embedding augmentation --------------------------------------------------------------
eh, eobs = read_log(open(W("e.log"), "rb").read())
en = [f["name"] for f in eh["features"]]
check("inliner + embeddings: compiler 40 + default + module_embedding + decision",
      en[38:] == ["callee_embedding", "caller_embedding", "inlining_default", "module_embedding", "inlining_decision"], en[38:])
ir = subprocess.run([B("llvm-ir2vec"), "embeddings", "--mode=llvm", "--level=func", f"--ir2vec-vocab-path={a.vocab}", six],
                    capture_output=True, text=True, check=True).stdout
def ir2vec_functions(text):
    """llvm-ir2vec --level=func: 'Function: NAME' then ' [ v v ... ]' (2 decimals)."""
    out, name = {}, None
    for l in text.splitlines():
        if l.startswith("Function: "):
            name = l[len("Function: "):].strip()
        elif l.strip().startswith("[") and name:
            out[name] = np.array([float(x) for x in l.strip()[1:-1].split()])
            name = None
    return out


funcs = list(ir2vec_functions(ir).values())
expect = np.sum(np.array(funcs), axis=0)
got = np.array(eobs[0][2]["module_embedding"])
check("module_embedding = sum of llvm-ir2vec's function vectors (2-decimal print)",
      len(funcs) >= 5 and np.allclose(got, expect, atol=0.006 * len(funcs)), (got[:4], expect[:4]))
check("module_embedding is the same in every observation", all(o[2]["module_embedding"] == eobs[0][2]["module_embedding"] for o in eobs))
r = host(["run", "--embeddings", "--log", W("d.log"), "--", *OZ, six, "-o", W("x.bc")])
dh, _ = read_log(open(W("d.log"), "rb").read())
check("--embeddings without a value: the default vocabulary (D=75)", r.returncode == 0 and dh["features"][38]["shape"] == [75], r.stderr_text)
r = host(["run", "--task", "evict", "--policy", "no-evict", "--embeddings", a.vocab, "--log", W("ev.log"), "--", LLC, "-O2", pressure, "-o", W("p.s"), "-interactive-model-runner-echo-reply"])
check("eviction session", r.returncode == 0, r.stderr_text)
vh, vobs = read_log(open(W("ev.log"), "rb").read())
vn = [f["name"] for f in vh["features"]]
check("eviction: 21 features, function_embedding, machine_function_embedding, index_to_evict",
      len(vn) == 24 and vn[20:] == ["progress", "function_embedding", "machine_function_embedding", "index_to_evict"], vn)
check("eviction: machine_function_embedding is float[75] (the default MIR vocabulary)",
      vh["features"][22]["shape"] == [75] and vh["features"][22]["type"] == "float", vh["features"][22])
check("eviction: contexts are the functions", {o[0] for o in vobs} <= {"mix", "fmix"} and vobs, {o[0] for o in vobs})
ir = subprocess.run([B("llvm-ir2vec"), "embeddings", "--mode=llvm", "--level=func", f"--ir2vec-vocab-path={a.vocab}", pressure],
                    capture_output=True, text=True, check=True).stdout
fv = ir2vec_functions(ir)
check("function_embedding = llvm-ir2vec's vector of the context's function",
      all(np.allclose(np.array(o[2]["function_embedding"]), fv[o[0]], atol=0.006) for o in vobs), list(fv))
# The machine IR before the greedy allocator, as llc-22 writes it, embedded by llvm-ir2vec-22 with
# the default MIR vocabulary (2 decimals) for each function it does not crash on (it crashes on
# fmix's classless $mxcsr, docs/mir2vec.md), and by our CLI at %.17g narrowed to float as LLVM
# narrows its tensors (exact, every function).
def mir_functions(text):
    """llvm-ir2vec --mode=mir --level=func: 'MIR2Vec embeddings for machine function NAME:' then
    'Function vector:  [ v v ... ]'."""
    out, name = {}, None
    for l in text.splitlines():
        m = re.match(r"MIR2Vec embeddings for machine function (.*):$", l)
        if m:
            name = m.group(1)
        elif l.startswith("Function vector:") and name:
            out[name] = np.array([float(x) for x in l.split("[", 1)[1].rsplit("]", 1)[0].split()])
            name = None
    return out


MIRVOCAB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mir", "default", "mir2vec-x86_64-75d.json")
subprocess.run([LLC, "-O2", "-stop-before=greedy", pressure, "-o", W("pre.mir")], check=True)
mv = {}
for fn in sorted({o[0] for o in vobs}):
    rr = subprocess.run([B("llvm-ir2vec"), "embeddings", "--mode=mir", "--level=func", f"--function={fn}",
                         f"--mir2vec-vocab-path={MIRVOCAB}", W("pre.mir")], capture_output=True, text=True)
    if rr.returncode == 0:
        mv.update(mir_functions(rr.stdout))
check("machine_function_embedding = llvm-ir2vec-22 --mode=mir on llc-22 -stop-before=greedy (2 decimals)",
      "mix" in mv and all(np.allclose(np.array(o[2]["machine_function_embedding"]), mv[o[0]], atol=0.006) for o in vobs if o[0] in mv)
      and np.abs(mv["mix"]).max() > 1, list(mv))
ours = subprocess.run([a.ir2vec, "embeddings", "--mode=mir", "--mir-stage", "pre-ra", "--level", "func", "--precision", "17", pressure],
                      capture_output=True, text=True, check=True).stdout
exact = {k: np.array(v, dtype=np.float64).astype(np.float32) for k, v in mir_functions(ours).items()}
check("machine_function_embedding = ir2vec embeddings --mode=mir --mir-stage pre-ra, narrowed (exact)",
      all(np.array_equal(np.array(o[2]["machine_function_embedding"], dtype=np.float32), exact[o[0]]) for o in vobs), list(exact))
r3 = host(["run", "--task", "evict", "--policy", "no-evict", "--embeddings", a.vocab, "--log", W("ev2.log"), "--", LLC, "-O2",
           "-mtriple", "aarch64-linux-gnu", pressure, "-o", W("p2.s")])
check("eviction + embeddings for llc -mtriple aarch64: the machine IR is compiled for llc's target (no default MIR vocabulary: refused, no log)",
      r3.returncode != 0 and "no default MIR vocabulary for aarch64" in r3.stderr_text and not os.path.exists(W("ev2.log")), r3.stderr_text)
echo = [int(x) for x in re.findall(r"index_to_evict: (-?\d+)", r.stderr_text)]
check("eviction: the compiler read the answers logged, each legal",
      echo == [o[2]["index_to_evict"][0] for o in vobs] and all(o[2]["mask"][o[2]["index_to_evict"][0]] == 1 for o in vobs))
r = host(["run", "--task", "priority", "--policy", "random", "--seed", "5", "--explore", "0.5", "--log", W("pr.log"), "--", LLC, "-O2", pressure, "-o", W("p.s"), "-interactive-model-runner-echo-reply"])
ph, pobs = read_log(open(W("pr.log"), "rb").read())
echo = [float(x) for x in re.findall(r"priority: (\S+)", r.stderr_text)]
r2 = host(["run", "--task", "priority", "--policy", "random", "--seed", "5", "--embeddings", a.vocab, "--log", W("pe.log"), "--", LLC, "-O2", pressure, "-o", W("p.s")])
peh, peobs = read_log(open(W("pe.log"), "rb").read()) if r2.returncode == 0 else ({"features": []}, [])
check("priority + embeddings: function_embedding and machine_function_embedding of the context's function",
      [f["name"] for f in peh["features"]] == ["li_size", "stage", "weight", "function_embedding", "machine_function_embedding", "priority"]
      and peobs and all(np.allclose(np.array(o[2]["function_embedding"]), fv[o[0]], atol=0.006) and
                        np.array_equal(np.array(o[2]["machine_function_embedding"], dtype=np.float32), exact[o[0]]) for o in peobs),
      r2.stderr_text)
check("priority: 4-byte float replies read back exactly", r.returncode == 0 and len(echo) == len(pobs) > 10 and
      all(abs(e - o[2]["priority"][0]) <= 1e-6 * max(1, abs(e)) for e, o in zip(echo, pobs)), (len(echo), len(pobs)))
clean("augmentation")

# ---- 4. pitfalls, one by one ----------------------------------------------------------------
FAKE = [sys.executable, a.fake]
def fake(mode, *extra, n=3, opts=()):
    return host(["run", *opts, "--", *FAKE, mode, str(n), *extra])


t = time.time(); r = host(["run", "--log", W("n.log"), "--", OPT, "-passes=cgscc(inline)", six, "-o", W("x.bc")])
check("never-opened channel (real opt, cgscc(inline)): exits 0, no hang, no log",
      r.returncode == 0 and time.time() - t < 30 and not os.path.exists(W("n.log")) and "never opened" in r.stderr_text, r.stderr_text)
r = fake("never-open")
check("never-opened channel (fake): exit 0", r.returncode == 0, r.stderr_text)
r = fake("fail-before")
check("compiler fails before the channel: its status", r.returncode == 1, r.returncode)
r = fake("out-first")
check("compiler opens .out before .in: works", r.returncode == 0 and r.stderr_text.count("inlining_decision:") == 3, r.stderr_text)
r = fake("ok", n=5, opts=("--log", W("five.log")))
check("fake compiler: 5 answers of 8 bytes", r.returncode == 0 and r.stderr_text.count("inlining_decision:") == 5, r.stderr_text)
r = fake("crash", opts=("--log", W("crash.log"), "--transcript", W("crash.out")))
check("compiler crash: 128+SIGSEGV", r.returncode == 128 + signal.SIGSEGV, (r.returncode, r.stderr_text))
check("compiler crash: no log, no transcript, no temporary file beside them",
      not [f for f in os.listdir(work) if f.startswith("crash.")], os.listdir(work))
t = time.time(); r = fake("hang", opts=("--timeout", "1"))
check("hang: killed after --timeout, status 124", r.returncode == 124 and time.time() - t < 20, (r.returncode, r.stderr_text))
t = time.time(); r = fake("spawn-hang", opts=("--timeout", "1"))
check("hang with a grandchild: all killed", r.returncode == 124, r.returncode)
r = fake("truncated")
check("stream ends inside a record: host error with the byte offset", r.returncode == 125 and re.search(r"byte \d+", r.stderr_text), r.stderr_text)
r = fake("bad-advice")
check("wrong advice spec: error names it", r.returncode == 125 and "advice is 'inlining_decision' int32_t[1]" in r.stderr_text, r.stderr_text)
r = fake("bad-feature")
check("wrong feature type: error names it", r.returncode == 125 and "'load_relative_intrinsic' is float[1]" in r.stderr_text, r.stderr_text)
r = fake("ok", n=6, opts=("--policy", "replay", "--replay", W("five.log")))
check("replay with too few answers: host error, no spin", r.returncode == 125 and "only 5 decisions" in r.stderr_text, r.stderr_text)
r = fake("ok", n=5, opts=("--policy", "replay", "--replay", W("five.log"), "--log", W("five2.log")))
check("replay reproduces the recorded decisions", r.returncode == 0 and open(W("five.log"), "rb").read() == open(W("five2.log"), "rb").read())
proc = subprocess.Popen([a.ir2vec, "mlgo", "run", "--", *FAKE, "hang"], env=ENV, stderr=subprocess.PIPE)
time.sleep(1.0)
proc.send_signal(signal.SIGINT)
rc = proc.wait(timeout=20)
check("SIGINT to the host: 130", rc == 130, rc)
r = host(["run", "--", "/nonexistent/compiler"])
check("missing compiler: 125 and a message", r.returncode == 125 and "cannot run" in r.stderr_text, r.stderr_text)
clean("pitfalls")

# ---- 5. 100 sessions with injected failures ---------------------------------------------------
rng = random.Random(1)
kinds = ["ok", "crash", "hang", "truncated", "never-open", "out-first", "bad-advice", "fail-before", "spawn-hang", "opt"]
expect_rc = {"ok": 0, "crash": 139, "hang": 124, "truncated": 125, "never-open": 0, "out-first": 0,
             "bad-advice": 125, "fail-before": 1, "spawn-hang": 124, "opt": 0}
wrong = []
for i in range(a.sessions):
    k = rng.choice(kinds)
    if k == "opt":
        r = host(["run", "--policy", "random", "--seed", str(i), "--timeout", "60", "--", *OZ, six, "-o", W("r.bc")])
    else:
        # hangs are cut short; the others get ample time even on a loaded machine
        r = fake(k, opts=("--timeout", "0.5" if "hang" in k else "20"))
    if r.returncode != expect_rc[k]:
        wrong.append((i, k, r.returncode, r.stderr_text[-300:]))
check(f"{a.sessions} sessions with injected failures: expected statuses", not wrong, wrong[:5])
clean(f"{a.sessions} sessions")

# ---- 6. collection and datasets -------------------------------------------------------------
bad = W("bad.ll")
open(bad, "w").write("define i32 @f( {\n")
c_in = [six, os.path.join(a.data, "calls.ll"), bad]
r = host(["collect", "--task", "inline", "--policy", "default", "-j", "2", "-o", W("c.h5"), *c_in])
check("collect with a bad module: status 2, bad one reported", r.returncode == 2 and "bad.ll" in r.stderr_text, r.stderr_text)
with h5py.File(W("c.h5")) as f:
    paths = [x.decode() for x in f["modules/path"][:]]
    err = [x.decode() for x in f["modules/error"][:]]
    check("dataset schema and modules", f.attrs["schema"] == "ir2vec.mlgo-dataset/3" and paths == c_in and err[2] and not err[0])
    check("dataset: each collected module's SHA-256 is of its bytes (hashlib), the bad one's too",
          [x.decode() for x in f["modules/sha256"][:]] ==
          [hashlib.sha256(open(p_, "rb").read()).hexdigest() for p_ in paths],
          [x.decode() for x in f["modules/sha256"][:]])
    check("dataset without embeddings: embeddings none, no digest",
          f.attrs["embeddings"] == "none" and f.attrs["embeddings_digest"] == "")
    base_ok = all(f["modules/baseline_text_size"][i] == object_text(p_) for i, p_ in enumerate([plain]))
    check("baseline .text = opt-22 + llc-22 + llvm-size", base_ok)
    check("default policy: reward 0 everywhere", np.all(f["row/reward"][:] == 0) and f["modules/text_size"][0] == f["modules/baseline_text_size"][0])
    check("decision rows = session decisions", f["modules/decisions"][0] == len(sobs) and f["decision"].shape[0] == f.attrs["rows"])
    check("every feature is a column", all(n in f["features"] for n in names))
    check("rows equal the session log", [int(x) for x in f["features/callee_users"][: len(sobs), 0]] == [o[2]["callee_users"][0] for o in sobs])
clean("collect")
r = host(["collect", "--policy", "linear", "--model", W("always.h5"), "-o", W("c2.h5"), six])
with h5py.File(W("c2.h5")) as f:
    s, b = f["modules/text_size"][0], f["modules/baseline_text_size"][0]
    check("always-inline: text size is the policy's object, reward by the formula",
          s == object_text(W("six.always.bc")) and abs(f["modules/reward"][0] - (1 - (s + 0.01) / (b + 0.01))) < 1e-12
          and np.all(f["row/reward"][:] == f["modules/reward"][0]), (s, b))
r = host(["collect", "-o", W("c3.h5"), bad])
check("collect: every module failed -> 1, no output", r.returncode == 1 and not os.path.exists(W("c3.h5")), r.returncode)
r = host(["log", "export", "--task", "inline", W("s.log"), W("a.log"), "-o", W("x.h5")])
with h5py.File(W("x.h5")) as f:
    check("log export: one row per logged decision", r.returncode == 0 and f.attrs["rows"] == len(sobs) + len(aobs)
          and list(f["decision"][:, 0]) == [o[2]["inlining_decision"][0] for o in sobs + aobs])
data = open(W("s.out"), "rb").read()
open(W("cut.out"), "wb").write(data[:len(data) - 20])
r = subprocess.run([a.ir2vec, "mlgo", "log", "dump", W("cut.out")], capture_output=True, text=True)
check("truncated log: exit 1, file and byte offset named", r.returncode == 1 and re.search(r"cut.out: byte \d+: truncated", r.stderr), r.stderr)
clean("logs")

# ---- 7. the feature tables in docs/mlgo.md are the tool's own ------------------------------
doc = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "mlgo.md")).read()
for t in ["inline", "evict", "priority"]:
    table = subprocess.run([a.ir2vec, "mlgo", "features", "--task", t], capture_output=True, text=True).stdout
    check(f"docs/mlgo.md has the current {t} table", table and table in doc)
policies = subprocess.run([a.ir2vec, "mlgo", "policies"], capture_output=True, text=True).stdout
check("docs/mlgo.md has the current policy table", policies.count("\n") > 5 and policies in doc)

status = res.summary()
if status == 0:
    import shutil
    shutil.rmtree(work)
sys.exit(status)
