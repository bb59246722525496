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
    convert, kernel, layout, Element, Global, GlobalMut, Registers, Thread, Tile,
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

/// The register part of a layout's coordinates for registers `step * g`, `g < N`: `apply` is
/// linear, so a thread's coordinates are these constants XOR its lane and warp part, and the
/// loops below need no index math per register.
macro_rules! reg_coords {
    ($l:ty, $n:expr, $step:expr) => {{
        let mut a = [[0u32; 2]; $n];
        let mut g = 0;
        while g < $n {
            a[g] = <$l>::apply(($step * g) as u32, 0, 0, 0);
            g += 1;
        }
        a
    }};
}

/// `body` for `g` = 0 to 15, written out: LLVM keeps some of these loops rolled otherwise, and
/// a rolled loop over a register array is what an expert would not write.
macro_rules! unroll16 {
    ($g:ident => $body:block) => {
        unroll16!(@ $g $body 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (@ $g:ident $body:block $($n:literal)*) => {
        $({
            let $g: usize = $n;
            $body
        })*
    };
}

const ACC_PAIRS: [[u32; 2]; 16] = reg_coords!(Acc, 16, 2);
const OPA16_PAIRS: [[u32; 2]; 16] = reg_coords!(OpA16, 16, 2);

/// Tile `k` of 16-bit values from the MMA accumulator layout to dot operand A (kWidth 2), the
/// attention pattern P = softmax(S) feeding the next product: with 4 warps along M the two
/// layouts coincide and `convert!` emits nothing.
///
/// # Safety
/// Both buffers hold tile `k` (its elements from `k * TILE`), and no other CTA writes it: a
/// kernel's launcher checks its `extent(..)`, and a grid-stride loop gives each tile one CTA
/// (one cluster, for a cluster's tiles).
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn mma_acc_to_operand_tile<T: Thread>(
    t: &T,
    inp: &Global<u16>,
    out: &GlobalMut<u16>,
    k: u32,
) {
    let (lane, warp) = (t.lane(), t.warp());
    let base = k as usize * TILE;
    let [ai, aj] = Acc::apply(0, lane, warp, 0);
    let mut v = [0u16; 32];
    unroll16!(g => {
        let [ri, rj] = ACC_PAIRS[g];
        let x: [u16; 2] = inp.load_n(base + ((ai ^ ri) * 64 + (aj ^ rj)) as usize);
        v[2 * g..2 * g + 2].copy_from_slice(&x);
    });
    let w = convert!(Acc => OpA16, u16).run(t, &v);
    let [oi, oj] = OpA16::apply(0, lane, warp, 0);
    unroll16!(g => {
        let [ri, rj] = OPA16_PAIRS[g];
        out.store_n(base + ((oi ^ ri) * 64 + (oj ^ rj)) as usize, [w[2 * g], w[2 * g + 1]]);
    });
}
const ACC_PERM_PAIRS: [[u32; 2]; 16] = reg_coords!(AccPerm, 16, 2);

/// Tile `k` of f32 from the MMA accumulator layout to its register-permuted form: loads and
/// stores of 2 consecutive elements (8 bytes).
///
/// # Safety
/// Both buffers hold tile `k` (its elements from `k * TILE`), and no other CTA writes it: a
/// kernel's launcher checks its `extent(..)`, and a grid-stride loop gives each tile one CTA
/// (one cluster, for a cluster's tiles).
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn mma_acc_regperm_tile<T: Thread>(
    t: &T,
    inp: &Global<f32>,
    out: &GlobalMut<f32>,
    k: u32,
) {
    let (lane, warp) = (t.lane(), t.warp());
    let base = k as usize * TILE;
    let [ai, aj] = Acc::apply(0, lane, warp, 0);
    let mut v = [0f32; 32];
    unroll16!(g => {
        let [ri, rj] = ACC_PAIRS[g];
        let (i, j) = (ai ^ ri, aj ^ rj);
        let x: [f32; 2] = inp.load_n(base + (i * 64 + j) as usize);
        v[2 * g..2 * g + 2].copy_from_slice(&x);
    });
    let w = convert!(Acc => AccPerm, f32).run(t, &v);
    let [pi, pj] = AccPerm::apply(0, lane, warp, 0);
    unroll16!(g => {
        let [ri, rj] = ACC_PERM_PAIRS[g];
        let (i, j) = (pi ^ ri, pj ^ rj);
        out.store_n(base + (i * 64 + j) as usize, [w[2 * g], w[2 * g + 1]]);
    });
}

// Consecutive registers hold consecutive K: pairs in the fp16 layout, fours in the fp8 one.
const _: () = assert!(OpA16::CONTIG_PER_THREAD[1] >= 2 && OpA8::CONTIG_PER_THREAD[1] >= 4);

/// Tile `k` (elements `k*4096..`, row-major 64x64) from `OpA16` to `OpA8`: 8-bit values, loaded
/// two at a time (kWidth 2 keeps pairs), stored four at a time.
///
/// # Safety
/// Both buffers hold tile `k` (its elements from `k * TILE`), and no other CTA writes it: a
/// kernel's launcher checks its `extent(..)`, and a grid-stride loop gives each tile one CTA
/// (one cluster, for a cluster's tiles).
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn fp16_to_fp8_operand_tile<T: Thread>(
    t: &T,
    inp: &Global<u8>,
    out: &GlobalMut<u8>,
    k: u32,
) {
    let (lane, warp) = (t.lane(), t.warp());
    let base = k as usize * TILE;
    let mut v = [0u8; 32];
    for g in 0..16 {
        let [i, j] = OpA16::apply(2 * g as u32, lane, warp, 0);
        let x: [u8; 2] = inp.load_n(base + (i * 64 + j) as usize);
        v[2 * g..2 * g + 2].copy_from_slice(&x);
    }
    let w = convert!(OpA16 => OpA8, u8).run(t, &v);
    for g in 0..8 {
        let [i, j] = OpA8::apply(4 * g as u32, lane, warp, 0);
        out.store_n(
            base + (i * 64 + j) as usize,
            [w[4 * g], w[4 * g + 1], w[4 * g + 2], w[4 * g + 3]],
        );
    }
}

/// Tile `k` of 16-bit elements through the 128-byte-swizzled shared layout and back.
///
/// # Safety
/// Both buffers hold tile `k` (its elements from `k * TILE`), and no other CTA writes it: a
/// kernel's launcher checks its `extent(..)`, and a grid-stride loop gives each tile one CTA
/// (one cluster, for a cluster's tiles).
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn nvmma_roundtrip_tile<T: Thread>(
    t: &T,
    inp: &Global<u16>,
    out: &GlobalMut<u16>,
    k: u32,
) {
    let (lane, warp) = (t.lane(), t.warp());
    let base = k as usize * TILE;
    let mut v = [0u16; 32];
    for g in 0..4 {
        let [i, j] = Rows16::apply(8 * g as u32, lane, warp, 0);
        let x: [u16; 8] = inp.load16(base + (i * 64 + j) as usize);
        v[8 * g..8 * g + 8].copy_from_slice(&x);
    }
    convert!(Rows16 => Nvmma128, u16).store(t, &v);
    t.sync_block();
    let w = convert!(Nvmma128 => Rows16, u16).load(t);
    for g in 0..4 {
        let [i, j] = Rows16::apply(8 * g as u32, lane, warp, 0);
        let mut x = [0u16; 8];
        x.copy_from_slice(&w[8 * g..8 * g + 8]);
        out.store16(base + (i * 64 + j) as usize, x);
    }
    // The next tile's stores must not overtake this tile's loads.
    t.sync_block();
}

/// Shared memory of `mma_acc_to_rows` per CTA, in bytes.
pub const ACC_TO_ROWS_SMEM: u32 = convert!(GemmAcc => GemmOut, f32).cost.shared_bytes;

/// Tile `k` of a row-major `64 x 64` f32 tile from the GEMM's accumulator layout to its output
/// rows: `convert!`'s straight-line code.
///
/// # Safety
/// Both buffers hold tile `k` (its elements from `k * TILE`), and no other CTA writes it: a
/// kernel's launcher checks its `extent(..)`, and a grid-stride loop gives each tile one CTA
/// (one cluster, for a cluster's tiles).
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn mma_acc_to_rows_tile<T: Thread>(
    t: &T,
    inp: &Global<f32>,
    out: &GlobalMut<f32>,
    k: u32,
) {
    let a = Tile::<GemmAcc, f32, _>::load(t, inp, [64 * k, 0], [64, 1]);
    let b = Tile::<GemmOut, f32, _>::new(convert!(GemmAcc => GemmOut, f32).run(t, &a.values));
    b.store(t, out, [64 * k, 0], [64, 1]);
    // The next tile's stores into the scratch would wait for this tile's loads anyway (the
    // runtime's scratch record); the barrier here makes that wait unconditional, as
    // `nvmma_roundtrip`'s does.
    t.sync_block();
}

/// [`mma_acc_to_rows_tile`] written once for any two layouts of a `64 x 64` tile and any
/// element: the conversion is planned from the layouts' tables.
///
/// # Safety
/// Both buffers hold tile `k` (its elements from `k * TILE`), and no other CTA writes it: a
/// kernel's launcher checks its `extent(..)`, and a grid-stride loop gives each tile one CTA
/// (one cluster, for a cluster's tiles).
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn relayout_tile_generic<A, B, E, T, const N: usize, const M: usize>(
    t: &T,
    inp: &Global<E>,
    out: &GlobalMut<E>,
    k: u32,
) where
    A: Registers<N>,
    B: Registers<M>,
    E: Element,
    T: Thread,
{
    let a = Tile::<A, E, _>::load(t, inp, [64 * k, 0], [64, 1]);
    const { assert!(A::RANK == 2 && A::SHAPE[0] == 64 && A::SHAPE[1] == 64) };
    let b: Tile<B, E, M> = a.convert_into(t);
    b.store(t, out, [64 * k, 0], [64, 1]);
    t.sync_block();
}

/// A grid-stride loop of a tile function over `tiles` tiles, one tile per CTA per step.
macro_rules! tile_loop {
    ($t:ident, $tiles:ident, $k:ident => $body:expr) => {{
        let mut $k = $t.block();
        while $k < $tiles {
            // SAFETY: the launcher checked both buffers hold `tiles` tiles (the kernel's
            // extents), and the grid-stride loop gives tile k to one CTA.
            #[allow(unsafe_code)]
            unsafe {
                $body
            };
            $k += $t.grid_dim()[0];
        }
    }};
}

/// `fp16_to_fp8_operand_tile` over `tiles` tiles (`tiles * 4096` bytes), grid-stride.
#[kernel(block = OpA16::THREADS, extent(inp = tiles * TILE as i128, out = tiles * TILE as i128))]
pub fn fp16_to_fp8_operand(t: &impl Thread, inp: Global<u8>, out: GlobalMut<u8>, tiles: u32) {
    tile_loop!(t, tiles, k => fp16_to_fp8_operand_tile(t, &inp, &out, k))
}

/// `mma_acc_to_operand_tile` over `tiles` tiles (`tiles * 4096` 16-bit elements), grid-stride.
#[kernel(block = Acc::THREADS, extent(inp = tiles * TILE as i128, out = tiles * TILE as i128))]
pub fn mma_acc_to_operand(t: &impl Thread, inp: Global<u16>, out: GlobalMut<u16>, tiles: u32) {
    tile_loop!(t, tiles, k => mma_acc_to_operand_tile(t, &inp, &out, k))
}

/// `mma_acc_regperm_tile` over `tiles` tiles (`tiles * 4096` f32), grid-stride.
#[kernel(block = Acc::THREADS, extent(inp = tiles * TILE as i128, out = tiles * TILE as i128))]
pub fn mma_acc_regperm(t: &impl Thread, inp: Global<f32>, out: GlobalMut<f32>, tiles: u32) {
    tile_loop!(t, tiles, k => mma_acc_regperm_tile(t, &inp, &out, k))
}

/// `nvmma_roundtrip_tile` over `tiles` tiles (`tiles * 4096` 16-bit elements), grid-stride.
#[kernel(block = Rows16::THREADS, shared = NVMMA_SMEM, extent(inp = tiles * TILE as i128, out = tiles * TILE as i128))]
pub fn nvmma_roundtrip(t: &impl Thread, inp: Global<u16>, out: GlobalMut<u16>, tiles: u32) {
    tile_loop!(t, tiles, k => nvmma_roundtrip_tile(t, &inp, &out, k))
}

/// `mma_acc_to_rows_tile` over `tiles` tiles (`tiles * 4096` f32), grid-stride.
#[kernel(block = GemmAcc::THREADS, shared = ACC_TO_ROWS_SMEM, extent(inp = tiles * TILE as i128, out = tiles * TILE as i128))]
pub fn mma_acc_to_rows(t: &impl Thread, inp: Global<f32>, out: GlobalMut<f32>, tiles: u32) {
    tile_loop!(t, tiles, k => mma_acc_to_rows_tile(t, &inp, &out, k))
}

/// [`mma_acc_to_rows`] through [`relayout_tile_generic`].
#[kernel(block = GemmAcc::THREADS, shared = Planned::<GemmAcc, GemmOut, f32>::COST.shared_bytes, extent(inp = tiles * TILE as i128, out = tiles * TILE as i128))]
pub fn mma_acc_to_rows_generic(t: &impl Thread, inp: Global<f32>, out: GlobalMut<f32>, tiles: u32) {
    tile_loop!(t, tiles, k => relayout_tile_generic::<GemmAcc, GemmOut, f32, _, 32, 32>(t, &inp, &out, k))
}
