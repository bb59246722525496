//! Triton's relayouts in kernels: `tt.join` then `tt.reshape` (two tensors interleaved into
//! pairs), `tt.reshape` then `tt.split` (and back), `tt.expand_dims` after a reduction (row
//! sums as a column), and `tt.trans` (a tile read as its transpose). None moves data between
//! threads: each reads the same registers as another layout, checked at compile time.

use linear_layouts::planned::Planned;
use linear_layouts::{kernel, layout, BlocksMut, Thread, Tiles, TilesMut};

layout! {
    /// 16 rows of 32: 4 consecutive elements per thread.
    pub PairRows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    /// `PairRows` with a new minor dim of 2 (`tt.join`): the pair in the lowest register bit.
    pub Pairs = linear(register = [[0, 0, 1], [0, 1, 0], [0, 2, 0]], lane = [[0, 4, 0], [0, 8, 0], [0, 16, 0], [1, 0, 0], [2, 0, 0]], warp = [[4, 0, 0], [8, 0, 0]], block = []) for [16, 32, 2];
    /// The pairs row-major (`tt.reshape`): 16 rows of 64, 8 consecutive elements per thread.
    pub Interleaved = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 64];
    /// The rows' sums (`tt.sum` along dim 1).
    pub PairRowSums = slice(dim = 1, parent = PairRows) for [16];
    /// `PairRows` transposed (`tt.trans`): 32 x 16, the same threads and registers.
    pub PairRowsT = blocked(sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [32, 16];
    /// 32 rows of 16, 4 consecutive elements per thread: the transposed tile as it is stored.
    pub TransRows = blocked(sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 16];
    /// The sums as a column (`tt.expand_dims` at dim 1).
    pub SumColumn = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 1];
}

/// Rows per CTA of the kernels here.
pub const PAIR_ROWS: u32 = PairRows::SHAPE[0];
/// Elements per row of `a` and `b`.
pub const PAIR_ROW: u32 = PairRows::SHAPE[1];

/// `out[i][2j] = a[i][j]`, `out[i][2j + 1] = b[i][j]`, 16 rows of 32 per CTA (`tt.join`, then
/// `tt.reshape`): grid `[n_rows / 16, 1, 1]`.
#[kernel(block = PairRows::THREADS)]
pub fn interleave_f32(
    t: &impl Thread,
    a: Tiles<f32, PairRows>,
    b: Tiles<f32, PairRows>,
    out: TilesMut<f32, Interleaved>,
) {
    let pairs = a.load(t).join::<Pairs>(&b.load(t));
    out.store(t, &pairs.reshape::<Interleaved>());
}

/// The inverse of [`interleave_f32`] (`tt.reshape`, then `tt.split`): `a[i][j] = x[i][2j]`,
/// `b[i][j] = x[i][2j + 1]`.
#[kernel(block = PairRows::THREADS)]
pub fn deinterleave_f32(
    t: &impl Thread,
    x: Tiles<f32, Interleaved>,
    a: TilesMut<f32, PairRows>,
    b: TilesMut<f32, PairRows>,
) {
    let (even, odd) = x.load(t).reshape::<Pairs>().split::<PairRows>();
    a.store(t, &even);
    b.store(t, &odd);
}

/// Each row's sum as a column, `sums[i][0] = x[i][0] + ... + x[i][31]` (`tt.sum`, then
/// `tt.expand_dims`): grid `[n_rows / 16, 1, 1]`. Of the threads that hold a copy of a row's
/// sum, one stores it (the store skips copies, as Triton masks redundant stores).
#[kernel(block = PairRows::THREADS)]
pub fn row_sums_column_f32(
    t: &impl Thread,
    x: Tiles<f32, PairRows>,
    sums: TilesMut<f32, SumColumn>,
) {
    sums.store(t, &x.load(t).sum::<1>(t).expand_dims::<1, SumColumn>());
}

/// `y = xᵀ` for `x` of `n` rows of 32 (`n` a multiple of 16) and `y` of 32 rows of `n`: each
/// CTA's 16 x 32 tile read as its transpose (`tt.trans`, no instructions), then converted
/// through shared memory to rows of `y` for 16-byte stores: grid `[n / 16, 1, 1]`.
#[kernel(
    block = PairRows::THREADS,
    grid_dims = 1,
    shared = Planned::<PairRowsT, TransRows, f32>::COST.shared_bytes,
    extent(y = [PAIR_ROW, n]),
)]
pub fn trans_f32(t: &impl Thread, x: Tiles<f32, PairRows>, y: BlocksMut<f32, TransRows>, n: u32) {
    // CTA k's 32 x 16 block is columns `16 k..` of y's 32 rows.
    y.store(t, &x.load(t).trans::<PairRowsT>().convert::<TransRows>(t));
}
