#!/usr/bin/env python3
"""Writes demo-vocab-12d.json: a hand-designed, *untrained* vocabulary for demonstrations.

Each of its 12 dimensions means one thing, so an embedding reads as a histogram:
   0 control flow   1 integer/bit arithmetic   2 floating point   3 memory   4 conversion
   5 call/phi/select/compare/other              (opcode, weight 1.0)
   6 integer result 7 floating-point result    8 pointer result   9 vector/aggregate result
                                                (type, weight 0.5)
  10 constant operand  11 non-constant operand (argument kinds and predicates, weight 0.2)
It is not LLVM's vocabulary and carries no learned similarity; it only shows the machinery.
The entity names come from `ir2vec entities`.
"""
import json, subprocess, sys

CATEGORY = {
    0: "Ret Br Switch IndirectBr Invoke Resume Unreachable CleanupRet CatchRet CatchSwitch CallBr",
    1: "Add Sub Mul UDiv SDiv URem SRem Shl LShr AShr And Or Xor",
    2: "FNeg FAdd FSub FMul FDiv FRem",
    3: "Alloca Load Store GetElementPtr Fence AtomicCmpXchg AtomicRMW",
    4: "Trunc ZExt SExt FPToUI FPToSI UIToFP SIToFP FPTrunc FPExt PtrToInt PtrToAddr IntToPtr "
       "BitCast AddrSpaceCast",
}
TYPES = {"IntegerTy": 6, "FloatTy": 7, "PointerTy": 8, "VectorTy": 9, "StructTy": 9, "ArrayTy": 9}

def main(ir2vec, out):
    lines = subprocess.run([ir2vec, "entities"], check=True, capture_output=True, text=True).stdout
    names = [l.split("\t")[0] for l in lines.splitlines()[1:]]
    opcode_dim = {n: d for d, ns in CATEGORY.items() for n in ns.split()}
    vocab = {"Opcodes": {}, "Types": {}, "Arguments": {}}
    for i, name in enumerate(names):
        v = [0.0] * 12
        if i < 68:
            v[opcode_dim.get(name, 5)] = 1.0
            vocab["Opcodes"][name] = v
        elif i < 80:
            if name in TYPES:
                v[TYPES[name]] = 1.0
            vocab["Types"][name] = v
        else:
            v[10 if name == "Constant" else 11] = 1.0 if i < 84 else 0.0
            vocab["Arguments"][name] = v
    with open(out, "w") as f:
        json.dump(vocab, f, indent=1)
        f.write("\n")

if __name__ == "__main__":
    main(*sys.argv[1:3])
