#!/usr/bin/env python3
"""A stand-in compiler for the host's failure tests: speaks the interactive protocol as
LLVM 22's InteractiveModelRunner does (../shared/docs/mlgo-interfaces-llvm22.md §4), then
misbehaves as asked.  usage: fake_compiler.py MODE [N] <channel flags...>

Modes: ok (N observations, exit 0), crash (SIGSEGV after the first answer), hang (sleep
after the header), truncated (exit 0 in the middle of an observation), out-first (opens
<base>.out before <base>.in), bad-advice (advice spec int32), bad-feature (a feature with
the wrong type), never-open (exit 0 without touching the channel), fail-before (exit 1
before the channel), spawn-hang (starts a grandchild that sleeps, then hangs), no-read (N
observations without reading one answer, then hangs: the advice fills the pipe), slow (ok, one
second after the header), hang-ignore-term (ignores SIGTERM, then hangs), mkdirs (ok, after
making subdirectories, one of them read-only, with files in the host's private directory),
mkdirs-hang (the same, then hangs).
Every mode first creates its "-o FILE" (empty) and holds it open, as LLVM's tools open their
output before working, and reports on stderr when it was started with SIGHUP ignored ("sighup-ignored").
Replies are checked: each must be exactly 8 bytes; a wrong size exits 3.
Environment: FAKE_NO_OUT=1 leaves "-o FILE" untouched; FAKE_TERM_NOTE=PATH writes PATH and
exits 143 on SIGTERM (what a compiler that removes its temporaries on SIGTERM does)."""
import json, os, signal, struct, subprocess, sys, time

mode = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 3
base = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("-inliner-interactive-channel-base="))
names = ["sroa_savings", "sroa_losses", "load_elimination", "call_penalty", "call_argument_setup",
         "load_relative_intrinsic", "lowered_call_arg_setup", "indirect_call_penalty",
         "jump_table_penalty", "case_cluster_penalty", "switch_default_dest_penalty",
         "switch_penalty", "unsimplified_common_instructions", "num_loops", "dead_blocks",
         "simplified_instructions", "constant_args", "constant_offset_ptr_args", "callsite_cost",
         "cold_cc_penalty", "last_call_to_static_bonus", "is_multiple_blocks", "nested_inlines",
         "nested_inline_cost_estimate", "threshold", "callee_basic_block_count",
         "callsite_height", "node_count", "nr_ctant_params", "cost_estimate", "edge_count",
         "caller_users", "caller_conditionally_executed_blocks", "caller_basic_block_count",
         "callee_conditionally_executed_blocks", "callee_users", "is_callee_avail_external",
         "is_caller_avail_external", "inlining_default"]


def spec(name, ty="int64_t", shape=(1,)):
    return {"name": name, "type": ty, "port": 0, "shape": list(shape)}


if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    print("sighup-ignored", file=sys.stderr, flush=True)
if mode == "hang-ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
elif os.environ.get("FAKE_TERM_NOTE"):
    def noted(*_):
        open(os.environ["FAKE_TERM_NOTE"], "w").write("SIGTERM\n")
        os._exit(143)
    signal.signal(signal.SIGTERM, noted)
if "-o" in sys.argv[:-1] and not os.environ.get("FAKE_NO_OUT"):
    # Held open while working, as LLVM's tools hold their output (the host removes a partial
    # output only when the compiler it stops has it open).
    output = open(sys.argv[sys.argv.index("-o") + 1], "wb")
if mode.startswith("mkdirs"):
    private = os.path.dirname(base)
    os.makedirs(os.path.join(private, "made", "by", "the", "compiler"))
    open(os.path.join(private, "made", "by", "file.txt"), "w").write("x")
    os.makedirs(os.path.join(private, "locked", "inner"))
    open(os.path.join(private, "locked", "inner", "f"), "w").write("y")
    os.chmod(os.path.join(private, "locked"), 0o500)
if mode == "never-open":
    sys.exit(0)
if mode == "fail-before":
    print("error: bad flag", file=sys.stderr)
    sys.exit(1)
feats = [spec(x) for x in names]
advice = spec("inlining_decision")
if mode == "bad-advice":
    advice = spec("inlining_decision", "int32_t")
if mode == "bad-feature":
    feats[5] = spec(names[5], "float")
if mode == "out-first":
    out = open(base + ".out", "wb")
    inp = open(base + ".in", "rb")
else:
    inp = open(base + ".in", "rb")
    out = open(base + ".out", "wb")
out.write(json.dumps({"features": feats, "advice": advice}, separators=(",", ":")).encode() + b"\n")
out.write(b'{"context":""}\n')
out.flush()
if mode in ("hang", "hang-ignore-term", "mkdirs-hang"):
    time.sleep(3600)
if mode == "slow":
    time.sleep(1)
if mode == "spawn-hang":
    subprocess.Popen(["sleep", "3600"])
    time.sleep(3600)
for i in range(n):
    payload = b"".join(struct.pack("<q", (i * 7 + k) % 11 if k < 38 else i % 2) for k in range(39))
    out.write(b'{"observation":%d}\n' % i)
    if mode == "truncated" and i == 1:
        out.write(payload[:100])
        out.flush()
        sys.exit(0)
    out.write(payload + b"\n")
    out.flush()
    if mode == "no-read":
        continue
    got = b""
    while len(got) < 8:
        chunk = inp.read(8 - len(got))
        if not chunk:  # LLVM would spin here; the host must never let that happen
            sys.exit(4)
        got += chunk
    print(f"inlining_decision: {struct.unpack('<q', got)[0]}", file=sys.stderr)
    if mode == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
if mode == "no-read":
    time.sleep(3600)
out.close()
sys.exit(0)
