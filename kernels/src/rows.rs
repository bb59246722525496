//! Row-wise kernels written with `Tile`'s register-tensor operations and nothing hand-written
//! across threads: a row softmax (Triton's tutorial 02) and a layer norm forward (tutorial 05).
//! Each CTA of 4 warps takes 4 rows, one per warp, of up to 1,024 columns (32 per lane, in
//! 16-byte vectors for f32); the row statistics are reductions within the warp (butterfly
//! shuffles, no shared memory), broadcast back over the row; a width that is not a multiple of
//! the vector is masked.

#[cfg(not(target_arch = "spirv"))]
use linear_layouts::kernel;
use linear_layouts::{layout, math, Global, GlobalMut, Thread, Tile, F16};

layout! {
    /// 4 rows of 1,024: a row per warp, 32 registers per lane in runs of 4 consecutive columns.
    pub RowTile = blocked(sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]) for [4, 1024];
    /// A statistic of each row: every lane of the row's warp holds it.
    pub RowStat = slice(dim = 1, parent = RowTile) for [4];
}

/// Rows per CTA.
pub const ROWS_PER_CTA: u32 = 4;
/// The widest row.
pub const MAX_COLS: u32 = 1024;

/// `y[i] = softmax(x[i])` over each of `n_rows` rows of `n_cols <= 1024` f32 (row-major, row
/// stride `n_cols`): grid `n_rows.div_ceil(4)`. As Triton's tutorial: subtract the row max,
/// `exp` (`ex2.approx`), divide by the row sum (one `rcp.approx` per row, then multiplies).
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = RowTile::THREADS)]
pub fn softmax_f32(t: &impl Thread, x: Global<f32>, y: GlobalMut<f32>, n_rows: u32, n_cols: u32) {
    softmax_body(t, &x, &y, n_rows, n_cols)
}

/// [`softmax_f32`]'s body.
#[inline(always)]
pub fn softmax_body<T: Thread>(
    t: &T,
    x: &Global<f32>,
    y: &GlobalMut<f32>,
    n_rows: u32,
    n_cols: u32,
) {
    let (origin, strides, bounds) = (
        [ROWS_PER_CTA * t.block_idx()[0], 0],
        [n_cols, 1],
        [n_rows, n_cols],
    );
    let v = Tile::<RowTile, f32, 32>::load_masked(t, x, origin, strides, bounds, f32::NEG_INFINITY);
    let max: Tile<RowStat, f32, 1> = v.reduce::<1, _, 1>(t, math::max);
    let e = v.zip_with(&max.broadcast::<1, RowTile, 32>(), |a, m| math::exp(a - m));
    let sum: Tile<RowStat, f32, 1> = e.reduce::<1, _, 1>(t, |a, b| a + b);
    let inv = sum.map(math::rcp).broadcast::<1, RowTile, 32>();
    e.zip_with(&inv, |a, r| a * r)
        .store_masked(t, y, origin, strides, bounds);
}

/// Layer norm forward of `n_rows` rows of `n_cols <= 1024` halves: `y = (x - mean) * rstd * w
/// + b` with f32 statistics (`rstd = rsqrt(var + eps)`, the biased variance), `mean[i]` and
/// `rstd[i]` written out, as Triton's tutorial 05. Grid `n_rows.div_ceil(4)`.
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = RowTile::THREADS)]
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_f16(
    t: &impl Thread,
    x: Global<F16>,
    w: Global<F16>,
    b: Global<F16>,
    y: GlobalMut<F16>,
    mean: GlobalMut<f32>,
    rstd: GlobalMut<f32>,
    n_rows: u32,
    n_cols: u32,
) {
    let io = LayerNormIo {
        x: &x,
        w: &w,
        b: &b,
        y: &y,
        mean: &mean,
        rstd: &rstd,
    };
    layer_norm_body(t, &io, n_rows, n_cols, 1e-5)
}

/// [`layer_norm_f16`]'s tensors.
pub struct LayerNormIo<'a, 'b> {
    /// The input, `n_rows x n_cols`.
    pub x: &'a Global<'b, F16>,
    /// The weight, `n_cols`.
    pub w: &'a Global<'b, F16>,
    /// The bias, `n_cols`.
    pub b: &'a Global<'b, F16>,
    /// The output, as `x`.
    pub y: &'a GlobalMut<'b, F16>,
    /// Each row's mean.
    pub mean: &'a GlobalMut<'b, f32>,
    /// Each row's `1 / sqrt(var + eps)`.
    pub rstd: &'a GlobalMut<'b, f32>,
}

/// [`layer_norm_f16`]'s body.
#[inline(always)]
pub fn layer_norm_body<T: Thread>(t: &T, io: &LayerNormIo, n_rows: u32, n_cols: u32, eps: f32) {
    let row0 = ROWS_PER_CTA * t.block_idx()[0];
    let (origin, strides, bounds) = ([row0, 0], [n_cols, 1], [n_rows, n_cols]);
    let zero = F16::from_f32(0.0);
    let x = Tile::<RowTile, F16, 32>::load_masked(t, io.x, origin, strides, bounds, zero)
        .map(F16::widen);
    let inv_n = 1.0 / n_cols as f32;
    let sum: Tile<RowStat, f32, 1> = x.reduce::<1, _, 1>(t, |a, b| a + b);
    let mu = sum.map(|s| s * inv_n);
    // Masked columns must not count in the variance: their centred value is 0.
    let inside = Tile::<RowTile, bool, 32>::from_coords(t, |[_, j]| j < n_cols);
    let centred = x.zip_with(&mu.broadcast::<1, RowTile, 32>(), |v, m| v - m);
    let centred = centred.select(&inside, &Tile::splat(0.0));
    let var: Tile<RowStat, f32, 1> = centred.map(|c| c * c).reduce::<1, _, 1>(t, |a, b| a + b);
    let r = var.map(|v| math::rsqrt(v * inv_n + eps));
    // The weight and bias rows: every row of the tile reads the same (row stride 0).
    let (cols, cstrides) = ([0, 0], [0, 1]);
    let w =
        Tile::<RowTile, F16, 32>::load_masked(t, io.w, cols, cstrides, [u32::MAX, n_cols], zero);
    let b =
        Tile::<RowTile, F16, 32>::load_masked(t, io.b, cols, cstrides, [u32::MAX, n_cols], zero);
    let scaled = centred.zip_with(&r.broadcast::<1, RowTile, 32>(), |c, r| c * r);
    let affine = scaled
        .zip_with(&w, |v, w| v * w.widen())
        .zip_with(&b, |v, b| F16::round(v + b.widen()));
    affine.store_masked(t, io.y, origin, strides, bounds);
    let row = row0 + RowStat::apply(0, t.lane(), t.warp(), 0)[0];
    if t.lane() == 0 && row < n_rows {
        io.mean.store1(row as usize, mu.values[0]);
        io.rstd.store1(row as usize, r.values[0]);
    }
}
