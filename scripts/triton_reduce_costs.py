#!/usr/bin/env python3
"""Triton 3.9's reductions and scans, compiled for sm_90 on the CPU, counted: the fixture that
tests compare `Tile::reduce` / `Tile::scan`'s plans with (`layout --reduce/--scan --json`).

For random layouts (blocked with 4 and 8 warps, nvidia_mma v2 and v3, dot operands of nvidia_mma
v2, 2-D slices of 3-D blocked layouts, linear layouts with broadcast lane and warp bases), a
Gluon kernel loads a
tensor in the layout, reduces it along an axis (gl.sum, gl.max, an argmax through a two-value
gl.reduce) or scans it (gl.cumsum, blocked layouts only: Triton 3.9 lowers scans for nothing
else), and stores the result; the PTX's shfl.sync, shared-memory stores and loads (st.shared,
stmatrix; ld.shared, ldmatrix) and bar.sync instructions and the shared memory Triton allocates
are written with the layout's text.

    pip install triton==3.9.0
    python3 scripts/triton_reduce_costs.py --count 100 > fixtures/triton-3.9.0-reduce-costs.jsonl

`--layouts classic` draws blocked and nvidia_mma layouts only (the fixture's first 60 cases
until 2026-11-26); `--layouts scans` cumsums of blocked layouts with warps along the axis, 1-D
and 2-D (the fixture's last lines: `--layouts scans --count 40 --seed 41`).

Each case compiles in a child process (an invalid case can abort Triton's process).
"""
import argparse
import json
import random
import re
import os
import subprocess
import sys
import tempfile

KERNEL = r'''
import re, json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

@gluon.jit
def combine_argmax(a, ai, b, bi):
    keep = (a > b) | ((a == b) & (ai < bi))
    return gl.where(keep, a, b), gl.where(keep, ai, bi)

@gluon.jit
def add(a, b):
    return a + b

@gluon.jit
def kernel(x_ptr, out_ptr, idx_ptr, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr,
           AXIS: gl.constexpr, OP: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    offs = gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0)
    x = gl.load(x_ptr + offs)
    if OP == "sum":
        s = gl.sum(x, axis=AXIS)
    elif OP == "max":
        s = gl.max(x, axis=AXIS)
    elif OP == "argmax":
        idx = gl.expand_dims(rows, 1) * 0 + gl.expand_dims(cols, 0) if AXIS == 1 else gl.expand_dims(rows, 1) + gl.expand_dims(cols, 0) * 0
        s, i = gl.reduce((x, idx), AXIS, combine_argmax)
    else:
        y = gl.associative_scan(x, AXIS, add)
        gl.store(out_ptr + offs, y)
    if OP != "cumsum":
        out = rows if AXIS == 1 else cols
        gl.store(out_ptr + out, s)
        if OP == "argmax":
            gl.store(idx_ptr + out, i)

@gluon.jit
def kernel_1d(x_ptr, out_ptr, idx_ptr, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr,
              AXIS: gl.constexpr, OP: gl.constexpr):
    offs = gl.arange(0, M, layout=L)
    y = gl.associative_scan(gl.load(x_ptr + offs), 0, add)
    gl.store(out_ptr + offs, y)

c = json.loads(sys.argv[1])
def mma(c):
    return gl.NVMMADistributedLayout(version=[c["version"], 0], warps_per_cta=c["wpc"], instr_shape=c["instr"])
if c["kind"] == "blocked":
    L = gl.BlockedLayout(c["spt"], c["tpw"], c["wpc"], c["order"])
elif c["kind"] == "dot_op":
    L = gl.DotOperandLayout(operand_index=c["op_idx"], parent=mma(c), k_width=c["k_width"])
elif c["kind"] == "slice":
    L = gl.SliceLayout(c["dim"], gl.BlockedLayout(c["spt"], c["tpw"], c["wpc"], c["order"]))
elif c["kind"] == "linear":
    L = gl.DistributedLinearLayout(reg_bases=c["bases"]["register"], lane_bases=c["bases"]["lane"],
                                   warp_bases=c["bases"]["warp"], block_bases=[], shape=c["shape"])
else:
    L = mma(c)
elem = {"f32": "*fp32", "i32": "*i32"}[c.get("dtype", "f32")]
sig = {"x_ptr": elem, "out_ptr": elem, "idx_ptr": "*i32", "M": "constexpr", "N": "constexpr",
       "L": "constexpr", "AXIS": "constexpr", "OP": "constexpr"}
consts = {"M": c["shape"][0], "N": c["shape"][-1], "L": L, "AXIS": c["axis"], "OP": c["op"]}
src = gluon._runtime.GluonASTSource(kernel if len(c["shape"]) == 2 else kernel_1d, signature=sig,
                                    constexprs=consts)
k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": c["warps"]})
ops = re.findall(r"^\s*(?:@%?!?\w+\s+)?([a-z][\w.:]*)", k.asm["ptx"], re.M)
count = lambda p: sum(1 for o in ops if o.startswith(p))
print(json.dumps({"shuffles": count("shfl.sync"), "stores": count("st.shared") + count("stmatrix"),
                  "loads": count("ld.shared") + count("ldmatrix"),
                  "barriers": count("bar.sync") + count("barrier.sync"), "redux": count("redux.sync"),
                  "shared_bytes": k.metadata.shared}))
'''


