//! Flash attention forward on Hopper tensor cores (`wgmma`, sm_90a): the loop of [`attention`]
//! with each CTA of two warpgroups taking 128 query rows of one head and walking the keys and
//! values 64 at a time; one body for every element type and head dimension ([`HopperHead`]:
//! 64 and 128 here).
//!
//! Q, K and V go from global memory straight into `nvmma_shared` layouts (128-byte swizzled
//! rows, what wgmma reads) by the copy engine ([`TmaTile`]: boxes and swizzle from the layout
//! types, so the host's tensor maps agree with them), one thread issuing each block's loads,
//! which complete on an mbarrier per stage; K and V in a ring of three stages: while one step
//! multiplies, the next step's loads are in flight, one CTA barrier a step (before a stage is
//! refilled). Rows past a head's end are the next head's (or, past the tensor, zeros): masked
//! keys weigh nothing and masked query rows are not stored. Each warpgroup computes its 64 rows
//! of `S = Q · Kᵀ` with `wgmma` from shared memory into an `nvidia_mma` v3 accumulator, runs
//! the online softmax
//! on those registers as `Tile` reductions and broadcasts (within each quad of lanes, as on
//! Ampere), and adds `P · V` with a second wgmma whose A is `P` rounded to the input format,
//! in registers: the accumulator's registers are wgmma's A fragments ([`Tile::convert`] plans
//! it in a const: no instruction), as Triton keeps P. Within a warpgroup the steps overlap as in
//! FlashAttention-3: `S` of block `j` is issued before `P · V` of block `j - 1`, so the softmax
//! of block `j` runs while the tensor cores add `P · V`.
//!
//! `q`, `k`, `v` and `o` are `[heads, seq, D]` row-major, `seq` any length, the first three
//! passed as tensor maps of `[heads · seq, D]` with boxes [`HATTN_BOX_Q`] (Q) and
//! [`HATTN_BOX_KV`] (K and V) and swizzle [`HATTN_SWIZZLE`];
//! `scale_log2 = log2(e) / sqrt(D)`; with `causal`, query `i` attends to keys `j <= i`.
//!
//! [`attention`]: crate::attention

use crate::attention::{softmax_step, KeyBlock};
use crate::gemm::max;
use core::marker::PhantomData;
#[cfg(not(target_arch = "spirv"))]
use linear_layouts::kernel;

use linear_layouts::math;
use linear_layouts::planned::Planned;
use linear_layouts::runtime::mma::{pack_pairs, unpack_pairs, MmaInput};
use linear_layouts::runtime::Strategy;
use linear_layouts::{
    convert, layout, BatchChunksMut, Bf16, Distributed, Holds, Hopper, Layout, MBarriers, Pending,
    Registers, SharedTile, SharedTiles, SharedWindow, SliceOf, TensorMap, Thread, Tile, TileOf,
    TmaTile, F16,
};

layout! {
    /// `S = Q · Kᵀ` of one block of 64 keys: each warpgroup's 64 rows, as `wgmma.m64n64k16`
    /// holds them.
    pub HAttnS = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]) for [128, 64];
    /// P as operand A of `P · V` from registers: each warp's 16 rows as `mma.m16n8k16`'s A.
    pub HAttnP = dot_op(opIdx = 0, parent = HAttnS, kWidth = 2) for [128, 64];
    /// One statistic per query row, as `S`'s rows hold them.
    pub HAttnRow = slice(dim = 1, parent = HAttnS) for [128];
}

layout! {
    /// Head dimension 64: `O`, 128 query rows x 64, as `wgmma.m64n64k16` holds them.
    pub HAttnO64 = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]) for [128, 64];
    /// One statistic per row of `O`.
    pub HAttnRowO64 = slice(dim = 1, parent = HAttnO64) for [128];
    /// Q as wgmma's operand A: rows of 64 halves (128 bytes), swizzled.
    pub HAttnQSmem64 = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [128, 64];
    /// Kᵀ (head dim x keys) as operand B: each key's 64 halves contiguous (K-major).
    pub HAttnKtSmem64 = nvmma_shared(swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16) for [64, 64];
    /// V (keys x head dim) as operand B: rows of 64 halves (N-major).
    pub HAttnVSmem64 = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
    /// O as stored: rows of 64 halves, 8 per thread (16-byte accesses).
    pub HAttnRows64 = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]) for [128, 64];
}

