#!/usr/bin/env python3
"""Our row kernels (kernels/src/rows.rs: softmax in f32 and f16, layer norm in f16 and bf16, each
in the narrowest width class that fits the row) on the GPU next to Triton's tutorial kernels (02
fused softmax, one program per row, BLOCK = next_pow2(n_cols) and its warps heuristic; 05 layer
norm forward, verbatim), torch, and a device-to-device copy of the same bytes, all in one run.

On the device machine (cupy, torch and triton there):
    python3 scripts/rows_gpu_bench.py [PTX] [--sanitize]
PTX from `cargo xtask gpu` here (carry target/ptx and target/release/gpu-bench, whose `--rows`
lists the classes). Each kernel is checked on fresh random inputs
into a poisoned output against torch in float64 before it is timed; times are the median of 30
CUDA-event timings after 3 warm-ups; bytes are what must move (input read once, output written
once, plus weight, bias, mean and rstd for layer norm); "% of copy" divides the copy's time by
the kernel's. --sanitize: each of our kernels once at a small shape (for compute-sanitizer).
"""
import json
import subprocess
import sys

import cupy as cp
import numpy as np
import torch
import triton

from gpu_timing import events_ms
from triton_rows import triton_layer_norm, triton_softmax

PTX = next((a for a in sys.argv[1:] if not a.startswith("--")), "target/ptx/kernels.ptx")
SANITIZE = "--sanitize" in sys.argv
GPU_BENCH = "target/release/gpu-bench"
REPS = 30


