//! Flash attention forward (FlashAttention-2's loop, Triton's tutorial 06) on Ampere tensor
//! cores (`mma.sync.m16n8k16`, f16 or bf16 in, f32 accumulate): each CTA of 4 warps takes 64
//! query rows of one head and walks the keys and values 32 at a time. One body serves every
//! head dimension that is a multiple of 64 ([`attention_tile`]'s `H` chunks of 64 columns, each
//! with the layouts below: the products over the head dimension add their chunks' `mma`s);
//! entry points for 64 and 128.
//!
//! Per block: `S = Q · Kᵀ` on tensor cores; the online softmax on `S`'s accumulator registers
//! (the row maximum and sum are reductions along dim 1 of the accumulator, within each quad
//! of lanes; the running statistics broadcast back as `Tile` operations); `P = exp2(S - m)`
//! rounded to the input format goes from the accumulator to operand A of the next product
//! with [`Tile::convert`] (the two layouts coincide: no instruction); `O += P · V`. K and V go
//! by `cp.async` straight into swizzled shared layouts of their own ([`AsyncCopy`], at
//! `convert!`'s store addresses, zeros past the sequence), two stages so the next block's copies
//! fly while this one multiplies, and their operand fragments come back by `ldmatrix` (Triton's
//! `local_alloc` and `local_load`), one barrier a step. At head dimension 64, Q is loaded in
//! coalesced 16-byte rows and `convert!`ed through shared memory to operand A once, and stays in
//! registers. At 128 its 32 registers a thread would cost an SM a CTA (Triton's kernel fits 3
//! of 4 warps): Q goes by `cp.async` into a swizzled tile of its own, its fragments come back
//! by `ldmatrix` each step, the fragments' addresses are computed where they are used (through
//! a [`Reread`] of the thread). The entry points carry launch bounds for Triton's occupancy:
//! 4 CTAs at 64, 3 at 128 (`#[kernel(min_blocks = ..)]`). Everything a thread holds is a
//! `layout!` type; nothing is written across threads by hand.
//!
//! `q`, `k`, `v` and `o` are `[heads, seq, D]` row-major, `seq` any length (the last blocks
//! masked: query rows past it are not stored, keys past it weigh nothing);
//! `scale_log2 = log2(e) / sqrt(D)` (the softmax in base 2, as Triton's tutorial). With
//! `causal`, query `i` attends to keys `j <= i` only.

use crate::gemm::{bits, halves, max};
#[cfg(not(target_arch = "spirv"))]
use linear_layouts::kernel;
use linear_layouts::math;
use linear_layouts::planned::Planned;
use linear_layouts::runtime::mma::MmaInput;
use linear_layouts::runtime::unroll::splat;
use linear_layouts::runtime::Strategy;
use linear_layouts::unroll;
use linear_layouts::{
    convert, layout, AsyncCopy, Batch, BatchChunksMut, Bf16, BroadcastTo, Holds, Reread,
    SharedWindow, SliceAlong, Thread, Tile, TileOf, View, F16,
};

layout! {
    /// `O`: 64 query rows x 64, 4 warps along the rows.
    pub AttnO = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]) for [64, 64];
    /// `S = Q · Kᵀ` of one block of 32 keys.
    pub AttnS = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]) for [64, 32];
    /// Q as operand A of `Q · Kᵀ`.
    pub AttnQ = dot_op(opIdx = 0, parent = AttnS, kWidth = 2) for [64, 64];
    /// Kᵀ (head dim x keys) as operand B.
    pub AttnKt = dot_op(opIdx = 1, parent = AttnS, kWidth = 2) for [64, 32];
    /// P as operand A of `P · V`.
    pub AttnP = dot_op(opIdx = 0, parent = AttnO, kWidth = 2) for [64, 32];
    /// V (keys x head dim) as operand B.
    pub AttnV = dot_op(opIdx = 1, parent = AttnO, kWidth = 2) for [32, 64];
    /// One statistic per query row, as `S`'s rows hold them.
    pub AttnRow = slice(dim = 1, parent = AttnS) for [64];
    /// The same per row of `O`.
    pub AttnRowO = slice(dim = 1, parent = AttnO) for [64];
    /// Q and O as loaded and stored: rows of 64 halves, 8 per thread (16-byte accesses).
    pub AttnRows = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    /// Kᵀ as loaded: each key's 64 halves down a column, 8 per thread (`AttnVLoad` transposed).
    pub AttnKtLoad = blocked(sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 32];
    /// Kᵀ in shared memory, as Triton lays out a dot operand B read by `ldmatrix`: each key's
    /// 64 halves contiguous, 16-byte vectors swizzled by the row.
    pub AttnKtSmem = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]) for [64, 32];
    /// V in shared memory, its rows of 64 halves swizzled alike.
    pub AttnVSmem = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [32, 64];
    /// Q in shared memory at head dimensions past 64 (where registers are dearer than an
    /// `ldmatrix` a step): rows of 64 halves swizzled as V's, read as operand A.
    pub AttnQSmem = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
    /// V as loaded: rows of 64 halves.
    pub AttnVLoad = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 64];
}

