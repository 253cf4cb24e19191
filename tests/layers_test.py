#!/usr/bin/python3
"""The layering of docs/architecture.md holds: the order of the add_subdirectory() lines of the
top-level CMakeLists.txt is the order of the layers, and

  * no source file of a layer includes a header of a higher layer;
  * each layer's library (wb_<folder>) links only libraries of lower layers;
  * bench/parse_only links no code of features/, runners/ or mlgo/: no archive on its link
    line holds an object compiled from those folders;
  * the launcher loads neither libLLVM, HDF5 nor Armadillo (ldd), and the full tool does.

  layers_test.py REPO_ROOT BUILD_DIR
"""
import glob
import os
import re
import subprocess
import sys

import harness

root, build = sys.argv[1], sys.argv[2]
res = harness.Results()
top = open(os.path.join(root, "CMakeLists.txt")).read()
# A layer is a folder (mlgo's two are folders of mlgo/: mlgo/pipelines, mlgo/studies) whose
# library is wb_<folder, its slashes as underscores>.
order = re.findall(r"^add_subdirectory\(([\w/]+)\)", top, re.M)
lib = lambda d: "wb_" + d.replace("/", "_")
libraries = [d for d in order if os.path.exists(os.path.join(root, d, "CMakeLists.txt"))
             and re.search(rf"add_library\({lib(d)}\b", open(os.path.join(root, d, "CMakeLists.txt")).read())]
res.check("the layers are the libraries of the top-level CMakeLists.txt, in order",
          libraries[:3] == ["support", "learn", "corpus"]
          and libraries.index("mlgo/pipelines") + 1 == libraries.index("mlgo/studies"), libraries)
rank = {d: i for i, d in enumerate(libraries)}
rank["tools"] = len(libraries)
rank["python"] = len(libraries)  # the Python module: a program, like tools/
rank["plugin"] = len(libraries)  # the compiler's inliner plugin: a program, like tools/
rank_of_lib = {lib(d): r for d, r in rank.items()}


def layer_of(path):
    """The layer a path (a file, or an include's folder part) is in: its deepest layer folder."""
    parts = path.split("/")
    for k in range(len(parts), 0, -1):
        if "/".join(parts[:k]) in rank:
            return "/".join(parts[:k])
    return None


res.check("every file of mlgo/ is in one of its two layers",
          all(layer_of(os.path.relpath(f, root)) in ("mlgo/pipelines", "mlgo/studies")
              for f in glob.glob(os.path.join(root, "mlgo", "**", "*.*"), recursive=True)
              if not f.endswith("CMakeLists.txt")),
          sorted(glob.glob(os.path.join(root, "mlgo", "*.*"))))

# Includes go down only (or stay in the folder).
edges = 0
for d in list(rank):
    for f in glob.glob(os.path.join(root, d, "**", "*"), recursive=True):
        if not re.search(r"\.(h|cpp|in)$", f) or layer_of(os.path.relpath(f, root)) != d:
            continue
        for n, line in enumerate(open(f, errors="replace"), 1):
            m = re.match(r'#include "([\w/]+)/\w+\.\w+"', line)
            target = layer_of(m.group(1)) if m else None
            if target:
                edges += 1
                res.check(f"{os.path.relpath(f, root)}:{n}: includes no higher layer",
                          rank[target] <= rank[d], line.strip())
res.check("includes between layers were found (the check looked at something)", edges > 50, edges)
res.check("mlgo/studies includes mlgo/pipelines (the check sees the two layers)",
          any('#include "mlgo/pipelines/' in open(f).read()
              for f in glob.glob(os.path.join(root, "mlgo", "studies", "*.h"))))

# Libraries link down only.
for d in libraries:
    text = open(os.path.join(root, d, "CMakeLists.txt")).read()
    links = re.findall(r"target_link_libraries\(wb_\w+\s+(?:PUBLIC|PRIVATE|INTERFACE)([^)]*)\)", text)
    deps = [x for l in links for x in re.findall(r"\bwb_\w+", l)]
    for dep in deps:
        if dep in rank_of_lib:
            res.check(f"{lib(d)} links {dep}, a lower layer", rank_of_lib[dep] < rank[d], deps)

# What the programs link and load.
link = os.path.join(build, "bench", "CMakeFiles", "parse_only.dir", "link.txt")
if res.check("bench/parse_only's link line exists", os.path.exists(link)):
    archives = [os.path.normpath(os.path.join(build, "bench", a))
                for a in re.findall(r"(\S*libwb_\w+\.a)", open(link).read())]
    mlgo_sources = {os.path.basename(f) + ".o" for d in ("features", "runners", "mlgo/pipelines", "mlgo/studies")
                    for f in glob.glob(os.path.join(root, d, "*.cpp"))}
    members = [m for a in archives
               for m in subprocess.run(["ar", "t", a], capture_output=True, text=True).stdout.split()]
    res.check("bench/parse_only links libraries", len(archives) > 0 and len(members) > 0, archives)
    found = sorted(set(members) & mlgo_sources)
    res.check("bench/parse_only links no MLGO code", not found, found)
for program, loads in (("ir2vec", False), ("ir2vec-full", True)):
    libs = subprocess.run(["ldd", os.path.join(build, "bin", program)], capture_output=True, text=True).stdout
    for lib in ("libLLVM", "libhdf5", "libarmadillo"):
        res.check(f"{program} {'loads' if loads else 'does not load'} {lib}", (lib in libs) == loads, libs)
sys.exit(res.summary())
