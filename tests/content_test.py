#!/usr/bin/python3
"""Content, not paths (issue 52): what a run reuses from an earlier one (an exploration in a
study's directory, the finished modules of an interrupted run, an exploration given to eval or
finetune) is reused only when the vocabulary's and the modules' bytes are those it was made
from. Between two runs, in place, under the same names:

  part 1, a vocabulary retrained: `mlgo explore --embeddings V --resume` after an interruption,
     a rerun of `mlgo ablate` and of `mlgo benchmark` into the same directory each give what a
     fresh run with the new vocabulary gives (never the old observations), and the digests
     files record are the documented formula's (computed here with hashlib);
  part 2, a module rewritten and recompiled: `mlgo explore --resume`, a rerun of `mlgo ablate`
     and of `mlgo benchmark` give what a fresh run gives; `mlgo eval --exploration` and `mlgo
     finetune` refuse the old exploration, naming it and the module.

  content_test.py --ir2vec BIN --llvm-bindir DIR --part {1,2}
"""
import hashlib, json, os, shutil, signal, struct, subprocess, time

import h5py
import numpy as np

import harness
import small_corpus

T = harness.ToolTest("content-", parts=2)
a, check, W = T.args, T.check, T.W

corpus = W("corpus")
modules = small_corpus.build(corpus)
listfile = W("corpus.list")
open(listfile, "w").write("".join(m + "\n" for m in modules))
vocab = W("vocab.json")


def write_vocab(scale):
    """A vocabulary as retraining would leave it: the default vocabulary's vectors, scaled."""
    r = harness.run([a.ir2vec, "vocab", "export", "-o", W("default.json")], check=True)
    v = json.load(open(W("default.json")))
    for section in v.values():
        for k in section:
            section[k] = [x * scale for x in section[k]]
    json.dump(v, open(vocab + ".tmp", "w"))
    os.replace(vocab + ".tmp", vocab)  # in place: the same name
    return r


def embedding_digest(path, kind="symbolic", weights=(1.0, 0.5, 0.2)):
    """docs/embeddings.md, "The embeddings digest", written from the description."""
    bits = " ".join(struct.pack(">f", w).hex() for w in weights)
    vocab_sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
    text = f"ir2vec.embedding/1\nvocabulary {vocab_sha}\nkind {kind}\nweights {bits}\n"
    return hashlib.sha256(text.encode()).hexdigest()


def rewrite_module():
    """alpha/a.c with other code, compiled again to the same .bc."""
    c = os.path.join(corpus, "alpha", "a.c")
    open(c, "w").write(small_corpus.SOURCES["alpha/a.c"] + """
static int twice(int x) { return x + x; }
static int thrice(int x) { return twice(x) + x; }
int api_c(int x) { return thrice(x) * twice(x + 1) - thrice(x - 1); }
""")
    harness.run(["clang-22", "-Oz", "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c", c, "-o",
                 modules[0]], check=True)


def comparable(report, d):
    """A report as two runs must agree on it: without fields that record time, with the
    run's directory named alike."""
    if isinstance(report, dict):
        return {k: comparable(v, d) for k, v in report.items() if "second" not in k}
    if isinstance(report, list):
        return [comparable(v, d) for v in report]
    if isinstance(report, str):
        return "DIR" if report == d else report.replace(d + "/", "DIR/")
    return report


def differences(x, y, path=""):
    if type(x) is not type(y):
        return [path]
    if isinstance(x, dict):
        return [d for k in sorted(set(x) | set(y)) for d in
                (differences(x.get(k), y.get(k), f"{path}/{k}") if k in x and k in y else [f"{path}/{k}"])]
    if isinstance(x, list):
        return [f"{path}[len]"] if len(x) != len(y) else \
            [d for i, (p, q) in enumerate(zip(x, y)) for d in differences(p, q, f"{path}[{i}]")]
    return [] if x == y else [path]


def same_as_fresh(what, made, fresh, name):
    rx = comparable(json.load(open(os.path.join(made, name))), made)
    ry = comparable(json.load(open(os.path.join(fresh, name)), ), fresh)
    return check(f"{what}: {name} equals a fresh run's", rx == ry,
                 [(d, rx.get("spec") if d == "/spec" else None) for d in differences(rx, ry)[:8]])