// P leaves the accumulator as operand A without moving: the const planner says so.
const _: () = assert!(matches!(
    Planned::<AttnS, AttnP, u16>::COST.strategy,
    Strategy::Nothing | Strategy::Registers
));

/// Threads per CTA.
pub const ATTN_THREADS: u32 = AttnO::THREADS;
/// The copies of K (seen as Kᵀ) and V into their shared layouts, at `convert!`'s store addresses.
const COPY_KT: AsyncCopy<AttnKtLoad, u16> = AsyncCopy::new(convert!(AttnKtLoad => AttnKtSmem, u16));
const COPY_V: AsyncCopy<AttnVLoad, u16> = AsyncCopy::new(convert!(AttnVLoad => AttnVSmem, u16));
/// The copy of a chunk of Q into its shared tile (head dimensions past 64).
const COPY_Q: AsyncCopy<AttnRows, u16> = AsyncCopy::new(convert!(AttnRows => AttnQSmem, u16));
/// Bytes of a chunk of Q in shared memory.
const Q_BYTES: u32 = COPY_Q.shared_bytes();
/// Whether Q stays in shared memory (read by `ldmatrix` each step) rather than in registers,
/// for `h` chunks of 64: at 128 columns its 32 registers a thread would cost an SM a CTA.
const fn q_shared(h: usize) -> bool {
    h > 1
}
/// Bytes of Kᵀ's tile in a stage (V's follows it), and of a stage.
const KT_BYTES: u32 = COPY_KT.shared_bytes();
const V_BYTES: u32 = COPY_V.shared_bytes();
const STAGE_BYTES: u32 = KT_BYTES + V_BYTES;
/// The stages start past Q's conversion's scratch (the first copies start before it is read).
const STAGES_AT: u32 = convert!(AttnRows => AttnQ, u16).cost.shared_bytes;

/// Query rows per CTA and keys per step.
pub const ATTN_BLOCK_M: u32 = 64;
/// Keys per step.
pub const ATTN_BLOCK_N: u32 = 32;
/// Columns of the head dimension each chunk of Q, K, V and O holds (the head dimension is a
/// multiple: 64 and 128 have entry points).
pub const ATTN_CHUNK: u32 = 64;

/// The grid: one CTA per 64 query rows of each head.
pub const fn attention_grid(heads: u32, seq: u32) -> [u32; 3] {
    [seq.div_ceil(ATTN_BLOCK_M), heads, 1]
}

/// Where a block of keys sits against the sequence and the query rows: what its mask needs.
#[derive(Clone, Copy)]
pub(crate) struct KeyBlock {
    /// The block's first key, and keys per block.
    pub k0: u32,
    pub keys: u32,
    /// The CTA's first query row, the sequence length, and whether the mask is causal.
    pub row0: u32,
    pub seq: u32,
    pub causal: bool,
}

