//! `C = A · B` the way Hopper kernels do it: each CTA of two warpgroups (8 warps) computes
//! 128x256 tiles of C, K in steps of 64 through a ring of [`HOP_STAGES`] shared stages. The
//! copy engine loads each step's A and B tiles (TMA, [`TmaTile`]: boxes, offsets and swizzle
//! from the `nvmma_shared` layout types) completing on one mbarrier per stage; each warpgroup
//! multiplies its 64 rows with `wgmma.m64n256k16` straight from shared memory ([`Wgmma`](linear_layouts::Wgmma):
//! descriptors derived from the same layouts at compile time), the accumulator an
//! `nvidia_mma` v3 layout. While the tensor cores work on one stage, the copies of the next
//! `HOP_STAGES - 1` are in flight; a stage is refilled once both warpgroups' wgmmas on it are
//! complete (`wgmma.wait_group 1` and a CTA barrier), Triton's schedule for this tile. The
//! grid is persistent: each CTA walks tiles `block, block + grid, ...` in Triton's grouped
//! order, the mbarrier phases running on across tiles. The epilogue rounds to the input format
//! and `convert!`s to a row-major layout for 16-byte stores.
//!
//! A is row-major `m x k`; B row-major `k x n` (`b_col_major = 0`) or column-major (`1`: its
//! tensor map is of Bᵀ, `n x k`); `m` a multiple of 128, `n` of 256, `k` of 64.

use crate::gemm::{bits, halves, max};
#[cfg(not(target_arch = "spirv"))]
use linear_layouts::kernel;
use linear_layouts::runtime::mma::MmaInput;
use linear_layouts::{
    convert, layout, Accumulate, Bf16, GroupedMut, Hopper, Layout, MBarriers, Pending, SharedTiles,
    SharedWindow, TensorMap, Thread, Tile, TileOf, TmaTile, F16,
};

layout! {
    /// The accumulator: each warpgroup's 64 rows by 256 columns, as `wgmma.m64n256k16` holds them.
    pub HopAcc = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 256, 16]) for [128, 256];
    /// A's stage: rows of 128 bytes (64 halves of K), swizzled.
    pub HopSharedA = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [128, 64];
    /// A row-major B's stage: four boxes of 64 columns, rows of 128 bytes along N.
    pub HopSharedB = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 256];
    /// A column-major B's stage: rows of 128 bytes along K, one per column.
    pub HopSharedBT = nvmma_shared(swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16) for [64, 256];
    /// The output tile: rows of 8 consecutive halves (16-byte stores).
    pub HopOut = blocked(sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]) for [128, 256];
}

/// Shared-memory stages: `HOP_STAGES - 1` K steps in flight.
pub const HOP_STAGES: u32 = 3;
/// Threads per CTA: two warpgroups.
pub const HOP_THREADS: u32 = HopAcc::THREADS;
/// The tile of C a CTA computes at a time, and K per step.
pub const HOP_TILE: [u32; 3] = [128, 256, 64];

/// The box and swizzle of A's tensor map (the host encodes it with these).
pub const HOP_BOX_A: [u32; 2] = TmaTile::<HopSharedA, u16>::BOX;
/// The box of a row-major B's tensor map.
pub const HOP_BOX_B: [u32; 2] = TmaTile::<HopSharedB, u16>::BOX;
/// The box of a column-major B's tensor map (of Bᵀ).
pub const HOP_BOX_BT: [u32; 2] = TmaTile::<HopSharedBT, u16>::BOX;
/// The swizzle of every tensor map.
pub const HOP_SWIZZLE: linear_layouts::Swizzle = TmaTile::<HopSharedA, u16>::SWIZZLE;

/// Bytes of A's tile, and of a stage's two tiles (the stages hold A's tiles, then B's).
const A_BYTES: u32 = TmaTile::<HopSharedA, u16>::BYTES;
pub(crate) const STAGE_BYTES: u32 = A_BYTES
    + max(
        TmaTile::<HopSharedB, u16>::BYTES,
        TmaTile::<HopSharedBT, u16>::BYTES,
    );
/// The mbarriers (one per stage) come first; the stages start at the next 1024-byte boundary
/// of the shared window (the swizzle pattern's), at most 1023 bytes later.
const BARRIERS: u32 = MBarriers::<HOP_STAGES>::BYTES;
/// Shared memory per CTA: barriers, alignment, the stages (reused by the epilogue).
pub const HOP_SMEM: u32 = BARRIERS + 1024 + max(HOP_STAGES * STAGE_BYTES, EPILOGUE_BYTES);
/// The epilogue's conversion's scratch (it reuses the stages).
const EPILOGUE_BYTES: u32 = convert!(HopAcc => HopOut, u16).cost.shared_bytes;

