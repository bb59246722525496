#!/usr/bin/env python3
r"""Our GEMM kernels (timed by the Rust host binary gemm-bench) next to Triton's tutorial matmul
(autotuned) and torch.matmul (cuBLAS), M = N = K, f16 and bf16, B row- and column-major.

On the device machine (an NVIDIA GPU; triton, torch; gemm-bench built elsewhere by cargo):
    python3 scripts/gemm_gpu_bench.py --bench target/release/gemm-bench --ptx target/ptx/kernels.ptx \
        --sizes 4096 8192 [--dtypes f16 bf16] [--json OUT.json] [--sanitize]

Ours: `gemm-bench PTX --json SIZES...` prints one JSON object per line with the keys kernel, dtype
("f16"|"bf16"), b ("row"|"col"), m, n, k, ms (median, CUDA events), tflops, max_err, ok (other
lines are ignored). Triton: 03-matrix-multiplication's `matmul_kernel` (GROUP_SIZE_M order, the
tutorial's masks, f32 accumulator, output in the input dtype, no ACTIVATION) autotuned over the
tutorial's `get_cuda_autotune_config()`; the autotune key adds B's strides so the row- and
column-major B each get their own winner. B row-major is a contiguous [K, N] tensor, column-major
a contiguous [N, K] tensor's `.T`. Triton and cuBLAS are timed with `triton.testing.do_bench`
(default warmup/rep, median), TFLOP/s = 2*M*N*K / ms * 1e-9, and their outputs are compared:
max |triton - cublas| / max |cublas|. cuBLAS is also timed as gemm-bench times ours (events
around back-to-back calls, no L2 flush): "cuBLAS, timed as ours". Ratios: ours/X = X ms / our ms (> 1: ours is faster).
--sanitize: compute-sanitizer memcheck and racecheck on `gemm-bench PTX --check-only 256`.
No GPU: exit 2. No torch: only our rows (Triton's launcher and do_bench need torch too).
"""
import argparse
import ctypes
import json
import os
import shutil
import subprocess
import sys

import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton_matmul  # noqa: E402
from gpu_timing import events_ms  # noqa: E402

OK_REL = 1e-2  # Triton vs cuBLAS: max abs diff relative to max |cuBLAS| allowed
KEYS = ("kernel", "dtype", "b", "m", "n", "k", "ms", "tflops", "max_err", "ok")


def get_cuda_autotune_config():
    """The tutorial's CUDA configs, verbatim."""
    return [
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 64, 'GROUP_SIZE_M': 8}, num_stages=3,
                      num_warps=8),
        triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=4,
                      num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=4,
                      num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=4,
                      num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=4,
                      num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=4,
                      num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=5,
                      num_warps=2),
        triton.Config({'BLOCK_SIZE_M': 32, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=5,
                      num_warps=2),
        # Good config for fp8 inputs.
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 128, 'GROUP_SIZE_M': 8}, num_stages=3,
                      num_warps=8),
        triton.Config({'BLOCK_SIZE_M': 256, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 128, 'GROUP_SIZE_M': 8}, num_stages=3,
                      num_warps=8),
        triton.Config({'BLOCK_SIZE_M': 256, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 128, 'GROUP_SIZE_M': 8}, num_stages=4,
                      num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 128, 'GROUP_SIZE_M': 8}, num_stages=4,
                      num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 128, 'GROUP_SIZE_M': 8}, num_stages=4,
                      num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 64, 'GROUP_SIZE_M': 8}, num_stages=4,
                      num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 64, 'GROUP_SIZE_M': 8}, num_stages=4,
                      num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 64, 'GROUP_SIZE_M': 8}, num_stages=4,
                      num_warps=4)
    ]


# The tutorial's kernel, masks kept; the key includes B's strides so that each B order gets its own
# winner (Triton's key would otherwise share one between them).
matmul_kernel = triton.autotune(configs=get_cuda_autotune_config(),
                                key=['M', 'N', 'K', 'stride_bk', 'stride_bn'])(triton_matmul.matmul_kernel)