def pow2_split(total, parts, rng):
    """`parts` powers of two whose product is `total`."""
    out = [1] * parts
    while total > 1:
        out[rng.randrange(parts)] *= 2
        total //= 2
    return out


def blocked_case(rng, warps):
    spt = [rng.choice([1, 1, 2, 4]), rng.choice([1, 2, 4])]
    tpw = pow2_split(32, 2, rng)
    wpc = pow2_split(warps, 2, rng)
    order = rng.choice([[1, 0], [0, 1]])
    shape = [max(spt[d] * tpw[d] * wpc[d] * rng.choice([1, 1, 2]), 2) for d in range(2)]
    attr = "#ttg.blocked<{sizePerThread = %s, threadsPerWarp = %s, warpsPerCTA = %s, order = %s}>" % (spt, tpw, wpc, order)
    return {"kind": "blocked", "spt": spt, "tpw": tpw, "wpc": wpc, "order": order, "shape": shape, "layout": attr}


def mma_case(rng, warps):
    if rng.random() < 0.5:
        wpc = pow2_split(warps, 2, rng)
        shape = [16 * wpc[0] * rng.choice([1, 2]), 8 * wpc[1] * rng.choice([1, 2, 4])]
        instr, version = [16, 8], 2
    else:
        wpc = [4 * (warps // 4), 1] if rng.random() < 0.7 else [4, warps // 4]
        n = rng.choice([32, 64, 128])
        instr, version = [16, n, 16], 3
        shape = [16 * wpc[0] * rng.choice([1, 2]), n * wpc[1]]
    attr = "#ttg.nvidia_mma<{versionMajor = %d, versionMinor = 0, warpsPerCTA = %s, instrShape = %s}>" % (version, wpc, instr)
    return {"kind": "mma", "version": version, "wpc": wpc, "instr": instr, "shape": shape, "layout": attr}


def dot_op_case(rng, warps):
    """An operand of `mma.sync` (kWidth 1 or 2 over 32-bit elements)."""
    wpc = pow2_split(warps, 2, rng)
    op_idx, k_width = rng.choice([0, 1]), rng.choice([1, 2])
    k = 8 * k_width * rng.choice([1, 2])
    shape = [16 * wpc[0] * rng.choice([1, 2]), k] if op_idx == 0 else [k, 8 * wpc[1] * rng.choice([1, 2])]
    parent = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = %s, instrShape = [16, 8]}>" % wpc
    attr = "#ttg.dot_op<{opIdx = %d, parent = %s, kWidth = %d}>" % (op_idx, parent, k_width)
    return {"kind": "dot_op", "version": 2, "wpc": wpc, "instr": [16, 8], "op_idx": op_idx, "k_width": k_width,
            "shape": shape, "layout": attr}


def slice_case(rng, warps):
    """A 2-D slice of a 3-D blocked layout."""
    spt = [rng.choice([1, 2]), rng.choice([1, 2]), rng.choice([1, 2, 4])]
    tpw, wpc = pow2_split(32, 3, rng), pow2_split(warps, 3, rng)
    order = rng.choice([[2, 1, 0], [0, 1, 2], [1, 2, 0]])
    dim = rng.randrange(3)
    keep = [d for d in range(3) if d != dim]
    shape = [max(spt[d] * tpw[d] * wpc[d] * rng.choice([1, 2]), 2) for d in keep]
    parent = "#ttg.blocked<{sizePerThread = %s, threadsPerWarp = %s, warpsPerCTA = %s, order = %s}>" % (spt, tpw, wpc, order)
    return {"kind": "slice", "dim": dim, "spt": spt, "tpw": tpw, "wpc": wpc, "order": order, "shape": shape,
            "layout": "#ttg.slice<{dim = %d, parent = %s}>" % (dim, parent)}


def linear_case(rng, warps):
    """A random linear layout: the tensor's bits over registers, 5 lane and log2(warps) warp
    bases in random order, one or two of the lane and warp bases zero (broadcast)."""
    wbits, rbits, zeros = warps.bit_length() - 1, rng.choice([1, 2, 3]), rng.choice([0, 1, 2])
    tbits = 5 + wbits + rbits - zeros
    mbits = rng.randint(1, tbits - 1)
    shape = [1 << mbits, 1 << (tbits - mbits)]
    units = [[1 << b, 0] for b in range(mbits)] + [[0, 1 << b] for b in range(tbits - mbits)]
    rng.shuffle(units)
    slots = [("register", i) for i in range(rbits)] + [("lane", i) for i in range(5)] + [("warp", i) for i in range(wbits)]
    zero = set(rng.sample(slots[rbits:], zeros))
    bases = {"register": [], "lane": [], "warp": []}
    for slot in slots:
        bases[slot[0]].append([0, 0] if slot in zero else units.pop())
    attr = "#ttg.linear<{register = %s, lane = %s, warp = %s, block = []}>" % (bases["register"], bases["lane"], bases["warp"])
    return {"kind": "linear", "bases": bases, "shape": shape, "layout": attr}


def scan_case(rng, warps):
    """A blocked layout with warps along the scanned dim (the cross-warp exchanges and phase):
    1-D (every warp along it), or 2-D with one or more warp bits along the axis."""
    if rng.random() < 0.4:
        spt = [rng.choice([1, 2, 4])]
        shape = [spt[0] * 32 * warps * rng.choice([1, 2, 4])]
        attr = "#ttg.blocked<{sizePerThread = %s, threadsPerWarp = [32], warpsPerCTA = [%d], order = [0]}>" % (spt, warps)
        return {"kind": "blocked", "spt": spt, "tpw": [32], "wpc": [warps], "order": [0], "shape": shape,
                "layout": attr, "axis": 0}
    c = blocked_case(rng, warps)
    axis = rng.choice([0, 1])
    if c["wpc"][axis] == 1:
        c["wpc"] = [c["wpc"][1], c["wpc"][0]]
        c["shape"] = [max(c["spt"][d] * c["tpw"][d] * c["wpc"][d] * rng.choice([1, 2]), 2) for d in range(2)]
        c["layout"] = "#ttg.blocked<{sizePerThread = %s, threadsPerWarp = %s, warpsPerCTA = %s, order = %s}>" % (
            c["spt"], c["tpw"], c["wpc"], c["order"])
    c["axis"] = axis
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--layouts", choices=["classic", "all", "scans"], default="all",
                    help="all (the committed fixture): blocked, nvidia_mma, dot operands, slices and "
                         "linear layouts with broadcast bases; classic: blocked and nvidia_mma only; scans: "
                         "cumsums of blocked layouts with warps along the axis, 1-D and 2-D")
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--dtype", choices=["f32", "i32"], default="f32",
                    help="f32 (the committed fixture's first 100 lines, seed 39) or i32: gl.sum and "
                         "gl.max of int32, which Triton lowers to redux.sync over whole warps (the "
                         "fixture's last lines: --dtype i32 --count 24 --seed 40)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    # Gluon compiles only functions defined in a file.
    kernel = os.path.join(tempfile.mkdtemp(), "reduce_kernel.py")
    with open(kernel, "w") as f:
        f.write(KERNEL)
    n, tries = 0, 0
    while n < a.count and tries < 4 * a.count:
        tries += 1
        warps = rng.choice([4, 8])
        if a.layouts == "scans":
            kind = scan_case
        elif a.layouts == "all":
            kind = rng.choices([blocked_case, mma_case, dot_op_case, slice_case, linear_case], [4, 3, 2, 2, 2])[0]
        else:
            kind = blocked_case if rng.random() < 0.6 else mma_case
        c = kind(rng, warps)
        c["warps"] = warps
        c.setdefault("axis", rng.choice([0, 1]))
        c["dtype"] = a.dtype
        ops = ["sum", "max", "argmax"] + (["cumsum"] if c["kind"] in ("blocked", "slice") else [])
        c["op"] = "cumsum" if a.layouts == "scans" else rng.choice(ops if a.dtype == "f32" else ["sum", "max"])
        r = subprocess.run([sys.executable, kernel, json.dumps(c)], capture_output=True, text=True, timeout=300)
        lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
        if r.returncode != 0 or not lines:
            print("skipped %s: %s" % (json.dumps(c), (r.stderr.strip().splitlines() or ["?"])[-1][:200]), file=sys.stderr)
            continue
        rec = {"layout": c["layout"], "tensor": "tensor<%sx%s>" % ("x".join(map(str, c["shape"])), a.dtype),
               "warps": c["warps"],
               "axis": c["axis"], "op": c["op"], "triton": json.loads(lines[-1])}
        print(json.dumps(rec), flush=True)
        n += 1


if __name__ == "__main__":
    main()
