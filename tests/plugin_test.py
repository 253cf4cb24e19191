#!/usr/bin/python3
"""The inliner plugin (issue 41, libir2vec-inline.so) against the interactive host: the same
policy inside the compiler gives the same code as `ir2vec mlgo run --policy P` answering over
its channel.

  * opt-22 -load-pass-plugin, -Oz and -Os: the optimized bitcode is byte for byte the host's,
    for the shipped `size` rule (by name, and by its model file), the `default` policy and an
    mlp and a linear model trained here;
  * clang-22 -fpass-plugin, -Oz and -Os, from C: the object's .text (llvm-size-22) is the
    host's;
  * the rule changes code somewhere (else the comparison would show nothing);
  * an unknown policy, a missing model file and a file that is no model stop the compiler
    with an error naming them, not a crash, and write no output.

  plugin_test.py --ir2vec BIN --llvm-bindir DIR
"""
import os

import harness
import mlgo_oracle
import small_corpus

T = harness.ToolTest("plugin-")
a, res, check, tmp, W, B = T.args, T.res, T.check, T.tmp, T.W, T.B
plugin = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(a.ir2vec))), "lib",
                      "libir2vec-inline.so")
shipped = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(a.ir2vec))), "share",
                       "ir2vec", "policies", "inline-size.h5")
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
sources = [m[:-3] + ".c" for m in modules]


def env(policy=None, model=None):
    e = dict(os.environ)
    e.pop("IR2VEC_INLINE_POLICY", None)
    e.pop("IR2VEC_INLINE_MODEL", None)
    if policy:
        e["IR2VEC_INLINE_POLICY"] = policy
    if model:
        e["IR2VEC_INLINE_MODEL"] = model
    return e


def read(path):
    return open(path, "rb").read() if os.path.exists(path) else None


# Trained models of both kinds, from an exploration of the corpus (a few rollouts each: the test
# needs models that decide, not good ones).
explored = W("explore.h5")
harness.run([a.ir2vec, "mlgo", "explore", "-q", "--all", "--budget", "4", "-o", explored, *modules],
            check=True)
models = {}
for kind in ("mlp", "linear"):
    models[kind] = W(kind + ".h5")
    harness.run([a.ir2vec, "mlgo", "train", "-q", explored, "--model", kind, "--features",
                 "cost,callgraph,heuristic", "--epochs", "5", "-o", models[kind]], check=True)

changed = 0
for level in ("Oz", "Os"):
    for i, m in enumerate(modules):
        name = os.path.basename(m)
        for policy, model in (("size", None), (None, None), ("size", shipped), ("default", None),
                              ("mlp", models["mlp"]), ("linear", models["linear"])):
            tag = f"{level}-{i}-{policy}-{bool(model)}"
            host_policy = policy or "size"
            host = harness.run([a.ir2vec, "mlgo", "run", "-q", "--policy", host_policy,
                                *(["--model", model] if model else []), "--",
                                B("opt"), f"-passes=default<{level}>", m, "-o", W(tag + ".host.bc")])
            r = harness.run([B("opt"), "-load-pass-plugin=" + plugin, f"-passes=default<{level}>",
                             m, "-o", W(tag + ".plugin.bc")], env=env(policy, model))
            check(f"opt-22 -{level} {name}, policy {host_policy}{' from its file' if model else ''}: "
                  "the plugin's bitcode is the host's",
                  host.returncode == 0 and r.returncode == 0
                  and read(W(tag + ".plugin.bc")) == read(W(tag + ".host.bc")),
                  (host.stderr + r.stderr).decode(errors="replace")[-800:])
        plain = harness.run([B("opt"), f"-passes=default<{level}>", m, "-o", W(f"{level}-{i}.bc")])
        changed += read(W(f"{level}-{i}.bc")) != read(W(f"{level}-{i}-size-False.plugin.bc"))
check(f"the size rule changes the code of some modules ({changed} of {2 * len(modules)})",
      changed > 0)

for level in ("Oz", "Os"):
    for i, c in enumerate(sources):
        host = harness.run([a.ir2vec, "mlgo", "run", "-q", "--policy", "size", "--", "clang-22",
                            f"-{level}", "-c", c, "-o", W(f"c{level}{i}.host.o")])
        r = harness.run(["clang-22", f"-{level}", "-fpass-plugin=" + plugin, "-c", c, "-o",
                         W(f"c{level}{i}.plugin.o")], env=env())
        ok = host.returncode == 0 and r.returncode == 0
        sizes = (mlgo_oracle.text_size(B("llvm-size"), W(f"c{level}{i}.host.o")),
                 mlgo_oracle.text_size(B("llvm-size"), W(f"c{level}{i}.plugin.o"))) if ok else None
        check(f"clang-22 -{level} -fpass-plugin {os.path.basename(c)}: .text is the host's",
              ok and sizes[0] == sizes[1], (host.stderr + r.stderr).decode(errors="replace")[-800:] + f" sizes {sizes}")

# Bad settings: an error naming what is wrong, no crash, and (clang, which writes its output
# only when it succeeds) no object. opt-22 opens its -o before any pass runs: its empty file is
# opt's, so only the error and the status are checked there.
not_a_model = W("not-a-model.h5")
open(not_a_model, "w").write("not HDF5\n")
for what, e, expect in (("an unknown policy", env("no-such-policy"), "no-such-policy"),
                        ("a missing model file", env("mlp", W("missing.h5")), "missing.h5"),
                        ("a file that is no model", env("mlp", not_a_model), "not-a-model.h5")):
    out = W("bad.o")
    for tool, cmd in (("clang-22", ["clang-22", "-Oz", "-fpass-plugin=" + plugin, "-c", sources[0],
                                    "-o", out]),
                      ("opt-22", [B("opt"), "-load-pass-plugin=" + plugin, "-passes=default<Oz>",
                                  modules[0], "-o", W("bad.bc")])):
        r = harness.run(cmd, env=e)
        err = r.stderr.decode(errors="replace")
        check(f"{tool}, {what}: the compiler stops with an error naming it, not a crash",
              r.returncode == 1 and expect in err and "ir2vec-inline" in err
              and "Stack dump" not in err and not os.path.exists(out), err[-800:])

print(f"the size rule changed {changed} of {2 * len(modules)} compilations")
T.finish()