/// Where the operands are; `B` is B's stage layout ([`HopSharedB`] for a row-major B,
/// [`HopSharedBT`] for a column-major one: a type, so that each order's loop is straight-line
/// code, as Triton specialises a kernel on its strides).
pub(crate) struct Operands<'a, 'b, E, B> {
    pub(crate) a: &'a TensorMap<'b, E>,
    pub(crate) b: &'a TensorMap<'b, E>,
    /// A's tile of each stage, then B's.
    sa: SharedTiles<HopSharedA, E, HOP_STAGES>,
    sb: SharedTiles<B, E, HOP_STAGES>,
    /// Each stage's mbarrier, on which its loads complete.
    pub(crate) full: MBarriers<HOP_STAGES>,
}

impl<'a, 'b, E: MmaInput> Operands<'a, 'b, E, HopSharedB> {
    /// The operands of a row-major B, completing on `full`; their stages from the first
    /// aligned byte at or after `from` (checked inside the kernel's shared memory, once).
    #[inline(always)]
    pub(crate) fn new<T: Hopper>(
        t: &T,
        (a, b): (&'a TensorMap<'b, E>, &'a TensorMap<'b, E>),
        full: MBarriers<HOP_STAGES>,
        from: u32,
    ) -> Self {
        let sa = SharedTiles::after(t, from);
        let sb = SharedTiles::new(t, sa.end());
        Operands { a, b, sa, sb, full }
    }

    /// The same stages holding a column-major B (its tensor map is of Bᵀ).
    #[inline(always)]
    pub(crate) fn column_major_b(self) -> Operands<'a, 'b, E, HopSharedBT> {
        Operands {
            sb: self.sb.reinterpret(),
            a: self.a,
            b: self.b,
            sa: self.sa,
            full: self.full,
        }
    }
}

impl<E: MmaInput, B: Layout> Operands<'_, '_, E, B> {
    /// Byte offset of the stages (the epilogue's conversion reuses them).
    #[inline(always)]
    pub(crate) fn stages(&self) -> u32 {
        self.sa.offset()
    }

    /// Byte offset just past the stages.
    #[inline(always)]
    pub(crate) fn end(&self) -> u32 {
        self.sb.end()
    }

    /// One thread issues K step `step` of tile `[row0, col0]` into stage `s`, completing on
    /// its mbarrier.
    #[inline(always)]
    pub(crate) fn load<T: Hopper>(&self, t: &T, [row0, col0]: [u32; 2], step: u32, s: u32) {
        let (k0, bar) = (64 * step, self.full.index(s));
        bar.arrive_expect_tx(t, STAGE_BYTES_LOADED);
        let (load_a, load_b) = const { (TmaTile::<HopSharedA, E>::new(), TmaTile::<B, E>::new()) };
        load_a.load(t, self.a, [row0, k0], &self.sa.index(s), bar);
        // B's tile in its tensor's order: `[k, n]`, or `[n, k]` transposed.
        load_b.load(t, self.b, [k0, col0], &self.sb.index(s), bar);
    }

    /// Stage `s` multiplied into `acc` by this thread's warpgroup: one wgmma group, in flight
    /// until the returned accumulator is waited for.
    #[inline(always)]
    pub(crate) fn multiply<T: Hopper>(
        &self,
        t: &T,
        s: u32,
        acc: impl Accumulate<HopAcc>,
    ) -> Pending<HopAcc> {
        self.sa.index(s).dot_async(t, &self.sb.index(s), acc)
    }
}

/// Bytes one K step lands (either B order: the tiles are the same size).
const STAGE_BYTES_LOADED: u32 = A_BYTES + TmaTile::<HopSharedB, u16>::BYTES;

/// This CTA's tiles of `c = a · b` (`mnk` the problem's shape).
#[inline(always)]
pub fn gemm_hopper_tiles<T: Hopper, E: MmaInput>(
    t: &T,
    a: &TensorMap<E>,
    b: &TensorMap<E>,
    c: &GroupedMut<E, HopOut>,
    mnk: [u32; 3],
    b_col_major: bool,
) {
    let full = MBarriers::init(t, 0, 1);
    let ops = Operands::new(t, (a, b), full, full.end());
    if b_col_major {
        tiles(t, &ops.column_major_b(), c, mnk);
    } else {
        tiles(t, &ops, c, mnk);
    }
}

