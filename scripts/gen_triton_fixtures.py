#!/usr/bin/env python3
"""Generate the differential fixture: random valid layouts of every encoding, with Triton's answer.

For each case this builds the layout attribute with Triton's own builders, lets Triton print it as
TTGIR (alias lines plus the tensor or memdesc type), and asks Triton for its linear layout
(`GluonOpBuilder.to_linear_layout`). Triton aborts the process on some invalid layouts, so cases
run in a child process that is restarted past any case that kills it; such cases are dropped.

Usage: python3 scripts/gen_triton_fixtures.py [--count N] [--seed S] [--out FILE]
Needs `pip install triton==3.9.0`. The output is committed as fixtures/triton-3.9.0-layouts.jsonl.
With `--shapes --count 150 --out fixtures/triton-3.9.0-shape-cases.jsonl`: the instruction shapes
the random encodings leave out (32x16 WMMA v3, Hopper dot operands with N not a power of two).
"""
import argparse
import json
import random
import re
import subprocess
import sys

POW2 = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def split_bits(total_log2, rank, rng):
    """Distribute 2**total_log2 over `rank` dims as powers of two."""
    out = [1] * rank
    for _ in range(total_log2):
        out[rng.randrange(rank)] *= 2
    return out


def rand_order(rank, rng):
    o = list(range(rank))
    rng.shuffle(o)
    return o


def rand_cga(rank, rng, max_bits=2):
    """Block bases: each bit either splits a dim (unit vector) or broadcasts (zero)."""
    if rng.random() < 0.6:
        return []
    bases, count = [], [0] * rank
    for _ in range(rng.randint(1, max_bits)):
        if rng.random() < 0.25 and bases:
            bases.append([0] * rank)
        else:
            d = rng.randrange(rank)
            b = [0] * rank
            b[d] = 1 << count[d]
            count[d] += 1
            bases.append(b)
    return bases


def rand_shape(rank, rng, lo=0, hi=8, max_total=14):
    while True:
        s = [1 << rng.randint(lo, hi) for _ in range(rank)]
        if sum(x.bit_length() - 1 for x in s) <= max_total:
            return s


def blocked_spec(rng, rank=None):
    rank = rank or rng.choice([1, 2, 2, 2, 3, 3, 4])
    return {"kind": "blocked", "spt": [rng.choice([1, 1, 2, 4, 8]) for _ in range(rank)],
            "tpw": split_bits(5, rank, rng), "wpc": split_bits(rng.randint(0, 3), rank, rng),
            "order": rand_order(rank, rng), "cga": rand_cga(rank, rng)}


def mma_spec(rng, rank=None, v3=None):
    v3 = rng.random() < 0.4 if v3 is None else v3
    if v3:
        w = [4 * rng.choice([1, 2]), rng.choice([1, 2])]
        return {"kind": "mma", "version": [3, 0], "warps": w, "cga": rand_cga(2, rng, 1),
                "instr": [16, rng.choice([8, 16, 32, 64, 128, 256]), 16]}
    rank = rank or rng.choice([2, 2, 3])
    return {"kind": "mma", "version": [2, 0], "warps": split_bits(rng.randint(0, 3), rank, rng),
            "cga": rand_cga(rank, rng, 1), "instr": [16, 8] if rank == 2 else [1, 16, 8]}


def mfma_spec(rng, rank=None):
    rank = rank or rng.choice([2, 2, 3])
    m, n = rng.choice([(32, 32), (16, 16), (64, 4), (4, 64)])
    k = {32: 8, 16: 16, 64: 4, 4: 4}[m]
    transposed = True if (m, n) == (64, 4) else rng.random() < 0.5
    return {"kind": "mfma", "version": rng.randint(1, 4), "warps": split_bits(rng.randint(0, 3), rank, rng),
            "instr": [m, n, k], "transposed": transposed, "cga": rand_cga(rank, rng, 1),
            "tiles": [rng.choice([1, 1, 2]) for _ in range(rank)], "ebw": rng.choice([32, 32, 64])}


