#!/usr/bin/env python3
"""A random differential of conversion plans against Triton 3.9's PTX.

Draws random pairs of NVIDIA distributed layouts, built with Gluon's own classes (BlockedLayout,
NVMMADistributedLayout v2/v3, DotOperandLayout of both operands and several kWidths, SliceLayout
of any of them; ranks 1 to 3; 4 and 8 warps; 8-, 16-, 32- and 64-bit elements), each pair in both
directions, plus round trips through SwizzledSharedLayout and NVMMASharedLayout. Each case is
compiled by Triton for sm_90 (no GPU needed) as a Gluon kernel with one `convert_layout` (or one
`allocate_shared_memory(value)` + `.load`), and the PTX is counted: every shared-memory
instruction by its full opcode (`st.shared.v4.b32`, `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16`,
predicated ones too), shuffles, `selp`, `prmt`, barriers by kind, and the kernel's shared memory.

Sub-32-bit elements travel through global memory as 32-bit integers (truncated after the load,
extended before the store) so that packing for global accesses does not show up among the
conversion's byte permutes; Triton lowers a conversion by element width only.

Each case records the layouts as Gluon wrote them and as linear layouts
(`GluonOpBuilder.to_linear_layout`), so the Rust test plans exactly what Triton planned.
Each compile runs in a child process (Triton aborts the process on some inputs; such draws are
skipped and counted).

Usage: python3 scripts/triton_random_pairs.py [--pairs 180] [--trips 60] [--seed N] \
           > fixtures/triton-3.9.0-random-pairs.jsonl
Needs: pip install triton==3.9.0
"""
import argparse
import json
import multiprocessing as mp
import multiprocessing.pool
import random
import re
import sys

import os
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as ttgl
from triton.experimental.gluon._runtime import GluonASTSource

BITS = [8, 16, 32, 64]
DTYPE_NAMES = {8: "i8", 16: "i16", 32: "i32", 64: "i64"}


def dtype(bits):
    return {8: ttgl.int8, 16: ttgl.int16, 32: ttgl.int32, 64: ttgl.int64}[bits]


# ---- kernels: load in SRC, convert to DST, store ----

@gluon.jit
def cvt1d(src_ptr, dst_ptr, SRC: ttgl.constexpr, DST: ttgl.constexpr, DT: ttgl.constexpr,
          S0: ttgl.constexpr):
    x = ttgl.load(src_ptr + ttgl.arange(0, S0, layout=SRC)).to(DT)
    y = ttgl.convert_layout(x, DST)
    ttgl.store(dst_ptr + ttgl.arange(0, S0, layout=DST), y.to(dst_ptr.dtype.element_ty))


@gluon.jit
def offs2d(L: ttgl.constexpr, S0: ttgl.constexpr, S1: ttgl.constexpr):
    a = ttgl.arange(0, S0, layout=ttgl.SliceLayout(1, L))
    b = ttgl.arange(0, S1, layout=ttgl.SliceLayout(0, L))
    return a[:, None] * S1 + b[None, :]


@gluon.jit
def cvt2d(src_ptr, dst_ptr, SRC: ttgl.constexpr, DST: ttgl.constexpr, DT: ttgl.constexpr,
          S0: ttgl.constexpr, S1: ttgl.constexpr):
    x = ttgl.load(src_ptr + offs2d(SRC, S0, S1)).to(DT)
    y = ttgl.convert_layout(x, DST)
    ttgl.store(dst_ptr + offs2d(DST, S0, S1), y.to(dst_ptr.dtype.element_ty))


@gluon.jit
def offs3d(L: ttgl.constexpr, S0: ttgl.constexpr, S1: ttgl.constexpr, S2: ttgl.constexpr):
    a = ttgl.arange(0, S0, layout=ttgl.SliceLayout(1, ttgl.SliceLayout(2, L)))
    b = ttgl.arange(0, S1, layout=ttgl.SliceLayout(0, ttgl.SliceLayout(2, L)))
    c = ttgl.arange(0, S2, layout=ttgl.SliceLayout(0, ttgl.SliceLayout(1, L)))
    return a[:, None, None] * (S1 * S2) + b[None, :, None] * S2 + c[None, None, :]


@gluon.jit
def cvt3d(src_ptr, dst_ptr, SRC: ttgl.constexpr, DST: ttgl.constexpr, DT: ttgl.constexpr,
          S0: ttgl.constexpr, S1: ttgl.constexpr, S2: ttgl.constexpr):
    x = ttgl.load(src_ptr + offs3d(SRC, S0, S1, S2)).to(DT)
    y = ttgl.convert_layout(x, DST)
    ttgl.store(dst_ptr + offs3d(DST, S0, S1, S2), y.to(dst_ptr.dtype.element_ty))


