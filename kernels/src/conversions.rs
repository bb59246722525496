//! Conversion kernels over a large tensor, tile by tile: each CTA loads a tile in the source
//! layout, converts it, and stores it in the destination layout (so every element is read and
//! written once and the conversion itself is what differs between implementations).
//!
//! * `fp16_to_fp8_operand`: the operand conversion of seed 002 (dot operand A of an Ampere MMA,
//!   kWidth 2 as fp16 wants, to kWidth 4 as fp8 wants), on 8-bit values: warp shuffles.
//! * `mma_acc_to_operand`: the MMA accumulator to dot operand A (16-bit; the layouts coincide
//!   with 4 warps along M, so the conversion is free).
//! * `mma_acc_regperm`: the MMA accumulator to the same tile with its registers reordered: a
//!   register-only conversion (no instructions but the loads and stores).
//! * `nvmma_roundtrip`: registers to the 128-byte-swizzled `nvmma_shared` layout and back
//!   (`convert!` into and out of a shared layout).
//! * `mma_acc_to_rows`: the GEMM's epilogue conversion, the f32 accumulator (2x2 warps) to rows
//!   of 16-byte vectors through shared memory (`stmatrix`, in 4 rounds), and
//!   `mma_acc_to_rows_generic`, the same tile written once for any layouts and element
//!   (`Tile::convert`, planned from the types), which must issue its twin's instructions.

use linear_layouts::planned::Planned;
use linear_layouts::{
    convert, kernel, layout, Element, Holds, Thread, Tile, TileIndex, Tiled, TiledMut,
};

use crate::gemm::{GemmAcc, GemmOut};

layout! {
    /// Ampere accumulator of a 64x64 tile, 4 warps along M.
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]) for [64, 64];
    /// Operand A as fp16 reads it.
    pub OpA16 = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [64, 64];
    /// Operand A as fp8 reads it.
    pub OpA8 = dot_op(opIdx = 0, parent = Acc, kWidth = 4) for [64, 64];
    /// Rows of 64 halves, 16 bytes per thread.
    pub Rows16 = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    /// The accumulator's registers reordered (the row-half bit last): the same lanes and warps.
    pub AccPerm = linear(register = [[0, 1], [0, 8], [0, 16], [0, 32], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]], block = []) for [64, 64];
    /// The TMA / wgmma layout with the 128-byte swizzle.
    pub Nvmma128 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}> : tensor<64x64xf16>;
}

// The operand conversion must stay within warps (the kernel gives it no shared memory).
const _: () = assert!(matches!(
    convert!(OpA16 => OpA8, u8).cost.strategy,
    linear_layouts::runtime::Strategy::Shuffles
));

/// Shared memory of `nvmma_roundtrip` per CTA, in bytes.
pub const NVMMA_SMEM: u32 = convert!(Rows16 => Nvmma128, u16).cost.shared_bytes;

/// Elements per tile.
pub const TILE: usize = 64 * 64;

// The accumulator permutation is register-only.
const _: () = assert!(matches!(
    convert!(Acc => AccPerm, f32).cost.strategy,
    linear_layouts::runtime::Strategy::Registers
));

/// Tile `k` of 16-bit values from the MMA accumulator layout to dot operand A (kWidth 2), the
/// attention pattern P = softmax(S) feeding the next product: with 4 warps along M the two
/// layouts coincide and `convert!` emits nothing.
#[inline(always)]
pub fn mma_acc_to_operand_tile<T: Thread>(
    t: &T,
    inp: &Tiled<u16, Acc>,
    out: &TiledMut<u16, OpA16>,
    k: TileIndex,
) {
    let v = inp.load(t, k);
    out.store(
        t,
        k,
        &Tile::<OpA16, u16, _>::new(convert!(Acc => OpA16, u16).run(t, &v.values)),
    );
}

/// Tile `k` of f32 from the MMA accumulator layout to its register-permuted form: loads and
/// stores of 2 consecutive elements (8 bytes).
#[inline(always)]
pub fn mma_acc_regperm_tile<T: Thread>(
    t: &T,
    inp: &Tiled<f32, Acc>,
    out: &TiledMut<f32, AccPerm>,
    k: TileIndex,
) {
    let v = inp.load(t, k);
    out.store(
        t,
        k,
        &Tile::<AccPerm, f32, _>::new(convert!(Acc => AccPerm, f32).run(t, &v.values)),
    );
}

// Consecutive registers hold consecutive K: pairs in the fp16 layout, fours in the fp8 one.
const _: () = assert!(OpA16::CONTIG_PER_THREAD[1] >= 2 && OpA8::CONTIG_PER_THREAD[1] >= 4);

/// Tile `k` (elements `k*4096..`, row-major 64x64) from `OpA16` to `OpA8`: 8-bit values, loaded
/// two at a time (kWidth 2 keeps pairs), stored four at a time.
#[inline(always)]
pub fn fp16_to_fp8_operand_tile<T: Thread>(
    t: &T,
    inp: &Tiled<u8, OpA16>,
    out: &TiledMut<u8, OpA8>,
    k: TileIndex,
) {
    let v = inp.load(t, k);
    out.store(
        t,
        k,
        &Tile::<OpA8, u8, _>::new(convert!(OpA16 => OpA8, u8).run(t, &v.values)),
    );
}