/// One step of the online softmax (FlashAttention-2's, in base 2 as Triton's tutorial) on a
/// block's logits `s` (layout `S`; `R` its rows' slice): keys past the sequence, and with
/// `causal` past each query row, masked; the running row maxima `m` and sums `l` updated; returns
/// `P = exp2(s · scale - m)` and the factor the output must be scaled by (in `R`). The scale is
/// applied to the row maxima (it is positive) and fused into each exponent: one FMA an element.
#[inline(always)]
pub(crate) fn softmax_step<T, S, R, const NS: usize, const NR: usize>(
    t: &T,
    s: Tile<S, f32, NS>,
    block: KeyBlock,
    scale: f32,
    (m, l): (&mut TileOf<R, f32>, &mut TileOf<R, f32>),
) -> (TileOf<S, f32>, TileOf<R, f32>)
where
    T: Thread,
    S: Holds<f32, NS> + SliceAlong<1, Slice = R>,
    R: Holds<f32, NR> + BroadcastTo<S>,
{
    let KeyBlock {
        k0,
        keys,
        row0,
        seq,
        causal,
    } = block;
    let mut s = s;
    if (causal && k0 + keys > row0) || k0 + keys > seq {
        let keep = Tile::<S, bool, _>::from_coords(t, |[i, j]| {
            k0 + j < seq && (!causal || k0 + j <= row0 + i)
        });
        s = s.select(&keep, f32::NEG_INFINITY);
    }
    let m_new = m.zip_with(&s.max::<1>(t), |a, b| math::max(a, b * scale));
    let alpha = m.zip_with(&m_new, |a, b| math::exp2(a - b));
    let p = s.fma(scale, -m_new).map(math::exp2);
    *l = *l * alpha + p.sum::<1>(t);
    *m = m_new;
    (p, alpha)
}

/// Q's columns `[64 h, 64 h + 64)` as operand A: loaded in 16-byte rows (rows past the head's:
/// zeros) and converted through shared memory.
#[inline(always)]
fn q_chunk<T: Thread, E: MmaInput>(
    t: &T,
    q: &View<E, 2, true>,
    origin: [u32; 2],
) -> TileOf<AttnQ, E> {
    let ql = q.load::<AttnRows>(t, origin, E::default());
    Tile::new(halves(
        convert!(AttnRows => AttnQ, u16).run(t, &bits(ql.values)),
    ))
}

/// Where a CTA's keys and values go: the stages' byte offsets for `H` chunks of the head
/// dimension (each stage holds the chunks of Kᵀ, then those of V).
#[derive(Clone, Copy)]
struct Stages<const H: usize>;

impl<const H: usize> Stages<H> {
    /// Where the stages start: past Q's tiles, or past Q's conversion's scratch.
    const BASE: u32 = stages_at(H as u32);
    /// Stage of key block `j`.
    #[inline(always)]
    fn at(j: u32) -> u32 {
        Self::BASE + (j % 2) * H as u32 * STAGE_BYTES
    }
    /// Chunk `h` of Q (when in shared memory).
    #[inline(always)]
    fn q(h: usize) -> u32 {
        h as u32 * Q_BYTES
    }
    /// Chunk `h` of Kᵀ in block `j`'s stage.
    #[inline(always)]
    fn kt(j: u32, h: usize) -> u32 {
        Self::at(j) + h as u32 * KT_BYTES
    }
    /// Chunk `h` of V in block `j`'s stage.
    #[inline(always)]
    fn v(j: u32, h: usize) -> u32 {
        Self::at(j) + H as u32 * KT_BYTES + h as u32 * V_BYTES
    }
}

/// Where the stages start for `h` chunks: past Q's tiles or Q's conversion's scratch.
const fn stages_at(h: u32) -> u32 {
    if q_shared(h as usize) {
        h * Q_BYTES
    } else {
        STAGES_AT
    }
}

/// Shared memory per CTA for a head dimension of `h` chunks of 64: Q's tiles (or its
/// conversion's scratch) and two stages of K and V, or O's conversion after the loop.
pub const fn attn_smem(h: u32) -> u32 {
    max(
        stages_at(h) + 2 * h * STAGE_BYTES,
        convert!(AttnO => AttnRows, f32).cost.shared_bytes,
    )
}

/// CTAs of 4 warps per multiprocessor the head dimension 64 kernels are built for (launch
/// bounds: up to 128 registers a thread), as Triton's kernel at this tile. Without them ptxas
/// may trade instructions a step for registers that buy no further CTA.
pub const ATTN_MIN_BLOCKS: u32 = 4;

