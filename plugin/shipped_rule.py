#!/usr/bin/python3
"""Writes the shipped size policy's rule (the `rule` attribute of its model file, kind `rule`)
into a C++ source, so that libir2vec-inline.so decides by it without loading HDF5.

    shipped_rule.py MODEL.h5 OUT.cpp
"""
import sys

import h5py

model, out = sys.argv[1], sys.argv[2]
with h5py.File(model, "r") as f:
    kind = f.attrs.get("kind")
    rule = f.attrs.get("rule")
if kind != "rule" or not rule or ")json" in rule:
    sys.exit(f"{model}: expected a model of kind rule with a rule attribute")
open(out, "w").write(
    f"// Generated from {model} by plugin/shipped_rule.py: the shipped size policy's rule.\n"
    "namespace wb::plugin {\n"
    f"extern const char ShippedSizeRule[] = R\"json({rule})json\";\n"
    "} // namespace wb::plugin\n")
