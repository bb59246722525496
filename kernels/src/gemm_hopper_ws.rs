//! The Hopper GEMM warp-specialised, as CUTLASS's `KernelTmaWarpSpecializedCooperative` and
//! Triton's warp-specialised matmul split a CTA: a producer warpgroup (warps 8 to 11, one
//! thread of which issues every TMA copy) and two consumer warpgroups (warps 0 to 7) that
//! multiply, each 64 rows of the same 128x256 tile, with the layouts, stages and wgmmas of
//! [`gemm_hopper`](crate::gemm_hopper). The roles meet only at mbarriers: a *full* barrier per
//! stage (the producer's expected bytes, completed by the copy engine) and an *empty* one (every
//! consumer thread arrives once its wgmmas on the stage are complete). No CTA barrier runs in
//! the K loop, and the producer runs ahead across tiles: while the consumers convert and store
//! one tile, the next tile's first stages are already loading. The consumers' epilogue has
//! its own shared buffer and named barrier ([`Partition`]).
//!
//! `setmaxnreg` is not used: at this tile a consumer's 128 accumulators fit the 168 registers
//! a 384-thread CTA gets, and moving registers between roles needs the kernel's register count
//! fixed in its PTX (`.maxnreg`), which rustc does not emit.
//!
//! Shapes as [`gemm_hopper`](crate::gemm_hopper): `m` a multiple of 128, `n` of 256, `k` of 64.

use crate::gemm_hopper::{epilogue, HopAcc, HopOut, Operands, HOP_STAGES, STAGE_BYTES};
#[cfg(not(target_arch = "spirv"))]
use linear_layouts::kernel;
use linear_layouts::runtime::grouped::BlockIndex;
use linear_layouts::runtime::mma::MmaInput;
use linear_layouts::{
    convert, Bf16, Element, GroupedMut, Hopper, Layout, MBarriers, Partition, Pending, TensorMap,
    Thread, TileOf, F16,
};

/// Warps that multiply (two warpgroups: the accumulator layout's warps).
const CONSUMER_WARPS: u32 = HopAcc::THREADS / 32;
/// Threads per CTA: the consumers, then the producer warpgroup.
pub const HOP_WS_THREADS: u32 = HopAcc::THREADS + 128;
/// The consumers' named barrier.
const CONSUMER_BARRIER: u32 = 1;

/// Full barriers (one per stage), then empty ones; the stages start at the next 1024-byte
/// boundary of the shared window; the epilogue's buffer follows them.
const BARRIERS: u32 = 2 * MBarriers::<HOP_STAGES>::BYTES;
/// Shared memory per CTA: barriers, alignment, the stages, the epilogue's conversion.
pub const HOP_WS_SMEM: u32 =
    BARRIERS + 1024 + HOP_STAGES * STAGE_BYTES + convert!(HopAcc => HopOut, u16).cost.shared_bytes;
const _: () = assert!(
    HOP_WS_SMEM <= 227 * 1024,
    "an H100 CTA has 227 KiB of shared memory"
);

/// This CTA's tiles of `c = a · b`, warp-specialised (`mnk` the problem's shape).
#[inline(always)]
pub fn gemm_hopper_ws_tiles<T: Hopper, E: MmaInput>(
    t: &T,
    a: &TensorMap<E>,
    b: &TensorMap<E>,
    c: &GroupedMut<E, HopOut>,
    mnk: [u32; 3],
    b_col_major: bool,
) {
    // Full barriers await the producer's one arrival (and the copies' bytes), empty ones every
    // consumer thread's.
    let (full, empty) = MBarriers::init_pair(t, 0, [1, HopAcc::THREADS]);
    let ops = Operands::new(t, (a, b), full, empty.end());
    if b_col_major {
        roles(t, &ops.column_major_b(), empty, c, mnk);
    } else {
        roles(t, &ops, empty, c, mnk);
    }
}

/// Each thread's role: consumer, the producer's issuing thread, or idle.
#[inline(always)]
fn roles<T: Hopper, E: MmaInput, B: Layout>(
    t: &T,
    ops: &Operands<E, B>,
    empty: MBarriers<HOP_STAGES>,
    c: &GroupedMut<E, HopOut>,
    mnk: [u32; 3],
) {
    if let Some(p) = Partition::of(t, 0, CONSUMER_WARPS, CONSUMER_BARRIER) {
        consume(&p, ops, empty, c, mnk);
    } else if t.warp() == CONSUMER_WARPS && t.lane() == 0 {
        produce(t, ops, empty, c, mnk);
    }
}

