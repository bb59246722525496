"""Triton's tutorial 06 forward loop, shared by scripts/attention_gpu_bench.py (timing on a GPU)
and scripts/attention_sass.py (SASS on the CPU): `_attn_fwd_inner` as the tutorial writes it (the
online softmax in base 2 with `tl.math.exp2`, P cast to the input type before `tl.dot(p, v)`;
causal as two stages, the blocks left of the diagonal unmasked, then the diagonal block masked),
with plain pointers instead of the tutorial's tensor descriptors, one program per `BLOCK_M` query
rows of one head, `q`, `k`, `v`, `o` as `[heads, seq, HEAD_DIM]` and `seq` a multiple of both
blocks (the tutorial's own assumption)."""
import triton
import triton.language as tl


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, K, V, base, start_m, qk_scale, seq, offs_m, offs_n, offs_d,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
                    STAGE: tl.constexpr):
    if STAGE == 1:  # causal, left of the diagonal
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:  # causal, the diagonal block
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, seq
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        kt = tl.load(K + base + (start_n + offs_n)[None, :] * HEAD_DIM + offs_d[:, None])
        qk = tl.dot(q, kt)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + base + (start_n + offs_n)[:, None] * HEAD_DIM + offs_d[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attn_fwd(Q, K, V, O, seq, qk_scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
    """`qk_scale` is log2(e) / sqrt(HEAD_DIM), as the tutorial's `sm_scale * 1.44269504`."""
    start_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * seq * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K, V, base, start_m, qk_scale, seq, offs_m,
                                        offs_n, offs_d, BLOCK_M, BLOCK_N, HEAD_DIM, 1)
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K, V, base, start_m, qk_scale, seq, offs_m,
                                        offs_n, offs_d, BLOCK_M, BLOCK_N, HEAD_DIM, 2)
    else:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K, V, base, start_m, qk_scale, seq, offs_m,
                                        offs_n, offs_d, BLOCK_M, BLOCK_N, HEAD_DIM, 3)
    acc = acc / l_i[:, None]
    tl.store(O + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(O.dtype.element_ty))
