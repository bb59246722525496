//! Transpose of an `n x n` matrix by 64x64 tiles: each CTA of 4 warps loads its tile in a
//! row-major blocked layout (16-byte coalesced loads), `convert!`s it to the column-major blocked
//! layout through the shared memory the plan picks, and stores it transposed (16-byte coalesced
//! stores). The same tile once more as a generic function, its conversion planned from the
//! layouts' types. Plus a plain copy kernel, the bandwidth yardstick.

#[cfg(not(target_arch = "spirv"))]
use linear_layouts::kernel;
#[cfg(not(target_arch = "spirv"))]
use linear_layouts::planned::Planned;
use linear_layouts::{
    convert, layout, Blocks, BlocksMut, Element, Holds, Thread, Tile, Vectors, VectorsMut,
};

layout! {
    /// Rows of 64 f32: lanes 0-15 cover a row with 4 consecutive elements each.
    pub TileIn = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    /// The same tile column-major: each thread holds 4 consecutive rows of one column.
    pub TileOut = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
    /// Rows of 64 halves: 8 consecutive elements (16 bytes) per thread.
    pub TileIn16 = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    /// Column-major, 8 consecutive rows per thread.
    pub TileOut16 = blocked(sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
}

layout! {
    /// 128x128 halves for 8 warps: rows of 16-byte vectors.
    pub BigIn16 = blocked(sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]) for [128, 128];
    /// Column-major.
    pub BigOut16 = blocked(sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]) for [128, 128];
}

/// Shared memory of the 128x128 16-bit transpose per CTA, in bytes.
pub const TRANSPOSE16_BIG_SMEM: u32 = convert!(BigIn16 => BigOut16, u16).cost.shared_bytes;

/// Shared memory of the 16-bit transpose per CTA, in bytes.
pub const TRANSPOSE16_SMEM: u32 = convert!(TileIn16 => TileOut16, u16).cost.shared_bytes;

/// Shared memory the transpose needs per CTA, in bytes (the plan's, solved at compile time).
pub const TRANSPOSE_SMEM: u32 = convert!(TileIn => TileOut, f32).cost.shared_bytes;

/// A transpose tile function: load `$tile x $tile` in layout `$in` (16-byte loads along rows),
/// `convert!` to `$out` (with `convert!`'s options after a `;`), store transposed (16-byte stores
/// along the output's rows). Exported (hidden) for [`crate::subgroup_kernels`], which
/// instantiates it per warp size and plans it for that target.
#[doc(hidden)]
#[macro_export]
macro_rules! transpose_tile {
    ($(#[$m:meta])* $name:ident, $in:ident => $out:ident, $e:ident $(; $($opt:tt)+)?) => {
        $(#[$m])*
        #[inline(always)]
        pub fn $name<T: Thread>(t: &T, inp: &Blocks<$e, $in>, out: &BlocksMut<$e, $out, true>) {
            let a = inp.load(t);
            let b = Tile::<$out, $e, _>::new(convert!($in => $out, $e $(, $($opt)+)?).run(t, &a.values));
            // Element (i, j) of the tile goes to (j, i): the CTA's block of the output's transpose.
            out.store(t, &b);
        }
    };
}

transpose_tile!(
    /// One 64x64 tile of the f32 transpose: tile `(bx, by)` of `inp` to tile `(by, bx)` of
    /// `out`. The whole CTA (4 warps) calls it; `t` has `TRANSPOSE_SMEM` bytes of shared memory.
    transpose_f32_tile, TileIn => TileOut, f32
);
transpose_tile!(
    /// One 64x64 tile of the 16-bit transpose (4 warps, `TRANSPOSE16_SMEM` bytes).
    transpose_u16_tile, TileIn16 => TileOut16, u16
);
transpose_tile!(
    /// One 128x128 tile of the 16-bit transpose (8 warps, `TRANSPOSE16_BIG_SMEM` bytes).
    transpose_u16_big_tile, BigIn16 => BigOut16, u16
);

/// `out = in^T` for `n x n` f32, `n` a multiple of 64: grid `(n / 64, n / 64)`, one tile per
/// CTA.
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = TileIn::THREADS, shared = TRANSPOSE_SMEM, extent(inp = [n, n], out = [n, n]))]
pub fn transpose_f32(
    t: &impl Thread,
    inp: Blocks<f32, TileIn>,
    out: BlocksMut<f32, TileOut, true>,
    n: u32,
) {
    transpose_f32_tile(t, &inp, &out)
}

