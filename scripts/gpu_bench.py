#!/usr/bin/env python3
"""Run the Rust kernels' PTX on the GPU next to a device-to-device copy, torch and Triton's Gluon
kernels doing the same work, all in one run.

On the device machine (it has cupy, torch and triton):
    python3 scripts/gpu_bench.py [PTX] [N] [--sanitize] [--gpu-bench PATH]
The PTX comes from `cargo xtask ptx` here (carry target/ptx), and the list of kernels with their
launches (grid, block, cluster, dynamic shared memory, argument) and what each must output from
`gpu-bench --list N` (`runner::table`; PATH defaults to target/release/gpu-bench, built by
`cargo xtask gpu`; listing needs no GPU). Kernels that run in clusters are launched by gpu-bench
only (cupy has no cluster launch); kernels whose reference this script does not know
(`index_math`) are checked by gpu-bench only.

--sanitize: run each kernel once, checked, for compute-sanitizer (no timing).
"""
import json
import subprocess
import sys

import numpy as np
import cupy as cp

FLAGS = {"--sanitize"}
ARGS = [a for a in sys.argv[1:] if a not in FLAGS]
GPU_BENCH = "target/release/gpu-bench"
if "--gpu-bench" in ARGS:
    i = ARGS.index("--gpu-bench")
    GPU_BENCH = ARGS[i + 1]
    del ARGS[i : i + 2]
PTX = ARGS[0] if len(ARGS) > 0 else "target/ptx/kernels.ptx"
N = int(ARGS[1]) if len(ARGS) > 1 else 16384
SANITIZE = "--sanitize" in sys.argv
REPS = 30

# The table's element types as cupy arrays (f32 buffers hold random bit patterns: compare bits).
DTYPES = {"u8": cp.uint8, "u16": cp.uint16, "u32": cp.uint32, "f32": cp.float32, "u64": cp.uint64}
BITS = {"u8": cp.uint8, "u16": cp.uint16, "u32": cp.uint32, "f32": cp.uint32, "u64": cp.uint64}


def table():
    """The kernels of `runner::table` with their launches for N x N elements."""
    out = subprocess.run([GPU_BENCH, "--list", str(N)], check=True, capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def bench(fn, reps=REPS, warm=3):
    for _ in range(warm):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(times))


def fresh_input(k):
    """Random bits, no element all ones (the poison)."""
    bits = BITS[k["elem"]]
    top = int(np.iinfo(bits).max)  # exclusive: never all ones
    x = cp.random.randint(0, top, size=k["input_elems"], dtype=cp.int64).astype(bits)
    return x.view(DTYPES[k["elem"]])


def poisoned_output(k):
    return cp.full(k["output_elems"], np.iinfo(BITS[k["elem"]]).max, dtype=BITS[k["elem"]]).view(DTYPES[k["elem"]])


def expected(k, x):
    """The table's reference for input `x` (flat), or None where only gpu-bench knows it."""
    ref = k["reference"]
    if ref == "identity":
        return x
    if ref == "transpose":
        return x.reshape(N, N).T.reshape(-1)
    if ref == "tile_transpose":
        s = k["tile_side"]
        return x.reshape(-1, s, s).transpose(0, 2, 1).reshape(-1)
    return None


def same_bits(k, y, want):
    bits = BITS[k["elem"]]
    return bool(cp.array_equal(y.view(bits), cp.ascontiguousarray(want).view(bits)))


class Ours:
    """One kernel of the table, launched as the table says."""

    def __init__(self, mod, k):
        self.k = k
        self.f = mod.get_function(k["name"])

    def launch(self, x, y):
        k = self.k
        args = ((x,) if k["input_elems"] else ()) + (y,)
        if k["arg"] is not None:
            args += (np.uint32(k["arg"]),)
        self.f(tuple(k["grid"]), tuple(k["block"]), args, shared_mem=k["shared_bytes"])

    def check(self, runs=2):
        """`runs` launches on fresh random inputs into a poisoned output; every element must be
        right. Returns the last (x, y)."""
        ok = True
        for _ in range(runs):
            x, y = fresh_input(self.k), poisoned_output(self.k)
            self.launch(x, y)
            cp.cuda.Device().synchronize()
            ok = ok and same_bits(self.k, y, expected(self.k, x))
        return ok, x, y


