//! `C = A · B` the way Ampere kernels do it (CUTLASS's multistage GEMM, Triton's pipeliner on
//! sm_80): each CTA of 4 warps computes a 128x128 tile of C, K in steps of 32 through a ring of
//! [`STAGES`] shared-memory stages. Global tiles go straight into swizzled shared layouts by
//! `cp.async` ([`AsyncCopy`], addresses from `convert!(Load => Shared)`), the copies of
//! `STAGES - 1` steps in flight while tensor cores work on the oldest; each step's `dot_op`
//! fragments come from shared memory by `convert!(Shared => DotOp)` (`ldmatrix`), `Tile::dot`
//! multiplies them (`mma.sync.m16n8k16`, f32 accumulate), and the epilogue rounds to the input
//! format and `convert!`s to a row-major layout for 16-byte stores.
//!
//! Every fragment, shared tile and global index comes from a layout type. A is row-major
//! `m x k`; B row-major `k x n` (`b_col_major = 0`) or column-major (`1`); `m`, `n` multiples of
//! 128, `k` of 32. The grid is 1-D, `m n / 128²` CTAs, ordered
//! in groups of 8 tile rows as Triton's tutorial does for L2 reuse.

use crate::gemm::{bits, halves, max};
#[cfg(not(target_arch = "spirv"))]
use linear_layouts::kernel;
use linear_layouts::runtime::mma::MmaInput;
use linear_layouts::{
    convert, layout, AsyncCopy, Bf16, Blocked, GroupedMut, Panel, SharedWindow, Thread, Tile,
    TileOf, F16,
};

layout! {
    /// The accumulator: m16n8 fragments, 2x2 warps of 64x64 over the 128x128 tile.
    pub PipeAcc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [128, 128];
    /// A's fragments for one K step.
    pub PipeA = dot_op(opIdx = 0, parent = PipeAcc, kWidth = 2) for [128, 32];
    /// B's fragments for one K step.
    pub PipeB = dot_op(opIdx = 1, parent = PipeAcc, kWidth = 2) for [32, 128];
    /// A's K step as copied from global memory: 16-byte vectors along K.
    pub PipeALoad = blocked(sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]) for [128, 32];
    /// A row-major B's K step as copied: 16-byte vectors along N.
    pub PipeBLoad = blocked(sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 128];
    /// A column-major B's K step as copied: 16-byte vectors along K.
    pub PipeBLoadT = blocked(sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]) for [32, 128];
    /// A's stage in shared memory: rows of 64 bytes, swizzled in 16-byte vectors.
    pub PipeSharedA = swizzled_shared(vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]) for [128, 32];
    /// A row-major B's stage: rows of 256 bytes.
    pub PipeSharedB = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [32, 128];
    /// A column-major B's stage: columns of 64 bytes.
    pub PipeSharedBT = swizzled_shared(vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]) for [32, 128];
    /// The output tile: rows of 8 consecutive halves (16-byte stores).
    pub PipeOut = blocked(sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [128, 128];
}

/// Shared-memory stages: `STAGES - 1` K steps in flight.
pub const STAGES: u32 = 4;
/// Threads per CTA.
pub const PIPE_THREADS: u32 = PipeAcc::THREADS;

const COPY_A: AsyncCopy<PipeALoad, u16> = AsyncCopy::new(convert!(PipeALoad => PipeSharedA, u16));
const COPY_B: AsyncCopy<PipeBLoad, u16> = AsyncCopy::new(convert!(PipeBLoad => PipeSharedB, u16));
const COPY_BT: AsyncCopy<PipeBLoadT, u16> =
    AsyncCopy::new(convert!(PipeBLoadT => PipeSharedBT, u16));

/// Bytes of A's part of a stage (B's follows it).
const A_BYTES: u32 = COPY_A.shared_bytes();
/// Bytes of one stage.
const B_BYTES: u32 = max(COPY_B.shared_bytes(), COPY_BT.shared_bytes());
const STAGE_BYTES: u32 = A_BYTES + B_BYTES;
/// Shared memory per CTA: the stages, reused by the epilogue's conversion.
pub const PIPE_SMEM: u32 = max(
    STAGES * STAGE_BYTES,
    convert!(PipeAcc => PipeOut, u16).cost.shared_bytes,
);

/// The operands' panels of one output block: A's block row, B's block column in either order.
struct Operands<'a, E> {
    a: Panel<'a, E, PipeALoad, false>,
    b: Panel<'a, E, PipeBLoad, false>,
    bt: Panel<'a, E, PipeBLoadT, true>,
    b_col_major: bool,
}

