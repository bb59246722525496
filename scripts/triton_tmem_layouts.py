#!/usr/bin/env python3
"""Triton 3.9's tensor-memory layouts on random parameters: the fixture that
layout-core/tests/triton_tmem.rs checks `#ttng.tensor_memory_encoding` and
`#ttng.tensor_memory_scales_encoding` against, bit for bit.

    pip install triton==3.9.0
    python3 scripts/triton_tmem_layouts.py --count 120 > fixtures/triton-3.9.0-tmem-layouts.jsonl
    python3 scripts/triton_tmem_layouts.py --reg --count 300 > fixtures/triton-3.9.0-tmem-reg-layouts.jsonl

With `--reg`: the register layouts of tcgen05.ld/st (Gluon's `get_tmem_reg_layout`, the C++
`getDistributedLayoutForTmemLdSt`) for a random message shape and warp count, or null where
Triton has none.

Each case runs in a child process (Triton aborts the process on some invalid layouts; those,
and the ones its builder refuses, are skipped). Gluon's `to_linear_layout` gives the `row` and
`col` bases (not the `block` ones); the attribute text is Triton's own, printed from a memdesc.
"""
import argparse
import json
import random
import subprocess
import sys

CHILD = r'''
import json, sys
from triton._C.libtriton import gluon_ir, ir
ctx = ir.context(); ir.load_dialects(ctx)
b = gluon_ir.GluonOpBuilder(ctx)
c = json.loads(sys.argv[1])
if c["kind"] == "tmem":
    a = b.get_tensor_memory_layout(c["block"], c["col_stride"], c["cga"], c["two_ctas"], c["fp4"])
else:
    a = b.get_tensor_memory_scales_layout(c["cga"], c["rep"])
el = {"f32": b.get_float_ty(), "f16": b.get_half_ty(), "i8": b.get_int8_ty()}[c["elem"]]
ty = b.get_tensor_mem_desc_ty(el, c["shape"], a, c["shape"])
m = b.create_module()
f = b.get_or_insert_function(m, "f", b.get_function_ty([ty], []), "public", False)
m.push_back(f)
attr = [l.split(" = ", 1)[1] for l in m.str_nodebug().splitlines() if l.startswith("#tmem")][0]
rec = {"attr": attr, "tensor": "tensor<%dx%dx%s>" % (c["shape"][0], c["shape"][1], c["elem"])}
if "atom" in c:
    import triton.experimental.gluon.language as ttgl
    from triton._C.libtriton.gluon_ir import compute_tmem_reg_layout
    from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout
    tl = TensorMemoryLayout(tuple(c["block"]), c["col_stride"], cga_layout=c["cga"], two_ctas=c["two_ctas"], fp4_padded=c["fp4"])
    dt = {"f32": ttgl.float32, "f16": ttgl.float16, "i8": ttgl.int8}[c["elem"]]
    r = compute_tmem_reg_layout(dt, c["shape"], c["shape"], tl, c["warps"], c["atom"])
    rec.update(atom=c["atom"], warps=c["warps"], reg=None if r is None else
               {"register": r.reg_bases, "lane": r.lane_bases, "warp": r.warp_bases, "block": r.block_bases})
else:
    ll = b.to_linear_layout(a, c["shape"])
    rec.update(row=ll.rows, col=ll.cols)
print(json.dumps(rec))
sys.stdout.flush()
import os
os._exit(0)
'''


def case(rng):
    cga = rng.choice([[], [], [[1, 0]], [[0, 1]], [[1, 0], [0, 1]], [[0, 1], [1, 0]], [[0, 0]]])
    ctas = [1, 1]
    for basis in cga:
        for d in range(2):
            ctas[d] *= 2 if basis[d] else 1
    if rng.random() < 0.25:
        return {"kind": "scales", "cga": cga, "elem": "i8", "rep": rng.choice(["mnThenK", "kThenMn"]),
                "shape": [rng.choice([32, 64, 128, 256]) * ctas[0], rng.choice([1, 2, 4, 8, 16]) * ctas[1]]}
    elem = rng.choice(["f32", "f16", "i8"])
    col_stride = rng.choice([1, 1, 32 // {"f32": 32, "f16": 16, "i8": 8}[elem]])
    block_m = rng.choice([64, 128])
    block_n = rng.choice([8, 16, 32, 64, 128, 256])
    two_ctas = bool(cga) and cga[0] == [1, 0] and rng.random() < 0.4
    shape = [rng.choice([64, 128, 256]) * ctas[0], rng.choice([8, 16, 32, 64, 128, 256]) * ctas[1]]
    return {"kind": "tmem", "block": [block_m, block_n], "col_stride": col_stride, "cga": cga,
            "two_ctas": two_ctas, "fp4": elem == "i8" and rng.random() < 0.3, "elem": elem, "shape": shape}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--reg", action="store_true", help="tcgen05 register layouts")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    n, tries = 0, 0
    while n < a.count and tries < 20 * a.count:
        tries += 1
        c = case(rng)
        if a.reg:
            if c["kind"] != "tmem":
                continue
            c["atom"] = rng.choice(["32x32b", "16x64b", "16x128b", "16x256b"])
            c["warps"] = rng.choice([4, 4, 8, 16])
        r = subprocess.run([sys.executable, "-c", CHILD, json.dumps(c)], capture_output=True, text=True, timeout=120)
        lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
        if r.returncode != 0 or not lines:
            continue
        print(lines[-1], flush=True)
        n += 1


if __name__ == "__main__":
    main()
