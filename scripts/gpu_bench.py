#!/usr/bin/env python3
"""Run the Rust kernels' PTX on the GPU: check and time the transpose against a device-to-device
copy, our own copy kernel and Triton's Gluon transpose, all in one run.

On the device machine (it has cupy, torch and triton): python3 scripts/gpu_bench.py target/ptx/kernels.ptx
The PTX comes from `cargo xtask ptx` here (carry target/ptx).
"""
import sys
import numpy as np
import cupy as cp

PTX = sys.argv[1] if len(sys.argv) > 1 else "target/ptx/kernels.ptx"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
# --sanitize: run each kernel once, checked, for compute-sanitizer (no timing).
SANITIZE = "--sanitize" in sys.argv
REPS = 30


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


def check_transpose(fn, dtype, smem):
    """Two runs on fresh random inputs into a poisoned output; every element must be right."""
    ok = True
    for _ in range(2):
        x = cp.random.randint(0, 60000, size=(N, N), dtype=cp.int32).astype(dtype)
        y = cp.full((N, N), 0xFFFF if dtype == cp.uint16 else cp.nan, dtype=dtype)
        fn((N // 64, N // 64), (128,), (x, y, np.uint32(N)), shared_mem=smem)
        cp.cuda.Device().synchronize()
        ok = ok and bool(cp.array_equal(y, x.T))
    return ok


def check_big(fn):
    x = cp.random.randint(0, 60000, size=(N, N), dtype=cp.int32).astype(cp.uint16)
    y = cp.full((N, N), 0xFFFF, dtype=cp.uint16)
    fn((N // 128, N // 128), (256,), (x, y, np.uint32(N)), shared_mem=32768)
    cp.cuda.Device().synchronize()
    return bool(cp.array_equal(y, x.T))


def main():
    mod = cp.RawModule(path=PTX)
    transpose = mod.get_function("transpose_f32")
    transpose16 = mod.get_function("transpose_u16")
    transpose16big = mod.get_function("transpose_u16_128")
    copy = mod.get_function("copy_v4")
    if SANITIZE:
        print("f32", check_transpose(transpose, cp.float32, 16384))
        print("u16", check_transpose(transpose16, cp.uint16, 8192))
        print("u16 128", check_big(transpose16big))
        tiles = N * N // 4096
        x8 = cp.random.randint(0, 256, size=N * N, dtype=cp.int32).astype(cp.uint8)
        y8 = cp.zeros_like(x8)
        mod.get_function("fp16_to_fp8_operand")((tiles,), (128,), (x8, y8, np.uint32(tiles)))
        x16 = cp.random.randint(0, 60000, size=N * N, dtype=cp.int32).astype(cp.uint16)
        y16 = cp.zeros_like(x16)
        mod.get_function("nvmma_roundtrip")((tiles,), (128,), (x16, y16, np.uint32(tiles)), shared_mem=8192)
        cp.cuda.Device().synchronize()
        x32 = cp.random.standard_normal(N * N, dtype=cp.float32)
        y32 = cp.zeros_like(x32)
        mod.get_function("mma_acc_regperm")((tiles,), (128,), (x32, y32, np.uint32(tiles)))
        xa = cp.random.randint(0, 60000, size=N * N, dtype=cp.int32).astype(cp.uint16)
        ya = cp.zeros_like(xa)
        mod.get_function("mma_acc_to_operand")((tiles,), (128,), (xa, ya, np.uint32(tiles)))
        cp.cuda.Device().synchronize()
        print("fp8 operand", bool(cp.array_equal(x8, y8)), "nvmma", bool(cp.array_equal(x16, y16)), "regperm", bool(cp.array_equal(x32, y32)), "acc->operand", bool(cp.array_equal(xa, ya)))
        return
    print(f"rust transpose u16 correct: {check_transpose(transpose16, cp.uint16, 8192)}")
    print(f"rust transpose u16 128x128 correct: {check_big(transpose16big)}")
    rows = []
    x = cp.random.standard_normal((N, N), dtype=cp.float32)
    y = cp.full((N, N), cp.nan, dtype=cp.float32)
    nbytes = 2 * x.nbytes

    def run_t():
        transpose((N // 64, N // 64), (128,), (x, y, np.uint32(N)), shared_mem=16384)

    run_t()
    cp.cuda.Device().synchronize()
    ok = bool(cp.array_equal(y, x.T))
    # Fresh inputs for a second check.
    x2 = cp.random.standard_normal((N, N), dtype=cp.float32)
    y[...] = cp.nan
    transpose((N // 64, N // 64), (128,), (x2, y, np.uint32(N)), shared_mem=16384)
    ok = ok and bool(cp.array_equal(y, x2.T))
    print(f"rust transpose f32 correct: {ok}")
    t_copy = bench(lambda: cp.copyto(y, x))
    t_ours_copy = bench(lambda: copy((132 * 8,), (256,), (x, y, np.uint32(x.nbytes // 16))))
    t_t = bench(run_t)
    rows.append(("device-to-device copy (cupy)", t_copy))
    rows.append(("rust copy_v4", t_ours_copy))
    rows.append(("rust transpose f32 (convert!)", t_t))
    try:
        import torch
        xt = torch.as_tensor(x, device="cuda")
        rows.append(("torch x.t().contiguous() f32", bench(lambda: xt.t().contiguous())))
    except Exception as e:
        print("torch:", e)
    try:
        rows.append(("triton gluon transpose f32", triton_transpose(x, y, [1, 4], [2, 16], [4, 1], [16, 2])))
    except Exception as e:
        print("triton:", repr(e)[:300])
    # 16-bit: the same bytes moved.
    x16 = cp.random.randint(0, 60000, size=(N, N), dtype=cp.int32).astype(cp.uint16)
    y16 = cp.empty_like(x16)
    nb16 = 2 * x16.nbytes
    t_copy16 = bench(lambda: cp.copyto(y16, x16))
    rows16 = [("device-to-device copy (cupy) 16-bit", t_copy16)]
    rows16.append(("rust transpose u16 (convert!)", bench(lambda: transpose16((N // 64, N // 64), (128,), (x16, y16, np.uint32(N)), shared_mem=8192))))
    rows16.append(("rust transpose u16 128x128, 8 warps", bench(lambda: transpose16big((N // 128, N // 128), (256,), (x16, y16, np.uint32(N)), shared_mem=32768))))
    try:
        import torch
        h = torch.as_tensor(x16, device="cuda").view(torch.float16)
        rows16.append(("torch x.t().contiguous() f16", bench(lambda: h.t().contiguous())))
        rows16.append(("triton gluon transpose f16", triton_transpose(h, torch.empty_like(h), [1, 8], [4, 8], [8, 1], [8, 4])))
    except Exception as e:
        print("triton f16:", repr(e)[:300])
    crow = conversions(mod)
    print(f"\nN = {N}, f32, bytes moved per op = {nbytes / 1e9:.2f} GB (read + write); median of {REPS}")
    print(f"{'kernel':40} {'ms':>8} {'TB/s':>7} {'% of copy':>9}")
    for name, t in rows:
        print(f"{name:40} {t:8.3f} {nbytes / t / 1e9:7.2f} {100 * t_copy / t:8.1f}%")
    for name, t in rows16:
        print(f"{name:40} {t:8.3f} {nb16 / t / 1e9:7.2f} {100 * t_copy16 / t:8.1f}%")
    print("\nconversion kernels (time ratio: ours / Triton's)")
    for i, (name, t, nb) in enumerate(crow):
        ratio = ""
        if name.startswith("triton") and i > 0 and crow[i - 1][0].startswith("rust"):
            ratio = f"ours/triton = {crow[i - 1][1] / t:.3f}"
        print(f"{name:40} {t:8.3f} {nb / t / 1e9:7.2f} TB/s {ratio}")


def conversions(mod):
    """The conversion kernels over N*N elements in 64x64 tiles, ours and Triton's Gluon ones;
    returns rows (name, ms, bytes moved)."""
    import torch
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    tiles = N * N // 4096
    rows = []
    # fp16 -> fp8 operand conversion on 8-bit values.
    x8 = cp.random.randint(0, 256, size=N * N, dtype=cp.int32).astype(cp.uint8)
    y8 = cp.full(N * N, 0, dtype=cp.uint8)
    f = mod.get_function("fp16_to_fp8_operand")
    run = lambda: f((tiles,), (128,), (x8, y8, np.uint32(tiles)))
    run()
    cp.cuda.Device().synchronize()
    print(f"rust fp16->fp8 operand correct: {bool(cp.array_equal(x8, y8))}")
    rows.append(("rust fp16->fp8 operand (shuffles)", bench(run), 2 * x8.nbytes))

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

    try:
        mma = ttgl.NVMMADistributedLayout([2, 0], [4, 1], [16, 8])
        a, b = ttgl.DotOperandLayout(0, mma, 2), ttgl.DotOperandLayout(0, mma, 4)
        xt = torch.as_tensor(x8, device="cuda").view(torch.int8)
        yt = torch.zeros_like(xt)
        trun = lambda: op_cvt[(tiles,)](xt, yt, a, b, num_warps=4)
        trun()
        torch.cuda.synchronize()
        assert torch.equal(xt, yt), "triton fp16->fp8 operand wrong"
        rows.append(("triton fp16->fp8 operand", bench(trun), 2 * x8.nbytes))
    except Exception as e:
        print("triton op_cvt:", repr(e)[:300])

    # Accumulator to dot operand A (16-bit; the layouts coincide).
    xa = cp.random.randint(0, 60000, size=N * N, dtype=cp.int32).astype(cp.uint16)
    ya = cp.zeros_like(xa)
    ka = mod.get_function("mma_acc_to_operand")
    run = lambda: ka((tiles,), (128,), (xa, ya, np.uint32(tiles)))
    run()
    cp.cuda.Device().synchronize()
    print(f"rust mma accumulator -> operand correct: {bool(cp.array_equal(xa, ya))}")
    rows.append(("rust mma acc -> dot operand A", bench(run), 2 * xa.nbytes))
    try:
        acc = ttgl.NVMMADistributedLayout([2, 0], [4, 1], [16, 8])
        opa = ttgl.DotOperandLayout(0, acc, 2)
        xt = torch.as_tensor(xa, device="cuda").view(torch.float16)
        yt = torch.zeros_like(xt)
        trun = lambda: op_cvt[(tiles,)](xt, yt, acc, opa, num_warps=4)
        trun()
        torch.cuda.synchronize()
        assert torch.equal(xt.view(torch.int16), yt.view(torch.int16)), "triton acc -> operand wrong"
        rows.append(("triton mma acc -> dot operand A", bench(trun), 2 * xa.nbytes))
    except Exception as e:
        print("triton acc->operand:", repr(e)[:300])

    # Register-only: the accumulator with its registers reordered (f32).
    x32 = cp.random.standard_normal(N * N, dtype=cp.float32)
    y32 = cp.full(N * N, cp.nan, dtype=cp.float32)
    h = mod.get_function("mma_acc_regperm")
    run = lambda: h((tiles,), (128,), (x32, y32, np.uint32(tiles)))
    run()
    cp.cuda.Device().synchronize()
    print(f"rust mma accumulator permutation correct: {bool(cp.array_equal(x32, y32))}")
    rows.append(("rust mma acc register permutation", bench(run), 2 * x32.nbytes))
    try:
        acc = ttgl.NVMMADistributedLayout([2, 0], [4, 1], [16, 8])
        perm = ttgl.DistributedLinearLayout([[0, 1], [0, 8], [0, 16], [0, 32], [8, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0]], [], [64, 64])
        xt = torch.as_tensor(x32, device="cuda")
        yt = torch.zeros_like(xt)
        trun = lambda: op_cvt[(tiles,)](xt, yt, acc, perm, num_warps=4)
        trun()
        torch.cuda.synchronize()
        assert torch.equal(xt, yt), "triton accumulator permutation wrong"
        rows.append(("triton mma acc register permutation", bench(trun), 2 * x32.nbytes))
    except Exception as e:
        print("triton regperm:", repr(e)[:300])

    # Round trip through nvmma_shared with the 128-byte swizzle.
    x16 = cp.random.randint(0, 60000, size=N * N, dtype=cp.int32).astype(cp.uint16)
    y16 = cp.full(N * N, 0, dtype=cp.uint16)
    g = mod.get_function("nvmma_roundtrip")
    run = lambda: g((tiles,), (128,), (x16, y16, np.uint32(tiles)), shared_mem=8192)
    run()
    cp.cuda.Device().synchronize()
    print(f"rust nvmma round trip correct: {bool(cp.array_equal(x16, y16))}")
    rows.append(("rust nvmma_shared 128B round trip", bench(run), 2 * x16.nbytes))

    @gluon.jit
    def rt(src, dst, L: ttgl.constexpr, S: ttgl.constexpr):
        base = ttgl.program_id(0) * 4096
        rm = ttgl.arange(0, 64, layout=ttgl.SliceLayout(1, L))
        rn = ttgl.arange(0, 64, layout=ttgl.SliceLayout(0, L))
        offs = base + rm[:, None] * 64 + rn[None, :]
        t = ttgl.load(src + offs)
        smem = ttgl.allocate_shared_memory(src.dtype.element_ty, [64, 64], S, t)
        ttgl.store(dst + offs, smem.load(L))

    try:
        lay = ttgl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
        sl = ttgl.NVMMASharedLayout(128, 16, 2)
        xt = torch.as_tensor(x16, device="cuda").view(torch.float16)
        yt = torch.zeros_like(xt)
        trun = lambda: rt[(tiles,)](xt, yt, lay, sl, num_warps=4)
        trun()
        torch.cuda.synchronize()
        assert torch.equal(xt.view(torch.int16), yt.view(torch.int16)), "triton round trip wrong"
        rows.append(("triton nvmma_shared 128B round trip", bench(trun), 2 * x16.nbytes))
    except Exception as e:
        print("triton round trip:", repr(e)[:300])
    return rows


def triton_transpose(x, y, spt_in, tpw_in, spt_out, tpw_out):
    import torch
    import triton
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
    xt = torch.as_tensor(x, device="cuda")
    yt = torch.as_tensor(y, device="cuda")
    n = x.shape[0]
    grid = (n // 64, n // 64)
    run = lambda: k[grid](xt, yt, n, src, dst, num_warps=4)
    run()
    torch.cuda.synchronize()
    # Compare bits (16-bit inputs are random bit patterns, NaNs among them).
    same = torch.equal(yt.view(torch.int16), xt.t().contiguous().view(torch.int16)) if yt.dtype == torch.float16 else torch.equal(yt, xt.t())
    assert same, "triton transpose wrong"
    return bench(run)


if __name__ == "__main__":
    main()
