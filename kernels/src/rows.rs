//! Row-wise kernels written with `Tile`'s register-tensor operations and nothing hand-written
//! across threads: a row softmax (Triton's tutorial 02) and a layer norm forward (tutorial 05),
//! f32 or 16-bit in and out, f32 arithmetic.
//!
//! As Triton picks `BLOCK = next_pow2(n_cols)`, a row of `n_cols` runs in the tile of the
//! smallest width class `W >= n_cols` (64 to 8,192; [`class_for`]), the tail masked. A class
//! gives each thread 8 elements of one row (one 16-byte vector of a 2-byte type, two of f32),
//! as Triton's tutorials do at 1,024 columns: short rows put several rows in a CTA (16 rows of
//! 64 on 4 warps), long rows spread over several warps (a row of 4,096 on 16), whose reductions
//! then cross warps through shared memory. The widest class, 8,192, holds 16 elements per
//! thread on 16 warps instead of 8 on 32: a CTA of 1,024 threads would leave an SM two. Few
//! elements per thread keep the registers, and so the occupancy, at least Triton's. The bodies
//! are generic over the class's layout and element type; the entry points are one line each per
//! class.
//!
//! Each class has two sets of kernels, as Triton compiles a kernel once for sizes divisible by
//! 16 and once for others: `_aligned` ones for widths that are a multiple of the 16-byte vector
//! (the row tiles `Rows`/`HalfRows`: one vector access or none each), and any-width ones on the
//! `Ragged` tiles (one element per access, coalesced across the warp), which a row whose start
//! is not 16-byte aligned needs.

#[cfg(not(target_arch = "spirv"))]
use linear_layouts::kernel;
use linear_layouts::math::{self, Real};
use linear_layouts::runtime::cast::CastFrom;
use linear_layouts::{
    layout, Bf16, BroadcastTo, ChunksMut, Element, Holds, Registers, SliceAlong, Thread, Tile,
    View, F16,
};

layout! {
    /// 16 rows of 64 4-byte elements: 8 lanes per row, 8 elements per thread in two vectors.
    pub Rows64 = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 64];
    pub Rows128 = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [8, 128];
    pub Rows256 = blocked(sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]) for [4, 256];
    pub Rows512 = blocked(sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]) for [2, 512];
    /// A row of 1,024 on 4 warps (Triton's tutorial's geometry for it).
    pub Rows1024 = blocked(sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]) for [1, 1024];
    pub Rows2048 = blocked(sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]) for [1, 2048];
    pub Rows4096 = blocked(sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]) for [1, 4096];
    /// A row of 8,192 on 16 warps, 16 elements per thread: 32 warps would leave an SM 2 CTAs.
    pub Rows8192 = blocked(sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]) for [1, 8192];
    /// The same threads for 2-byte elements: 8 per vector.
    pub HalfRows64 = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 64];
    pub HalfRows128 = blocked(sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [8, 128];
    pub HalfRows256 = blocked(sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]) for [4, 256];
    pub HalfRows512 = blocked(sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]) for [2, 512];
    pub HalfRows1024 = blocked(sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]) for [1, 1024];
    pub HalfRows2048 = blocked(sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]) for [1, 2048];
    pub HalfRows4096 = blocked(sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]) for [1, 4096];
    pub HalfRows8192 = blocked(sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]) for [1, 8192];
    /// The same threads one element at a time, for rows of any width: a row's start need not be
    /// aligned, and scalar accesses of consecutive lanes are consecutive (coalesced).
    pub Ragged64 = blocked(sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 64];
    pub Ragged128 = blocked(sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [8, 128];
    pub Ragged256 = blocked(sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]) for [4, 256];
    pub Ragged512 = blocked(sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]) for [2, 512];
    pub Ragged1024 = blocked(sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]) for [1, 1024];
    pub Ragged2048 = blocked(sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]) for [1, 2048];
    pub Ragged4096 = blocked(sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]) for [1, 4096];
    pub Ragged8192 = blocked(sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]) for [1, 8192];
    /// A statistic of each row of a class: every thread of the row holds it.
    pub Stat64 = slice(dim = 1, parent = Rows64) for [16];
    pub Stat128 = slice(dim = 1, parent = Rows128) for [8];
    pub Stat256 = slice(dim = 1, parent = Rows256) for [4];
    pub Stat512 = slice(dim = 1, parent = Rows512) for [2];
    pub Stat1024 = slice(dim = 1, parent = Rows1024) for [1];
    pub Stat2048 = slice(dim = 1, parent = Rows2048) for [1];
    pub Stat4096 = slice(dim = 1, parent = Rows4096) for [1];
    pub Stat8192 = slice(dim = 1, parent = Rows8192) for [1];
    pub HalfStat64 = slice(dim = 1, parent = HalfRows64) for [16];
    pub HalfStat128 = slice(dim = 1, parent = HalfRows128) for [8];
    pub HalfStat256 = slice(dim = 1, parent = HalfRows256) for [4];
    pub HalfStat512 = slice(dim = 1, parent = HalfRows512) for [2];
    pub HalfStat1024 = slice(dim = 1, parent = HalfRows1024) for [1];
    pub HalfStat2048 = slice(dim = 1, parent = HalfRows2048) for [1];
    pub HalfStat4096 = slice(dim = 1, parent = HalfRows4096) for [1];
    pub HalfStat8192 = slice(dim = 1, parent = HalfRows8192) for [1];
    pub RaggedStat64 = slice(dim = 1, parent = Ragged64) for [16];
    pub RaggedStat128 = slice(dim = 1, parent = Ragged128) for [8];
    pub RaggedStat256 = slice(dim = 1, parent = Ragged256) for [4];
    pub RaggedStat512 = slice(dim = 1, parent = Ragged512) for [2];
    pub RaggedStat1024 = slice(dim = 1, parent = Ragged1024) for [1];
    pub RaggedStat2048 = slice(dim = 1, parent = Ragged2048) for [1];
    pub RaggedStat4096 = slice(dim = 1, parent = Ragged4096) for [1];
    pub RaggedStat8192 = slice(dim = 1, parent = Ragged8192) for [1];
}

