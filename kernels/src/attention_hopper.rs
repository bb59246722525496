//! Flash attention forward on Hopper tensor cores (`wgmma`, sm_90a): the loop of [`attention`]
//! with each CTA of two warpgroups taking 128 query rows of one head (head dim 64) and walking
//! the keys and values 64 at a time.
//!
//! Q, K and V go from global memory straight into `nvmma_shared` layouts (128-byte swizzled
//! rows, what wgmma reads) by `cp.async` ([`AsyncCopy`], masked at the sequence's end with
//! zeros), K and V double-buffered: while one step multiplies, the next step's copies are in
//! flight, one CTA barrier a step. Each warpgroup computes its 64 rows of `S = Q · Kᵀ` with
//! `wgmma` from shared memory into an `nvidia_mma` v3 accumulator, runs the online softmax
//! on those registers as `Tile` reductions and broadcasts (within each quad of lanes, as on
//! Ampere), and adds `P · V` with a second wgmma whose A is `P` rounded to the input format,
//! in registers: the accumulator's registers are wgmma's A fragments ([`Tile::convert`] plans
//! it in a const: no instruction), as Triton keeps P.
//!
//! `q`, `k`, `v` and `o` are `[heads, seq, 64]` row-major, `seq` any length;
//! `scale_log2 = log2(e) / sqrt(64)`; with `causal`, query `i` attends to keys `j <= i`.
//!
//! [`attention`]: crate::attention

use crate::gemm::max;
#[cfg(not(target_arch = "spirv"))]
use linear_layouts::kernel;
use linear_layouts::math;
use linear_layouts::planned::Planned;
use linear_layouts::runtime::mma::{pack_pairs, unpack_pairs, MmaInput};
use linear_layouts::runtime::Strategy;
use linear_layouts::{
    convert, layout, AsyncCopy, Bf16, Global, GlobalMut, Hopper, SharedWindow, Thread, Tile, Wgmma,
    F16,
};

layout! {
    /// `S = Q · Kᵀ` of one block of 64 keys: each warpgroup's 64 rows, as `wgmma.m64n64k16`
    /// holds them.
    pub HAttnS = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]) for [128, 64];
    /// `O`: 128 query rows x 64, the same accumulator layout.
    pub HAttnO = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]) for [128, 64];
    /// P as operand A of `P · V` from registers: each warp's 16 rows as `mma.m16n8k16`'s A.
    pub HAttnP = dot_op(opIdx = 0, parent = HAttnO, kWidth = 2) for [128, 64];
    /// One statistic per query row, as `S`'s rows hold them.
    pub HAttnRow = slice(dim = 1, parent = HAttnS) for [128];
    /// The same per row of `O`.
    pub HAttnRowO = slice(dim = 1, parent = HAttnO) for [128];
    /// Q as wgmma's operand A: rows of 64 halves (128 bytes), swizzled.
    pub HAttnQSmem = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [128, 64];
    /// Kᵀ (head dim x keys) as operand B: each key's 64 halves contiguous (K-major).
    pub HAttnKtSmem = nvmma_shared(swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16) for [64, 64];
    /// V (keys x head dim) as operand B: rows of 64 halves (N-major).
    pub HAttnVSmem = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
    /// Q and O as loaded and stored: rows of 64 halves, 8 per thread (16-byte accesses).
    pub HAttnRows = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]) for [128, 64];
    /// V as loaded: rows of 64 halves.
    pub HAttnVLoad = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]) for [64, 64];
    /// Kᵀ as loaded: each key's 64 halves down a column (`HAttnVLoad` transposed).
    pub HAttnKtLoad = blocked(sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]) for [64, 64];
}

const NO: usize = HAttnO::ELEMENTS_PER_THREAD as usize;
const NS: usize = HAttnS::ELEMENTS_PER_THREAD as usize;
const NR: usize = HAttnRow::ELEMENTS_PER_THREAD as usize;
const NP: usize = HAttnP::ELEMENTS_PER_THREAD as usize;
const NL: usize = HAttnRows::ELEMENTS_PER_THREAD as usize;
const NKL: usize = HAttnKtLoad::ELEMENTS_PER_THREAD as usize;
const NVL: usize = HAttnVLoad::ELEMENTS_PER_THREAD as usize;