layout! {
    /// Head dimension 128: `O`, 128 query rows x 128, as `wgmma.m64n128k16` holds them.
    pub HAttnO128 = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]) for [128, 128];
    /// One statistic per row of `O`.
    pub HAttnRowO128 = slice(dim = 1, parent = HAttnO128) for [128];
    /// Q: rows of 128 halves, two 128-byte boxes.
    pub HAttnQSmem128 = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [128, 128];
    /// Kᵀ: each key's 128 halves contiguous, two boxes.
    pub HAttnKtSmem128 = nvmma_shared(swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16) for [128, 64];
    /// V: rows of 128 halves, two boxes.
    pub HAttnVSmem128 = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 128];
    /// O as stored.
    pub HAttnRows128 = blocked(sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]) for [128, 128];
}

const NR: usize = HAttnRow::ELEMENTS_PER_THREAD as usize;
const NP: usize = HAttnP::ELEMENTS_PER_THREAD as usize;

/// What a head dimension `D` fixes: the layouts of the tiles whose shape it is, and the
/// conversion of `O` to rows (`convert!` names concrete layouts: each head dimension's impl,
/// written by `hopper_head!`, holds it).
pub trait HopperHead {
    /// The head dimension.
    const D: u32;
    /// `O`: 128 query rows x `D`, a wgmma accumulator.
    type O: Distributed;
    /// One statistic per row of `O`.
    type RowO: Registers<NR> + SliceOf<Parent = Self::O>;
    /// Q's tile (operand A of `Q · Kᵀ`).
    type QSmem: Layout;
    /// Kᵀ's tile (operand B of `Q · Kᵀ`).
    type KtSmem: Layout;
    /// V's tile (operand B of `P · V`).
    type VSmem: Layout;
    /// O as stored: rows of `D` halves, 8 per thread.
    type Rows: Distributed;
    /// Bytes of O's conversion's scratch.
    const OUT_BYTES: u32;
    /// O in `Rows`, through the [`Self::OUT_BYTES`] of shared memory from byte `scratch` on.
    fn rows<T: Thread>(t: &T, scratch: u32, o: &TileOf<Self::O, f32>) -> TileOf<Self::Rows, f32>;
}

/// A [`HopperHead`] impl from its layouts.
macro_rules! hopper_head {
    ($head:ident, $d:literal, $o:ident, $row_o:ident, $q:ident, $kt:ident, $v:ident, $rows:ident) => {
        #[doc = concat!("Head dimension ", $d, ".")]
        pub struct $head;

        impl HopperHead for $head {
            const D: u32 = $d;
            type O = $o;
            type RowO = $row_o;
            type QSmem = $q;
            type KtSmem = $kt;
            type VSmem = $v;
            type Rows = $rows;
            const OUT_BYTES: u32 = convert!($o => $rows, f32).cost.shared_bytes;
            #[inline(always)]
            fn rows<T: Thread>(t: &T, scratch: u32, o: &TileOf<$o, f32>) -> TileOf<$rows, f32> {
                let w = SharedWindow::<_, { convert!($o => $rows, f32).cost.shared_bytes }>::new(
                    t, scratch,
                );
                Tile::new(convert!($o => $rows, f32).run(&w, &o.values))
            }
        }
    };
}

hopper_head!(
    Head64,
    64,
    HAttnO64,
    HAttnRowO64,
    HAttnQSmem64,
    HAttnKtSmem64,
    HAttnVSmem64,
    HAttnRows64
);
hopper_head!(
    Head128,
    128,
    HAttnO128,
    HAttnRowO128,
    HAttnQSmem128,
    HAttnKtSmem128,
    HAttnVSmem128,
    HAttnRows128
);

/// Query rows per CTA.
pub const HATTN_BLOCK_M: u32 = 128;
/// Keys per step.
pub const HATTN_BLOCK_N: u32 = 64;
/// Threads per CTA: two warpgroups.
pub const HATTN_THREADS: u32 = HAttnS::THREADS;

// P leaves the accumulator as wgmma's A from registers without moving: the const planner says so.
const _: () = assert!(matches!(
    Planned::<HAttnS, HAttnP, u16>::COST.strategy,
    Strategy::Nothing | Strategy::Registers
));

/// The copy engine's loads of each head dimension's tiles, checked against their layouts.
struct Loads<H>(PhantomData<H>);