/// The widths of the classes, narrowest first.
pub const WIDTHS: [u32; 8] = [64, 128, 256, 512, 1024, 2048, 4096, 8192];

/// The narrowest class a row of `n_cols` fits (`None` past 8,192): an index into [`WIDTHS`] and
/// [`CLASSES`].
pub const fn class_for(n_cols: u32) -> Option<usize> {
    let mut i = 0;
    while i < WIDTHS.len() {
        if n_cols <= WIDTHS[i] {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Elements per 16-byte vector of an element of `elem_bytes`: a row whose width is a multiple
/// of it runs the `_aligned` entry points.
pub const fn vector(elem_bytes: u32) -> u32 {
    16 / elem_bytes
}

/// `y[i] = softmax(x[i])` over each of `n_rows` rows of `n_cols <= W` elements (row-major, row
/// stride `n_cols`), `L` a class's tile of `R x W`: grid `n_rows.div_ceil(R)`. As Triton's
/// tutorial: subtract the row max, `exp` (`ex2.approx`), divide by the row sum (one
/// `rcp.approx` per row, then multiplies).
#[inline(always)]
pub fn softmax_rows<L, S, E, T, const N: usize, const M: usize, const ALIGNED: bool>(
    t: &T,
    x: &View<E, 2, ALIGNED>,
    y: ChunksMut<E, L, 2, ALIGNED>,
) where
    L: Registers<N> + SliceAlong<1, Slice = S>,
    S: Holds<f32, M> + BroadcastTo<L>,
    E: Element + Real + CastFrom<f32>,
    T: Thread,
{
    let origin = [L::SHAPE[0] * t.block_idx()[0], 0];
    let lowest = E::from_f32(f32::NEG_INFINITY);
    let v = Tile::<L, E, _>::load_from(t, x, origin, lowest).map(E::to_f32);
    let max = v.max::<1>(t);
    let e = (v - max).map(math::exp);
    let sum = e.sum::<1>(t);
    let out = e * sum.map(math::rcp);
    y.store(t, &round(&out, &y));
}

/// A row kernel's f32 output in `E`, for the store `_y`: rounded in pairs where it takes
/// 16-byte vectors (the pairs are its words); the any-width kernels store each element alone,
/// and a pair would be split again.
#[inline(always)]
fn round<L, E, const N: usize, const ALIGNED: bool>(
    x: &Tile<L, f32, N>,
    _y: &ChunksMut<E, L, 2, ALIGNED>,
) -> Tile<L, E, N>
where
    L: Registers<N>,
    E: Element + Real + CastFrom<f32>,
{
    if ALIGNED {
        x.to::<E>()
    } else {
        x.map(E::from_f32)
    }
}

/// A layer norm's tensors (`L` the rows' tile, `S` its slice: a statistic per row).
pub struct LayerNormIo<'a, E, L, S, const ALIGNED: bool> {
    /// The input, `n_rows x n_cols`.
    pub x: View<'a, E, 2, ALIGNED>,
    /// The weight, `n_cols`.
    pub w: View<'a, E, 1, ALIGNED>,
    /// The bias, `n_cols`.
    pub b: View<'a, E, 1, ALIGNED>,
    /// The output, as `x`.
    pub y: ChunksMut<'a, E, L, 2, ALIGNED>,
    /// Each row's mean, `n_rows`.
    pub mean: ChunksMut<'a, f32, S, 1>,
    /// Each row's `1 / sqrt(var + eps)`, `n_rows`.
    pub rstd: ChunksMut<'a, f32, S, 1>,
}

/// Layer norm forward of `n_rows` rows of `n_cols <= W`: `y = (x - mean) * rstd * w + b` with
/// f32 statistics (`rstd = rsqrt(var + eps)`, the biased variance), `mean[i]` and `rstd[i]`
/// written out, as Triton's tutorial 05. `L` a class's tile of `R x W`: grid
/// `n_rows.div_ceil(R)`.
#[inline(always)]
pub fn layer_norm_rows<L, S, E, T, const N: usize, const M: usize, const ALIGNED: bool>(
    t: &T,
    io: LayerNormIo<E, L, S, ALIGNED>,
    eps: f32,
) where
    L: Registers<N> + SliceAlong<1, Slice = S>,
    S: Holds<f32, M> + BroadcastTo<L>,
    E: Element + Real + CastFrom<f32>,
    T: Thread,
{
    let row0 = L::SHAPE[0] * t.block_idx()[0];
    let origin = [row0, 0];
    let n_cols = io.x.shape()[1];
    let zero = E::from_f32(0.0);
    // The weight and bias are loaded only where they are used, so that they are not live
    // across the reductions (registers decide how many CTAs an SM holds, and occupancy is what
    // a memory-bound kernel lives on).
    let x = Tile::<L, E, _>::load_from(t, &io.x, origin, zero);
    let inv_n = 1.0 / n_cols as f32;
    let sum = x.map(E::to_f32).sum::<1>(t);
    let mean = sum * inv_n;
    // Masked columns must not count in the variance: their centred value is 0.
    let inside = Tile::<L, bool, _>::from_coords(t, |[_, j]| j < n_cols);
    let centred = x.map(E::to_f32) - mean;
    let square = (centred * centred).select(&inside, 0.0);
    let var = square.sum::<1>(t);
    let r = var.map(|v| math::rsqrt(v * inv_n + eps));
    // Each row's statistics, stored once (the threads holding copies of a row's store
    // nothing), before the weight and bias are loaded: they are not held beside them.
    io.mean.store(t, &mean);
    io.rstd.store(t, &r);
    // `(x - mean) * rstd` as `x * rstd - mean * rstd`, one `fma` from x itself: the centred
    // values then die in the variance, and only x (packed) is held across its reduction.
    let scaled = x.map(E::to_f32).fma(r, -mean * r);
    // The weight and bias rows: every row of the tile reads the same (row stride 0).
    let w = Tile::<L, E, _>::load_from(t, &io.w.as_rows(), [0, 0], zero);
    let b = Tile::<L, E, _>::load_from(t, &io.b.as_rows(), [0, 0], zero);
    let affine = scaled.fma(w.map(E::to_f32), b.map(E::to_f32));
    io.y.store(t, &round(&affine, &io.y));
}

/// The layer norms' epsilon (PyTorch's and the tutorial's default).
pub const EPS: f32 = 1e-5;

/// A width class as a launcher needs it: the tile, the launch and the entry points' names.
#[derive(Clone, Copy, Debug)]
pub struct RowClass {
    /// The widest row.
    pub width: u32,
    /// Rows per CTA: the grid is `n_rows.div_ceil(rows_per_cta)`.
    pub rows_per_cta: u32,
    /// Threads per CTA.
    pub threads: u32,
    /// Elements of a row each thread holds.
    pub per_thread: u32,
    /// Dynamic shared memory per CTA (the cross-warp reductions' scratch; 0 within a warp).
    pub shared_bytes: u32,
    /// `softmax_f32_W`, `softmax_f16_W`, `layer_norm_f16_W`, `layer_norm_bf16_W`: any width.
    pub names: [&'static str; 4],
    /// The same for widths that are a multiple of the vector ([`vector`]): `..._W_aligned`.
    pub aligned: [&'static str; 4],
}

/// The classes, in [`WIDTHS`]' order.
pub const CLASSES: [RowClass; 8] = [
    CLASS_64, CLASS_128, CLASS_256, CLASS_512, CLASS_1024, CLASS_2048, CLASS_4096, CLASS_8192,
];

/// The scratch a class's reductions need: they reduce f32 values, and the 4- and 2-byte
/// element tiles of a class have the same threads.
const fn scratch<L, const N: usize>() -> u32
where
    L: Registers<N> + SliceAlong<1>,
    L::Slice: Registers<1>,
{
    linear_layouts::reduce::Slice::<L, L::Slice, 1, N, 1>::SHARED_BYTES
}

/// One class's entry points (softmax in f32 and f16, layer norm in f16 and bf16; each for any
/// width and for widths a multiple of the vector) and its [`RowClass`].
macro_rules! row_class {
    ($class:ident = $rows:ident, $stat:ident, $hrows:ident, $hstat:ident, $any:ident, $astat:ident:
     $sm32:ident, $sm16:ident, $ln16:ident, $lnbf:ident;
     $sm32a:ident, $sm16a:ident, $ln16a:ident, $lnbfa:ident) => {
        #[doc = concat!("The class of `", stringify!($rows), "`.")]
        pub const $class: RowClass = RowClass {
            width: $rows::SHAPE[1],
            rows_per_cta: $rows::SHAPE[0],
            threads: $rows::THREADS,
            per_thread: $rows::ELEMENTS_PER_THREAD,
            shared_bytes: scratch::<$rows, _>(),
            names: [stringify!($sm32), stringify!($sm16), stringify!($ln16), stringify!($lnbf)],
            aligned: [stringify!($sm32a), stringify!($sm16a), stringify!($ln16a), stringify!($lnbfa)],
        };
        row_class!(@softmax $sm32, $any, $astat, f32, false);
        row_class!(@softmax $sm16, $any, $astat, F16, false);
        row_class!(@layer_norm $ln16, $any, $astat, F16, false);
        row_class!(@layer_norm $lnbf, $any, $astat, Bf16, false);
        row_class!(@softmax $sm32a, $rows, $stat, f32, true);
        row_class!(@softmax $sm16a, $hrows, $hstat, F16, true);
        row_class!(@layer_norm $ln16a, $hrows, $hstat, F16, true);
        row_class!(@layer_norm $lnbfa, $hrows, $hstat, Bf16, true);
    };
    (@softmax $name:ident, $rows:ident, $stat:ident, $e:ty, $aligned:literal) => {
        #[doc = concat!("Softmax of `", stringify!($e), "` rows of `", stringify!($rows), "`'s width (see [`softmax_rows`]).")]
        #[cfg(not(target_arch = "spirv"))]
        #[kernel(
            block = $rows::THREADS,
            shared = scratch::<$rows, _>(),
            extent(x = [n_rows, n_cols], y = [n_rows, n_cols]),
        )]
        pub fn $name(t: &impl Thread, x: View<$e, 2, $aligned>, y: ChunksMut<$e, $rows, 2, $aligned>, n_rows: u32, n_cols: u32) {
            softmax_rows(t, &x, y)
        }
    };
    (@layer_norm $name:ident, $rows:ident, $stat:ident, $e:ty, $aligned:literal) => {
        #[doc = concat!("Layer norm of `", stringify!($e), "` rows of `", stringify!($rows), "`'s width (see [`layer_norm_rows`]).")]
        #[cfg(not(target_arch = "spirv"))]
        #[kernel(
            block = $rows::THREADS,
            shared = scratch::<$rows, _>(),
            extent(x = [n_rows, n_cols], w = [n_cols], b = [n_cols], y = [n_rows, n_cols], mean = [n_rows], rstd = [n_rows]),
        )]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            t: &impl Thread,
            x: View<$e, 2, $aligned>,
            w: View<$e, 1, $aligned>,
            b: View<$e, 1, $aligned>,
            y: ChunksMut<$e, $rows, 2, $aligned>,
            mean: ChunksMut<f32, $stat, 1>,
            rstd: ChunksMut<f32, $stat, 1>,
            n_rows: u32,
            n_cols: u32,
        ) {
            let io = LayerNormIo { x, w, b, y, mean, rstd };
            layer_norm_rows(t, io, EPS)
        }
    };
}