/// The same at head dimension 128: 3 CTAs, 168 registers a thread.
pub const ATTN_MIN_BLOCKS_128: u32 = 3;

/// Shared memory per CTA at head dimension 64 and 128.
pub const ATTN_SMEM: u32 = attn_smem(1);
pub const ATTN_SMEM_128: u32 = attn_smem(2);

/// One CTA's 64 query rows (chunk `bx` of head `block_idx().y`) of `o = softmax(q kᵀ · scale)
/// v` at head dimension `64 H`: Q, K, V and O in chunks of 64 columns, each with the layouts
/// above (the products over the head dimension add the chunks' `mma`s; `P · V` fills each
/// chunk of O).
#[inline(always)]
pub fn attention_tile<T: Thread, E: MmaInput, const H: usize>(
    t: &T,
    io: (&Batch<E, true>, &Batch<E, true>, &Batch<E, true>),
    o: &BatchChunksMut<E, AttnRows, true>,
    scale_log2: f32,
    causal: bool,
    bx: u32,
) {
    let (q, k, v) = io;
    let io = (q.matrix(t), k.matrix(t), v.matrix(t));
    // With Q in shared memory the kernel is built to fit 3 CTAs (launch bounds): the fragments'
    // `ldmatrix` addresses, and the epilogue's, are computed where they are used, from the lane
    // and warp read again, rather than held in registers through the loop.
    match q_shared(H) {
        true => tile_with::<_, _, E, H>(t, &Reread::new(t), io, o, scale_log2, causal, bx),
        false => tile_with::<_, _, E, H>(t, t, io, o, scale_log2, causal, bx),
    }
}

/// [`attention_tile`] on this head's `[seq, D]` views, reading the stages' fragments and
/// storing O through `r` (`t` or a [`Reread`] of it).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn tile_with<T: Thread, R: Thread, E: MmaInput, const H: usize>(
    t: &T,
    r: &R,
    (q, k, v): (View<E, 2, true>, View<E, 2, true>, View<E, 2, true>),
    o: &BatchChunksMut<E, AttnRows, true>,
    scale_log2: f32,
    causal: bool,
    bx: u32,
) {
    let seq = o.rows();
    let row0 = bx * ATTN_BLOCK_M;
    // Rows past this head's `seq` are outside its views (whole 16-byte rows in or out).
    let mut qa: [TileOf<AttnQ, E>; H] = splat(Tile::splat(E::default()));
    if q_shared(H) {
        unroll!(H, |h| {
            let qs = SharedWindow::<_, Q_BYTES>::new(t, Stages::<H>::q(h));
            COPY_Q.start_from(&qs, &q, [row0, 64 * h as u32]);
        });
    } else {
        unroll!(H, |h| qa[h] = q_chunk(t, &q, [row0, 64 * h as u32]));
    }
    let kt_view = k.transpose();
    let mut acc: [TileOf<AttnO, f32>; H] = splat(Tile::splat(0.0));
    let mut m = Tile::<AttnRow, f32, _>::splat(f32::NEG_INFINITY);
    let mut l = Tile::<AttnRow, f32, _>::splat(0.0);
    // Causal: key blocks past the last query row of this CTA are all masked.
    let end = if causal {
        seq.min(row0 + ATTN_BLOCK_M)
    } else {
        seq
    };
    // K and V of each step go straight into their own swizzled tiles (Triton's local_alloc) by
    // cp.async, two stages: the copies of the next step are in flight while this one multiplies.
    let start = |j: u32| {
        let k0 = j * ATTN_BLOCK_N;
        unroll!(H, |h| {
            let c = 64 * h as u32;
            let kt = SharedWindow::<_, KT_BYTES>::new(t, Stages::<H>::kt(j, h));
            COPY_KT.start_from(&kt, &kt_view, [c, k0]);
            let vs = SharedWindow::<_, V_BYTES>::new(t, Stages::<H>::v(j, h));
            COPY_V.start_from(&vs, &v, [k0, c]);
        });
    };
    start(0);
    t.cp_async_commit();
    let steps = end.div_ceil(ATTN_BLOCK_N);
    let mut j = 0;
    while j < steps {
        // Block j has landed for everyone; nobody still reads the stage the next copies
        // overwrite (block j - 1's: its ldmatrix loads are done).
        t.cp_async_wait::<0>();
        t.sync_block();
        if j + 1 < steps {
            start(j + 1);
        }
        t.cp_async_commit();
        let mut s = Tile::splat(0.0);
        unroll!(H, |h| {
            let ks = SharedWindow::<_, KT_BYTES>::new(r, Stages::<H>::kt(j, h));
            let kt =
                Tile::<AttnKt, E, _>::new(halves(convert!(AttnKtSmem => AttnKt, u16).load(&ks)));
            let qh = match q_shared(H) {
                true => Tile::new(halves(
                    convert!(AttnQSmem => AttnQ, u16)
                        .load(&SharedWindow::<_, Q_BYTES>::new(r, Stages::<H>::q(h))),
                )),
                false => qa[h],
            };
            s = qh.dot(t, &kt, s);
        });
        let block = KeyBlock {
            k0: j * ATTN_BLOCK_N,
            keys: ATTN_BLOCK_N,
            row0,
            seq,
            causal,
        };
        let (p, alpha) = softmax_step(t, s, block, scale_log2, (&mut m, &mut l));
        let alpha_o = alpha.reshape::<AttnRowO>().broadcast();
        // The accumulator's registers are operand A's: planned from the layouts, no instruction.
        let pa = p.to::<E>().convert::<AttnP>(t);
        unroll!(H, |h| {
            let vs = SharedWindow::<_, V_BYTES>::new(r, Stages::<H>::v(j, h));
            let va = Tile::<AttnV, E, _>::new(halves(convert!(AttnVSmem => AttnV, u16).load(&vs)));
            acc[h] = pa.dot(t, &va, acc[h] * alpha_o);
        });
        j += 1;
    }
    // O's conversion reuses the stages: every warp's last loads first.
    t.sync_block();
    let t = r;
    let inv = l.map(math::rcp).reshape::<AttnRowO>().broadcast();
    unroll!(H, |h| {
        let out = acc[h] * inv;
        let rows = convert!(AttnO => AttnRows, f32).run(t, &out.values);
        let out = Tile::<AttnRows, f32, _>::new(rows).to::<E>();
        o.store_band(t, h as u32, &out);
    });
}