def wmma_spec(rng, rank=None):
    rank = rank or rng.choice([2, 2, 3])
    version = rng.randint(1, 3)
    instr = {1: [[16, 16, 16]], 2: [[16, 16, 16], [16, 16, 32]], 3: [[16, 16, 32], [16, 16, 64]]}[version]
    warps = split_bits(rng.randint(0, 3), rank, rng)
    tiles = [rng.choice([1, 1, 2]) for _ in range(rank)]
    # chooseWmmaCTALinearLayout, written out as bases.
    reg, warp, cnt = [], [], [0] * rank
    for d in reversed(range(rank)):
        for _ in range(tiles[d].bit_length() - 1):
            b = [0] * rank; b[d] = 1 << cnt[d]; cnt[d] += 1; reg.append(b)
        for _ in range(warps[d].bit_length() - 1):
            b = [0] * rank; b[d] = 1 << cnt[d]; cnt[d] += 1; warp.append(b)
    if rng.random() < 0.2 and warp:
        warp[0] = [0] * rank  # broadcast a warp
    if not reg and not warp:
        warp = [[0] * rank]
    return {"kind": "wmma", "version": version, "transposed": rng.random() < 0.5, "reg": reg, "warp": warp,
            "cga": rand_cga(rank, rng, 1), "instr": rng.choice(instr), "rank": rank}


def distributed_spec(rng, depth=0):
    r = rng.random()
    if r < 0.30:
        return blocked_spec(rng)
    if r < 0.45:
        return mma_spec(rng)
    if r < 0.55:
        return mfma_spec(rng)
    if r < 0.63:
        return wmma_spec(rng)
    if r < 0.80 and depth < 2:
        p = distributed_spec(rng, depth + 1)
        return {"kind": "slice", "dim": rng.randrange(spec_rank(p)), "parent": p} if spec_rank(p) >= 2 else p
    if r < 0.93:
        return dot_spec(rng)
    return linear_spec(rng)


def dot_spec(rng):
    which = rng.choice(["mma", "mma", "blocked", "mfma", "wmma"])
    if which == "mma":
        p = mma_spec(rng)
        op = 0 if p["version"][0] == 3 else rng.randint(0, 1)
        return {"kind": "dot", "op": op, "parent": p, "kw": rng.choice([1, 2, 4, 8])}
    if which == "blocked":
        return {"kind": "dot", "op": rng.randint(0, 1), "parent": blocked_spec(rng, rng.choice([2, 3])), "kw": 0}
    if which == "mfma":
        return {"kind": "dot", "op": rng.randint(0, 1), "parent": mfma_spec(rng), "kw": rng.choice([4, 8, 16])}
    return {"kind": "dot", "op": rng.randint(0, 1), "parent": wmma_spec(rng), "kw": rng.choice([4, 8, 16])}


def linear_spec(rng):
    rank = rng.choice([1, 2, 3])
    shape = rand_shape(rank, rng, 0, 6, 10)
    bits = [(d, i) for d in range(rank) for i in range(shape[d].bit_length() - 1)]
    rng.shuffle(bits)
    dims = {"register": [], "lane": [], "warp": [], "block": []}
    names = ["register", "lane", "warp", "block"]
    for d, i in bits:
        b = [0] * rank
        b[d] = 1 << i
        # Mix in lower-order bits now and then (a swizzle), keeping the map surjective.
        if rng.random() < 0.2:
            d2 = rng.randrange(rank)
            if d2 != d and shape[d2] > 1:
                b[d2] = 1 << rng.randrange(shape[d2].bit_length() - 1)
        dims[rng.choice(names)].append(b)
    for n in names:
        if rng.random() < 0.15:
            dims[n].insert(rng.randrange(len(dims[n]) + 1), [0] * rank)
    return {"kind": "linear", "bases": dims, "rank": rank}


def spec_rank(s):
    k = s["kind"]
    if k == "blocked":
        return len(s["order"])
    if k == "mma":
        return len(s["warps"])
    if k in ("mfma",):
        return len(s["warps"])
    if k == "wmma":
        return s["rank"]
    if k == "slice":
        return spec_rank(s["parent"]) - 1
    if k == "dot":
        return spec_rank(s["parent"])
    if k in ("linear", "nvmma", "shared_linear"):
        return s["rank"]
    if k == "partitioned":
        return spec_rank(s["inner"])
    if k in ("swizzled", "rotating"):
        return len(s["order"])
    return len(s["shape"])