def runnable(k):
    if k["cluster"] != [1, 1, 1]:
        return f"{k['name']}: runs in clusters of {k['cluster']} CTAs, launched by gpu-bench only"
    if k["reference"] not in ("identity", "transpose", "tile_transpose"):
        return f"{k['name']}: reference {k['reference']} is checked by gpu-bench only"
    return None


def main():
    mod = cp.RawModule(path=PTX)
    kernels = table()
    if SANITIZE:
        for k in kernels:
            why = runnable(k)
            print(why if why else f"{k['name']} {Ours(mod, k).check(runs=1)[0]}")
        return
    copies = {}
    print(f"N = {N}; bytes = read + written; median of {REPS} (cupy events)")
    print(f"{'kernel':54} {'ms':>8} {'TB/s':>7} {'% of copy':>9}  ours / other")
    for k in kernels:
        why = runnable(k)
        if why:
            print(why)
            continue
        ours = Ours(mod, k)
        ok, x, y = ours.check()
        nbytes = k["bytes_moved"]
        if nbytes not in copies:
            copies[nbytes] = bench(lambda: cp.copyto(y, x))
            row(f"device-to-device copy (cupy), {k['elem']}", copies[nbytes], nbytes, copies[nbytes])
        t = bench(lambda: ours.launch(x, y))
        row(f"ours: {k['label']}" + ("" if ok else " WRONG"), t, nbytes, copies[nbytes])
        for label, make in OTHERS.get(k["name"], []):
            try:
                other = bench(make(x, y))
                row(label, other, nbytes, copies[nbytes], t / other)
            except Exception as e:
                print(f"{label}: {repr(e)[:300]}")


def row(name, t, nbytes, t_copy, ratio=None):
    r = "" if ratio is None else f"  {ratio:.3f}"
    print(f"{name:54} {t:8.3f} {nbytes / t / 1e9:7.2f} {100 * t_copy / t:8.1f}%{r}")


# Others doing a kernel's work: make(x, y) gets our input and an output buffer (flat cupy
# arrays), runs once, checks, and returns the callable to time.


def torch_transpose(dtype):
    def make(x, y):
        import torch

        xt = torch.as_tensor(x, device="cuda").view(getattr(torch, dtype)).reshape(N, N)
        return lambda: xt.t().contiguous()

    return make


