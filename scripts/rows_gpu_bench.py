#!/usr/bin/env python3
"""Our row kernels (kernels/src/rows.rs: softmax_f32, layer_norm_f16) on the GPU next to Triton's
tutorial kernels (02 fused softmax, 05 layer norm forward), torch, and a device-to-device copy of
the same bytes, all in one run.

On the device machine (cupy, torch and triton there):
    python3 scripts/rows_gpu_bench.py [PTX] [--sanitize]
PTX from `cargo xtask ptx` here (carry target/ptx). Each kernel is checked on fresh random inputs
into a poisoned output against torch in float64 before it is timed; times are the median of 30
CUDA-event timings after 3 warm-ups; bytes are what must move (input read once, output written
once, plus weight, bias, mean and rstd for layer norm); "% of copy" divides the copy's time by
the kernel's. --sanitize: each of our kernels once at a small shape (for compute-sanitizer).
"""
import sys

import cupy as cp
import numpy as np
import torch
import triton
import triton.language as tl

PTX = next((a for a in sys.argv[1:] if not a.startswith("--")), "target/ptx/kernels.ptx")
SANITIZE = "--sanitize" in sys.argv
REPS = 30
ROWS_PER_CTA = 4  # kernels/src/rows.rs
MAX_COLS = 1024


def bench(fn, reps=REPS, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return float(np.median(times))


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    """Tutorial 02's kernel, one program per row."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y, mask=mask)


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    """Tutorial 05's `_layer_norm_fwd_fused`, verbatim but for names."""
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def triton_softmax(x, y):
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    warps = 4 if block < 2048 else (8 if block < 4096 else 16)
    return lambda: softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                             BLOCK=block, num_warps=warps)


def triton_layer_norm(x, w, b, y, mean, rstd):
    n_rows, n_cols = x.shape
    block = min(65536 // x.element_size(), triton.next_power_of_2(n_cols))
    warps = min(max(block // 256, 1), 8)
    return lambda: layer_norm_fwd[(n_rows,)](x, y, w, b, mean, rstd, x.stride(0), n_cols, 1e-5,
                                             BLOCK_SIZE=block, num_warps=warps)


def cp_of(t):
    return cp.asarray(t)


class Ours:
    def __init__(self):
        self.mod = cp.RawModule(path=PTX)
        self.softmax = self.mod.get_function("softmax_f32")
        self.layer_norm = self.mod.get_function("layer_norm_f16")

    def softmax_call(self, x, y):
        r, c = x.shape
        grid = ((r + ROWS_PER_CTA - 1) // ROWS_PER_CTA,)
        args = (cp_of(x), cp_of(y), np.uint32(r), np.uint32(c))
        return lambda: self.softmax(grid, (128,), args)

    def layer_norm_call(self, x, w, b, y, mean, rstd):
        r, c = x.shape
        grid = ((r + ROWS_PER_CTA - 1) // ROWS_PER_CTA,)
        args = tuple(cp_of(t) for t in (x, w, b, y, mean, rstd)) + (np.uint32(r), np.uint32(c))
        return lambda: self.layer_norm(grid, (128,), args)


def rel_err(got, want):
    got, want = got.double(), want.double()
    if not torch.isfinite(got).all():
        return float("inf")
    return float((got - want).abs().max() / want.abs().max().clamp_min(1e-30))


def softmax_case(ours, rows, cols):
    x = torch.randn(rows, cols, device="cuda", dtype=torch.float32) * 4
    want = torch.softmax(x.double(), dim=1)
    out = {}
    for name in ("ours", "triton", "torch"):
        y = torch.full_like(x, float("nan"))
        if name == "ours":
            f = ours.softmax_call(x, y)
        elif name == "triton":
            f = triton_softmax(x, y)
        else:
            def f():
                return torch.softmax(x, dim=1)
        r = f()
        torch.cuda.synchronize()
        out[name] = (bench(f), rel_err(r if name == "torch" else y, want))
    return out


def layer_norm_case(ours, rows, cols):
    x = (torch.randn(rows, cols, device="cuda") * 2 + 0.5).half()
    w = torch.rand(cols, device="cuda").half() + 0.5
    b = torch.randn(cols, device="cuda").half()
    want = torch.nn.functional.layer_norm(x.double(), (cols,), w.double(), b.double(), 1e-5)
    out = {}
    for name in ("ours", "triton", "torch"):
        y = torch.full_like(x, float("nan"))
        mean = torch.full((rows,), float("nan"), device="cuda")
        rstd = torch.full((rows,), float("nan"), device="cuda")
        if name == "ours":
            f = ours.layer_norm_call(x, w, b, y, mean, rstd)
        elif name == "triton":
            f = triton_layer_norm(x, w, b, y, mean, rstd)
        else:
            def f():
                return torch.nn.functional.layer_norm(x, (cols,), w, b, 1e-5)
        r = f()
        torch.cuda.synchronize()
        if name == "torch":
            y = r
        err = rel_err(y, want)
        if name != "torch":
            mu = x.double().mean(dim=1)
            err = max(err, rel_err(mean, mu))
        out[name] = (bench(f), err)
    return out


def copy_ms(nbytes):
    a = torch.empty(nbytes // 2, dtype=torch.int16, device="cuda")
    b = torch.empty_like(a)
    return bench(lambda: b.copy_(a))


def row(label, ms, err, nbytes, copy):
    print(f"{label:44} {ms:8.4f} {nbytes / ms / 1e9:7.2f} {100 * copy / ms:7.1f}% {err:9.2e}")


def main():
    ours = Ours()
    if SANITIZE:
        x = torch.randn(37, 1000, device="cuda")
        y = torch.empty_like(x)
        ours.softmax_call(x, y)()
        xh, w, b = x.half(), torch.ones(1000, device="cuda").half(), torch.zeros(1000, device="cuda").half()
        yh, m, r = torch.empty_like(xh), torch.empty(37, device="cuda"), torch.empty(37, device="cuda")
        ours.layer_norm_call(xh, w, b, yh, m, r)()
        torch.cuda.synchronize()
        print("softmax", rel_err(y, torch.softmax(x.double(), 1)), "layer norm", rel_err(yh, torch.nn.functional.layer_norm(xh.double(), (1000,), w.double(), b.double(), 1e-5)))
        return
    print(f"{torch.cuda.get_device_name()}; triton {triton.__version__}; median of {REPS} (CUDA events)")
    print(f"{'kernel':44} {'ms':>8} {'GB/s':>7} {'% copy':>8} {'rel err':>9}")
    for rows, cols in ((32768, 1024), (65536, 1000), (131072, 512), (262144, 128)):
        nbytes = rows * cols * 4 * 2
        c = copy_ms(nbytes)
        row(f"copy, softmax f32 {rows}x{cols}", c, 0.0, nbytes, c)
        r = softmax_case(ours, rows, cols)
        for name, (ms, err) in r.items():
            row(f"  {name}", ms, err, nbytes, c)
        print(f"  ours / triton time {r['ours'][0] / r['triton'][0]:.3f}")
    for rows, cols in ((65536, 1024), (65536, 1000), (131072, 512), (262144, 128)):
        nbytes = rows * cols * 2 * 2 + cols * 4 + rows * 8
        c = copy_ms(nbytes)
        row(f"copy, layer norm f16 {rows}x{cols}", c, 0.0, nbytes, c)
        r = layer_norm_case(ours, rows, cols)
        for name, (ms, err) in r.items():
            row(f"  {name}", ms, err, nbytes, c)
        print(f"  ours / triton time {r['ours'][0] / r['triton'][0]:.3f}")


if __name__ == "__main__":
    main()