def explore_cmd(out, *extra):
    return [a.ir2vec, "mlgo", "explore", "-q", "--test-fraction", "0.3", "--budget", "4", "-j", "1",
            "-o", out, *extra, "@" + listfile]


def interrupted_explore(out, *extra):
    """An exploration stopped (SIGINT) once a module's part is kept."""
    p = subprocess.Popen(explore_cmd(out, *extra), stderr=subprocess.PIPE)
    parts, deadline = out + ".parts", time.time() + 120
    while time.time() < deadline and not (os.path.isdir(parts) and
                                           any(n.endswith(".json") for n in os.listdir(parts))):
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    rc = p.wait(timeout=120)
    return rc == 130 and os.path.isdir(parts) and not os.path.exists(out)


ablation = {"corpus": ["@" + listfile], "split": {"test_fraction": 0.3, "seed": 1},
            "exploration": {"budget": 4}, "model": {"kind": "linear", "epochs": 4},
            "seeds": [1], "training_side": False,
            "arms": [{"name": "cost", "features": ["cost", "callgraph"]},
                     {"name": "cost+emb", "features": ["cost", "callgraph", "embedding", "module"],
                      "vocabulary": vocab}]}
benchmark = {"corpus": ["@" + listfile], "folds": 3, "seed": 1,
             "exploration": {"budget": 4}, "model": {"kind": "linear", "epochs": 4},
             "policies": [{"name": "heuristic", "policy": "default"},
                          {"name": "emb", "train": {"features": ["cost", "embedding", "module"],
                                                    "vocabulary": vocab}}]}
json.dump(ablation, open(W("ablate.json"), "w"))
json.dump(benchmark, open(W("benchmark.json"), "w"))


def ablate(d):
    return harness.run([a.ir2vec, "mlgo", "ablate", W("ablate.json"), "-o", d, "-j", "2"])


def bench(d):
    return harness.run([a.ir2vec, "mlgo", "benchmark", W("benchmark.json"), "-o", d, "-j", "2"])


def module_embeddings(exploration, set_index):
    with h5py.File(exploration) as f:
        g = f[f"observations/{set_index}"]
        rows = g["row/module"][:]
        paths = [x.decode() for x in g["modules/path"][:]]
        emb = g["features/module_embedding"][:]
        return {paths[m]: emb[i] for i, m in enumerate(rows)}


def expected_module_embedding(path):
    """The module's vector with the vocabulary as it is now (`ir2vec embeddings --level
    module`), narrowed to float as LLVM's tensors are."""
    r = harness.run([a.ir2vec, "embeddings", "--level", "module", "--precision", "17",
                     "--ir2vec-vocab-path", vocab, path], check=True)
    nums = [float(x) for x in r.stdout.decode().split() if x[0] in "-0123456789"]
    return np.array(nums[-75:], dtype=np.float32)


write_vocab(1.0)