row_class!(CLASS_64 = Rows64, Stat64, HalfRows64, HalfStat64, Ragged64, RaggedStat64:
    softmax_f32_64, softmax_f16_64, layer_norm_f16_64, layer_norm_bf16_64;
    softmax_f32_64_aligned, softmax_f16_64_aligned, layer_norm_f16_64_aligned, layer_norm_bf16_64_aligned);
row_class!(CLASS_128 = Rows128, Stat128, HalfRows128, HalfStat128, Ragged128, RaggedStat128:
    softmax_f32_128, softmax_f16_128, layer_norm_f16_128, layer_norm_bf16_128;
    softmax_f32_128_aligned, softmax_f16_128_aligned, layer_norm_f16_128_aligned, layer_norm_bf16_128_aligned);
row_class!(CLASS_256 = Rows256, Stat256, HalfRows256, HalfStat256, Ragged256, RaggedStat256:
    softmax_f32_256, softmax_f16_256, layer_norm_f16_256, layer_norm_bf16_256;
    softmax_f32_256_aligned, softmax_f16_256_aligned, layer_norm_f16_256_aligned, layer_norm_bf16_256_aligned);
row_class!(CLASS_512 = Rows512, Stat512, HalfRows512, HalfStat512, Ragged512, RaggedStat512:
    softmax_f32_512, softmax_f16_512, layer_norm_f16_512, layer_norm_bf16_512;
    softmax_f32_512_aligned, softmax_f16_512_aligned, layer_norm_f16_512_aligned, layer_norm_bf16_512_aligned);