/// The producer: K step `c` of the CTA goes to stage `c % HOP_STAGES` once the consumers have
/// emptied it (the empty barrier's phase of the step `HOP_STAGES` earlier; a fresh barrier's
/// "previous" phase counts as complete).
#[inline(always)]
fn produce<T: Hopper, E: MmaInput, B: Layout>(
    t: &T,
    ops: &Operands<E, B>,
    empty: MBarriers<HOP_STAGES>,
    c: &GroupedMut<E, HopOut>,
    mnk: [u32; 3],
) {
    each_tile(t, c, mnk[2], |block, steps, done| {
        let at = block.origin();
        let mut step = 0;
        while step < steps {
            let c = done + step;
            let s = c % HOP_STAGES;
            empty.index(s).wait(t, ((c / HOP_STAGES) & 1) ^ 1);
            ops.load(t, at, step, s);
            step += 1;
        }
    });
}

/// A consumer: each K step waits for its stage, multiplies, and once the previous step's
/// wgmmas are complete hands that stage back; then the tile's epilogue.
#[inline(always)]
fn consume<T: Hopper, E: MmaInput, B: Layout>(
    p: &Partition<T>,
    ops: &Operands<E, B>,
    empty: MBarriers<HOP_STAGES>,
    c: &GroupedMut<E, HopOut>,
    mnk: [u32; 3],
) {
    let scratch = ops.end();
    each_tile(p, c, mnk[2], |block, steps, done| {
        let mut acc = Pending::new(TileOf::<HopAcc, f32>::splat(0.0));
        let mut step = 0;
        while step < steps {
            let c = done + step;
            ops.full.index(c % HOP_STAGES).wait(p, (c / HOP_STAGES) & 1);
            // This stage is handed back to the producer (the empty barrier) only after the
            // next step's `wgmma_wait::<1>`.
            acc = ops.multiply(p, c % HOP_STAGES, acc);
            p.wgmma_wait::<1>();
            if step > 0 {
                empty.index((c - 1) % HOP_STAGES).arrive(p);
            }
            step += 1;
        }
        let acc = acc.wait(p);
        empty.index((done + steps - 1) % HOP_STAGES).arrive(p);
        // Stored by the consumers as the CTA's threads (the partition's warps are the CTA's
        // first; the producer's, past the layout's, store nothing).
        c.store(p.thread(), block, &epilogue(p, acc, scratch));
        // The next tile's conversion overwrites what this one read.
        p.sync_block();
    });
}

/// This CTA's tiles of the persistent grid's walk in order, calling `f(block, K steps, K steps
/// of this CTA before this tile)`: the latter gives each step's stage and mbarrier phase, which
/// run on across tiles. Both roles walk the same tiles.
#[inline(always)]
fn each_tile<T: Thread, E: Element>(
    t: &T,
    c: &GroupedMut<E, HopOut>,
    k: u32,
    mut f: impl FnMut(BlockIndex, u32, u32),
) {
    let (steps, mut done) = (k / 64, 0);
    for block in c.each(t) {
        f(block, steps, done);
        done += steps;
    }
}

/// `c = a · b` in f16, warp-specialised (sm_90a): launched as
/// [`gemm_hopper_f16`](crate::gemm_hopper::gemm_hopper_f16) (same grid, tensor maps and
/// shapes), with [`HOP_WS_THREADS`] threads and [`HOP_WS_SMEM`] bytes.
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = HOP_WS_THREADS, shared = HOP_WS_SMEM, extent(c = [m, n]))]
#[allow(clippy::too_many_arguments)]
pub fn gemm_hopper_ws_f16(
    t: &impl Hopper,
    a: TensorMap<F16>,
    b: TensorMap<F16>,
    c: GroupedMut<F16, HopOut>,
    m: u32,
    n: u32,
    k: u32,
    b_col_major: u32,
) {
    gemm_hopper_ws_tiles(t, &a, &b, &c, [m, n, k], b_col_major != 0);
}

/// `c = a · b` in bf16, warp-specialised: as [`gemm_hopper_ws_f16`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = HOP_WS_THREADS, shared = HOP_WS_SMEM, extent(c = [m, n]))]
#[allow(clippy::too_many_arguments)]
pub fn gemm_hopper_ws_bf16(
    t: &impl Hopper,
    a: TensorMap<Bf16>,
    b: TensorMap<Bf16>,
    c: GroupedMut<Bf16, HopOut>,
    m: u32,
    n: u32,
    k: u32,
    b_col_major: u32,
) {
    gemm_hopper_ws_tiles(t, &a, &b, &c, [m, n, k], b_col_major != 0);
}