/// The copies into the shared layouts, their addresses those of `convert!`'s stores.
const COPY_Q: AsyncCopy<HAttnRows, u16, NL> =
    AsyncCopy::new(convert!(HAttnRows => HAttnQSmem, u16));
const COPY_KT: AsyncCopy<HAttnKtLoad, u16, NKL> =
    AsyncCopy::new(convert!(HAttnKtLoad => HAttnKtSmem, u16));
const COPY_V: AsyncCopy<HAttnVLoad, u16, NVL> =
    AsyncCopy::new(convert!(HAttnVLoad => HAttnVSmem, u16));

/// Query rows per CTA.
pub const HATTN_BLOCK_M: u32 = 128;
/// Keys per step.
pub const HATTN_BLOCK_N: u32 = 64;
/// The head dimension.
pub const HATTN_HEAD_DIM: u32 = 64;
/// Threads per CTA: two warpgroups.
pub const HATTN_THREADS: u32 = HAttnS::THREADS;

// P leaves the accumulator as wgmma's A from registers without moving: the const planner says so.
const _: () = assert!(matches!(
    Planned::<HAttnS, HAttnP, u16>::COST.strategy,
    Strategy::Nothing | Strategy::Registers
));

/// Shared memory, in bytes from the first 1024-byte boundary of the window (the swizzle
/// pattern's): Q's tile, then the stages of Kᵀ and V.
const Q_BYTES: u32 = COPY_Q.shared_bytes();
const KT_BYTES: u32 = COPY_KT.shared_bytes();
const STAGE_BYTES: u32 = KT_BYTES + COPY_V.shared_bytes();
/// Shared memory per CTA: up to 1024 bytes to align, the tiles (O's conversion reuses them).
pub const HATTN_SMEM: u32 = 1024
    + max(
        Q_BYTES + STAGES * STAGE_BYTES,
        convert!(HAttnO => HAttnRows, f32).cost.shared_bytes,
    );

/// The grid: one CTA per 128 query rows of each head.
pub const fn attention_hopper_grid(heads: u32, seq: u32) -> [u32; 3] {
    [seq.div_ceil(HATTN_BLOCK_M), heads, 1]
}

/// Shared stages of Kᵀ and V: a step's copies land in the stage that the wgmmas of two steps
/// before read, complete by then while the last step's `P · V` may still run.
const STAGES: u32 = 3;

/// Where a CTA's operands are: the tensors, this head's rows, and the shared tiles; what the
/// mask needs.
struct Operands<'a, 'b, E> {
    k: &'a Global<'b, E>,
    v: &'a Global<'b, E>,
    /// This head's first row, and the row past its last.
    base: u32,
    end: u32,
    /// Byte offset of Q's tile (the stages follow it).
    smem: u32,
    seq: u32,
    row0: u32,
    causal: bool,
    scale_log2: f32,
}

/// A stage of the ring (counted, not computed from the block: no division in the loop).
#[derive(Clone, Copy)]
struct Stage(u32);

impl Stage {
    #[inline(always)]
    fn next(self) -> Self {
        Stage(if self.0 + 1 == STAGES { 0 } else { self.0 + 1 })
    }
}

/// The running row maximum and sum of the online softmax.
struct Rows {
    m: Tile<HAttnRow, f32, NR>,
    l: Tile<HAttnRow, f32, NR>,
}

impl<E: MmaInput> Operands<'_, '_, E> {
    /// Byte offset of stage `s`'s Kᵀ tile (its V tile follows).
    #[inline(always)]
    fn stage(&self, s: u32) -> u32 {
        self.smem + Q_BYTES + s * STAGE_BYTES
    }

    /// Start the copies of key block `j` into stage `s` (rows past the sequence: zeros).
    #[inline(always)]
    fn start<T: Thread>(&self, t: &T, j: u32, s: u32) {
        let (d, k0, at) = (HATTN_HEAD_DIM, self.base + j * HATTN_BLOCK_N, self.stage(s));
        let kt = SharedWindow::new(t, at);
        COPY_KT.start_masked(&kt, self.k, [0, k0], [1, d], [d, self.end]);
        let vs = SharedWindow::new(t, at + KT_BYTES);
        COPY_V.start_masked(&vs, self.v, [k0, 0], [d, 1], [self.end, d]);
    }

