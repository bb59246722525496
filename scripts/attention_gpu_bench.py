#!/usr/bin/env python3
"""Our flash attention forwards on the GPU next to Triton's tutorial 06 loop
(scripts/triton_attention.py) and torch's `scaled_dot_product_attention`, in one run: the
`mma.sync` kernel (kernels/src/attention.rs: 64 query rows x 32 keys a step, head dims 64 and
128) and the Hopper one (kernels/src/attention_hopper.rs: 128 x 64, TMA and wgmma, head dims 64 and 128; its
Q, K and V as tensor maps, encoded here with the driver's cuTensorMapEncodeTiled). Triton's
loop runs at 64x32 compiled for sm_80 (so with `mma.sync`, as our first kernel; its PTX
JIT-compiled by the driver), and at 64x32 and a few larger, software-pipelined tiles as Triton
compiles them for the H100 (wgmma); the best of those is "triton best".

On the device machine (cupy, torch and triton there):
    python3 scripts/attention_gpu_bench.py [PTX] [--sanitize]
PTX from `cargo xtask gpu` here (carry target/ptx and target/release/gpu-bench, whose
`--attention` gives the tiles, launches and entry points). Every kernel is checked on random
inputs into a poisoned output against a float32 reference (softmax(q kᵀ / sqrt(d)) v) before it
is timed; times are the median of 10 CUDA-event timings after 2 warm-ups; TFLOP/s counts the
two products (4 · heads · seq² · d, half of it when causal). --sanitize: our kernels once at
small, masked shapes (for compute-sanitizer).
"""
import itertools
import json
import math
import subprocess
import sys

import cupy as cp
import numpy as np
import torch
import triton

from gpu_timing import events_ms
from triton_attention import attn_fwd

PTX = next((a for a in sys.argv[1:] if not a.startswith("--")), "target/ptx/kernels.ptx")
SANITIZE = "--sanitize" in sys.argv
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
LOG2E = 1.0 / math.log(2.0)
HEAD_DIMS = (64, 128)
# (block_m, block_n, warps, stages): the tutorial's own tile choices for Hopper, and ours.
TRITON_TILES = ((128, 64, 8, 3), (128, 128, 8, 3), (64, 64, 4, 3), (128, 64, 4, 3))