/// [`gemm_hopper_tiles`] for one order of B.
#[inline(always)]
fn tiles<T: Hopper, E: MmaInput, B: Layout>(
    t: &T,
    ops: &Operands<E, B>,
    c: &GroupedMut<E, HopOut>,
    mnk: [u32; 3],
) {
    let first = t.warp() == 0 && t.lane() == 0;
    let (steps, mut done) = (mnk[2] / 64, 0);
    // The tile walk written out, not through a closure (as the warp-specialised kernel's):
    // through one LLVM schedules this K loop 14 instructions longer (scripts/gemm_sass.py).
    for block in c.each(t) {
        let at = block.origin();
        if first {
            let mut s = 0;
            while s < HOP_STAGES - 1 && s < steps {
                ops.load(t, at, s, (done + s) % HOP_STAGES);
                s += 1;
            }
        }
        let mut acc = Pending::new(TileOf::<HopAcc, f32>::splat(0.0));
        let mut step = 0;
        while step < steps {
            let c = done + step;
            ops.full.index(c % HOP_STAGES).wait(t, (c / HOP_STAGES) & 1);
            // This stage is refilled only after the next step's `wgmma_wait::<1>` and the CTA
            // barrier behind it.
            acc = ops.multiply(t, c % HOP_STAGES, acc);
            // The previous step's wgmmas are complete in this warpgroup; after the barrier in
            // both, so its stage can be refilled.
            t.wgmma_wait::<1>();
            t.sync_block();
            let next = step + HOP_STAGES - 1;
            if first && next < steps {
                ops.load(t, at, next, (done + next) % HOP_STAGES);
            }
            step += 1;
        }
        let acc = acc.wait(t);
        done += steps;
        // Every wgmma has read its stage: the epilogue's conversion reuses them.
        t.sync_block();
        c.store(t, block, &epilogue(t, acc, ops.stages()));
        // The next tile's copies overwrite what the conversion read and wrote: its ordinary
        // stores are fenced for the copy engine before the barrier that orders them first.
        t.fence_proxy_async();
        t.sync_block();
    }
}

/// A tile of `c` from the accumulators: rounded to `E`, converted to [`HopOut`] through shared
/// memory from byte `scratch` on (the conversion's barriers are `t`'s CTA barrier), for
/// 16-byte stores.
#[inline(always)]
pub(crate) fn epilogue<T: Thread, E: MmaInput>(
    t: &T,
    acc: TileOf<HopAcc, f32>,
    scratch: u32,
) -> TileOf<HopOut, E> {
    let window = SharedWindow::<_, EPILOGUE_BYTES>::new(t, scratch);
    let out = convert!(HopAcc => HopOut, u16).run(&window, &bits(acc.to::<E>().values));
    Tile::new(halves(out))
}

/// The persistent grid of an `m x n` problem on `sms` multiprocessors: one CTA per
/// multiprocessor, or per tile if there are fewer tiles.
pub const fn hopper_grid(m: u32, n: u32, sms: u32) -> [u32; 3] {
    let tiles = (m / 128) * (n / 256);
    [if tiles < sms { tiles } else { sms }, 1, 1]
}

/// `c = a · b` in f16 with TMA and wgmma (sm_90a): grid [`hopper_grid`]; `a` and `b` tensor
/// maps with boxes [`HOP_BOX_A`] and [`HOP_BOX_B`] (or [`HOP_BOX_BT`] of Bᵀ), swizzle
/// [`HOP_SWIZZLE`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = HOP_THREADS, shared = HOP_SMEM, extent(c = [m, n]))]
#[allow(clippy::too_many_arguments)]
pub fn gemm_hopper_f16(
    t: &impl Hopper,
    a: TensorMap<F16>,
    b: TensorMap<F16>,
    c: GroupedMut<F16, HopOut>,
    m: u32,
    n: u32,
    k: u32,
    b_col_major: u32,
) {
    gemm_hopper_tiles(t, &a, &b, &c, [m, n, k], b_col_major != 0);
}

/// `c = a · b` in bf16 with TMA and wgmma: as [`gemm_hopper_f16`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = HOP_THREADS, shared = HOP_SMEM, extent(c = [m, n]))]
#[allow(clippy::too_many_arguments)]
pub fn gemm_hopper_bf16(
    t: &impl Hopper,
    a: TensorMap<Bf16>,
    b: TensorMap<Bf16>,
    c: GroupedMut<Bf16, HopOut>,
    m: u32,
    n: u32,
    k: u32,
    b_col_major: u32,
) {
    gemm_hopper_tiles(t, &a, &b, &c, [m, n, k], b_col_major != 0);
}