row_class!(CLASS_1024 = Rows1024, Stat1024, HalfRows1024, HalfStat1024, Ragged1024, RaggedStat1024:
    softmax_f32_1024, softmax_f16_1024, layer_norm_f16_1024, layer_norm_bf16_1024;
    softmax_f32_1024_aligned, softmax_f16_1024_aligned, layer_norm_f16_1024_aligned, layer_norm_bf16_1024_aligned);
row_class!(CLASS_2048 = Rows2048, Stat2048, HalfRows2048, HalfStat2048, Ragged2048, RaggedStat2048:
    softmax_f32_2048, softmax_f16_2048, layer_norm_f16_2048, layer_norm_bf16_2048;
    softmax_f32_2048_aligned, softmax_f16_2048_aligned, layer_norm_f16_2048_aligned, layer_norm_bf16_2048_aligned);
row_class!(CLASS_4096 = Rows4096, Stat4096, HalfRows4096, HalfStat4096, Ragged4096, RaggedStat4096:
    softmax_f32_4096, softmax_f16_4096, layer_norm_f16_4096, layer_norm_bf16_4096;
    softmax_f32_4096_aligned, softmax_f16_4096_aligned, layer_norm_f16_4096_aligned, layer_norm_bf16_4096_aligned);
row_class!(CLASS_8192 = Rows8192, Stat8192, HalfRows8192, HalfStat8192, Ragged8192, RaggedStat8192:
    softmax_f32_8192, softmax_f16_8192, layer_norm_f16_8192, layer_norm_bf16_8192;
    softmax_f32_8192_aligned, softmax_f16_8192_aligned, layer_norm_f16_8192_aligned, layer_norm_bf16_8192_aligned);