impl<H: HopperHead> Loads<H> {
    /// Bytes a stage's loads land: Kᵀ's tile and V's.
    const STAGE_BYTES: u32 = TmaTile::<H::KtSmem, u16>::BYTES + TmaTile::<H::VSmem, u16>::BYTES;
    /// Shared memory per CTA: the mbarriers, up to 1024 bytes to align (the swizzle pattern's),
    /// Q's tile, then Kᵀ's tile of each stage and V's (O's conversion reuses them).
    const SMEM: u32 = BARRIERS
        + 1024
        + max(
            TmaTile::<H::QSmem, u16>::BYTES + STAGES * Self::STAGE_BYTES,
            H::OUT_BYTES,
        );
}

/// Shared memory per CTA at head dimension 64 and 128.
pub const HATTN_SMEM_64: u32 = Loads::<Head64>::SMEM;
pub const HATTN_SMEM_128: u32 = Loads::<Head128>::SMEM;
/// The box of Q's tensor map (both head dimensions: 128 rows of 64 columns; a 128-column tile
/// is two boxes).
pub const HATTN_BOX_Q: [u32; 2] = TmaTile::<HAttnQSmem64, u16>::BOX;
/// The box of K's and V's tensor maps.
pub const HATTN_BOX_KV: [u32; 2] = TmaTile::<HAttnVSmem64, u16>::BOX;
/// The swizzle of every tensor map.
pub const HATTN_SWIZZLE: linear_layouts::Swizzle = TmaTile::<HAttnQSmem64, u16>::SWIZZLE;
const _: () = assert!(
    matches!(
        (
            TmaTile::<HAttnKtSmem64, u16>::BOX,
            TmaTile::<HAttnKtSmem128, u16>::BOX,
            TmaTile::<HAttnVSmem128, u16>::BOX,
            TmaTile::<HAttnQSmem128, u16>::BOX,
        ),
        ([64, 64], [64, 64], [64, 64], [128, 64])
    ) && matches!(HATTN_BOX_KV, [64, 64])
        && matches!(HATTN_BOX_Q, [128, 64]),
    "one box for Q's map and one for K's and V's, at every head dimension"
);

/// The grid: one CTA per 128 query rows of each head.
pub const fn attention_hopper_grid(heads: u32, seq: u32) -> [u32; 3] {
    [seq.div_ceil(HATTN_BLOCK_M), heads, 1]
}

/// Shared stages of Kᵀ and V: a step's loads land in the stage that the wgmmas of two steps
/// before read, complete by then while the last step's `P · V` may still run.
const STAGES: u32 = 3;
/// The mbarriers, at the start of the shared window: Q's, then one per stage.
const BARRIERS: u32 = MBarriers::<1>::BYTES + MBarriers::<STAGES>::BYTES;

/// Where a CTA's operands are: K's and V's tensor maps, this head's rows, and the shared tiles;
/// what the mask needs. `H` is the head dimension.
struct Operands<'a, 'b, E, H: HopperHead> {
    k: &'a TensorMap<'b, E>,
    v: &'a TensorMap<'b, E>,
    /// This head's first row.
    base: u32,
    /// Q's tile, then Kᵀ's of each stage, then V's.
    q: SharedTile<H::QSmem, E>,
    kt: SharedTiles<H::KtSmem, E, STAGES>,
    vs: SharedTiles<H::VSmem, E, STAGES>,
    /// Each stage's mbarrier, on which its loads complete.
    bars: MBarriers<STAGES>,
    seq: u32,
    row0: u32,
    causal: bool,
    scale_log2: f32,
    /// Whether this thread issues the copy engine's loads (one per CTA).
    issuer: bool,
}

/// A stage of the ring and the phase of its mbarrier (counted, not computed from the block: no
/// division in the loop).
#[derive(Clone, Copy)]
struct Stage {
    s: u32,
    phase: u32,
}

impl Stage {
    const FIRST: Stage = Stage { s: 0, phase: 0 };
    #[inline(always)]
    fn next(self) -> Self {
        match self.s + 1 == STAGES {
            true => Stage {
                s: 0,
                phase: self.phase ^ 1,
            },
            false => Stage {
                s: self.s + 1,
                ..self
            },
        }
    }
}

/// The running row maximum and sum of the online softmax.
struct Rows {
    m: TileOf<HAttnRow, f32>,
    l: TileOf<HAttnRow, f32>,
}

