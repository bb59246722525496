#!/usr/bin/env python3
"""Compare two PTX files kernel by kernel: each kernel's instruction multiset (opcodes with
their type suffixes, predicates dropped; registers and order ignored).

    python3 scripts/ptx_diff.py before.ptx after.ptx [--summary] [--classes]

Prints each kernel whose multiset differs (its instruction counts and the opcodes that moved),
then how many kernels differ. Exits 1 if any does. `--summary` then sorts the kernels into the
same, fewer in every kind, no more in all (some kind grown), and more in all, naming the last
two groups' kernels and the kinds that grew. `--classes` counts coarser kinds: what an
instruction does (a global load, a shared store, a shuffle, a barrier, a conversion, integer or
float arithmetic, a compare, a move, a branch, ...) whatever its width or type, so that two
`cvt.rn.f16.f32` becoming one `cvt.rn.f16x2.f32`, or a 64-bit add a 32-bit one, is no growth.
"""
import collections
import re
import sys


def kernels(path):
    out, name, depth, ops = {}, None, 0, None
    for line in open(path):
        t = line.strip()
        if depth == 0:
            m = re.search(r'\.(entry|func)\s+(?:\([^)]*\)\s*)?(\w+)', t)
            if m:
                name = m.group(2)
            if t == '{' and name:
                depth, ops = 1, collections.Counter()
            continue
        if t == '{':
            depth += 1
        elif t == '}':
            depth -= 1
            if depth == 0:
                out[name], name = ops, None
        elif t.endswith(';') and not t.startswith('.') and not t.startswith('//'):
            t = re.sub(r'^@!?%\w+\s+', '', t)
            ops[t.split()[0].rstrip(';')] += 1
    return out


FLOAT_TYPES = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"}


def op_class(op):
    """The class of an opcode (`ld.global.v4.b32` -> `ld.global`): see `--classes`."""
    p = op.split(".")
    head = p[0]
    if head in ("ld", "st", "ldu", "red", "atom", "prefetch"):
        space = next((s for s in ("global", "shared", "local", "param", "const") if s in p), "generic")
        return f"{head}.{space}"
    if head in ("ldmatrix", "stmatrix", "cp", "cvta", "mma", "wgmma", "tcgen05"):
        return head
    if head in ("bar", "barrier", "fence", "membar", "mbarrier", "elect"):
        return "sync"
    if head in ("shfl", "vote", "redux", "match", "activemask"):
        return "warp"
    if head in ("setp", "selp", "set", "slct"):
        return "compare"
    if head in ("bra", "brx", "ret", "exit", "call", "trap"):
        return "control"
    if head in ("cvt", "mov"):
        return head
    return "float" if FLOAT_TYPES & set(p[1:]) else "int"


def by_class(ops):
    out = collections.Counter()
    for o, n in ops.items():
        out[op_class(o)] += n
    return out


def summary(groups):
    """The four groups' sizes, and the kernels of the two that grew somewhere."""
    print(", ".join(f"{len(v)} {k}" for k, v in groups.items()))
    for k in ("no more in all", "more in all"):
        for name, x, y, grown in groups[k]:
            print(f"  {k}: {name} {x} -> {y}, grown: {', '.join(grown)}")


def main():
    args = [a for a in sys.argv[1:] if a not in ("--summary", "--classes")]
    a, b = kernels(args[0]), kernels(args[1])
    if "--classes" in sys.argv:
        a = {k: by_class(v) for k, v in a.items()}
        b = {k: by_class(v) for k, v in b.items()}
    groups = {"the same": [], "fewer in every kind": [], "no more in all": [], "more in all": []}
    n = 0
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k, collections.Counter()), b.get(k, collections.Counter())
        tx, ty = sum(x.values()), sum(y.values())
        grown = sorted(o for o in y if y[o] > x[o])
        if x == y:
            groups["the same"].append(k)
            continue
        n += 1
        d = {o: y[o] - x[o] for o in set(x) | set(y) if y[o] != x[o]}
        print(f"{k}: {tx} -> {ty}  {dict(sorted(d.items()))}")
        group = "more in all" if ty > tx else "no more in all" if grown else "fewer in every kind"
        groups[group].append(k if group == "fewer in every kind" else (k, tx, ty, grown))
    print(f"{n} of {len(set(a) | set(b))} kernels differ")
    if "--summary" in sys.argv:
        summary(groups)
    sys.exit(1 if n else 0)


if __name__ == '__main__':
    main()