def triton_transpose(spt_in, tpw_in, spt_out, tpw_out, dtype):
    """Triton's Gluon transpose with the same 64x64 tiles, 4 warps and layouts as ours."""

    def make(x, y):
        import torch
        from triton.experimental import gluon
        from triton.experimental.gluon import language as ttgl

        @gluon.jit
        def k(src, dst, N: ttgl.constexpr, SRC: ttgl.constexpr, DST: ttgl.constexpr):
            pm = ttgl.program_id(1) * 64
            pn = ttgl.program_id(0) * 64
            rm = ttgl.arange(0, 64, layout=ttgl.SliceLayout(1, SRC))
            rn = ttgl.arange(0, 64, layout=ttgl.SliceLayout(0, SRC))
            t = ttgl.load(src + (pm + rm)[:, None] * N + (pn + rn)[None, :])
            t = ttgl.convert_layout(t, DST)
            dm = ttgl.arange(0, 64, layout=ttgl.SliceLayout(1, DST))
            dn = ttgl.arange(0, 64, layout=ttgl.SliceLayout(0, DST))
            ttgl.store(dst + (pn + dn)[None, :] * N + (pm + dm)[:, None], t)

        src = ttgl.BlockedLayout(spt_in, tpw_in, [4, 1], [1, 0])
        dst = ttgl.BlockedLayout(spt_out, tpw_out, [1, 4], [0, 1])
        xt = torch.as_tensor(x, device="cuda").view(getattr(torch, dtype)).reshape(N, N)
        yt = torch.empty_like(xt)
        run = lambda: k[(N // 64, N // 64)](xt, yt, N, src, dst, num_warps=4)
        run()
        torch.cuda.synchronize()
        ints = {2: torch.int16, 4: torch.int32}[xt.element_size()]
        assert torch.equal(yt.view(ints), xt.t().contiguous().view(ints)), "triton transpose wrong"
        return run

    return make


def triton_tiles(kernel, layouts, dtype):
    """Gluon kernel `kernel` of `gluon_kernels()` over N*N elements in 64x64 tiles, one per
    program, with the layouts `layouts(ttgl)` returns; checked: out == in."""

    def make(x, y):
        import torch
        from triton.experimental.gluon import language as ttgl

        xt = torch.as_tensor(x, device="cuda").view(getattr(torch, dtype))
        yt = torch.zeros_like(xt)
        f, args = gluon_kernels()[kernel], layouts(ttgl)
        run = lambda: f[(N * N // 4096,)](xt, yt, *args, num_warps=4)
        run()
        torch.cuda.synchronize()
        ints = {1: torch.int8, 2: torch.int16, 4: torch.int32}[xt.element_size()]
        assert torch.equal(xt.view(ints), yt.view(ints)), f"triton {kernel} wrong"
        return run

    return make


_GLUON = {}


def gluon_kernels():
    """`op_cvt`: load in layout A, convert_layout to B, store; `rt`: load in L, through shared
    memory of layout S, load back in L, store."""
    if _GLUON:
        return _GLUON
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    @gluon.jit
    def op_cvt(src, dst, A: ttgl.constexpr, B: ttgl.constexpr):
        base = ttgl.program_id(0) * 4096
        rm = ttgl.arange(0, 64, layout=ttgl.SliceLayout(1, A))
        rn = ttgl.arange(0, 64, layout=ttgl.SliceLayout(0, A))
        t = ttgl.load(src + base + rm[:, None] * 64 + rn[None, :])
        t = ttgl.convert_layout(t, B)
        dm = ttgl.arange(0, 64, layout=ttgl.SliceLayout(1, B))
        dn = ttgl.arange(0, 64, layout=ttgl.SliceLayout(0, B))
        ttgl.store(dst + base + dm[:, None] * 64 + dn[None, :], t)

    @gluon.jit
    def rt(src, dst, L: ttgl.constexpr, S: ttgl.constexpr):
        base = ttgl.program_id(0) * 4096
        rm = ttgl.arange(0, 64, layout=ttgl.SliceLayout(1, L))
        rn = ttgl.arange(0, 64, layout=ttgl.SliceLayout(0, L))
        offs = base + rm[:, None] * 64 + rn[None, :]
        t = ttgl.load(src + offs)
        smem = ttgl.allocate_shared_memory(src.dtype.element_ty, [64, 64], S, t)
        ttgl.store(dst + offs, smem.load(L))

    _GLUON.update(op_cvt=op_cvt, rt=rt)
    return _GLUON


def acc(ttgl):
    """The Ampere accumulator of conversions.rs: 4 warps along M."""
    return ttgl.NVMMADistributedLayout([2, 0], [4, 1], [16, 8])


def acc_perm(ttgl):
    """conversions.rs's AccPerm: the accumulator's registers reordered."""
    return ttgl.DistributedLinearLayout(
        [[0, 1], [0, 8], [0, 16], [0, 32], [8, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0]], [], [64, 64]
    )


# The same work done by others, by the table's kernel name: (label, make).
OTHERS = {
    "transpose_f32": [
        ("torch x.t().contiguous() f32", torch_transpose("float32")),
        ("triton gluon transpose f32", triton_transpose([1, 4], [2, 16], [4, 1], [16, 2], "float32")),
    ],
    "transpose_u16": [
        ("torch x.t().contiguous() f16", torch_transpose("float16")),
        ("triton gluon transpose f16, 64x64", triton_transpose([1, 8], [4, 8], [8, 1], [8, 4], "float16")),
    ],
    "fp16_to_fp8_operand": [
        ("triton, same conversion", triton_tiles("op_cvt", lambda t: (t.DotOperandLayout(0, acc(t), 2), t.DotOperandLayout(0, acc(t), 4)), "int8")),
    ],
    "mma_acc_to_operand": [
        ("triton, same conversion", triton_tiles("op_cvt", lambda t: (acc(t), t.DotOperandLayout(0, acc(t), 2)), "float16")),
    ],
    "mma_acc_regperm": [
        ("triton, same conversion", triton_tiles("op_cvt", lambda t: (acc(t), acc_perm(t)), "float32")),
    ],
    "mma_acc_to_rows": [
        ("triton, same conversion", triton_tiles("op_cvt", lambda t: (t.NVMMADistributedLayout([2, 0], [2, 2], [16, 8]), t.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])), "float32")),
    ],
    "nvmma_roundtrip": [
        ("triton, same round trip", triton_tiles("rt", lambda t: (t.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), t.NVMMASharedLayout(128, 16, 2)), "float16")),
    ],
}


if __name__ == "__main__":
    main()