/// Tile `k` of 16-bit elements through the 128-byte-swizzled shared layout and back.
#[inline(always)]
pub fn nvmma_roundtrip_tile<T: Thread>(
    t: &T,
    inp: &Tiled<u16, Rows16>,
    out: &TiledMut<u16, Rows16>,
    k: TileIndex,
) {
    convert!(Rows16 => Nvmma128, u16).store(t, &inp.load(t, k).values);
    t.sync_block();
    out.store(
        t,
        k,
        &Tile::<Rows16, u16, _>::new(convert!(Nvmma128 => Rows16, u16).load(t)),
    );
    // The next tile's stores must not overtake this tile's loads.
    t.sync_block();
}

/// Shared memory of `mma_acc_to_rows` per CTA, in bytes.
pub const ACC_TO_ROWS_SMEM: u32 = convert!(GemmAcc => GemmOut, f32).cost.shared_bytes;

/// Tile `k` of a row-major `64 x 64` f32 tile from the GEMM's accumulator layout to its output
/// rows: `convert!`'s straight-line code.
#[inline(always)]
pub fn mma_acc_to_rows_tile<T: Thread>(
    t: &T,
    inp: &Tiled<f32, GemmAcc>,
    out: &TiledMut<f32, GemmOut>,
    k: TileIndex,
) {
    let a = inp.load(t, k);
    let b = Tile::<GemmOut, f32, _>::new(convert!(GemmAcc => GemmOut, f32).run(t, &a.values));
    out.store(t, k, &b);
    // The next tile's stores into the scratch would wait for this tile's loads anyway (the
    // runtime's scratch record); the barrier here makes that wait unconditional, as
    // `nvmma_roundtrip`'s does.
    t.sync_block();
}

/// [`mma_acc_to_rows_tile`] written once for any two layouts of a tile and any element: the
/// conversion is planned from the layouts' tables.
#[inline(always)]
pub fn relayout_tile_generic<A, B, E, T, const N: usize, const M: usize>(
    t: &T,
    inp: &Tiled<E, A>,
    out: &TiledMut<E, B>,
    k: TileIndex,
) where
    A: Holds<E, N>,
    B: Holds<E, M>,
    E: Element,
    T: Thread,
{
    out.store(t, k, &inp.load(t, k).convert::<B>(t));
    t.sync_block();
}

/// `fp16_to_fp8_operand_tile` over `tiles` tiles (`tiles * 4096` bytes), grid-stride.
#[kernel(block = OpA16::THREADS, extent(inp = tiles, out = tiles))]
pub fn fp16_to_fp8_operand(
    t: &impl Thread,
    inp: Tiled<u8, OpA16>,
    out: TiledMut<u8, OpA8>,
    tiles: u32,
) {
    out.each(t)
        .for_each(|k| fp16_to_fp8_operand_tile(t, &inp, &out, k));
}

/// `mma_acc_to_operand_tile` over `tiles` tiles (`tiles * 4096` 16-bit elements), grid-stride.
#[kernel(block = Acc::THREADS, extent(inp = tiles, out = tiles))]
pub fn mma_acc_to_operand(
    t: &impl Thread,
    inp: Tiled<u16, Acc>,
    out: TiledMut<u16, OpA16>,
    tiles: u32,
) {
    out.each(t)
        .for_each(|k| mma_acc_to_operand_tile(t, &inp, &out, k));
}

/// `mma_acc_regperm_tile` over `tiles` tiles (`tiles * 4096` f32), grid-stride.
#[kernel(block = Acc::THREADS, extent(inp = tiles, out = tiles))]
pub fn mma_acc_regperm(
    t: &impl Thread,
    inp: Tiled<f32, Acc>,
    out: TiledMut<f32, AccPerm>,
    tiles: u32,
) {
    out.each(t)
        .for_each(|k| mma_acc_regperm_tile(t, &inp, &out, k));
}

/// `nvmma_roundtrip_tile` over `tiles` tiles (`tiles * 4096` 16-bit elements), grid-stride.
#[kernel(block = Rows16::THREADS, shared = NVMMA_SMEM, extent(inp = tiles, out = tiles))]
pub fn nvmma_roundtrip(
    t: &impl Thread,
    inp: Tiled<u16, Rows16>,
    out: TiledMut<u16, Rows16>,
    tiles: u32,
) {
    out.each(t)
        .for_each(|k| nvmma_roundtrip_tile(t, &inp, &out, k));
}

/// `mma_acc_to_rows_tile` over `tiles` tiles (`tiles * 4096` f32), grid-stride.
#[kernel(block = GemmAcc::THREADS, shared = ACC_TO_ROWS_SMEM, extent(inp = tiles, out = tiles))]
pub fn mma_acc_to_rows(
    t: &impl Thread,
    inp: Tiled<f32, GemmAcc>,
    out: TiledMut<f32, GemmOut>,
    tiles: u32,
) {
    out.each(t)
        .for_each(|k| mma_acc_to_rows_tile(t, &inp, &out, k));
}

/// [`mma_acc_to_rows`] through [`relayout_tile_generic`].
#[kernel(block = GemmAcc::THREADS, shared = Planned::<GemmAcc, GemmOut, f32>::COST.shared_bytes, extent(inp = tiles, out = tiles))]
pub fn mma_acc_to_rows_generic(
    t: &impl Thread,
    inp: Tiled<f32, GemmAcc>,
    out: TiledMut<f32, GemmOut>,
    tiles: u32,
) {
    out.each(t)
        .for_each(|k| relayout_tile_generic::<_, GemmOut, _, _, _, _>(t, &inp, &out, k));
}