def info():
    out = subprocess.run(["target/release/gpu-bench", "--attention"], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


# cuTensorMapEncodeTiled's enums (CUDA's driver API): data types, no interleave, L2 promotion of
# 256 bytes and no out-of-bounds NaN fill, as layout-launch encodes maps for our kernels.
TMA_DATA_TYPE = {"f16": 6, "bf16": 9}
TMA_L2_256B = 3


def tensor_map(t, dtype, box, swizzle):
    """The copy engine's map of the `[rows, cols]` tensor `t` (the last dim contiguous), in
    boxes of `box = [rows, cols]`, uploaded: what a kernel's `TensorMap` parameter points at."""
    import ctypes
    cuda = ctypes.CDLL("libcuda.so.1")
    rows, cols = t.shape
    m = (ctypes.c_uint64 * 16)()
    dims = (ctypes.c_uint64 * 2)(cols, rows)
    strides = (ctypes.c_uint64 * 1)(cols * t.element_size())
    boxes = (ctypes.c_uint32 * 2)(box[1], box[0])
    unit = (ctypes.c_uint32 * 2)(1, 1)
    r = cuda.cuTensorMapEncodeTiled(ctypes.byref(m), TMA_DATA_TYPE[dtype], 2,
                                    ctypes.c_void_p(t.data_ptr()), dims, strides, boxes, unit,
                                    0, swizzle, TMA_L2_256B, 0)
    assert r == 0, f"cuTensorMapEncodeTiled: CUresult {r} ({rows}x{cols}, box {box})"
    return cp.asarray(np.frombuffer(bytes(m), dtype=np.uint8))


class Ours:
    """One of our kernels, launched as its entry of `gpu-bench --attention` says (with tensor
    maps of Q, K and V as `[heads · seq, d]` where it lists them)."""

    def __init__(self, mod, info):
        self.info = info
        self.mod = mod

    def call(self, dtype, q, k, v, o, causal):
        i = self.info
        heads, seq, d = q.shape
        assert d == i["head_dim"]
        f = self.mod.get_function(i[dtype])
        if i["shared_bytes"] > 48 * 1024:
            f.max_dynamic_shared_size_bytes = i["shared_bytes"]
        grid = ((seq + i["block_m"] - 1) // i["block_m"], heads, 1)
        if "tensor_maps" in i:
            tm = i["tensor_maps"]
            flat = lambda t: t.reshape(heads * seq, d)  # noqa: E731
            ins = [tensor_map(flat(t), dtype, tm[b], tm["swizzle"])
                   for t, b in ((q, "box_q"), (k, "box_kv"), (v, "box_kv"))]
        else:
            ins = [cp.asarray(t) for t in (q, k, v)]
        args = tuple(ins) + (cp.asarray(o), np.uint32(seq), np.float32(LOG2E / math.sqrt(d)),
                             np.uint32(causal))
        return lambda: f(grid, (i["threads"],), args, shared_mem=i["shared_bytes"])


def triton_call(q, k, v, o, causal, tile):
    bm, bn, warps, stages = tile
    heads, seq, d = q.shape
    grid = (seq // bm, heads)
    return lambda: attn_fwd[grid](q, k, v, o, seq, LOG2E / math.sqrt(d), BLOCK_M=bm, BLOCK_N=bn,
                                  HEAD_DIM=d, CAUSAL=causal, num_warps=warps, num_stages=stages)


class TritonMmaSync:
    """Triton's loop at our tile compiled for sm_80 (so with `mma.sync`, as ours), its PTX
    JIT-compiled by the driver for this GPU: the like-for-like comparison on an H100, where
    Triton itself would pick wgmma."""

    def __init__(self):
        from triton.backends.compiler import GPUTarget
        self.kernels = {}
        for (dtype, ty), causal, d in itertools.product(
                (("f16", "*fp16"), ("bf16", "*bf16")), (False, True), HEAD_DIMS):
            sig = {"Q": ty, "K": ty, "V": ty, "O": ty, "seq": "i32", "qk_scale": "fp32",
                   "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "HEAD_DIM": "constexpr",
                   "CAUSAL": "constexpr"}
            consts = {"BLOCK_M": 64, "BLOCK_N": 32, "HEAD_DIM": d, "CAUSAL": causal}
            src = triton.compiler.ASTSource(fn=attn_fwd, signature=sig, constexprs=consts)
            k = triton.compile(src, target=GPUTarget("cuda", 80, 32),
                               options={"num_warps": 4, "num_stages": 1})
            path = f"/tmp/attn_sm80_{dtype}_{int(causal)}_{d}.ptx"
            open(path, "w").write(k.asm["ptx"])
            f = cp.RawModule(path=path).get_function(k.metadata.name)
            if k.metadata.shared > 48 * 1024:
                f.max_dynamic_shared_size_bytes = k.metadata.shared
            self.kernels[dtype, causal, d] = (f, k.metadata.shared)

    def call(self, dtype, q, k, v, o, causal):
        heads, seq, d = q.shape
        f, shared = self.kernels[dtype, causal, d]
        null = np.uint64(0)  # Triton's global and profile scratch: none used
        args = tuple(cp.asarray(t) for t in (q, k, v, o)) + (
            np.int32(seq), np.float32(LOG2E / math.sqrt(d)), null, null)
        return lambda: f((seq // 64, heads, 1), (128,), args, shared_mem=shared)


def reference(q, k, v, causal):
    s = (q.float() @ k.float().transpose(1, 2)) / math.sqrt(q.shape[-1])
    if causal:
        n = q.shape[1]
        s.masked_fill_(torch.ones(n, n, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v.float()


def max_err(got, want):
    if not torch.isfinite(got.float()).all():
        return float("inf")
    return float((got.float() - want).abs().max())


def inputs(dtype, heads, seq, d=64):
    g = lambda: torch.randn(heads, seq, d, device="cuda").to(DTYPES[dtype])  # noqa: E731
    return g(), g(), g()


def case(ours, sm80, dtype, heads, seq, d, causal):
    q, k, v = inputs(dtype, heads, seq, d)
    want = reference(q, k, v, causal)
    rows = []
    cands = [(name, lambda o, x=x: x.call(dtype, q, k, v, o, causal)) for name, x in ours.items()]
    if sm80 is not None:
        cands.append(("triton mma.sync (sm_80 PTX), our tile",
                      lambda o: sm80.call(dtype, q, k, v, o, causal)))
    cands.append(("triton 64x32, 4 warps, 1 stage",
                  lambda o: triton_call(q, k, v, o, causal, (64, 32, 4, 1))))
    cands += [(f"triton {bm}x{bn}, {w} warps, {s} stages",
               lambda o, t=(bm, bn, w, s): triton_call(q, k, v, o, causal, t))
              for bm, bn, w, s in TRITON_TILES]
    for name, make in cands:
        o = torch.full_like(q, float("nan"))
        try:
            f = make(o)
            f()
            torch.cuda.synchronize()
        except Exception as e:  # a tile Triton cannot compile here: say so, go on
            print(f"  {name}: {type(e).__name__}: {str(e)[:120]}")
            continue
        rows.append((name, events_ms(torch, f, warm=2, reps=10), max_err(o, want)))

    def sdpa():
        return torch.nn.functional.scaled_dot_product_attention(q4, k4, v4, is_causal=causal)
    q4, k4, v4 = q[None], k[None], v[None]  # [batch, heads, seq, dim]: the flash backend's form
    r = sdpa()[0]
    rows.append(("torch sdpa", events_ms(torch, sdpa, warm=2, reps=10), max_err(r, want)))
    return rows


def sanitize(ours):
    for (d, name), x in ours.items():
        for dtype in DTYPES:
            for seq, causal in ((100, 0), (77, 1), (256, 1)):
                q, k, v = inputs(dtype, 2, seq, d)
                o = torch.full_like(q, float("nan"))
                x.call(dtype, q, k, v, o, causal)()
                torch.cuda.synchronize()
                err = max_err(o, reference(q, k, v, causal))
                print(name, dtype, seq, "causal" if causal else "full", err)


# (sequence, heads) per head dimension: the first a masked tail (ours alone), then the
# issue's lengths, heads chosen to fill the GPU with a few milliseconds of work.
SHAPES = {64: ((1000, 4), (4096, 32), (16384, 8)), 128: ((1000, 4), (4096, 16), (16384, 4))}


def main():
    mod = cp.RawModule(path=PTX)
    kernels = info()
    ours = {(64, "ours (mma.sync)"): Ours(mod, kernels["ampere"]),
            (128, "ours (mma.sync)"): Ours(mod, kernels["ampere_d128"]),
            (64, "ours hopper (wgmma)"): Ours(mod, kernels["hopper"]),
            (128, "ours hopper (wgmma)"): Ours(mod, kernels["hopper_d128"])}
    if SANITIZE:
        return sanitize(ours)
    try:
        sm80 = TritonMmaSync()
    except Exception as e:  # this Triton cannot compile for sm_80 here: the row is left out
        print(f"Triton for sm_80: {type(e).__name__}: {str(e)[:200]}")
        sm80 = None
    print(f"{torch.cuda.get_device_name()}; triton {triton.__version__}; torch {torch.__version__}; "
          "median of 10 (CUDA events)")
    print(f"{'kernel':44} {'ms':>8} {'TFLOP/s':>8} {'max err':>9}")
    summary = []
    for d, (seq, heads), causal, dtype in ((d, sh, c, t) for d in HEAD_DIMS for sh in SHAPES[d]
                                           for c in (False, True) for t in DTYPES):
        mine = {name: x for (dd, name), x in ours.items() if dd == d}
        flops = 4 * heads * seq * seq * d / (2 if causal else 1)
        label = f"{dtype} d{d} heads {heads} seq {seq}{' causal' if causal else ''}"
        print(label)
        if seq % 128:  # Triton's tutorial loop needs whole blocks: ours alone
            q, k, v = inputs(dtype, heads, seq, d)
            for name, x in mine.items():
                o = torch.full_like(q, float("nan"))
                x.call(dtype, q, k, v, o, causal)()
                torch.cuda.synchronize()
                err = max_err(o, reference(q, k, v, causal))
                print(f"  {name + ', masked tail':42} max err {err:.2e}")
            continue
        rows = case(mine, sm80, dtype, heads, seq, d, causal)
        for name, ms, err in rows:
            print(f"  {name:42} {ms:8.3f} {flops / ms / 1e9:8.1f} {err:9.2e}")
        t = {n: ms for n, ms, _ in rows}
        best = min(ms for n, ms, _ in rows if n.startswith("triton"))
        am, hp = t.get("ours (mma.sync)", math.nan), t["ours hopper (wgmma)"]
        summary.append((label, flops / am / 1e9, am / t.get("triton mma.sync (sm_80 PTX), our tile", math.nan),
                        flops / hp / 1e9, hp / best, hp / t["torch sdpa"]))
    print(f"\n{'case':38} {'mma.sync TFLOP/s':>16} {'/triton mma.sync':>16} {'wgmma TFLOP/s':>13} "
          f"{'/triton best':>12} {'/sdpa':>6}  (time ratios)")
    for label, a, b, c, e, f in summary:
        print(f"{label:38} {a:16.1f} {b:16.3f} {c:13.1f} {e:12.3f} {f:6.3f}")


if __name__ == "__main__":
    main()
