#!/usr/bin/env python3
"""CuTe's own layout algebra (pycute, from `pip install nvidia-cutlass`) on random power-of-two
layouts: the fixture layout-core/tests/cute_differential.rs reads CuTe's text with, checks our
linear layout against CuTe's mapping, and round-trips through our CuTe printer.

    pip install nvidia-cutlass
    python3 scripts/cute_layouts.py --count 600 > fixtures/cute-layouts.jsonl

Each line: `kind` (shared: coordinates -> offset, optionally under a swizzle; tv: (thread, value)
-> colexicographic index into `tile`), `text` (pycute's print), `linear` (whether CuTe's sum is
an XOR for every input: non-linear ones must be refused), for tv `covers` (whether every element
of the tile is reached: a distributed layout must, the others are refused too), and `points`: [index, value] for every
power-of-two index and 40 random ones (index = colexicographic over the whole domain, as
pycute's one-argument call reads it).
"""
import argparse
import json
import random

from pycute import Layout
from pycute.swizzle import ComposedLayout, Swizzle


def split(bits, rng):
    """Split a run of `bits` coordinate bits into random leaves (nested modes)."""
    out = []
    while bits:
        k = rng.randint(1, bits)
        out.append(k)
        bits -= k
    return out


def shared_case(rng, linear):
    rank = rng.choice([1, 2, 2, 3])
    dim_bits = [rng.randint(0, 4) for _ in range(rank)]
    n = sum(dim_bits)
    if n == 0:
        dim_bits[0], n = 1, 1
    perm = list(range(n))
    rng.shuffle(perm)
    shape, stride, k = [], [], 0
    for d in range(rank):
        leaves_s, leaves_d = [], []
        for size in split(dim_bits[d], rng) or [0]:
            if size == 0:
                leaves_s.append(1); leaves_d.append(0)
                continue
            # A leaf of `size` bits is linear only if its strides double: take a run of offset
            # bits starting where this leaf's first bit lands, unless the permutation breaks it.
            start = perm[k]
            if all(perm[k + j] == start + j for j in range(size)):
                leaves_s.append(1 << size); leaves_d.append(1 << start)
            else:
                for j in range(size):
                    leaves_s.append(2); leaves_d.append(1 << perm[k + j])
            k += size
        shape.append(tuple(leaves_s) if len(leaves_s) > 1 else leaves_s[0])
        stride.append(tuple(leaves_d) if len(leaves_d) > 1 else leaves_d[0])
    if not linear:
        # Two modes reaching one bit: CuTe adds, with carries.
        d = rng.randrange(rank)
        shape[d], stride[d] = (2, 2), (1, 1)
    lay = Layout(tuple(shape), tuple(stride))
    sw = None
    if rng.random() < 0.5 and n >= 3:
        b = rng.randint(1, min(3, n // 2))
        m = rng.randint(0, n - 2 * b)
        s = rng.randint(b, n - b - m)
        sw = Swizzle(b, m, s)
        lay = ComposedLayout(sw, 0, lay)
    return lay


def tv_case(rng, linear):
    tile_bits = [rng.randint(1, 5) for _ in range(rng.choice([1, 2, 2, 3]))]
    total = sum(tile_bits)
    threads = 5 + rng.randint(0, 2)
    bits = list(range(total))
    rng.shuffle(bits)
    if rng.random() < 0.7:
        # Covering the tile, as a distributed layout must: every index bit an input's, the
        # threads' first, the rest the values'; some broadcasts (stride 0) among them.
        t_img = [(1 << bits.pop()) if bits and rng.random() < 0.9 else 0 for _ in range(threads)]
        v_img = [1 << b for b in bits]
        if rng.random() < 0.3:
            v_img.insert(rng.randrange(len(v_img) + 1), 0)
    else:
        # Anything: an index bit of its own, a broadcast, or (rarely) two index bits.
        t_img, v_img = [], []
        for k in range(threads + rng.randint(0, 4)):
            if bits and rng.random() < 0.8:
                x = 1 << bits.pop()
            elif len(bits) >= 2 and rng.random() < 0.5:
                x = (1 << bits.pop()) | (1 << bits.pop())
            else:
                x = 0
            (t_img if k < threads else v_img).append(x)
    imgs = t_img + v_img
    if not linear:
        taken = [i for i in imgs if i]
        if len(taken) < 2:
            return None
        a, b = taken[0], taken[1]
        imgs[imgs.index(b)] = a | b  # two inputs reach a's bit: CuTe's sum carries
    t_img, v_img = imgs[:threads], imgs[threads:]
    mode = lambda xs: (tuple([2] * len(xs)), tuple(xs)) if len(xs) > 1 else ((2, xs[0]) if xs else (1, 0))
    ts, td = mode(t_img)
    vs, vd = mode(v_img)
    return Layout((ts, vs), (td, vd)), [1 << b for b in tile_bits]


def is_linear(lay, size):
    bits = [lay(1 << k) for k in range(size.bit_length() - 1)]
    for i in range(size):
        x = 0
        for k, b in enumerate(bits):
            if i >> k & 1:
                x ^= b
        if lay(i) != x:
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--seed", type=int, default=20261126)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    n = 0
    while n < a.count:
        linear = rng.random() < 0.9
        if rng.random() < 0.55:
            kind, lay, tile = "shared", shared_case(rng, linear), None
        else:
            r = tv_case(rng, linear)
            if r is None:
                continue
            kind, (lay, tile) = "tv", r
        size = lay.size()
        idx = sorted({1 << k for k in range(size.bit_length() - 1)} | {rng.randrange(size) for _ in range(40)})
        text = str(lay)
        rec = {"kind": kind, "text": text if kind == "shared" else "tv(%s)" % text,
               "linear": is_linear(lay, size), "points": [[i, lay(i)] for i in idx]}
        if tile:
            rec["tile"] = tile
            # Whether (thread, value) reaches every element of the tile.
            elems = 1
            for t in tile:
                elems *= t
            rec["covers"] = len({lay(i) for i in range(size)} & set(range(elems))) == elems
        print(json.dumps(rec, separators=(",", ":")))
        n += 1


if __name__ == "__main__":
    main()