@gluon.jit
def trip2d(src_ptr, dst_ptr, SRC: ttgl.constexpr, SMEM: ttgl.constexpr, DST: ttgl.constexpr,
           DT: ttgl.constexpr, S0: ttgl.constexpr, S1: ttgl.constexpr):
    x = ttgl.load(src_ptr + offs2d(SRC, S0, S1)).to(DT)
    smem = ttgl.allocate_shared_memory(DT, [S0, S1], SMEM, x)
    y = smem.load(DST)
    ttgl.store(dst_ptr + offs2d(DST, S0, S1), y.to(dst_ptr.dtype.element_ty))


# ---- random layouts ----

def split(rng, total_log, rank):
    """Split 2^total_log over `rank` dims as powers of two."""
    out = [0] * rank
    for _ in range(total_log):
        out[rng.randrange(rank)] += 1
    return [1 << x for x in out]


def blocked(rng, rank, warps_log):
    spt = [1 << rng.choice([0, 0, 1, 1, 2, 3]) for _ in range(rank)]
    while spt and eval("*".join(map(str, spt))) > 16:
        spt[rng.randrange(rank)] = 1
    order = list(range(rank))
    rng.shuffle(order)
    return ttgl.BlockedLayout(spt, split(rng, 5, rank), split(rng, warps_log, rank), order)


def mma_v2(rng, warps_log):
    return ttgl.NVMMADistributedLayout([2, 0], split(rng, warps_log, 2), [16, 8])