    /// Wait for key block `j`'s copies (everyone's, visible to the tensor cores; in stage
    /// `at`), start block `j + 1`'s if `more`, and issue `S = Q · Kᵀ` of block `j` as one
    /// wgmma group.
    #[inline(always)]
    fn issue_s<T: Hopper>(&self, t: &T, j: u32, at: Stage, more: bool, s: &mut [f32; NS]) {
        t.cp_async_wait::<0>();
        t.fence_proxy_async();
        t.sync_block();
        if more {
            self.start(t, j + 1, at.next().0);
        }
        t.cp_async_commit();
        const { Wgmma::<HAttnQSmem, HAttnKtSmem, HAttnS, E>::new() }.run(
            t,
            self.smem,
            self.stage(at.0),
            s,
        );
    }

    /// Issue `acc += P · V` of the key block in stage `at` (P from registers: its fragments'
    /// words) as one wgmma group.
    #[inline(always)]
    fn issue_pv<T: Hopper>(&self, t: &T, at: Stage, p: &[u32; NP / 2], acc: &mut [f32; NO]) {
        const { Wgmma::<HAttnP, HAttnVSmem, HAttnO, E>::new() }.run_registers(
            t,
            &unpack_pairs::<E, NP, { NP / 2 }>(p),
            self.stage(at.0) + KT_BYTES,
            acc,
        );
    }

    /// The online softmax of key block `j`'s `S`: the running statistics updated, `P` rounded
    /// to the input format as `P · V`'s A (the accumulator's registers: planned from the
    /// layouts, no instruction) in fragment words, and the factor `O` must be scaled by.
    #[inline(always)]
    fn softmax<T: Thread>(
        &self,
        t: &T,
        j: u32,
        s: [f32; NS],
        rows: &mut Rows,
    ) -> ([u32; NP / 2], Tile<HAttnO, f32, NO>) {
        let (k0, row0, seq, causal) = (j * HATTN_BLOCK_N, self.row0, self.seq, self.causal);
        let (mut s, scale) = (Tile::<HAttnS, f32, NS>::new(s), self.scale_log2);
        if (causal && k0 + HATTN_BLOCK_N > row0) || k0 + HATTN_BLOCK_N > seq {
            let keep = Tile::<HAttnS, bool, NS>::from_coords(t, |[i, c]| {
                k0 + c < seq && (!causal || k0 + c <= row0 + i)
            });
            s = s.select(&keep, &Tile::splat(f32::NEG_INFINITY));
        }
        let m = &rows.m;
        let m_new = m.zip_with(&s.reduce::<1, HAttnRow, NR>(t, math::max), |a, b| {
            math::max(a, b * scale)
        });
        let alpha = m.zip_with(&m_new, |a, b| math::exp2(a - b));
        // The scale applied to the row maxima (it is positive) and fused into each exponent:
        // one FMA an element, as Triton's tutorial.
        let p = s.zip_with(&m_new.broadcast::<1, HAttnS, NS>(), |x, mx| {
            math::exp2(math::fma(x, scale, -mx))
        });
        rows.l = rows
            .l
            .zip_with(&alpha, |a, b| a * b)
            .zip_with(&p.reduce::<1, HAttnRow, NR>(t, |a, b| a + b), |a, b| a + b);
        rows.m = m_new;
        let alpha_o = alpha.reshape::<HAttnRowO>().broadcast::<1, HAttnO, NO>();
        let pa = p.round::<E>().convert::<HAttnP, NP>(t);
        (pack_pairs(&pa.values), alpha_o)
    }
}

