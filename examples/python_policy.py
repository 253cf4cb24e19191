#!/usr/bin/python3
"""A numpy policy answering opt-22's inliner through the workbench's host (trains nothing).

    PYTHONPATH=build/python /usr/bin/python3 examples/python_policy.py [MODULE.ll|.bc]

For every call site opt-22 asks about, the policy gets the observation as a dict of numpy
arrays (feature name -> array of the feature's type and shape) and answers 1 (inline) or 0.
Here: a hand-set linear score over three of LLVM's inliner features, falling back to the
compiler's own decision. The host handles the protocol (FIFOs, timeouts, the compiler's
process group); the script prints each decision and the session's summary.
"""
import os
import sys
import tempfile

import numpy as np

import ir2vec

module = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "inline-demo.ll")
weights = {"callee_basic_block_count": -1.0, "callsite_height": -0.5, "nr_ctant_params": 2.0}


def policy(obs):
    x = np.array([float(obs[name].item()) for name in weights])
    score = x @ np.array(list(weights.values())) + 3.0
    decision = int(score > 0) if obs["callee_basic_block_count"].item() > 1 else int(obs["inlining_default"].item())
    print(f"call site: callee blocks {int(x[0])}, height {int(x[1])}, constant args {int(x[2])}"
          f" -> score {score:+.1f}, inline {decision} (opt's own: {obs['inlining_default'].item()})")
    return decision


with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "out.bc")
    r = ir2vec.mlgo.run(["opt-22", "-passes=default<Oz>", module, "-o", out], policy,
                        task="inline", timeout=60)
    print(r.summary)
    print(f"opt-22 exited with {r.exit_status}; {r.observations} decisions; output "
          f"{os.path.getsize(out) if os.path.exists(out) else 0} bytes of bitcode")