impl<E: MmaInput, H: HopperHead> Operands<'_, '_, E, H> {
    /// The issuer loads key block `j` into stage `at`, completing on its mbarrier.
    #[inline(always)]
    fn load<T: Hopper>(&self, t: &T, j: u32, at: Stage) {
        if !self.issuer {
            return;
        }
        let k0 = self.base + j * HATTN_BLOCK_N;
        let bar = self.bars.index(at.s);
        bar.arrive_expect_tx(t, Loads::<H>::STAGE_BYTES);
        let (load_kt, load_v) = const {
            (
                TmaTile::<H::KtSmem, E>::new(),
                TmaTile::<H::VSmem, E>::new(),
            )
        };
        load_kt.load(t, self.k, [0, k0], &self.kt.index(at.s), bar);
        load_v.load(t, self.v, [k0, 0], &self.vs.index(at.s), bar);
    }

    /// Once every warp is done with the stage the next block's loads overwrite (block
    /// `j - 2`'s), load block `j + 1` if `more`; wait for block `j` (in stage `at`) and issue
    /// `S = Q · Kᵀ` of it as one wgmma group.
    #[inline(always)]
    fn issue_s<T: Hopper>(&self, t: &T, j: u32, at: Stage, more: bool) -> Pending<HAttnS> {
        t.sync_block();
        if more {
            self.load(t, j + 1, at.next());
        }
        self.bars.index(at.s).wait(t, at.phase);
        self.q
            .dot_async(t, &self.kt.index(at.s), TileOf::<HAttnS, f32>::splat(0.0))
    }

    /// `P · V`'s operands for the key block in stage `at`: P in registers (from its fragments'
    /// words) and V's tile.
    #[inline(always)]
    fn pv(&self, at: Stage, p: &[u32; NP / 2]) -> (TileOf<HAttnP, E>, SharedTile<H::VSmem, E>) {
        (Tile::new(unpack_pairs(p)), self.vs.index(at.s))
    }

    /// The online softmax of key block `j`'s `S`: the running statistics updated, `P` (in
    /// f32: [`Self::operand`] rounds it) and the factor `O` must be scaled by.
    #[inline(always)]
    fn softmax<T: Thread>(
        &self,
        t: &T,
        j: u32,
        s: TileOf<HAttnS, f32>,
        rows: &mut Rows,
    ) -> (TileOf<HAttnS, f32>, TileOf<H::O, f32>) {
        let block = KeyBlock {
            k0: j * HATTN_BLOCK_N,
            keys: HATTN_BLOCK_N,
            row0: self.row0,
            seq: self.seq,
            causal: self.causal,
        };
        let (p, alpha) = softmax_step(t, s, block, self.scale_log2, (&mut rows.m, &mut rows.l));
        (p, alpha.reshape::<H::RowO>().broadcast())
    }

    /// `P` rounded to the input format as `P · V`'s A (the accumulator's registers: planned
    /// from the layouts, no instruction) in fragment words. Called once no wgmma reading the
    /// previous words is in flight, `p` fenced there: a write to a register an issued wgmma
    /// reads makes ptxas serialise the wgmmas (FlashAttention-3 converts P after the wait too).
    #[inline(always)]
    fn operand<T: Hopper>(&self, t: &T, mut p: TileOf<HAttnS, f32>) -> [u32; NP / 2] {
        t.wgmma_fence_operand(&mut p.values);
        pack_pairs(&p.to::<E>().convert::<HAttnP>(t).values)
    }
}

/// One CTA's 128 query rows `(bx, head)` of `o = softmax(q kᵀ · scale) v` at head dimension
/// `H` (`NO`, `NL`: its `O`'s and rows' registers per thread), stored as `o`'s chunk of the
/// CTA (`[bx, head]` its block index).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn attention_hopper_tile<
    T: Hopper,
    E: MmaInput,
    H: HopperHead<O: Holds<f32, NO>, Rows: Holds<f32, NL>>,
    const NO: usize,
    const NL: usize,
