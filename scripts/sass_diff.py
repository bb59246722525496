#!/usr/bin/env python3
"""Compare two PTX files' SASS kernel by kernel: each entry assembled alone with the Triton
wheel's ptxas for sm_90a (`-v --regAllocOptLevel=2`, as scripts/gemm_sass.py), disassembled with
cuobjdump, and its opcodes counted (NOP padding left out) beside its registers.

    python3 scripts/sass_diff.py before.ptx after.ptx [ENTRY_REGEX]

Prints each entry whose counts or registers differ (total before -> after, registers, the
opcodes that moved), then how many are the same. The PTX of an older commit: `git worktree add
/tmp/old COMMIT && (cd /tmp/old && cargo xtask ptx)`, then /tmp/old/target/ptx/kernels.ptx.
"""
import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm_sass import ptxas, sass  # noqa: E402


def counts(path, names):
    text = open(path).read()
    out = {}
    for e in names:
        cubin, info = ptxas(text, "sm_90a", e)
        ops = Counter(op for _, op, _, _ in sass(cubin, e) if op != "NOP")
        out[e] = (ops, info["regs"])
    return out


def main():
    before, after = sys.argv[1], sys.argv[2]
    pick = re.compile(sys.argv[3] if len(sys.argv) > 3 else ".")
    names = [n for n in re.findall(r"\.visible\s+\.entry\s+(\w+)", open(after).read()) if pick.search(n)]
    old = set(re.findall(r"\.visible\s+\.entry\s+(\w+)", open(before).read()))
    names = [n for n in names if n in old]
    a, b = counts(before, names), counts(after, names)
    same = 0
    for n in names:
        (x, ra), (y, rb) = a[n], b[n]
        if x == y and ra == rb:
            same += 1
            continue
        moved = {o: y[o] - x[o] for o in sorted(set(x) | set(y)) if x[o] != y[o]}
        print(f"{n}: {sum(x.values())} -> {sum(y.values())}, registers {ra} -> {rb}, {moved}")
    print(f"the same: {same} of {len(names)}")


if __name__ == "__main__":
    main()
