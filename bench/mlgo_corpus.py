#!/usr/bin/env python3
"""Acceptance benchmark of the MLGO host on a corpus (docs/mlgo.md, "Measured").

For every module: `opt-22 -passes='default<Oz>'` alone and the same command under
`ir2vec mlgo run --task inline --policy default`, timed side by side (the order alternates per
module, so drift on a shared machine hits both alike); both outputs compiled with
`llc-22 -filetype=obj` and their .text sizes read with llvm-size-22 -A (independent of the
workbench's own Object-library reading). Prints the modules whose sizes differ, the sum of
wall times of each side and their ratio.

With --python, a Python host in the manner of LLVM's interactive_host.py
(bench/python_host.py) runs as a further side; with --baseline IR2VEC, another build's host
(e.g. the previous commit's) does, so a change is measured against it in the same run. With
--replay, opt-22 in interactive mode runs with no host at all: the host's answers for the
module (from its log) pre-written into a regular file `<base>.in`, the observations going to a
regular file `<base>.out` (LLVM's replay trick, shared doc mlgo-interfaces-llvm22.md §4). That
side is the compiler's own cost of the ML advisor (feature computation, the default decision,
the log): the floor of any host. The rest of the host side's time is the host's.

With --plugin LIB, opt-22 with the inliner plugin (libir2vec-inline.so, issue 41) answering the
same policy in-process runs as a further side: no host, no channel.

With --policy NAME (default: default), the host, baseline and plugin sides answer with that
inliner policy (e.g. size, the shipped one); the .text sizes are then compared among those sides
(and the replay), and opt-22 alone's only counted: the policy changes code by design.

With --pinned CPU, opt-22 alone and under the host also run confined to one CPU (taskset):
the host and the compiler then wake each other on the same CPU. The difference between the two
host ratios is what waking another CPU costs at each decision (on a VM, an inter-processor
interrupt and an exit from the idle state).

usage: bench/mlgo_corpus.py IR2VEC CORPUS_LIST [--rounds N] [--limit K] [--python]
                            [--baseline IR2VEC] [--replay] [--pinned CPU] [--plugin LIB]
                            [--policy NAME] [--small N] [--embeddings VOCAB]

With --small N, N modules spread over the smallest third of the list (by file size) instead of
the list's first ones: where a compile is short, the host's fixed cost per session shows.

With --embeddings VOCAB ('' = the default vocabulary), the host and baseline sides run with
embedding features (`mlgo run --embeddings VOCAB`): the workbench's module_embedding and LLVM's
callee/caller_embedding, whose vocabulary the compiler reads: what a session of a study with
embeddings costs (issue 52: once resolved, or read again per session by an older build).
"""
import argparse, json, os, struct, subprocess, sys, tempfile, time


def text_size(obj):
    out = subprocess.run(["llvm-size-22", "-A", obj], check=True, capture_output=True, text=True).stdout
    return sum(int(l.split()[1]) for l in out.splitlines()
               if l.split() and (l.split()[0] == ".text" or l.split()[0].startswith(".text.")))


def decisions_of(log):
    """The answers of a session log (the int64 decision at the end of each observation), read
    from the format (docs/formats/mlgo-session-log.md): a JSON header naming the tensors, then
    JSON lines, each observation's line followed by its payload and a newline."""
    data = open(log, "rb").read()
    nl = data.index(b"\n")
    header = json.loads(data[:nl])
    sizes = {"int64_t": 8, "int32_t": 4, "float": 4, "double": 8, "int8_t": 1, "uint8_t": 1,
             "int16_t": 2, "uint16_t": 2, "uint32_t": 4, "uint64_t": 8}
    def nbytes(spec):
        n = 1
        for d in spec["shape"]:
            n *= d
        return n * sizes[spec["type"]]
    payload = sum(nbytes(s) for s in header["features"])
    if "advice" in header:
        payload += nbytes(header["advice"])
    out, at = [], nl + 1
    while at < len(data):
        end = data.index(b"\n", at)
        record = json.loads(data[at:end])
        at = end + 1
        if "observation" in record:
            out.append(struct.unpack("<q", data[at + payload - 8:at + payload])[0])
            at += payload + 1
    return out