>(
    t: &T,
    (q, k, v): (&TensorMap<E>, &TensorMap<E>, &TensorMap<E>),
    o: &BatchChunksMut<E, H::Rows, true>,
    seq: u32,
    scale_log2: f32,
    causal: bool,
    [bx, head]: [u32; 2],
) {
    let (row0, base) = (bx * HATTN_BLOCK_M, head * seq);
    let issuer = t.warp() == 0 && t.lane() == 0;
    let (q_bar, bars) = MBarriers::<{ 1 + STAGES }>::init(t, 0, 1).split::<1, STAGES>();
    let q_tiles = SharedTiles::<H::QSmem, E, 1>::after(t, bars.end());
    let (q_bar, q_tile) = (q_bar.index(0), q_tiles.index(0));
    let kt = SharedTiles::new(t, q_tiles.end());
    let ops = Operands::<E, H> {
        k,
        v,
        base,
        q: q_tile,
        kt,
        vs: SharedTiles::new(t, kt.end()),
        bars,
        seq,
        row0,
        causal,
        scale_log2,
        issuer,
    };
    // Causal: key blocks past the last query row of this CTA are all masked.
    let end = if causal {
        seq.min(row0 + HATTN_BLOCK_M)
    } else {
        seq
    };
    let steps = end.div_ceil(HATTN_BLOCK_N);
    if issuer {
        q_bar.arrive_expect_tx(t, TmaTile::<H::QSmem, u16>::BYTES);
        let load_q = const { TmaTile::<H::QSmem, E>::new() };
        load_q.load(t, q, [base + row0, 0], &q_tile, q_bar);
    }
    ops.load(t, 0, Stage::FIRST);
    let mut rows = Rows {
        m: Tile::splat(f32::NEG_INFINITY),
        l: Tile::splat(0.0),
    };
    let mut acc = Tile::<H::O, f32, _>::splat(0.0);
    let mut at = Stage::FIRST;
    q_bar.wait(t, 0);
    // A stage is refilled by `load` only after the CTA barrier at the start of `issue_s` two
    // steps later, when both groups reading it completed (every warp waited for all its groups).
    let s = ops.issue_s(t, 0, at, steps > 1).wait(t);
    let (p0, _) = ops.softmax(t, 0, s, &mut rows);
    let mut p = ops.operand(t, p0);
    let mut j = 1;
    while j < steps {
        // FlashAttention-3's order within a warpgroup: S of block j is issued before P · V of
        // block j - 1, so that the softmax of block j runs while the tensor cores add P · V.
        let last = at;
        at = at.next();
        let s = ops.issue_s(t, j, at, j + 1 < steps);
        let (a, v) = ops.pv(last, &p);
        let (s, pv) = s.then(t, a, &v, acc);
        let (p_next, alpha) = ops.softmax(t, j, s.wait(t), &mut rows);
        acc = pv.wait(t);
        acc *= alpha;
        p = ops.operand(t, p_next);
        j += 1;
    }
    let (a, v) = ops.pv(at, &p);
    let acc = a.dot_async(t, &v, acc).wait(t);
    // O's conversion reuses the tiles: every warp's last wgmmas first.
    t.sync_block();
    let inv = rows.l.map(math::rcp).reshape::<H::RowO>().broadcast();
    let out = H::rows(t, q_tile.offset(), &(acc * inv)).to::<E>();
    o.store(t, &out);
}

/// The entry points: `$name` for element type `$e` at head dimension `$head`.
macro_rules! entry {
    ($(#[$doc:meta] $name:ident, $e:ty, $head:ty, $smem:expr;)*) => {$(
        #[$doc]
        #[cfg(not(target_arch = "spirv"))]
        #[kernel(block = HATTN_THREADS, shared = $smem, extent(o = [grid[1], seq, <$head as HopperHead>::D]))]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            t: &impl Hopper,
            q: TensorMap<$e>,
            k: TensorMap<$e>,
            v: TensorMap<$e>,
            o: BatchChunksMut<$e, <$head as HopperHead>::Rows, true>,
            seq: u32,
            scale_log2: f32,
            causal: u32,
        ) {
            let [bx, head, _] = t.block_idx();
            // The tensor maps bound Q, K and V themselves.
            let io = (&q, &k, &v);
            attention_hopper_tile::<_, _, $head, _, _>(
                t, io, &o, seq, scale_log2, causal != 0, [bx, head],
            );
        }
    )*};
}

entry! {
    /// Flash attention forward in f16 on Hopper, head dimension 64: grid [`attention_hopper_grid`], tensor maps as the module says.
    attention_hopper_f16, F16, Head64, HATTN_SMEM_64;
    /// The same in bf16.
    attention_hopper_bf16, Bf16, Head64, HATTN_SMEM_64;
    /// Flash attention forward in f16 on Hopper, head dimension 128: grid [`attention_hopper_grid`].
    attention_hopper_d128_f16, F16, Head128, HATTN_SMEM_128;
    /// The same in bf16.
    attention_hopper_d128_bf16, Bf16, Head128, HATTN_SMEM_128;
}
