#!/usr/bin/env python3
"""Compare two PTX files kernel by kernel: each kernel's instruction multiset (opcodes with
their type suffixes, predicates dropped; registers and order ignored).

    python3 scripts/ptx_diff.py before.ptx after.ptx

Prints each kernel whose multiset differs (its instruction counts and the opcodes that moved),
then how many kernels differ. Exits 1 if any does.
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


def main():
    a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
    n = 0
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k, collections.Counter()), b.get(k, collections.Counter())
        if x != y:
            n += 1
            d = {o: y[o] - x[o] for o in set(x) | set(y) if y[o] != x[o]}
            print(f"{k}: {sum(x.values())} -> {sum(y.values())}  {dict(sorted(d.items()))}")
    print(f"{n} of {len(set(a) | set(b))} kernels differ")
    sys.exit(1 if n else 0)


if __name__ == '__main__':
    main()