def shared_spec(rng):
    r = rng.random()
    if r < 0.45:
        rank = rng.choice([1, 2, 2, 3])
        # About one in three is AMD's rotating variant (same parameters, a rotated phase).
        kind = "rotating" if rng.random() < 0.35 else "swizzled"
        return {"kind": kind, "vec": rng.choice([1, 2, 4, 8]), "pp": rng.choice([1, 2, 4, 8]),
                "mp": rng.choice([1, 2, 4, 8]), "order": rand_order(rank, rng), "cga": rand_cga(rank, rng, 1)}
    if r < 0.85:
        rank = rng.choice([2, 2, 3, 3, 4])
        ebw = rng.choice([8, 16, 32])
        sw = rng.choice([0, 32, 64, 128])
        transposed = rng.random() < 0.5
        return {"kind": "nvmma", "sw": sw, "ebw": ebw, "transposed": transposed,
                "fp4": ebw == 8 and rng.random() < 0.2, "cga": rand_cga(rank, rng, 1), "rank": rank}
    if r < 0.93:
        rank = rng.choice([1, 2, 3])
        shape = rand_shape(rank, rng, 0, 5, 8)
        bits = [(d, i) for d in range(rank) for i in range(shape[d].bit_length() - 1)]
        rng.shuffle(bits)
        off = []
        for d, i in bits:
            b = [0] * rank
            b[d] = 1 << i
            off.append(b)
        return {"kind": "shared_linear", "offset": off, "block": [], "align": rng.choice([16, 128]), "rank": rank}
    rank = rng.choice([1, 2])
    shape = rand_shape(rank, rng, 1, 6, 10)
    order = rand_order(rank, rng)
    off, cnt = [], [0] * rank
    for d in order:
        for _ in range(shape[d].bit_length() - 1):
            b = [0] * rank; b[d] = 1 << cnt[d]; cnt[d] += 1; off.append(b)
    if rng.random() < 0.5 and len(off) >= 2:
        i, j = rng.sample(range(len(off)), 2)
        off[i], off[j] = off[j], off[i]
    n = rng.randint(1, 2)
    return {"kind": "padded", "intervals": sorted(rng.sample([8, 16, 32, 64, 128], n)),
            "paddings": [rng.choice([1, 2, 4, 8]) for _ in range(n)], "offset": off, "shape": shape}


def build(b, s):
    k = s["kind"]
    if k == "blocked":
        return b.get_blocked_layout(s["spt"], s["tpw"], s["wpc"], s["order"], s["cga"])
    if k == "mma":
        return b.get_mma_layout(s["version"], s["warps"], s["cga"], s["instr"])
    if k == "mfma":
        return b.get_amd_mfma_layout(s["version"], s["warps"], s["instr"], s["transposed"], s["cga"], s["tiles"], s["ebw"])
    if k == "wmma":
        return b.get_amd_wmma_layout(s["version"], s["transposed"], s["reg"], s["warp"], s["cga"], s["instr"], s["rank"])
    if k == "slice":
        return b.get_slice_layout(s["dim"], build(b, s["parent"]))
    if k == "dot":
        return b.get_dot_operand_layout(s["op"], build(b, s["parent"]), s["kw"])
    if k == "linear":
        d = s["bases"]
        return b.get_distributed_linear_layout(d["register"], d["lane"], d["warp"], d["block"], s["shape"])
    if k in ("swizzled", "rotating"):
        # Triton 3.9's Python has no builder for amd_rotating_shared: build the swizzled twin
        # and rename it in the printed text (the two share their parameters and syntax).
        return b.get_swizzled_shared_layout(s["vec"], s["pp"], s["mp"], s["order"], s["cga"])
    if k == "nvmma":
        return b.get_nvmma_shared_layout(s["sw"], s["ebw"], s["transposed"], s["fp4"], s["cga"], s["rank"])
    if k == "shared_linear":
        return b.get_shared_linear_layout(s["offset"], s["block"], s["align"])
    if k == "partitioned":
        return b.get_partitioned_shared_layout(s["parts"], s["groups"], s["dim"], build(b, s["inner"]))
    if k == "padded":
        return b.get_padded_shared_layout(s["intervals"], s["paddings"], s["offset"], [], s["shape"])
    raise ValueError(k)


def linear_shape(s):
    bases = s["bases"] if s["kind"] == "linear" else {"offset": s["offset"]}
    size = [1] * s["rank"] if "rank" in s else [1] * len(s["shape"])
    for v in bases.values():
        for b in v:
            for i, x in enumerate(b):
                size[i] = max(size[i], 1 << x.bit_length())
    return size