impl<E: MmaInput> Operands<'_, E> {
    /// Start the copies of K step `step` into stage `stage` (a step below the operands'
    /// blocks along K: the callers' test, into which the blocks' checks fold).
    #[inline(always)]
    fn start<T: Thread>(&self, t: &T, step: u32, stage: u32) {
        let base = stage * STAGE_BYTES;
        COPY_A.start_block(
            &SharedWindow::<_, A_BYTES>::new(t, base),
            self.a.block(step),
        );
        let tb = SharedWindow::<_, B_BYTES>::new(t, base + A_BYTES);
        if self.b_col_major {
            COPY_BT.start_block(&tb, self.bt.block(step));
        } else {
            COPY_B.start_block(&tb, self.b.block(step));
        }
    }

    /// Stage `stage`'s fragments, multiplied into `acc`.
    #[inline(always)]
    fn multiply<T: Thread>(
        &self,
        t: &T,
        stage: u32,
        acc: TileOf<PipeAcc, f32>,
    ) -> TileOf<PipeAcc, f32> {
        let base = stage * STAGE_BYTES;
        let ta = SharedWindow::<_, A_BYTES>::new(t, base);
        let fa = Tile::<PipeA, E, _>::new(halves(convert!(PipeSharedA => PipeA, u16).load(&ta)));
        let tb = SharedWindow::<_, B_BYTES>::new(t, base + A_BYTES);
        let fb = Tile::<PipeB, E, _>::new(halves(if self.b_col_major {
            convert!(PipeSharedBT => PipeB, u16).load(&tb)
        } else {
            convert!(PipeSharedB => PipeB, u16).load(&tb)
        }));
        fa.dot(t, &fb, acc)
    }
}

/// This CTA's 128x128 tile of `c = a · b`: its block of `c`, from A's block row and B's
/// block column (B stored column-major when `b_col_major`).
#[inline(always)]
pub fn gemm_pipelined_tile<T: Thread, E: MmaInput>(
    t: &T,
    a: &Blocked<E, PipeALoad>,
    b: &Blocked<E, PipeBLoad>,
    c: &GroupedMut<E, PipeOut>,
    b_col_major: bool,
) {
    let block = c.block(t);
    let b_t = b.column_major::<PipeBLoadT>();
    let ops = Operands {
        a: a.row_of(block),
        b: b.col_of(block),
        bt: b_t.col_of(block),
        b_col_major,
    };
    let steps = a.blocks()[1];
    let mut s = 0;
    while s < STAGES - 1 {
        if s < steps {
            ops.start(t, s, s);
        }
        t.cp_async_commit();
        s += 1;
    }
    let mut acc = Tile::splat(0.0);
    let mut step = 0;
    while step < steps {
        // This thread's copies of `step` have landed; after the barrier everyone's have, and
        // nobody still reads the stage the next copies overwrite (the one multiplied last).
        t.cp_async_wait::<{ STAGES - 2 }>();
        t.sync_block();
        let next = step + STAGES - 1;
        if next < steps {
            ops.start(t, next, next % STAGES);
        }
        // An empty group when there is nothing left to load keeps the wait's count right.
        t.cp_async_commit();
        acc = ops.multiply(t, step % STAGES, acc);
        step += 1;
    }
    t.cp_async_wait::<0>();
    // The epilogue's conversion reuses the stages' memory.
    t.sync_block();
    let out = convert!(PipeAcc => PipeOut, u16).run(t, &bits(acc.to::<E>().values));
    c.store(t, block, &Tile::new(halves(out)));
}

/// The grid of an `m x n` problem: one CTA per 128x128 tile of C, 1-D.
pub const fn pipelined_grid(m: u32, n: u32) -> [u32; 3] {
    [(m / 128) * (n / 128), 1, 1]
}

/// `c = a · b` in f16, pipelined: grid [`pipelined_grid`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = PIPE_THREADS, shared = PIPE_SMEM, extent(
    a = [m, k],
    b = [k, n],
    c = [m, n],
))]
#[allow(clippy::too_many_arguments)]
pub fn gemm_pipelined_f16(
    t: &impl Thread,
    a: Blocked<F16, PipeALoad>,
    b: Blocked<F16, PipeBLoad>,
    c: GroupedMut<F16, PipeOut>,
    m: u32,
    n: u32,
    k: u32,
    b_col_major: u32,
) {
    gemm_pipelined_tile(t, &a, &b, &c, b_col_major != 0);
}

/// `c = a · b` in bf16, pipelined: grid [`pipelined_grid`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = PIPE_THREADS, shared = PIPE_SMEM, extent(
    a = [m, k],
    b = [k, n],
    c = [m, n],
))]
#[allow(clippy::too_many_arguments)]
pub fn gemm_pipelined_bf16(
    t: &impl Thread,
    a: Blocked<Bf16, PipeALoad>,
    b: Blocked<Bf16, PipeBLoad>,
    c: GroupedMut<Bf16, PipeOut>,
    m: u32,
    n: u32,
    k: u32,
    b_col_major: u32,
) {
    gemm_pipelined_tile(t, &a, &b, &c, b_col_major != 0);
}
