#!/usr/bin/python3
"""The inliner plugin (issue 41, libir2vec-inline.so) against the interactive host: the same
policy inside the compiler makes the same decisions and gives the same code as
`ir2vec mlgo run --policy P` answering over its channel.

  * opt-22 -load-pass-plugin, -Oz and -Os, on the small MLGO corpus, a crafted module and the
    modules of a C++ project: the decision log (IR2VEC_INLINE_LOG) is byte for byte the host's
    (--log; read by the independent reader of mlgo_oracle to count the decisions and name the
    first that differs) and so is the optimized bitcode, for the shipped `size` rule (built in,
    and from its model file), another `rule` file, the `default` policy, an mlp and a linear
    model trained here, and an mlp over embedding features (IR2VEC_INLINE_EMBEDDINGS=default
    against --embeddings);
  * clang-22 from C and clang++-22 from C++, -Oz and -Os, the same policies: the same logs and
    the object's .text (llvm-size-22) is the host's;
  * a real build: the C++ project's Makefile with CXXFLAGS=-fpass-plugin= and, separately, the
    host as CXX: every object's and the program's .text equal, and one log per module in a log
    directory equal to the host's;
  * the policies change code somewhere (else the comparison would show nothing);
  * refused at start, with an error naming what is wrong and no crash: an unknown policy, a
    missing model file, a file that is no model, a model that wants features the compiler does
    not send (as the host refuses it), a vocabulary that cannot be read;
  * loaded by another LLVM (a program whose LLVMGetVersion, versioned as LLVM 21.1's is, says
    21.1.8), the plugin answers with an API version no LLVM accepts and says why.

With --corpus DIR (the test `plugin_corpus`), only the opt-22 comparison, on every other module
of the MLGO test corpus's sample (each at -Oz or -Os in turn) and for the four kinds of policy
(size built in, another rule, linear, mlp) and the mlp over embeddings.

  plugin_test.py --ir2vec BIN --llvm-bindir DIR [--corpus DIR]
"""
import glob
import os
import shutil

import h5py

import harness
import mlgo_oracle
import small_corpus

T = harness.ToolTest("plugin-", options=[("--corpus", {"help": "the MLGO test corpus (sample.list)"})])
a, res, check, tmp, W, B = T.args, T.res, T.check, T.tmp, T.W, T.B
here = os.path.dirname(os.path.abspath(__file__))
prefix = os.path.dirname(os.path.dirname(os.path.abspath(a.ir2vec)))
plugin = os.path.join(prefix, "lib", "libir2vec-inline.so")
shipped = os.path.join(prefix, "share", "ir2vec", "policies", "inline-size.h5")
project = os.path.join(here, "data", "plugin-project")

modules = small_corpus.build(W("corpus"))
# A call the size rule inlines and the -Oz heuristic does not (inline+5[users<=2,blocks<=1]:
# one block, one call site, a cost just above -Oz's threshold): found by trying chains of 1 to 8
# operations; the chain of 8 is the one.
rule_src = W("rule.c")
open(rule_src, "w").write("int f(int x) { return ((((((((x * 3) ^ 7) + 11) >> 1) * ((((x * 3) ^ 7) "
                          "+ 11) >> 1)) | 5) - 9) / 3); }\nint g(int y) { return f(y) + 1; }\n")
harness.run(["clang-22", "-Oz", "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c", rule_src,
             "-o", W("rule.bc")], check=True)
modules.append(W("rule.bc"))
c_sources = [m[:-3] + ".c" for m in modules]
cpp_sources = sorted(glob.glob(os.path.join(project, "*.cpp")))
for c in cpp_sources:
    bc = W("cpp-" + os.path.basename(c)[:-4] + ".bc")
    harness.run(["clang++-22", "-Oz", "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c", c,
                 "-o", bc], check=True)
    modules.append(bc)

VARS = ("IR2VEC_INLINE_POLICY", "IR2VEC_INLINE_MODEL", "IR2VEC_INLINE_EMBEDDINGS", "IR2VEC_INLINE_LOG")


def env(**settings):
    e = {k: v for k, v in os.environ.items() if k not in VARS}
    e.update({"IR2VEC_INLINE_" + k: v for k, v in settings.items() if v is not None})
    return e


def read(path):
    return open(path, "rb").read() if os.path.exists(path) else None