def modules_of(corpus_list, small=0, limit=0):
    """The list's modules; with small, that many spread over the smallest third (by file size);
    with limit, the first that many of those."""
    mods = [l.strip() for l in open(corpus_list) if l.strip()]
    if small:
        third = sorted(mods, key=os.path.getsize)[: max(1, len(mods) // 3)]
        mods = [third[i * len(third) // small] for i in range(min(small, len(third)))]
    return mods[:limit] if limit else mods


def timed(cmd, env=None):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr[-500:]}")
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ir2vec")
    ap.add_argument("corpus_list")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--python", action="store_true")
    ap.add_argument("--baseline", help="another build's ir2vec, timed as a further side")
    ap.add_argument("--replay", action="store_true",
                    help="time opt-22 replaying the host's answers from a file, with no host")
    ap.add_argument("--pinned", type=int, help="also time opt-22 alone and under the host on this CPU only")
    ap.add_argument("--plugin", help="also time opt-22 with this inliner plugin")
    ap.add_argument("--policy", default="default", help="the inliner policy of the host and plugin sides")
    ap.add_argument("--small", type=int, default=0, help="N modules of the smallest third")
    ap.add_argument("--embeddings", help="the host and baseline sides with these embedding features ('' = default)")
    a = ap.parse_args()
    mods = modules_of(a.corpus_list, a.small, a.limit)
    totals = {"plain": 0.0, "host": 0.0, "python": 0.0, "baseline": 0.0, "replay": 0.0,
              "plain-pinned": 0.0, "host-pinned": 0.0, "plugin": 0.0}
    plugin_env = dict(os.environ, IR2VEC_INLINE_POLICY=a.policy)
    py_host = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python_host.py"), "--"]
    differ, decisions, changed = [], 0, 0
    with tempfile.TemporaryDirectory() as d:
        pa, pb = os.path.join(d, "plain.bc"), os.path.join(d, "host.bc")
        log = os.path.join(d, "s.log")
        for i, m in enumerate(mods):
            oz = ["opt-22", "-passes=default<Oz>", m, "-o"]
            host_args = ["mlgo", "run", "--task", "inline", "--policy", a.policy]
            if a.embeddings is not None:
                host_args += ["--embeddings", a.embeddings] if a.embeddings else ["--embeddings"]
            sides = [("plain", oz + [pa]),
                     ("host", [a.ir2vec, *host_args, "--log", log, "--", *oz, pb])]
            if a.python:
                sides.append(("python", py_host + oz + [pb + ".py"]))
            if a.baseline:
                sides.append(("baseline", [a.baseline, *host_args, "--log", log + ".base", "--",
                                           *oz, pb + ".base"]))
            if a.pinned is not None:
                pin = ["taskset", "-c", str(a.pinned)]
                sides.append(("plain-pinned", pin + oz + [pa + ".pin"]))
                sides.append(("host-pinned", pin + [a.ir2vec, *host_args, "--log", log + ".pin", "--", *oz,
                                                    pb + ".pin"]))
            if a.plugin:
                sides.append(("plugin", oz + [pb + ".plugin", "-load-pass-plugin=" + a.plugin]))
            channel = os.path.join(d, "replay")
            if a.replay:
                # The answers, from a session of the host before the timed rounds.
                subprocess.run([a.ir2vec, *host_args, "--log", log, "--", *oz, pb], check=True,
                               capture_output=True)
                answers = b"".join(struct.pack("<q", x) for x in decisions_of(log)) if os.path.exists(log) else b""
                sides.append(("replay", oz + [pb + ".replay", "-enable-ml-inliner=release",
                                              "-inliner-interactive-channel-base=" + channel,
                                              "-inliner-interactive-include-default"]))
            for r in range(a.rounds):
                # The order rotates per module and round, so drift on a shared machine hits
                # every side alike.
                k = (i + r) % len(sides)
                for name, cmd in sides[k:] + sides[:k]:
                    if name == "replay":  # fresh files: the compiler consumes and appends
                        open(channel + ".in", "wb").write(answers)
                        open(channel + ".out", "wb").close()
                    totals[name] += timed(cmd, plugin_env if name == "plugin" else None)
            sizes = []
            for bc in ((pa, pb) + ((pb + ".replay",) if a.replay else ())
                       + ((pb + ".plugin",) if a.plugin else ())):
                subprocess.run(["llc-22", "-filetype=obj", bc, "-o", bc + ".o"], check=True)
                sizes.append(text_size(bc + ".o"))
            changed += sizes[0] != sizes[1]
            if len(set(sizes if a.policy == "default" else sizes[1:])) != 1:
                differ.append((m, sizes))
            if os.path.exists(log):
                # observations = lines starting with {"observation" (payload bytes may hold
                # newlines, but never at the start of that marker after one)
                with open(log, "rb") as f:
                    decisions += f.read().count(b'{"observation":')
                os.unlink(log)
            if sys.stderr.isatty():
                print(f"\r{i + 1}/{len(mods)} ratio {totals['host'] / max(totals['plain'], 1e-9):.3f}",
                      end="", file=sys.stderr)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"modules: {len(mods)}  decisions answered: {decisions}")
    print(f"same .text size: {len(mods) - len(differ)} of {len(mods)}"
          + ("" if a.policy == "default" else
             f" (among the sides of policy {a.policy}; it changed {changed} modules against opt-22 alone)"))
    for m, s in differ:
        print(f"  DIFFERS {m}: plain, host" + (", replay" if a.replay else "")
              + (", plugin" if a.plugin else "") + ": " + " ".join(map(str, s)))
    plain_t, host_t = totals["plain"], totals["host"]
    print(f"wall time, sum over modules x {a.rounds} rounds: opt-22 alone {plain_t:.2f} s, "
          f"under the host {host_t:.2f} s, ratio {host_t / plain_t:.3f}")
    if a.python:
        py_t = totals["python"]
        print(f"under the Python host (bench/python_host.py): {py_t:.2f} s, ratio {py_t / plain_t:.3f}")
    if a.replay:
        rp = totals["replay"]
        print(f"opt-22 replaying the answers from a file, no host: {rp:.2f} s, ratio {rp / plain_t:.3f} "
              f"(the compiler's own interactive-mode cost); the host's share: "
              f"{(host_t - rp) / plain_t:.3f} of opt-22 alone")
    if a.pinned is not None:
        pp, hp = totals["plain-pinned"], totals["host-pinned"]
        print(f"on CPU {a.pinned} only: opt-22 alone {pp:.2f} s, under the host {hp:.2f} s, ratio {hp / pp:.3f}")
    if a.plugin:
        pl = totals["plugin"]
        print(f"with the inliner plugin, no host: {pl:.2f} s, ratio {pl / plain_t:.3f} (the host's "
              f"{host_t / plain_t:.3f} in the same run)")
    if a.baseline:
        b = totals["baseline"]
        print(f"under the baseline host ({a.baseline}): {b:.2f} s, ratio {b / plain_t:.3f}; "
              f"this build / baseline {host_t / b:.3f}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
