"""Compile tutorial-style kernels (vector add, softmax, matmul) with Triton 3.9 for sm_90 on the CPU
and write their TTGIR, with locations, into fixtures/ttgir/: whole modules as Triton dumps them.

Usage: python3 scripts/triton_tutorial_ttgir.py"""
import triton, triton.language as tl, os, sys
from triton.backends.compiler import GPUTarget
os.environ["TRITON_ALWAYS_COMPILE"] = "1"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "ttgir")

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float('inf'))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)

@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0); pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM); rn = pid_n * BN + tl.arange(0, BN); rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK * sak; b += BK * sbk
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16))

def dump(fn, sig, consts, name, warps=4):
    src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=consts)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    open(f"{OUT}/{name}.ttgir", "w").write(k.asm["ttgir"])

dump(add_kernel, {"x_ptr":"*fp32","y_ptr":"*fp32","out_ptr":"*fp32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":1024}, "vector_add")
dump(softmax_kernel, {"out_ptr":"*fp32","in_ptr":"*fp32","in_stride":"i32","out_stride":"i32","n_cols":"i32","BLOCK":"constexpr"}, {"BLOCK":1024}, "softmax")
dump(matmul_kernel, {k:"*fp16" for k in ["a_ptr","b_ptr","c_ptr"]} | {k:"i32" for k in ["M","N","K","sam","sak","sbk","sbn","scm","scn"]} | {k:"constexpr" for k in ["BM","BN","BK"]}, {"BM":128,"BN":128,"BK":32}, "matmul", 8)