def gpu_name():
    """The first CUDA device's name through the driver API, or None (no driver or no device)."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    count, dev, name = ctypes.c_int(0), ctypes.c_int(0), ctypes.create_string_buffer(256)
    if cu.cuInit(0) != 0 or cu.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value < 1:
        return None
    if cu.cuDeviceGet(ctypes.byref(dev), 0) != 0 or cu.cuDeviceGetName(name, 256, dev) != 0:
        return "CUDA device 0"
    return name.value.decode()


def run_ours(bench, ptx, sizes):
    """gemm-bench's JSON lines as dicts; prints its stderr when it fails or gives nothing."""
    cmd = [bench, ptx, "--json", *map(str, sizes)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        print(f"gemm-bench: cannot run {' '.join(cmd)}: {e}", file=sys.stderr)
        return []
    rows = []
    for line in out.stdout.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        missing = [key for key in KEYS if key not in row] if isinstance(row, dict) else list(KEYS)
        if missing:
            print(f"gemm-bench: line without {missing} skipped: {line[:200]}", file=sys.stderr)
        else:
            rows.append(row)
    if out.returncode != 0 or not rows:
        print(f"gemm-bench: exit {out.returncode}, {len(rows)} rows; stderr:\n{out.stderr}", file=sys.stderr)
    return rows


def operands(torch, size, dtype, b_order):
    """A [M, K] row-major and B [K, N], row-major or the transpose of a contiguous [N, K]."""
    a = torch.randn((size, size), device="cuda", dtype=dtype)
    b = torch.randn((size, size), device="cuda", dtype=dtype)
    return a, (b if b_order == "row" else b.T)


def triton_matmul(a, b):
    """The tutorial's wrapper: launch the autotuned kernel into a fresh C of A's dtype."""
    (M, K), (_, N) = a.shape, b.shape
    c = a.new_empty((M, N))
    grid = lambda META: (triton.cdiv(M, META['BLOCK_SIZE_M']) * triton.cdiv(N, META['BLOCK_SIZE_N']), )
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1), MASKED=True)
    return c


def config_name(cfg):
    """The winning config as BMxBNxBK gG wWARPS sSTAGES."""
    kw = cfg.kwargs
    return (f"{kw['BLOCK_SIZE_M']}x{kw['BLOCK_SIZE_N']}x{kw['BLOCK_SIZE_K']} g{kw['GROUP_SIZE_M']} "
            f"w{cfg.num_warps} s{cfg.num_stages}")


def timed(fn, m, n, k, **extra):
    """Median ms of `fn` by triton.testing.do_bench, with TFLOP/s."""
    ms = triton.testing.do_bench(fn, return_mode="median")
    return dict(m=m, n=n, k=k, ms=ms, tflops=2 * m * n * k / ms * 1e-9, **extra)


def run_others(torch, sizes, dtypes):
    """Triton (autotuned) and cuBLAS rows for each size, dtype and B order; outputs compared."""
    rows = []
    for size in sizes:
        for name in dtypes:
            for order in ("row", "col"):
                try:
                    rows += compare_one(torch, size, name, order)
                except Exception as e:  # one failing case (compile, memory) must not lose the others
                    print(f"Triton/cuBLAS {size} {name} B {order}: {repr(e)[:300]}", file=sys.stderr)
    return rows


def compare_one(torch, size, name, order):
    """Triton's and cuBLAS's rows for one case; both carry the same output comparison."""
    key = dict(dtype=name, b=order)
    a, b = operands(torch, size, getattr(torch, {"f16": "float16", "bf16": "bfloat16"}[name]), order)
    c_tri, c_ref = triton_matmul(a, b), torch.matmul(a, b)  # the first call autotunes
    diff = (c_tri.float() - c_ref.float()).abs().max().item()
    rel = diff / max(c_ref.float().abs().max().item(), 1e-30)
    check = dict(max_err=diff, rel_err=rel, ok=rel <= OK_REL)
    tri = timed(lambda: triton_matmul(a, b), size, size, size, kernel="triton", **key,
                config=config_name(matmul_kernel.best_config), **check)
    mm = lambda: torch.matmul(a, b)  # noqa: E731
    blas = timed(mm, size, size, size, kernel="cublas", **key, **check)
    ms = events_ms(torch, mm, reps=10)  # as gemm-bench: median of 10
    same = dict(m=size, n=size, k=size, ms=ms, tflops=2 * size**3 / ms * 1e-9)
    return [tri, blas, dict(kernel="cublas_events", **same, **key, **check)]