if a.part == 1:
    # ---- explore --embeddings: interrupted, vocabulary retrained, resumed ------------------
    ex = W("ex.h5")
    check("explore --embeddings interrupted with modules kept", interrupted_explore(ex, "--embeddings", vocab))
    write_vocab(3.0)
    r = harness.run(explore_cmd(ex, "--embeddings", vocab, "--resume"))
    fresh = W("ex-fresh.h5")
    r2 = harness.run(explore_cmd(fresh, "--embeddings", vocab))
    check("explore --resume after the vocabulary was retrained: the bytes of a fresh run",
          r.returncode == 0 and r2.returncode == 0 and open(ex, "rb").read() == open(fresh, "rb").read(),
          r.stderr[-500:])
    with h5py.File(ex) as f:
        check("explore: vocabulary_digests is the documented formula's (hashlib)",
              json.loads(f.attrs.get("vocabulary_digests", "[]")) == [embedding_digest(vocab)],
              f.attrs.get("vocabulary_digests"))
    got = module_embeddings(ex, 1)
    check("explore: the observations' module_embedding is of the retrained vocabulary",
          got and all(np.array_equal(v, expected_module_embedding(p)) for p, v in got.items()))

    # ---- finetune of a model that reads embeddings: the vocabulary its observations were made
    # with, checked by digest
    model = W("emb-model.h5")
    r = harness.run([a.ir2vec, "mlgo", "train", "-q", "--epochs", "3", "--features",
                     "cost,callgraph,embedding,module", "--observations", vocab, "-o", model, ex])
    if check("train on the embedding observations: exit 0", r.returncode == 0, r.stderr[-500:]):
        tuned = W("tuned.h5")
        ft = lambda *extra: harness.run([a.ir2vec, "mlgo", "finetune", "-q", "--model", model,
                                         "-o", tuned, *extra, ex])
        r = ft("--embeddings", vocab)
        digest = None
        if r.returncode == 0:
            with h5py.File(tuned) as f:
                digest = f.attrs.get("finetune_embeddings_digest")
            digest = digest.decode() if isinstance(digest, bytes) else digest
        check("finetune --embeddings VOCAB: exit 0, the model records the embeddings' digest",
              r.returncode == 0 and digest == embedding_digest(vocab), (r.stderr[-500:], digest))
        if os.path.exists(tuned):
            os.remove(tuned)
        r = ft()
        check("finetune of an embedding model without --embeddings: refused, nothing written",
              r.returncode != 0 and b"--embeddings" in r.stderr and not os.path.exists(tuned),
              r.stderr[-500:])
        write_vocab(5.0)
        r = ft("--embeddings", vocab)
        check("finetune after the vocabulary was retrained: refused (another digest), the "
              "exploration named, nothing written",
              r.returncode != 0 and ex.encode() in r.stderr and b"digest" in r.stderr
              and not os.path.exists(tuned), r.stderr[-500:])

    # A model made from one vocabulary's observations, tuned or judged with another's: refused,
    # though the exploration has observations of both (found by a hostile user: it was tuned on
    # the other vectors).
    other = W("other.json")
    shutil.copy(vocab, other)
    write_vocab(1.0)
    two = W("two.h5")
    r = harness.run(explore_cmd(two, "--embeddings", vocab, "--embeddings", other))
    model_a = W("model-a.h5")
    r2 = harness.run([a.ir2vec, "mlgo", "train", "-q", "--epochs", "3", "--features",
                      "cost,callgraph,embedding,module", "--observations", vocab, "-o", model_a, two])
    if check("explore with two vocabularies, train on the first's observations: exit 0",
             r.returncode == 0 and r2.returncode == 0, (r.stderr[-300:], r2.stderr[-300:])):
        r = harness.run([a.ir2vec, "mlgo", "finetune", "-q", "--model", model_a, "--embeddings", other,
                         "-o", W("tuned-b.h5"), two])
        check("finetune --embeddings of another vocabulary than the model's: refused, both digests "
              "named, nothing written",
              r.returncode != 0 and embedding_digest(other).encode() in r.stderr
              and embedding_digest(vocab).encode() in r.stderr and not os.path.exists(W("tuned-b.h5")),
              r.stderr[-500:])
        r = harness.run([a.ir2vec, "mlgo", "eval", "-q", "--policy", "mlp", "--model", model_a,
                         "--embeddings", other, "-o", W("eval-b.json"), "@" + listfile])
        check("eval --embeddings of another vocabulary than the model's: refused, nothing written",
              r.returncode != 0 and embedding_digest(vocab).encode() in r.stderr
              and not os.path.exists(W("eval-b.json")), r.stderr[-500:])
        plain = W("plain-model.h5")
        harness.run([a.ir2vec, "mlgo", "train", "-q", "--epochs", "3", "--features", "cost,callgraph",
                     "-o", plain, two], check=True)
        r = harness.run([a.ir2vec, "mlgo", "finetune", "-q", "--model", plain, "--embeddings", vocab,
                         "-o", W("tuned-plain.h5"), two])
        check("finetune --embeddings of a model that reads none: refused",
              r.returncode != 0 and b"reads no embedding feature" in r.stderr, r.stderr[-500:])

    # ---- ablate and benchmark: reruns into the same directory after the vocabulary was retrained
    def rerun_after_retraining(what, run, report):
        write_vocab(1.0)
        first, again = W(what), W(what + "-fresh")
        r = run(first)
        check(f"{what}: exit 0", r.returncode == 0, r.stderr[-800:])
        write_vocab(3.0)
        r, r2 = run(first), run(again)
        ok = check(f"{what} after the vocabulary was retrained, and fresh: exit 0, the exploration "
                   "is not reused", r.returncode == 0 and r2.returncode == 0
                   and b"reusing the exploration" not in r.stderr, (r.stderr[-800:], r2.stderr[-500:]))
        if ok:
            same_as_fresh(f"{what} rerun after the vocabulary was retrained", first, again, report)
            with h5py.File(os.path.join(first, "exploration.h5")) as f:
                check(f"{what}: its exploration records the retrained vocabulary's digest",
                      json.loads(f.attrs.get("vocabulary_digests", "[]")) == [embedding_digest(vocab)])
        return first, ok

    first, ok = rerun_after_retraining("ablate", ablate, "report.json")
    if ok:
        rep = json.load(open(os.path.join(first, "report.json")))
        check("ablate: report.json gives each arm's embeddings digest",
              [x.get("embeddings_digest") for x in rep["arms"]] == ["", embedding_digest(vocab)],
              [x.get("embeddings_digest") for x in rep["arms"]])
    r = ablate(first)
    check("ablate once more, nothing changed: the exploration is reused",
          r.returncode == 0 and b"reusing the exploration" in r.stderr, r.stderr[-500:])
    rerun_after_retraining("benchmark", bench, "results.json")

