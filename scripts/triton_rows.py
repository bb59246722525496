"""Triton's tutorial row kernels, shared by scripts/rows_gpu_bench.py (timing on a GPU) and
scripts/rows_sass.py (SASS on the CPU): 02's fused softmax (one program per row, the row in one
block of BLOCK = next_pow2(n_cols) with the tutorial's warps heuristic, f32 inside) and 05's
`_layer_norm_fwd_fused`, verbatim but for names."""
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    """Tutorial 02's kernel, one program per row."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
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


def softmax_config(n_cols):
    """The tutorial's BLOCK and warps for a row of `n_cols`."""
    block = triton.next_power_of_2(n_cols)
    return block, 4 if block < 2048 else (8 if block < 4096 else 16)


def layer_norm_config(n_cols, elem_bytes):
    """The tutorial's BLOCK_SIZE and warps for a row of `n_cols` elements of `elem_bytes`."""
    block = min(65536 // elem_bytes, triton.next_power_of_2(n_cols))
    return block, min(max(block // 256, 1), 8)


def triton_softmax(x, y):
    n_rows, n_cols = x.shape
    block, warps = softmax_config(n_cols)
    return lambda: softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                             BLOCK=block, num_warps=warps)


def triton_layer_norm(x, w, b, y, mean, rstd):
    n_rows, n_cols = x.shape
    block, warps = layer_norm_config(n_cols, x.element_size())
    return lambda: layer_norm_fwd[(n_rows,)](x, y, w, b, mean, rstd, x.stride(0), n_cols, 1e-5,
                                             BLOCK_SIZE=block, num_warps=warps)