def classes():
    """The width classes of kernels::rows, from `gpu-bench --rows` (needs no GPU)."""
    out = subprocess.run([GPU_BENCH, "--rows"], check=True, capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def bench(fn):
    return events_ms(torch, fn, reps=REPS)


def cp_of(t):
    return cp.asarray(t)


class Ours:
    """Our kernels: the narrowest class that fits the row, launched as `gpu-bench --rows` says."""

    def __init__(self):
        self.mod = cp.RawModule(path=PTX)
        self.classes = classes()

    def call(self, kind, n_rows, n_cols, tensors, any_width=False):
        """The `_aligned` entry where the width is a multiple of the 16-byte vector, unless
        `any_width`."""
        c = next(c for c in self.classes if n_cols <= c["width"])
        vector = 16 // tensors[0].element_size()
        aligned = n_cols % vector == 0 and not any_width
        f = self.mod.get_function(c["aligned"][kind] if aligned else c[kind])
        if c["shared_bytes"] > 48 * 1024:
            f.max_dynamic_shared_size_bytes = c["shared_bytes"]
        grid = ((n_rows + c["rows_per_cta"] - 1) // c["rows_per_cta"],)
        args = tuple(cp_of(t) for t in tensors) + (np.uint32(n_rows), np.uint32(n_cols))
        return lambda: f(grid, (c["threads"],), args, shared_mem=c["shared_bytes"])


def rel_err(got, want):
    got, want = got.double(), want.double()
    if not torch.isfinite(got).all():
        return float("inf")
    return float((got - want).abs().max() / want.abs().max().clamp_min(1e-30))


DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def softmax_case(ours, dtype, rows, cols):
    x = (torch.randn(rows, cols, device="cuda") * 4).to(DTYPES[dtype])
    want = torch.softmax(x.double(), dim=1)
    out = {}
    for name in ("ours", "ours, any-width kernel", "triton", "torch"):
        y = torch.full_like(x, float("nan"))
        if name.startswith("ours"):
            f = ours.call(f"softmax_{dtype}", rows, cols, (x, y), any_width=name != "ours")
        elif name == "triton":
            f = triton_softmax(x, y)
        else:
            def f():
                return torch.softmax(x, dim=1)
        r = f()
        torch.cuda.synchronize()
        out[name] = (bench(f), rel_err(r if name == "torch" else y, want))
    return out


def layer_norm_case(ours, dtype, rows, cols):
    t = DTYPES[dtype]
    x = (torch.randn(rows, cols, device="cuda") * 2 + 0.5).to(t)
    w = (torch.rand(cols, device="cuda") + 0.5).to(t)
    b = torch.randn(cols, device="cuda").to(t)
    want = torch.nn.functional.layer_norm(x.double(), (cols,), w.double(), b.double(), 1e-5)
    out = {}
    for name in ("ours", "ours, any-width kernel", "triton", "torch"):
        y = torch.full_like(x, float("nan"))
        mean = torch.full((rows,), float("nan"), device="cuda")
        rstd = torch.full((rows,), float("nan"), device="cuda")
        if name.startswith("ours"):
            f = ours.call(f"layer_norm_{dtype}", rows, cols, (x, w, b, y, mean, rstd),
                          any_width=name != "ours")
        elif name == "triton":
            f = triton_layer_norm(x, w, b, y, mean, rstd)
        else:
            def f():
                return torch.nn.functional.layer_norm(x, (cols,), w, b, 1e-5)
        r = f()
        torch.cuda.synchronize()
        err = rel_err(r if name == "torch" else y, want)
        if name != "torch":
            err = max(err, rel_err(mean, x.double().mean(dim=1)))
        out[name] = (bench(f), err)
    return out


def copy_ms(nbytes):
    """A device-to-device copy reading and writing `nbytes` together."""
    a = torch.empty(nbytes // 4, dtype=torch.int16, device="cuda")
    b = torch.empty_like(a)
    return bench(lambda: b.copy_(a))


def row(label, ms, err, nbytes, copy):
    print(f"{label:44} {ms:8.4f} {nbytes / ms / 1e9:7.1f} {100 * copy / ms:7.1f}% {err:9.2e}")


ELEMS = 1 << 26  # elements per case: 256 MiB of f32 read and written, 128 MiB of 16-bit
WIDTHS = (128, 512, 1000, 1024, 2048, 4096, 8192, 1001)  # 1001: the element-by-element tail


def main():
    ours = Ours()
    if SANITIZE:
        x = torch.randn(37, 1000, device="cuda")
        y = torch.empty_like(x)
        ours.call("softmax_f32", 37, 1000, (x, y))()
        xh, w, b = x.half(), torch.ones(1000, device="cuda").half(), torch.zeros(1000, device="cuda").half()
        yh, m, r = torch.empty_like(xh), torch.empty(37, device="cuda"), torch.empty(37, device="cuda")
        ours.call("layer_norm_f16", 37, 1000, (xh, w, b, yh, m, r))()
        x8 = torch.randn(3, 8000, device="cuda")
        y8 = torch.empty_like(x8)
        ours.call("softmax_f32", 3, 8000, (x8, y8))()
        torch.cuda.synchronize()
        ln = torch.nn.functional.layer_norm(xh.double(), (1000,), w.double(), b.double(), 1e-5)
        print("softmax", rel_err(y, torch.softmax(x.double(), 1)), "layer norm", rel_err(yh, ln),
              "softmax 8000", rel_err(y8, torch.softmax(x8.double(), 1)))
        return
    print(f"{torch.cuda.get_device_name()}; triton {triton.__version__}; median of {REPS} (CUDA events)")
    print(f"{'kernel':44} {'ms':>8} {'TB/s':>7} {'% copy':>8} {'rel err':>9}")
    summary = []
    for kind, dtypes, case in (("softmax", ("f32", "f16"), softmax_case),
                               ("layer norm", ("f16", "bf16"), layer_norm_case)):
        for dtype in dtypes:
            e = torch.empty(0, dtype=DTYPES[dtype]).element_size()
            for cols in WIDTHS:
                rows = ELEMS // cols
                nbytes = rows * cols * e * 2 + (cols * e * 2 + rows * 8 if kind == "layer norm" else 0)
                c = copy_ms(nbytes)
                row(f"copy, {kind} {dtype} {rows}x{cols}", c, 0.0, nbytes, c)
                r = case(ours, dtype, rows, cols)
                for name, (ms, err) in r.items():
                    row(f"  {name}", ms, err, nbytes, c)
                summary.append((f"{kind} {dtype} {rows}x{cols}", 100 * c / r["ours"][0],
                                r["ours"][0] / r["triton"][0], r["ours"][0] / r["torch"][0],
                                r["ours"][0] / r["ours, any-width kernel"][0]))
    print(f"\n{'case':32} {'ours % copy':>11} {'ours/triton':>11} {'ours/torch':>10} {'ours/any-width':>14}  (time ratios)")
    for name, pc, rt, rto, ra in summary:
        print(f"{name:32} {pc:10.1f}% {rt:11.3f} {rto:10.3f} {ra:14.3f}")


if __name__ == "__main__":
    main()