def sanitize(bench, ptx, size):
    """compute-sanitizer memcheck and racecheck on `gemm-bench PTX --check-only SIZE`."""
    tool = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    if not os.path.exists(tool):
        print("compute-sanitizer not found (PATH, /usr/local/cuda/bin): --sanitize skipped")
        return {"error": "compute-sanitizer not found"}
    res = {}
    for check in ("memcheck", "racecheck"):
        try:
            out = subprocess.run([tool, "--tool", check, bench, ptx, "--check-only", str(size)],
                                 capture_output=True, text=True)
        except OSError as e:
            res[check] = dict(clean=False, rc=None, tail=str(e))
            print(f"compute-sanitizer --tool {check}: cannot run: {e}")
            continue
        text = out.stdout + out.stderr
        clean = "ERROR SUMMARY: 0 errors" in text or "RACECHECK SUMMARY: 0 hazards" in text
        res[check] = dict(clean=clean, rc=out.returncode, tail=text[-3000:])
        print(f"compute-sanitizer --tool {check}: {'0 errors' if clean else 'ERRORS'} (exit {out.returncode})")
        if not clean:
            print(text[-3000:])
    return res


def num(x, spec):
    """`x` formatted, or "-" for gemm-bench's null (a NaN or infinity)."""
    return "-" if x is None else format(x, spec)


def table(ours, others):
    """One markdown table: per (size, dtype, B order) our kernels, then Triton, then cuBLAS."""
    print("| M=N=K | dtype | B | impl | ms | TFLOP/s | ours/Triton | ours/cuBLAS | check |")
    print("|---|---|---|---|---:|---:|---:|---:|---|")
    groups = {}
    for r in ours + others:
        groups.setdefault((r["m"], r["n"], r["k"], r["dtype"], r["b"]), []).append(r)
    for key in sorted(groups, key=lambda g: (g[:3], {"f16": 0, "bf16": 1}.get(g[3], 2), g[4] != "row")):
        rs = groups[key]
        ref = {r["kernel"]: r["ms"] for r in rs if r["kernel"] in ("triton", "cublas")}
        size = key[0] if key[0] == key[1] == key[2] else "x".join(map(str, key[:3]))
        for r in rs:
            mine = r["kernel"] not in ("triton", "cublas", "cublas_events")
            ratio = lambda x: f"{ref[x] / r['ms']:.3f}" if mine and x in ref and (r["ms"] or 0) > 0 else ""
            label = {"triton": f"Triton ({r.get('config')})", "cublas": "cuBLAS",
                     "cublas_events": "cuBLAS, timed as ours"}.get(r["kernel"], f"ours: {r['kernel']}")
            err = f"rel {r['rel_err']:.1e} vs cuBLAS" if "rel_err" in r else f"max_err {num(r['max_err'], '.3g')}"
            check = ("ok" if r["ok"] else "WRONG") + f", {err}"
            print(f"| {size} | {key[3]} | {key[4]} | {label} | {num(r['ms'], '.3f')} | {num(r['tflops'], '.1f')} | "
                  f"{ratio('triton')} | {ratio('cublas')} | {check} |")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", default="target/release/gemm-bench", help="gemm-bench binary")
    p.add_argument("--ptx", default="target/ptx/kernels.ptx", help="PTX given to gemm-bench")
    p.add_argument("--sizes", type=int, nargs="+", default=[4096, 8192], help="M = N = K values")
    p.add_argument("--dtypes", nargs="+", default=["f16", "bf16"], choices=["f16", "bf16"])
    p.add_argument("--json", metavar="OUT", help="write every row (and sanitizer results) here")
    p.add_argument("--sanitize", action="store_true", help="compute-sanitizer memcheck/racecheck")
    p.add_argument("--sanitize-size", type=int, default=256, help="gemm-bench --check-only size")
    args = p.parse_args()
    device = gpu_name()
    if device is None:
        print("gemm_gpu_bench: no CUDA GPU (libcuda.so.1 missing, cuInit failed or no device)", file=sys.stderr)
        sys.exit(2)
    notes = [f"device: {device}; ours from {args.bench} {args.ptx} (CUDA events, median); "
             "Triton/cuBLAS via triton.testing.do_bench (median); ours/X = X ms / ours ms"]
    ours = run_ours(args.bench, args.ptx, args.sizes)
    try:
        import torch
    except ImportError:
        torch = None
        notes.append("torch not importable: Triton and cuBLAS skipped (Triton's launcher/do_bench need torch)")
    others = run_others(torch, args.sizes, args.dtypes) if torch is not None else []
    for n in notes:
        print(f"> {n}\n")
    table(ours, others)
    san = sanitize(args.bench, args.ptx, args.sanitize_size) if args.sanitize else None
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=device, notes=notes, ours=ours, others=others, sanitize=san), f, indent=1)


if __name__ == "__main__":
    main()