def make_case(rng, i):
    shared = rng.random() < 0.3
    s = shared_spec(rng) if shared else distributed_spec(rng)
    k = s["kind"]
    if k == "linear":
        s["shape"] = linear_shape(s)
        shape = [x * rng.choice([1, 1, 2]) // rng.choice([1, 1, 2]) or 1 for x in s["shape"]]
    elif k == "shared_linear":
        shape = linear_shape(s)
    elif k == "padded":
        shape = s["shape"]
    elif k == "nvmma":
        shape = rand_shape(s["rank"], rng, 3, 8, 14)
    else:
        shape = rand_shape(spec_rank(s), rng, 0, 8, 14)
    return {"id": i, "spec": s, "shape": shape, "shared": shared, "elem": rng.choice(["f16", "f32", "i8", "bf16"])}


def shape_case(rng, i):
    """The instruction shapes the main fixture leaves out: gfx1250's 32x16 WMMA v3 (its
    accumulator, dot operands and slices) and Hopper's N that is not a power of two (for dot
    operands only: Triton aborts on such an accumulator)."""
    if rng.random() < 0.7:
        p = wmma_spec(rng)
        p["version"], p["instr"] = 3, rng.choice([[32, 16, 64], [32, 16, 128]])
        r = rng.random()
        if r < 0.35:
            s = p
        elif r < 0.8:
            s = {"kind": "dot", "op": rng.randint(0, 1), "parent": p, "kw": rng.choice([4, 8, 16])}
        else:
            s = {"kind": "slice", "dim": rng.randrange(p["rank"]), "parent": p}
    else:
        p = mma_spec(rng, v3=True)
        p["instr"][1] = rng.choice([n for n in range(8, 257, 8) if n & (n - 1)])
        s = {"kind": "dot", "op": 0, "parent": p, "kw": rng.choice([1, 2, 4, 8])}
    shape = rand_shape(spec_rank(s), rng, 0, 8, 14)
    return {"id": i, "spec": s, "shape": shape, "shared": False, "elem": rng.choice(["f16", "f32", "bf16"])}


def partitioned_case(rng, i):
    """gfx1250's partitioned_shared over a swizzled, nvmma or linear piece layout."""
    while True:
        inner = shared_spec(rng)
        if inner["kind"] in ("swizzled", "nvmma", "shared_linear"):
            break
    rank = spec_rank(inner)
    lo = 3 if inner["kind"] == "nvmma" else 0
    piece = linear_shape(inner) if inner["kind"] == "shared_linear" else rand_shape(rank, rng, lo, 6, max(10, lo * rank + 2))
    parts, groups = rng.choice([2, 4]), rng.choice([1, 2, 4])
    d = rng.randrange(rank)
    shape = list(piece)
    shape[d] *= parts * groups
    s = {"kind": "partitioned", "parts": parts, "groups": groups, "dim": d, "inner": inner}
    return {"id": i, "spec": s, "shape": shape, "shared": True, "elem": rng.choice(["f16", "f32", "bf16"])}


def rotating_layout(b, ctx, aliases, memdesc, spec, shape):
    """Triton's linear layout of an amd_rotating_shared memdesc, without a Python builder.

    Parse a module that allocates the memdesc, then ask Triton to reshape it to its own shape:
    memdesc_reshape's type inference goes through Triton's toLinearLayout and returns the layout
    as a shared_linear encoding, which Gluon hands back as offset and block bases."""
    import os
    import tempfile
    from triton._C.libtriton import ir
    ctas = 1 << len(spec["cga"])
    text = "\n".join(aliases) + """
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = %d : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32, ttg.target = "hip:gfx942"} {
  tt.func public @k() {
    %%0 = ttg.local_alloc : () -> %s
    tt.return
  }
}
""" % (ctas, memdesc)
    fd, path = tempfile.mkstemp(suffix=".mlir")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    try:
        m = ir.parse_mlir_module(path, ctx)
    finally:
        os.unlink(path)
    allocs = []
    m.walk(lambda op: allocs.append(op) if op.get_name() == "ttg.local_alloc" else None)
    b.set_insertion_point_after(allocs[0])
    v = allocs[0].get_result(0)
    return b.get_gluon_layout_from_memdesc(b.create_memdesc_reshape(v, shape))


def worker():
    from triton._C.libtriton import gluon_ir, ir
    ctx = ir.context()
    ir.load_dialects(ctx)
    b = gluon_ir.GluonOpBuilder(ctx)
    tys = {"f16": b.get_half_ty(), "f32": b.get_float_ty(), "i8": b.get_int8_ty(), "bf16": b.get_bf16_ty()}
    for line in sys.stdin:
        c = json.loads(line)
        print(json.dumps({"id": c["id"], "start": True}), flush=True)
        s, shape = c["spec"], c["shape"]
        attr = build(b, s)
        if c["shared"]:
            ty = b.get_shared_mem_desc_ty(tys[c["elem"]], shape, attr, shape)
        else:
            ty = b.get_distributed_ty(tys[c["elem"]], shape, attr)
        m = b.create_module()
        f = b.get_or_insert_function(m, "f", b.get_function_ty([ty], []), "public", False)
        m.push_back(f)
        text = m.str_nodebug()
        aliases = [l for l in text.splitlines() if re.match(r"^#\w+ = ", l) and "shared_memory" not in l]
        sig = re.search(r"function_type = \((.*)\) -> \(\)", text).group(1)
        if s["kind"] == "rotating":
            aliases = [a.replace("#ttg.swizzled_shared<", "#ttg.amd_rotating_shared<") for a in aliases]
        if s["kind"] == "padded":
            # Triton has no linear layout for padded_shared (toLinearLayout aborts: "use
            # paddedLinearLayout"); its linear component is the one given in the attribute.
            bases = {"offset": s["offset"], "block": []}
            outs = [["dim%d" % i, x] for i, x in enumerate(linear_shape(s))]
        else:
            ll = rotating_layout(b, ctx, aliases, sig, s, shape) if s["kind"] == "rotating" \
                else b.to_linear_layout(attr, shape)
            if c["shared"]:
                bases = {"offset": ll.offset_bases, "block": ll.block_bases}
            else:
                bases = {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases, "block": ll.block_bases}
            outs = [["dim%d" % i, x] for i, x in enumerate(ll.shape)]
        rec = {"id": c["id"], "encoding": s["kind"], "aliases": aliases, "tensor": sig,
               "shape": shape, "bases": bases, "out_dims": outs}
        # Triton's own text views (what triton-tensor-layout prints) for the small cases.
        in_bits = sum(len(v) for v in bases.values())
        out_bits = sum(x.bit_length() - 1 for _, x in outs)
        if s["kind"] != "padded" and out_bits <= 8 and in_bits <= 11:
            rec["view"] = gluon_ir.get_layout_view(ll, shape, False)
            rec["hw_view"] = gluon_ir.get_layout_view(ll, shape, True)
        print(json.dumps(rec), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--out", default="fixtures/triton-3.9.0-layouts.jsonl")
    ap.add_argument("--shapes", action="store_true",
                    help="the instruction-shape cases (fixtures/triton-3.9.0-shape-cases.jsonl)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    # The shape cases end with partitioned_shared ones (Python's view of those has no
    # `partition` bases: offset and block are compared).
    cases = [(shape_case if a.shapes else make_case)(rng, i) for i in range(a.count)]
    if a.shapes:
        cases += [partitioned_case(rng, a.count + i) for i in range(a.count // 3)]
    results, crashed, pos = {}, [], 0
    while pos < len(cases):
        p = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        out, _ = p.communicate("".join(json.dumps(c) + "\n" for c in cases[pos:]))
        last_start = None
        for line in out.splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if r.get("start"):
                last_start = r["id"]
            else:
                results[r["id"]] = r
                last_start = None
        if last_start is None:
            break
        crashed.append(last_start)
        pos = last_start + 1
    with open(a.out, "w") as f:
        for i in sorted(results):
            r = results[i]
            del r["id"]
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    kinds = {}
    for r in results.values():
        kinds[r["encoding"]] = kinds.get(r["encoding"], 0) + 1
    rejected = {}
    for i in crashed:
        k = cases[i]["spec"]["kind"]
        rejected[k] = rejected.get(k, 0) + 1
    print(f"{len(results)} cases written to {a.out}; {len(crashed)} rejected by Triton {rejected}; "
          f"per encoding: {kinds}")


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    else:
        main()