else:
    # ---- explore: interrupted, a module rewritten, resumed ----------------------------------
    ex = W("ex.h5")
    check("explore interrupted with modules kept", interrupted_explore(ex))
    old_ablation = W("abl")
    r = ablate(old_ablation)
    check("ablate before the rewrite: exit 0", r.returncode == 0, r.stderr[-800:])
    all_before = W("all-before.h5")
    r = harness.run([a.ir2vec, "mlgo", "explore", "-q", "--all", "--budget", "4", "-o", all_before,
                     "@" + listfile])
    check("explore --all before the rewrite: exit 0", r.returncode == 0, r.stderr[-500:])
    first_bench = W("bench")
    r = bench(first_bench)
    check("benchmark before the rewrite: exit 0", r.returncode == 0, r.stderr[-800:])

    rewrite_module()

    r = harness.run(explore_cmd(ex, "--resume"))
    fresh = W("ex-fresh.h5")
    r2 = harness.run(explore_cmd(fresh))
    check("explore --resume after a module was rewritten: the bytes of a fresh run",
          r.returncode == 0 and r2.returncode == 0 and open(ex, "rb").read() == open(fresh, "rb").read(),
          r.stderr[-500:])
    with h5py.File(ex) as f:
        paths = [x.decode() for x in f["modules/path"][:]]
        check("explore: each module's SHA-256 is of its bytes now (hashlib)",
              [x.decode() for x in f.get("modules/sha256", [])] ==
              [hashlib.sha256(open(p, "rb").read()).hexdigest() for p in paths])

    # ---- ablate and benchmark: reruns into the same directory ---------------------------------
    r = ablate(old_ablation)
    check("ablate after a module was rewritten: exit 0, the exploration that holds it is made again",
          r.returncode == 0 and b"a.bc is not the one recorded): exploring again" in r.stderr,
          r.stderr[-800:])
    fresh_ablation = W("abl-fresh")
    r2 = ablate(fresh_ablation)
    if check("ablate fresh: exit 0", r2.returncode == 0, r2.stderr[-800:]):
        same_as_fresh("ablate rerun after a module was rewritten", old_ablation, fresh_ablation, "report.json")
    r = bench(first_bench)
    fresh_bench = W("bench-fresh")
    r2 = bench(fresh_bench)
    if check("benchmark after a module was rewritten, and fresh: exit 0",
             r.returncode == 0 and r2.returncode == 0 and b"changed since the exploration" in r.stderr,
             (r.stderr[-500:], r2.stderr[-500:])):
        same_as_fresh("benchmark rerun after a module was rewritten", first_bench, fresh_bench, "results.json")

    # ---- what failed for the machine's reasons is tried again, never reused ---------------------
    # (found by a hostile user: an exploration whose modules failed for want of descriptors was
    # resumed, and reused by a rerun of ablate, with those failures). An opt-22 that fails, as the
    # machine made it fail, for the modules whose paths contain the marker file's text, while the
    # marker exists.
    marker, fake = W("machine-fails"), W("fake-opt")
    open(fake, "w").write(f"""#!/bin/sh
if [ -e {marker} ]; then
  for a in "$@"; do case "$a" in *"$(cat {marker})"*.bc) echo "fake-opt: Too many open files" >&2; exit 1;; esac; done
fi
exec opt-22 "$@"
""")
    os.chmod(fake, 0o755)
    open(marker, "w").write("/")  # every module
    lim = W("lim.h5")
    r = harness.run(explore_cmd(lim, "--opt", fake))
    parts = lim + ".parts"
    failed = [n for n in os.listdir(parts) if n.endswith(".json")
              and json.load(open(os.path.join(parts, n))).get("error")] if os.path.isdir(parts) else []
    if check("explore while the machine fails every module: exit 1, the failures' parts kept",
             r.returncode == 1 and len(failed) == 4, (r.returncode, failed, r.stderr[-300:])):
        os.remove(marker)
        r = harness.run(explore_cmd(lim, "--opt", fake, "--resume"))
        fresh2 = W("lim-fresh.h5")
        r2 = harness.run(explore_cmd(fresh2, "--opt", fake))
        check("explore --resume once the machine is well: the failed modules tried again, the bytes "
              "of a fresh run", r.returncode == 0 and r2.returncode == 0
              and open(lim, "rb").read() == open(fresh2, "rb").read(), r.stderr[-500:])
    open(marker, "w").write("alpha/a")  # one module
    lim_abl, lim_fresh = W("abl-lim"), W("abl-lim-fresh")
    abl_opt = lambda d: harness.run([a.ir2vec, "mlgo", "ablate", W("ablate.json"), "-o", d, "-j", "2",
                                     "--opt", fake])
    r = abl_opt(lim_abl)
    errs = 0
    for name in ("exploration.h5", "heldout.h5"):  # the training side's and the held-out side's
        if os.path.exists(os.path.join(lim_abl, name)):
            with h5py.File(os.path.join(lim_abl, name)) as f:
                errs += sum(1 for e in f["modules/error"][:] if e)
    if check("ablate while the machine fails one module: its exploration records the failure",
             errs == 1, (r.returncode, r.stderr[-300:])):
        os.remove(marker)
        r, r2 = abl_opt(lim_abl), abl_opt(lim_fresh)
        check("ablate again once the machine is well: the exploration with the failure made again",
              r.returncode == 0 and r2.returncode == 0 and b"failed: exploring again" in r.stderr,
              (r.stderr[-500:], r2.stderr[-300:]))
        if r.returncode == 0 and r2.returncode == 0:
            same_as_fresh("ablate rerun after a failure", lim_abl, lim_fresh, "report.json")

    # ---- a study's directory is its own while it runs ------------------------------------------
    busy = W("abl-busy")
    p = subprocess.Popen([a.ir2vec, "mlgo", "ablate", "-q", W("ablate.json"), "-o", busy, "-j", "1"],
                         stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and p.poll() is None and not os.path.exists(os.path.join(busy, "study.lock")):
        time.sleep(0.01)
    r = ablate(busy)
    first_err = p.communicate()[1]
    check("a second ablate into a directory a first is writing: refused, the first's pid named, "
          "the first done", r.returncode != 0 and b"another run (pid %d)" % p.pid in r.stderr
          and p.returncode == 0, (r.returncode, r.stderr[-300:], first_err[-300:]))
    same_as_fresh("the first ablate, beside a refused second", busy, fresh_ablation, "report.json")

    # ---- explorations given by name: refused --------------------------------------------------
    r = harness.run([a.ir2vec, "mlgo", "eval", "-q", "--exploration", all_before, "-o", W("eval.json"),
                     "@" + listfile])
    check("eval --exploration of modules rewritten since: exit 1, names the file and the module",
          r.returncode == 1 and all_before.encode() in r.stderr and b"a.bc" in r.stderr
          and b"changed since the exploration" in r.stderr, r.stderr[-500:])
    r = harness.run([a.ir2vec, "mlgo", "finetune", "-q", "--from-heuristic", "-o", W("tuned.h5"), all_before])
    check("finetune of an exploration whose module was rewritten: exit 1, names the file and the module",
          r.returncode == 1 and all_before.encode() in r.stderr and b"a.bc" in r.stderr
          and not os.path.exists(W("tuned.h5")), r.stderr[-500:])

T.finish()
