#!/usr/bin/env python3
"""README stays true: it opens with exactly two sh commands; .ci/run runs the second one and
nothing else; the main job of the first one (what follows scripts/setup.sh) runs and prints
embeddings.   readme_test.py REPO_ROOT BUILD_DIR"""
import os
import re
import subprocess
import sys

root, build = sys.argv[1], sys.argv[2]
failures = []
readme = open(os.path.join(root, "README.md")).read()
blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
if not readme.startswith("```sh\n") or len(blocks) < 2:
    failures.append("README must open with two ```sh blocks")
first, second = [b.strip() for b in blocks[:2]]
ci = [l.strip() for l in open(os.path.join(root, ".ci/run"))
      if l.strip() and not l.startswith("#") and not l.startswith("set ") and not l.startswith("cd ")]
if ci != [second]:
    failures.append(f".ci/run runs {ci!r}, README's test command is {second!r}")
prefix = "./scripts/setup.sh && "
if not first.startswith(prefix):
    failures.append(f"first command should start with {prefix!r}")
main_job = first[len(prefix):].replace("build/bin/", os.path.join(build, "bin") + "/", 1)
r = subprocess.run(main_job, shell=True, cwd=root, capture_output=True, text=True)
if r.returncode != 0 or not r.stdout.startswith("Function: "):
    failures.append(f"main job failed ({r.returncode}): {r.stderr[:300]}")
for f in failures:
    print("FAIL", f)
print(f"{4 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
