//! The kernels. `no_std`: built for `nvptx64-nvidia-cuda` by the host crate's build.rs, and for
//! the host, where each `#[kernel]` is a plain function the simulator runs.
#![no_std]

use linear_layouts::{
    Blocks, BlocksMut, ChunksMut, F16, Thread, Tile, View, convert, kernel, layout, math,
};

layout! {
    /// 64x64 f32 in rows: each thread holds 4 consecutive elements (one 16-byte vector).
    pub Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    /// The same tile in columns: each thread holds 4 consecutive rows of a column.
    pub Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
    /// 1,024 consecutive halves: 8 per thread (one 16-byte vector).
    pub Halves = blocked(sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [1024];
    /// 4 rows of up to 1,024, a row per warp: its reductions stay in the warp.
    pub RowTile = blocked(sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]) for [4, 1024];
    /// A value per row of `RowTile` (its reductions along dim 1).
    pub RowStat = slice(dim = 1, parent = RowTile) for [4];
}

/// Shared memory the conversion needs per block (solved at compile time).
pub const SMEM: u32 = convert!(Rows => Cols, f32).cost.shared_bytes;

/// `out = inp^T` for an `n x n` f32 matrix, `n` a multiple of 64: one 64x64 tile per block,
/// grid `[n / 64, n / 64, 1]`. Block size and shared memory come from the layouts; both
/// tensors are `n x n` matrices in 64x64 blocks, one per block of threads, which the launcher
/// checks against the buffers and the grid (`extent`).
#[kernel(block = Rows::THREADS, shared = SMEM, extent(inp = [n, n], out = [n, n]))]
pub fn transpose(t: &impl Thread, inp: Blocks<f32, Rows>, out: BlocksMut<f32, Cols, true>, n: u32) {
    // 16-byte loads along rows, regrouped by columns through shared memory...
    let cols = inp.load(t).convert::<Cols>(t);
    // ...and 16-byte stores along the output's rows: element (i, j) goes to (j, i), the block
    // of the output's transpose (`true`) this block of threads owns.
    out.store(t, &cols);
}

/// `y = x * sigmoid(x)` (SiLU) for `n` halves: one 1,024-element tile per block, grid
/// `[n.div_ceil(1024), 1, 1]`, the last tile masked. Each element is computed in f32 with the
/// GPU's fast `exp` and reciprocal (`ex2.approx`, `rcp.approx`) and rounded back to f16.
#[kernel(block = Halves::THREADS, extent(x = [n], y = [n]))]
pub fn silu(t: &impl Thread, x: View<F16, 1>, y: ChunksMut<F16, Halves, 1>, n: u32) {
    let origin = [1024 * t.block_idx()[0]];
    let v = x.load::<Halves>(t, origin, F16::ZERO);
    let s = v.map(|h| {
        let a = h.widen();
        F16::round(a * math::rcp(1.0 + math::exp(-a)))
    });
    y.store(t, &s);
}

/// `y[i] = softmax(x[i])` for `n_rows` rows of `n_cols <= 1024` f32, 4 rows per block: grid
/// `[n_rows.div_ceil(4), 1, 1]`.
#[kernel(block = RowTile::THREADS, extent(x = [n_rows, n_cols], y = [n_rows, n_cols]))]
pub fn softmax(
    t: &impl Thread,
    x: View<f32, 2>,
    y: ChunksMut<f32, RowTile, 2>,
    n_rows: u32,
    n_cols: u32,
) {
    let v = x.load::<RowTile>(t, [4 * t.block_idx()[0], 0], f32::NEG_INFINITY);
    let e = (v - v.max::<1>(t)).map(math::exp);
    y.store(t, &(e * e.sum::<1>(t).map(math::rcp)));
}

/// The cross-entropy loss of each of `n_rows` rows of `n_cols <= 1024` f16 logits against its
/// target class: `loss[i] = logsumexp(x[i]) - x[i][target[i]]`, in f32, 4 rows per block: grid
/// `[n_rows.div_ceil(4), 1, 1]`.
#[kernel(block = RowTile::THREADS, extent(x = [n_rows, n_cols], target = [n_rows], loss = [n_rows]))]
pub fn cross_entropy(
    t: &impl Thread,
    x: View<F16, 2>,
    target: View<i32, 1>,
    loss: ChunksMut<f32, RowStat, 1>,
    n_rows: u32,
    n_cols: u32,
) {
    let row0 = 4 * t.block_idx()[0];
    let v = x
        .load::<RowTile>(t, [row0, 0], F16::NEG_INFINITY)
        .to::<f32>();
    let m = v.max::<1>(t);
    let picked =
        Tile::from_coords(t, |[_, j]| j as i32).equal(target.load::<RowStat>(t, [row0], -1));
    let logit = v.select(&picked, 0.0).sum::<1>(t);
    loss.store(
        t,
        &((v - m).map(math::exp).sum::<1>(t).map(math::log) + m - logit),
    );
}