/// The entry points: `$name` for element type `$e` at head dimension `64 $h`.
macro_rules! entry {
    ($(#[$doc:meta] $name:ident, $e:ty, $h:literal, $smem:expr $(, $bounds:expr)?;)*) => {$(
        #[$doc]
        #[cfg(not(target_arch = "spirv"))]
        #[kernel(
            block = ATTN_THREADS, shared = $smem $(, min_blocks = $bounds)?,
            extent(q = [grid[1], seq, 64 * $h], k = [grid[1], seq, 64 * $h], v = [grid[1], seq, 64 * $h], o = [grid[1], seq, 64 * $h]),
        )]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            t: &impl Thread,
            q: Batch<$e, true>,
            k: Batch<$e, true>,
            v: Batch<$e, true>,
            o: BatchChunksMut<$e, AttnRows, true>,
            seq: u32,
            scale_log2: f32,
            causal: u32,
        ) {
            let bx = t.block_idx()[0];
            attention_tile::<_, _, $h>(t, (&q, &k, &v), &o, scale_log2, causal != 0, bx);
        }
    )*};
}

entry! {
    /// Flash attention forward in f16, head dimension 64: grid [`attention_grid`].
    attention_f16, F16, 1, ATTN_SMEM, ATTN_MIN_BLOCKS;
    /// The same in bf16.
    attention_bf16, Bf16, 1, ATTN_SMEM, ATTN_MIN_BLOCKS;
    /// Flash attention forward in f16, head dimension 128: grid [`attention_grid`].
    attention_d128_f16, F16, 2, ATTN_SMEM_128, ATTN_MIN_BLOCKS_128;
    /// The same in bf16.
    attention_d128_bf16, Bf16, 2, ATTN_SMEM_128, ATTN_MIN_BLOCKS_128;
}