# Trained models of both kinds from an exploration of the corpus (a few rollouts each: the test
# needs models that decide, not good ones), one of them over embedding features; and a rule
# other than the shipped one (its file with another rule attribute).
explored = W("explore.h5")
harness.run([a.ir2vec, "mlgo", "explore", "-q", "--all", "--budget", "4", "--embeddings", "",
             "-o", explored, *modules], check=True)
models = {}
for kind, extra in (("mlp", []), ("linear", []),
                    ("mlp-emb", ["--features", "cost,callgraph,heuristic,embedding,module",
                                 "--observations", "default"])):
    models[kind] = W(kind + ".h5")
    harness.run([a.ir2vec, "mlgo", "train", "-q", explored, "--model", kind.split("-")[0],
                 "--features", "cost,callgraph,heuristic", *extra, "--epochs", "5", "-o",
                 models[kind]], check=True)
models["rule"] = W("rule.h5")
shutil.copy(shipped, models["rule"])
with h5py.File(models["rule"], "r+") as f:
    f.attrs["rule"] = ('{"add":40,"add_max_callee_blocks":4,"add_max_callee_users":3,"refuse":10,'
                       '"refuse_min_callee_users":2}')

# (label, the host's options, the plugin's settings)
POLICIES = [
    ("size (built in)", ["--policy", "size"], {}),
    ("size from its file", ["--policy", "size", "--model", shipped], {"POLICY": "size", "MODEL": shipped}),
    ("a rule", ["--policy", "rule", "--model", models["rule"]], {"POLICY": "rule", "MODEL": models["rule"]}),
    ("default", ["--policy", "default"], {"POLICY": "default"}),
    ("mlp", ["--policy", "mlp", "--model", models["mlp"]], {"POLICY": "mlp", "MODEL": models["mlp"]}),
    ("linear", ["--policy", "linear", "--model", models["linear"]], {"POLICY": "linear", "MODEL": models["linear"]}),
    ("mlp with embeddings", ["--policy", "mlp", "--model", models["mlp-emb"], "--embeddings"],
     {"POLICY": "mlp", "MODEL": models["mlp-emb"], "EMBEDDINGS": "default"}),
]
decisions = {"opt-22": 0, "clang": 0}
plain_code = {}


def same_decisions(host_log, plugin_log):
    """None when the logs are the same bytes, else what differs: the first decision that does."""
    h, p = read(host_log), read(plugin_log)
    if h is None or p is None:
        return f"log missing: host {h is not None}, plugin {p is not None}"
    if h == p:
        return None
    hh, hr = mlgo_oracle.read_log(h)
    ph, pr = mlgo_oracle.read_log(p)
    if hh != ph:
        return f"headers differ: {hh} / {ph}"
    for i, (x, y) in enumerate(zip(hr, pr)):
        if x != y:
            return f"decision {i} differs: host {x[2]} / plugin {y[2]}"
    return f"the host made {len(hr)} decisions, the plugin {len(pr)}"


def count(log):
    return len(mlgo_oracle.read_log(read(log))[1])


changed = set()


def compare_under_opt(by_level, policies):
    """Each module under opt-22 at its level, with the host and with the plugin, per policy."""
    for level, chosen in by_level:
        for i, m in enumerate(chosen):
            name = os.path.relpath(m, a.corpus) if a.corpus else os.path.basename(m)
            plain = W(f"{level}-{i}.bc")
            harness.run([B("opt"), f"-passes=default<{level}>", m, "-o", plain], check=True)
            for label, host_args, settings in policies:
                tag = W(f"{level}-{i}-{label.replace(' ', '_')}")
                host = harness.run([a.ir2vec, "mlgo", "run", "-q", *host_args, "--log", tag + ".host.log", "--",
                                    B("opt"), f"-passes=default<{level}>", m, "-o", tag + ".host.bc"])
                r = harness.run([B("opt"), "-load-pass-plugin=" + plugin, f"-passes=default<{level}>", m, "-o",
                                 tag + ".plugin.bc"], env=env(LOG=tag + ".plugin.log", **settings))
                ok = host.returncode == 0 and r.returncode == 0
                diff = same_decisions(tag + ".host.log", tag + ".plugin.log") if ok else "a compiler failed"
                check(f"opt-22 -{level} {name}, {label}: the plugin's decisions are the host's", diff is None,
                      f"{diff} " + (host.stderr + r.stderr).decode(errors="replace")[-800:])
                check(f"opt-22 -{level} {name}, {label}: the plugin's bitcode is the host's",
                      ok and read(tag + ".plugin.bc") == read(tag + ".host.bc"))
                if diff is None:
                    decisions["opt-22"] += count(tag + ".host.log")
                if ok and read(tag + ".plugin.bc") != read(plain):
                    changed.add(label)
                for f in (tag + ".host.bc", tag + ".plugin.bc"):  # the corpus's are many
                    if os.path.exists(f):
                        os.remove(f)