/// One CTA's 128 query rows `(bx, head)` of `o = softmax(q kᵀ · scale) v`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn attention_hopper_tile<T: Hopper, E: MmaInput>(
    t: &T,
    (q, k, v): (&Global<E>, &Global<E>, &Global<E>),
    o: &GlobalMut<E>,
    seq: u32,
    scale_log2: f32,
    causal: bool,
    [bx, head]: [u32; 2],
) {
    let d = HATTN_HEAD_DIM;
    let (row0, base) = (bx * HATTN_BLOCK_M, head * seq);
    let smem = t.shared_base().next_multiple_of(1024) - t.shared_base();
    let ops = Operands {
        k,
        v,
        base,
        end: base + seq,
        smem,
        seq,
        row0,
        causal,
        scale_log2,
    };
    let bounds = [base + seq, d];
    let qs = SharedWindow::new(t, smem);
    COPY_Q.start_masked(&qs, q, [base + row0, 0], [d, 1], bounds);
    // Causal: key blocks past the last query row of this CTA are all masked.
    let end = if causal {
        seq.min(row0 + HATTN_BLOCK_M)
    } else {
        seq
    };
    let steps = end.div_ceil(HATTN_BLOCK_N);
    ops.start(t, 0, 0);
    t.cp_async_commit();
    let mut rows = Rows {
        m: Tile::splat(f32::NEG_INFINITY),
        l: Tile::splat(0.0),
    };
    let mut acc = Tile::<HAttnO, f32, NO>::splat(0.0);
    let (mut s, mut at) = ([0f32; NS], Stage(0));
    ops.issue_s(t, 0, at, steps > 1, &mut s);
    t.wgmma_wait::<0>();
    t.wgmma_fence_operand(&mut s);
    let (mut p, _) = ops.softmax(t, 0, s, &mut rows);
    let mut j = 1;
    while j < steps {
        // FlashAttention-3's order within a warpgroup: S of block j is issued before P · V of
        // block j - 1, so that the softmax of block j runs while the tensor cores add P · V.
        let (mut s, last) = ([0f32; NS], at);
        at = at.next();
        ops.issue_s(t, j, at, j + 1 < steps, &mut s);
        ops.issue_pv(t, last, &p, &mut acc.values);
        t.wgmma_wait::<1>();
        t.wgmma_fence_operand(&mut s);
        let (p_next, alpha) = ops.softmax(t, j, s, &mut rows);
        t.wgmma_wait::<0>();
        t.wgmma_fence_operand(&mut acc.values);
        acc = acc.zip_with(&alpha, |a, b| a * b);
        p = p_next;
        j += 1;
    }
    ops.issue_pv(t, at, &p, &mut acc.values);
    t.wgmma_wait::<0>();
    t.wgmma_fence_operand(&mut acc.values);
    // O's conversion reuses the tiles: every warp's last wgmmas first.
    t.sync_block();
    let inv = rows
        .l
        .map(math::rcp)
        .reshape::<HAttnRowO>()
        .broadcast::<1, HAttnO, NO>();
    let out = acc.zip_with(&inv, |a, b| a * b);
    let rows = convert!(HAttnO => HAttnRows, f32).run(&qs, &out.values);
    let out = Tile::<HAttnRows, f32, NL>::new(rows).round::<E>();
    out.store_masked_aligned(t, o, [base + row0, 0], [d, 1], bounds);
}

/// Flash attention forward in f16 on Hopper: grid [`attention_hopper_grid`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = HATTN_THREADS, shared = HATTN_SMEM)]
#[allow(clippy::too_many_arguments)]
pub fn attention_hopper_f16(
    t: &impl Hopper,
    q: Global<F16>,
    k: Global<F16>,
    v: Global<F16>,
    o: GlobalMut<F16>,
    seq: u32,
    scale_log2: f32,
    causal: u32,
) {
    let [bx, head, _] = t.block_idx();
    let io = (&q, &k, &v);
    attention_hopper_tile(t, io, &o, seq, scale_log2, causal != 0, [bx, head]);
}

/// Flash attention forward in bf16 on Hopper: grid [`attention_hopper_grid`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = HATTN_THREADS, shared = HATTN_SMEM)]
#[allow(clippy::too_many_arguments)]
pub fn attention_hopper_bf16(
    t: &impl Hopper,
    q: Global<Bf16>,
    k: Global<Bf16>,
    v: Global<Bf16>,
    o: GlobalMut<Bf16>,
    seq: u32,
    scale_log2: f32,
    causal: u32,
) {
    let [bx, head, _] = t.block_idx();
    let io = (&q, &k, &v);
    attention_hopper_tile(t, io, &o, seq, scale_log2, causal != 0, [bx, head]);
}