/// `out = in^T` for `n x n` 16-bit elements by 64x64 tiles.
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = TileIn16::THREADS, shared = TRANSPOSE16_SMEM, extent(inp = [n, n], out = [n, n]))]
pub fn transpose_u16(
    t: &impl Thread,
    inp: Blocks<u16, TileIn16>,
    out: BlocksMut<u16, TileOut16, true>,
    n: u32,
) {
    transpose_u16_tile(t, &inp, &out)
}

/// `out = in^T` for `n x n` 16-bit elements by 128x128 tiles.
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = BigIn16::THREADS, shared = TRANSPOSE16_BIG_SMEM, extent(inp = [n, n], out = [n, n]))]
pub fn transpose_u16_128(
    t: &impl Thread,
    inp: Blocks<u16, BigIn16>,
    out: BlocksMut<u16, BigOut16, true>,
    n: u32,
) {
    transpose_u16_big_tile(t, &inp, &out)
}

/// The transpose tile written once for any pair of layouts and element type: the conversion is
/// planned from the layouts' tables (`Tile::convert`), so `A`, `B` and `E` are generic
/// parameters and no macro names them. Its kernels below issue the shared-memory accesses of
/// their `convert!` twins above (`xtask ptx-check` compares them).
#[inline(always)]
pub fn transpose_tile_generic<A, B, E, T, const N: usize>(
    t: &T,
    inp: &Blocks<E, A>,
    out: &BlocksMut<E, B, true>,
) where
    A: Holds<E, N>,
    B: Holds<E, N>,
    E: Element,
    T: Thread,
{
    let b = inp.load(t).convert::<B>(t);
    out.store(t, &b);
}

/// [`transpose_f32`] through [`transpose_tile_generic`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = TileIn::THREADS, shared = Planned::<TileIn, TileOut, f32>::COST.shared_bytes, extent(inp = [n, n], out = [n, n]))]
pub fn transpose_f32_generic(
    t: &impl Thread,
    inp: Blocks<f32, TileIn>,
    out: BlocksMut<f32, TileOut, true>,
    n: u32,
) {
    transpose_tile_generic::<_, TileOut, _, _, _>(t, &inp, &out)
}

/// [`transpose_u16`] through [`transpose_tile_generic`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = TileIn16::THREADS, shared = Planned::<TileIn16, TileOut16, u16>::COST.shared_bytes, extent(inp = [n, n], out = [n, n]))]
pub fn transpose_u16_generic(
    t: &impl Thread,
    inp: Blocks<u16, TileIn16>,
    out: BlocksMut<u16, TileOut16, true>,
    n: u32,
) {
    transpose_tile_generic::<_, TileOut16, _, _, _>(t, &inp, &out)
}

/// `out = in`, `n4` 16-byte vectors, one per thread per iteration (grid-stride): the bandwidth
/// yardstick.
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = 256, extent(inp = n4, out = n4))]
pub fn copy_v4(t: &impl Thread, inp: Vectors<u32, 4>, out: VectorsMut<u32, 4>, n4: u32) {
    copy_v4_body(t, &inp, &out)
}

/// [`copy_v4`]'s body, which the SPIR-V copy kernel shares: each thread's vectors, grid-stride.
#[inline(always)]
pub fn copy_v4_body<T: Thread>(t: &T, inp: &Vectors<u32, 4>, out: &VectorsMut<u32, 4>) {
    for k in out.each(t) {
        out.store(k, inp.load(k));
    }
}