if a.corpus:
    sample = [l.strip() for l in open(os.path.join(a.corpus, "sample.list")) if l.strip()][::2]
    kinds = [p for p in POLICIES if p[0] in ("size (built in)", "a rule", "linear", "mlp", "mlp with embeddings")]
    compare_under_opt((("Oz", sample[::2]), ("Os", sample[1::2])), kinds)
    print(f"decisions compared one by one: {decisions['opt-22']} under opt-22 on {len(sample)} modules of the "
          f"corpus; policies that changed code: {sorted(changed)}")
    T.finish()

# Every module at -Oz, every other one at -Os (the test's time: each compilation is run three
# times, for every policy).
compare_under_opt((("Oz", modules), ("Os", modules[::2])), POLICIES)
for label, _, _ in POLICIES:
    if label != "default":
        check(f"the policy {label} changes the code of some module (else equal code would show nothing)",
              label in changed)

# From source: clang-22 for C, clang++-22 for C++; each source at one level, both levels seeing C
# and C++. The host embeds a file: it is given the front end's module (--module), which is what
# the plugin embeds as the pipeline begins.
sources = c_sources + cpp_sources
for level, chosen in (("Oz", sources[::2]), ("Os", sources[1::2])):
    for i, src in enumerate(chosen):
        cc = "clang++-22" if src.endswith(".cpp") else "clang-22"
        front = W(f"src-{level}-{i}.bc")
        harness.run([cc, f"-{level}", "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c", src, "-o", front],
                    check=True)
        for label, host_args, settings in POLICIES:
            tag = W(f"src-{level}-{i}-{label.replace(' ', '_')}")
            module = ["--module", front] if "--embeddings" in host_args else []
            host = harness.run([a.ir2vec, "mlgo", "run", "-q", *host_args, *module, "--log", tag + ".host.log",
                                "--", cc, f"-{level}", "-c", src, "-o", tag + ".host.o"])
            r = harness.run([cc, f"-{level}", "-fpass-plugin=" + plugin, "-c", src, "-o", tag + ".plugin.o"],
                            env=env(LOG=tag + ".plugin.log", **settings))
            ok = host.returncode == 0 and r.returncode == 0
            diff = same_decisions(tag + ".host.log", tag + ".plugin.log") if ok else "a compiler failed"
            what = f"{cc} -{level} {os.path.basename(src)}, {label}"
            check(f"{what}: the plugin's decisions are the host's", diff is None,
                  f"{diff} " + (host.stderr + r.stderr).decode(errors="replace")[-800:])
            sizes = (mlgo_oracle.text_size(B("llvm-size"), tag + ".host.o"),
                     mlgo_oracle.text_size(B("llvm-size"), tag + ".plugin.o")) if ok else None
            check(f"{what}: .text is the host's", ok and sizes[0] == sizes[1], f"sizes {sizes}")
            if diff is None:
                decisions["clang"] += count(tag + ".host.log")

# A real build: the project's Makefile, the plugin through CXXFLAGS (one log per module in a
# directory), against the host as the compiler (a wrapper that logs beside each object).
wrapper = W("host-cxx.sh")
open(wrapper, "w").write(f"""#!/bin/sh
# The host as a build's compiler: a compile (-c ... -o X) logs its decisions to X.log.
out=
prev=
for arg; do [ "$prev" = -o ] && out=$arg; prev=$arg; done
exec {os.path.abspath(a.ir2vec)} mlgo run -q --policy size ${{out:+--log "$out.log"}} -- clang++-22 -Wno-unused-command-line-argument "$@"
""")
os.chmod(wrapper, 0o755)
builds = {}
for side in ("plugin", "host"):
    d = W("build-" + side)
    shutil.copytree(project, d)
    os.makedirs(W("logs-" + side))
    args = ["make", "-s", "-C", d]
    if side == "plugin":
        r = harness.run([*args, "CXXFLAGS=-Oz -fpass-plugin=" + plugin], env=env(LOG=W("logs-plugin")))
    else:
        r = harness.run([*args, "CXX=" + wrapper])
    check(f"the project builds through the {side}", r.returncode == 0 and os.path.exists(os.path.join(d, "shapes")),
          r.stderr.decode(errors="replace")[-800:])
    builds[side] = d