def mma_v3(rng, warps_log, shape):
    wm = rng.choice([w for w in (4, 8) if w <= 1 << warps_log])
    n = rng.choice([x for x in (8, 16, 32, 64, 128) if x <= shape[1]])
    return ttgl.NVMMADistributedLayout([3, 0], [wm, (1 << warps_log) // wm], [16, n, 16])


def dot_op(rng, warps_log, shape, bits):
    if rng.random() < 0.25 and bits == 16:
        return ttgl.DotOperandLayout(0, mma_v3(rng, warps_log, shape), 32 // bits)
    k = rng.choice([max(1, 32 // bits), max(1, 32 // bits), max(1, 64 // bits), max(1, 16 // bits)])
    return ttgl.DotOperandLayout(rng.randrange(2), mma_v2(rng, warps_log), k)


def kind_layout(rng, kind, rank, warps_log, shape, bits):
    if kind == "blocked":
        return blocked(rng, rank, warps_log)
    if kind == "mma_v2":
        return mma_v2(rng, warps_log)
    if kind == "mma_v3":
        return mma_v3(rng, warps_log, shape)
    if kind == "dot_op":
        return dot_op(rng, warps_log, shape, bits)
    # A slice of a layout one rank up (a 2-D parent of any kind for rank 1).
    dim = rng.randrange(rank + 1)
    pshape = shape[:dim] + [rng.choice([16, 32, 64])] + shape[dim:]
    pk = rng.choice(["blocked", "mma_v2", "mma_v3", "dot_op"]) if rank == 1 else "blocked"
    return ttgl.SliceLayout(dim, kind_layout(rng, pk, rank + 1, warps_log, pshape, bits))


KINDS = {1: ["blocked", "slice"], 2: ["blocked", "mma_v2", "mma_v3", "dot_op", "slice"],
         3: ["blocked", "slice"]}


def shape_for(rng, rank):
    choices = {1: [64, 128, 256, 512, 1024], 2: [16, 32, 64, 128], 3: [2, 4, 8, 16, 32]}[rank]
    while True:
        s = [rng.choice(choices) for _ in range(rank)]
        n = 1
        for x in s:
            n *= x
        if 64 <= n <= 8192:
            return s


def draw_pair(rng, i):
    rank = rng.choice([1, 2, 2, 2, 3])
    shape = shape_for(rng, rank)
    warps_log = rng.choice([2, 3])
    bits = rng.choice(BITS)
    ka, kb = rng.choice(KINDS[rank]), rng.choice(KINDS[rank])
    a = kind_layout(rng, ka, rank, warps_log, shape, bits)
    b = kind_layout(rng, kb, rank, warps_log, shape, bits)
    return {"id": i, "rank": rank, "shape": shape, "warps": 1 << warps_log, "bits": bits,
            "kinds": [ka, kb], "layouts": [a, b]}


def draw_trip(rng, i):
    shape = [rng.choice([16, 32, 64, 128]), rng.choice([16, 32, 64, 128])]
    warps_log = rng.choice([2, 3])
    bits = rng.choice([8, 16, 16, 32])
    ka, kb = rng.choice(KINDS[2]), rng.choice(KINDS[2])
    a = kind_layout(rng, ka, 2, warps_log, shape, bits)
    b = kind_layout(rng, kb, 2, warps_log, shape, bits)
    if rng.random() < 0.5:
        vec = rng.choice([1, 2, 4, 8])
        smem = ttgl.SwizzledSharedLayout(vec, rng.choice([1, 2]), rng.choice([1, 4, 8]), rng.choice([[1, 0], [0, 1]]))
        sk = "swizzled_shared"
    else:
        smem = ttgl.NVMMASharedLayout(rng.choice([32, 64, 128]), bits, 2, rng.random() < 0.3)
        sk = "nvmma_shared"
    return {"id": i, "rank": 2, "shape": shape, "warps": 1 << warps_log, "bits": bits,
            "kinds": [ka, sk, kb], "layouts": [a, b], "smem": smem}


# ---- compile and count ----

SHARED = re.compile(r"^\s*(?:@!?%p\d+\s+)?((?:st|ld)\.shared\S*|stmatrix\S*|ldmatrix\S*)\s", re.M)
OPS = {"shfl": r"shfl\.sync", "selp": r"selp\.", "prmt": r"prmt\.", "bar.sync": r"(?:bar|barrier)\.sync",
       "bar.warp.sync": r"bar\.warp\.sync", "barrier.cluster.wait": r"barrier\.cluster\.wait"}


def count(ptx):
    counts = {k: len(re.findall(r"^\s*(?:@!?%p\d+\s+)?" + p, ptx, re.M)) for k, p in OPS.items()}
    shared = {}
    for op in SHARED.findall(ptx):
        shared[op.rstrip(";")] = shared.get(op.rstrip(";"), 0) + 1
    counts["shared"] = shared
    return counts


def bases(b, layout, shape):
    ll = b.to_linear_layout(layout._to_ir(b), shape)
    if hasattr(ll, "offset_bases") and not hasattr(ll, "reg_bases"):
        return {"offset": ll.offset_bases, "block": ll.block_bases}
    return {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases, "block": ll.block_bases}


def compile_case(case, src, dst, q):
    try:
        from triton._C.libtriton import gluon_ir, ir
        ctx = ir.context()
        ir.load_dialects(ctx)
        b = gluon_ir.GluonOpBuilder(ctx)
        shape, bits = case["shape"], case["bits"]
        rec = {k: case[k] for k in ("shape", "warps", "bits")}
        rec["src"], rec["dst"] = bases(b, src, shape), bases(b, dst, shape)
        rec["src_layout"], rec["dst_layout"] = repr(src), repr(dst)
        dims = {"S%d" % i: s for i, s in enumerate(shape)}
        cx = {"SRC": src, "DST": dst, "DT": dtype(bits), **dims}
        if "smem" in case:
            rec["smem"] = bases(b, case["smem"], shape)["offset"]
            rec["smem_layout"] = repr(case["smem"])
            fn, cx = trip2d, {**cx, "SMEM": case["smem"]}
        else:
            fn = {1: cvt1d, 2: cvt2d, 3: cvt3d}[len(shape)]
        ptr = "*i64" if bits == 64 else "*i32"
        sig = {"src_ptr": ptr, "dst_ptr": ptr, **{k: "constexpr" for k in cx}}
        k = triton.compile(GluonASTSource(fn=fn, signature=sig, constexprs=cx),
                           target=GPUTarget("cuda", 90, 32), options={"num_warps": case["warps"]})
        ttgir = k.asm["ttgir"]
        op = "ttg.local_load" if "smem" in case else "ttg.convert_layout"
        want = "x" + DTYPE_NAMES[bits]
        # The conversion must still be there, on the element type drawn (Gluon runs no pass that
        # moves it); Triton drops it only when both layouts are the same.
        rec["converted"] = any(op in l and want + "," in l for l in ttgir.splitlines())
        rec["counts"] = count(k.asm["ptx"])
        rec["counts"]["shared_bytes"] = int(k.metadata.shared)
        q.put(rec)
    except Exception as e:  # reported, not fatal
        q.put({"error": str(e)[:300]})


def run_one(job):
    case, src, dst, name = job
    q = mp.Queue()
    p = mp.Process(target=compile_case, args=(case, src, dst, q))
    p.start()
    p.join(600)
    out = q.get() if not q.empty() else {"error": "exit %s" % p.exitcode}
    out["name"] = name
    out["family"] = " -> ".join(case["kinds"] if src is case["layouts"][0] else case["kinds"][::-1])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=180)
    ap.add_argument("--trips", type=int, default=60)
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    jobs = []
    for i in range(a.pairs):
        c = draw_pair(rng, i)
        x, y = c["layouts"]
        jobs.append((c, x, y, "pair %d" % i))
        jobs.append((c, y, x, "pair %d reversed" % i))
    for i in range(a.trips):
        c = draw_trip(rng, i)
        x, y = c["layouts"]
        jobs.append((c, x, y, "trip %d" % i))
    skipped = 0
    with mp.pool.ThreadPool(a.jobs) as pool:
        for out in pool.imap(run_one, jobs):
            if "error" in out:
                skipped += 1
                print("skipped %s: %s" % (out["name"], out["error"]), file=sys.stderr)
                continue
            print(json.dumps(out), flush=True)
    print("%d cases, %d skipped (invalid draws)" % (len(jobs), skipped), file=sys.stderr)


if __name__ == "__main__":
    main()
