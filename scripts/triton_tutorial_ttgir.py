"""Compile tutorial-style kernels (vector add, softmax, matmul, layer norm fwd, flash-attention fwd) with Triton 3.9 for sm_90
on the CPU, plus the matmul for sm_80 (matmul_sm80: ttg.local_load into dot_op layouts), and write their TTGIR, with locations, into fixtures/ttgir/: whole modules as Triton dumps them. *_pipelined: see the comment above their dump calls.

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

@triton.jit
def layer_norm_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride; X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        _mean += tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean); tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask); b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        tl.store(Y + cols, ((x - mean) * rstd * w + b).to(tl.float16), mask=mask)

@triton.jit
def attn_fwd_kernel(Q, K, V, Out, sm_scale, stride_m, N_CTX,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M); offs_n = tl.arange(0, BLOCK_N); offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + offs_m[:, None] * stride_m + offs_d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BLOCK_N):
        k = tl.load(K + (start_n + offs_n)[None, :] * stride_m + offs_d[:, None])  # K^T tile: HEAD_DIM x BLOCK_N
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + (start_n + offs_n)[:, None] * stride_m + offs_d[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_ij
    tl.store(Out + offs_m[:, None] * stride_m + offs_d[None, :], (acc / l_i[:, None]).to(tl.float16))

def dump(fn, sig, consts, name, warps=4, cc=90, div16=()):  # div16: args marked tt.divisibility=16, as the launcher does for aligned ones
    src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=consts, attrs={(fn.arg_names.index(a),): [["tt.divisibility", 16]] for a in div16})
    k = triton.compile(src, target=GPUTarget("cuda", cc, 32), options={"num_warps": warps})
    open(f"{OUT}/{name}.ttgir", "w").write(k.asm["ttgir"])

if __name__ == "__main__":
    dump(add_kernel, {"x_ptr":"*fp32","y_ptr":"*fp32","out_ptr":"*fp32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":1024}, "vector_add")
    dump(softmax_kernel, {"out_ptr":"*fp32","in_ptr":"*fp32","in_stride":"i32","out_stride":"i32","n_cols":"i32","BLOCK":"constexpr"}, {"BLOCK":1024}, "softmax")
    dump(matmul_kernel, {k:"*fp16" for k in ["a_ptr","b_ptr","c_ptr"]} | {k:"i32" for k in ["M","N","K","sam","sak","sbk","sbn","scm","scn"]} | {k:"constexpr" for k in ["BM","BN","BK"]}, {"BM":128,"BN":128,"BK":32}, "matmul", 8)
    dump(matmul_kernel, {k:"*fp16" for k in ["a_ptr","b_ptr","c_ptr"]} | {k:"i32" for k in ["M","N","K","sam","sak","sbk","sbn","scm","scn"]} | {k:"constexpr" for k in ["BM","BN","BK"]}, {"BM":128,"BN":128,"BK":32}, "matmul_sm80", 4, 80)
    dump(layer_norm_kernel, {k:"*fp16" for k in ["X","Y","W","B"]} | {"Mean":"*fp32","Rstd":"*fp32","stride":"i32","N":"i32","eps":"fp32","BLOCK_SIZE":"constexpr"}, {"BLOCK_SIZE":1024}, "layer_norm", 8)
    dump(attn_fwd_kernel, {k:"*fp16" for k in ["Q","K","V","Out"]} | {"sm_scale":"fp32","stride_m":"i32","N_CTX":"i32"} | {k:"constexpr" for k in ["BLOCK_M","BLOCK_N","HEAD_DIM"]}, {"BLOCK_M":128,"BLOCK_N":64,"HEAD_DIM":64}, "attention", 4)
    # *_pipelined: with the launcher's specialisation (16-aligned pointers/ints, unit strides as constexpr 1) the loops get software-pipelined:
    # multi-buffered mutable memdescs, ttg.async_copy_global_to_local, ttg.memdesc_index/subslice, local_load with tokens, local_dealloc
    dump(matmul_kernel, {k:"*fp16" for k in ["a_ptr","b_ptr","c_ptr"]} | {k:"i32" for k in ["M","N","K","sam","sbk","scm"]} | {k:"constexpr" for k in ["sak","sbn","scn","BM","BN","BK"]}, {"BM":128,"BN":128,"BK":32,"sak":1,"sbn":1,"scn":1}, "matmul_sm80_pipelined", 4, 80, ["a_ptr","b_ptr","c_ptr","M","N","K","sam","sbk","scm"])
    dump(attn_fwd_kernel, {k:"*fp16" for k in ["Q","K","V","Out"]} | {"sm_scale":"fp32","stride_m":"i32","N_CTX":"i32"} | {k:"constexpr" for k in ["BLOCK_M","BLOCK_N","HEAD_DIM"]}, {"BLOCK_M":128,"BLOCK_N":64,"HEAD_DIM":64}, "attention_pipelined", 4, 90, ["Q","K","V","Out","stride_m","N_CTX"])