objects = [os.path.basename(s)[:-4] + ".o" for s in cpp_sources] + ["shapes"]
for o in objects:
    p, h = (os.path.join(builds[s], o) for s in ("plugin", "host"))
    sizes = [mlgo_oracle.text_size(B("llvm-size"), f) if os.path.exists(f) else None for f in (p, h)]
    check(f"make with -fpass-plugin, {o}: .text is the host-built one's ({sizes[0]} bytes)",
          sizes[0] is not None and sizes[0] == sizes[1], f"sizes {sizes}")
for s in cpp_sources:
    o = os.path.basename(s)[:-4]
    found = glob.glob(os.path.join(W("logs-plugin"), o + ".cpp.*.log"))
    plugin_log = found[0] if len(found) == 1 else "(not one log)"
    check(f"make with IR2VEC_INLINE_LOG=DIR: {o}.cpp's log is in it (ID.PID.log), and is the host's",
          same_decisions(os.path.join(builds["host"], o + ".o.log"), plugin_log) is None,
          f"{same_decisions(os.path.join(builds['host'], o + '.o.log'), plugin_log)}; "
          f"in the directory: {os.listdir(W('logs-plugin'))}")

# Bad settings: an error naming what is wrong, no crash, and (clang, which writes its output
# only when it succeeds) no object. opt-22 opens its -o before any pass runs: its empty file is
# opt's, so only the error and the status are checked there.
not_a_model = W("not-a-model.h5")
open(not_a_model, "w").write("not HDF5\n")
bad_vocab = W("bad-vocab.json")
open(bad_vocab, "w").write('{"Opcodes": {"Ret": [1.0]}\n')
host = harness.run([a.ir2vec, "mlgo", "run", "-q", "--policy", "mlp", "--model", models["mlp-emb"], "--",
                    B("opt"), "-passes=default<Oz>", modules[0], "-o", W("host-refused.bc")])
host_says = host.stderr.decode(errors="replace").split("error: ")[-1].strip()
check("the host refuses a model over embeddings without them (status 125)",
      host.returncode == 125 and "callee_embedding" in host_says, host_says)
for what, e, expect in (
        ("an unknown policy", env(POLICY="no-such-policy"), "no-such-policy"),
        ("a missing model file", env(POLICY="mlp", MODEL=W("missing.h5")), "missing.h5"),
        ("a file that is no model", env(POLICY="mlp", MODEL=not_a_model), "not-a-model.h5"),
        ("a model file given to a policy that reads none", env(POLICY="default", MODEL=models["mlp"]),
         "IR2VEC_INLINE_MODEL=" + models["mlp"] + ": policy 'default' reads no model; name the policy that "
         "does with IR2VEC_INLINE_POLICY"),
        ("a policy that reads a model, without one", env(POLICY="mlp"),
         "policy 'mlp' reads a model file: give it with IR2VEC_INLINE_MODEL=FILE"),
        ("replay, which needs a log the plugin has no setting for", env(POLICY="replay"),
         "the plugin has no setting for"),
        ("a model over embeddings without them, as the host says", env(POLICY="mlp", MODEL=models["mlp-emb"]),
         host_says),
        ("a missing vocabulary", env(EMBEDDINGS=W("missing.json")), "IR2VEC_INLINE_EMBEDDINGS=" + W("missing.json")),
        ("a vocabulary that is not one", env(EMBEDDINGS=bad_vocab), "bad-vocab.json"),
        ("a log in a missing directory", env(LOG=W("no-dir", "x.log")), "no-dir")):
    out = W("bad.o")
    for tool, cmd in (("clang-22", ["clang-22", "-Oz", "-fpass-plugin=" + plugin, "-c", c_sources[0], "-o", out]),
                      ("opt-22", [B("opt"), "-load-pass-plugin=" + plugin, "-passes=default<Oz>", modules[0],
                                  "-o", W("bad.bc")])):
        r = harness.run(cmd, env=e)
        err = r.stderr.decode(errors="replace")
        stops = r.returncode == 1 and (tool == "opt-22" or not os.path.exists(out))
        check(f"{tool}, {what}: the compiler stops with an error naming it, not a crash",
              stops and expect in err and "ir2vec-inline" in err and "Stack dump" not in err, err[-800:])
        if os.path.exists(out):
            os.remove(out)

