#!/usr/bin/env python3
"""README stays true: it opens with exactly two sh commands; .ci/run runs the second one and
nothing else; the main job of the first one (what follows scripts/setup.sh) runs and prints
embeddings; the layout section points to docs/architecture.md.
   readme_test.py REPO_ROOT BUILD_DIR"""
import os
import re
import subprocess
import sys

import harness

root, build = sys.argv[1], sys.argv[2]
res = harness.Results()
readme = open(os.path.join(root, "README.md")).read()
blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
if res.check("README opens with two ```sh blocks", readme.startswith("```sh\n") and len(blocks) >= 2):
    first, second = [b.strip() for b in blocks[:2]]
    ci = [l.strip() for l in open(os.path.join(root, ".ci/run"))
          if l.strip() and not l.startswith("#") and not l.startswith("set ") and not l.startswith("cd ")]
    res.check(".ci/run runs the README's test command and nothing else", ci == [second],
              f".ci/run runs {ci!r}, README's test command is {second!r}")
    prefix = "./scripts/setup.sh && "
    if res.check("the first command starts with the set-up", first.startswith(prefix), first):
        main_job = first[len(prefix):].replace("build/bin/", os.path.join(build, "bin") + "/", 1)
        r = subprocess.run(main_job, shell=True, cwd=root, capture_output=True, text=True)
        res.check("the main job runs and prints embeddings",
                  r.returncode == 0 and r.stdout.startswith("Function: "),
                  f"exit {r.returncode}: {r.stderr[:300]}")
res.check("the layout section points to docs/architecture.md",
          "docs/architecture.md" in readme and os.path.exists(os.path.join(root, "docs", "architecture.md")))
sys.exit(res.summary())