# What the host warns of, the plugin says too: -O0 runs no inliner; size was chosen at -Os and -Oz.
for level, expect in (("O0", "at -O0 no inliner runs"), ("O2", "was chosen and measured at -Os and -Oz")):
    r = harness.run(["clang-22", f"-{level}", "-fpass-plugin=" + plugin, "-c", c_sources[0], "-o", W("lv.o")], env=env())
    err = r.stderr.decode(errors="replace")
    check(f"clang-22 -{level} with the size policy: compiles and warns '{expect}'", r.returncode == 0 and expect in err,
          err[-500:])

# A log directory and a source with a long path: the log's name stays under the 255 bytes a name
# may have (the path's end after a hash).
deep = W(*(["d" * 60] * 5))
os.makedirs(deep)
shutil.copy(c_sources[0], os.path.join(deep, "long.c"))
os.makedirs(W("logs-long"))
r = harness.run(["clang-22", "-Oz", "-fpass-plugin=" + plugin, "-c", os.path.join(deep, "long.c"), "-o", W("long.o")],
                env=env(LOG=W("logs-long")))
names = os.listdir(W("logs-long"))
check("a source path of over 300 bytes: its log is written, named in under 255 bytes, ending in the source's name",
      r.returncode == 0 and len(names) == 1 and len(names[0]) < 255 and "_long.c." in names[0],
      f"{names} " + r.stderr.decode(errors="replace")[-300:])

# Another LLVM: a program that exports LLVMGetVersion under LLVM 21.1's symbol version, as
# libLLVM-21 does, loads the plugin as LLVM's PassPlugin::Load does and reads its answer.
host_c = W("foreign.c")
open(host_c, "w").write(r"""
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
void LLVMGetVersion(unsigned *Major, unsigned *Minor, unsigned *Patch) { *Major = 21; *Minor = 1; *Patch = 8; }
struct Info { uint32_t APIVersion; const char *Name, *Version; void (*Register)(void *); };
int main(int argc, char **argv) {
  void *H = dlopen(argv[1], RTLD_LAZY | RTLD_GLOBAL);
  if (!H) { fprintf(stderr, "%s\n", dlerror()); return 2; }
  struct Info (*Get)(void) = (struct Info (*)(void))dlsym(H, "llvmGetPassPluginInfo");
  struct Info I = Get();
  printf("%u %d\n", I.APIVersion, I.Register != 0);
  return 0;
}
""")
open(W("foreign.map"), "w").write("LLVM_21.1 { global: LLVMGetVersion; main; local: *; };\n")
harness.run(["clang-22", "-rdynamic", "-Wl,--version-script=" + W("foreign.map"), host_c, "-o", W("foreign"),
             "-ldl"], check=True)
r = harness.run([W("foreign"), plugin])
err = r.stderr.decode(errors="replace")
check("loaded by LLVM 21.1.8, the plugin answers API version 0 (refused) and says why",
      r.returncode == 0 and r.stdout.split() == [b"0", b"0"]
      and "built for LLVM 22.1; this compiler runs LLVM 21.1.8" in err, (r.stdout + r.stderr).decode(errors="replace"))
r = harness.run([B("opt"), "-load-pass-plugin=" + plugin, "-passes=default<Oz>", modules[0], "-o", W("own.bc")])
check("loaded by LLVM 22.1, the plugin says nothing of versions", r.returncode == 0 and b"built for" not in r.stderr,
      r.stderr.decode(errors="replace"))

print(f"decisions compared one by one: {decisions['opt-22']} under opt-22, {decisions['clang']} under "
      f"clang-22/clang++-22; policies that changed code: {sorted(changed)}")
T.finish()
