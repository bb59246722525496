//! `C = A · B` on tensor cores (`mma.sync.m16n8k16`, f16 or bf16 in, f32 accumulate, the
//! output in the input format), each CTA of 4 warps one 64x64 tile of C. Each K step of 32
//! loads A and B in coalesced blocked layouts (16-byte loads), `convert!`s them through shared
//! memory to their `dot_op` fragments (the planner's swizzle; `ldmatrix` where it pays), and
//! `dot` pairs the fragments with the `nvidia_mma` accumulator's ([`Mma`](linear_layouts::Mma)); the epilogue `convert!`s the
//! accumulator to a row-major blocked layout for 16-byte stores. Every fragment and shared index
//! comes from a layout.
//!
//! A is row-major `m x k`; B is row-major `k x n` (`b_col_major = 0`) or column-major
//! (`b_col_major = 1`); `m`, `n` multiples of 64, `k` of 32. Not yet the pipelined kernel
//! (`cp.async` stages overlapping loads with `mma`): each step loads, converts, then multiplies.

#[cfg(not(target_arch = "spirv"))]
use linear_layouts::kernel;
use linear_layouts::runtime::mma::MmaInput;
use linear_layouts::runtime::unroll::map;
use linear_layouts::{convert, layout, Bf16, BlockCols, BlockRows, BlocksMut, Thread, Tile, F16};

layout! {
    /// The accumulator: m16n8 fragments, 2x2 warps over a 64x64 tile.
    pub GemmAcc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [64, 64];
    /// A's fragments for one K step of 32.
    pub GemmA = dot_op(opIdx = 0, parent = GemmAcc, kWidth = 2) for [64, 32];
    /// B's fragments for one K step of 32.
    pub GemmB = dot_op(opIdx = 1, parent = GemmAcc, kWidth = 2) for [32, 64];
    /// A's K step as loaded: rows of 32 halves, 8 per thread (16-byte loads).
    pub GemmALoad = blocked(sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 32];
    /// A row-major B's K step as loaded: rows of 64 halves.
    pub GemmBLoad = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 64];
    /// A column-major B's K step as loaded: columns of 32 halves.
    pub GemmBLoadT = blocked(sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]) for [32, 64];
    /// The output tile: rows of 8 consecutive halves (16-byte stores).
    pub GemmOut = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
}

/// Threads per CTA.
pub const GEMM_THREADS: u32 = GemmAcc::THREADS;
/// Shared memory of the largest of the kernel's conversions, in bytes.
pub const GEMM_SMEM: u32 = max(
    max(
        convert!(GemmALoad => GemmA, u16).cost.shared_bytes,
        convert!(GemmBLoad => GemmB, u16).cost.shared_bytes,
    ),
    max(
        convert!(GemmBLoadT => GemmB, u16).cost.shared_bytes,
        convert!(GemmAcc => GemmOut, f32).cost.shared_bytes,
    ),
);

/// The larger of two sizes (in a const).
pub(crate) const fn max(a: u32, b: u32) -> u32 {
    if a > b {
        a
    } else {
        b
    }
}

/// A tile's values as their bits (`convert!` moves 16-bit elements as `u16`), and back.
#[inline(always)]
pub(crate) fn bits<E: MmaInput, const N: usize>(v: [E; N]) -> [u16; N] {
    map(v, |x| x.to_bits() as u16)
}
#[inline(always)]
pub(crate) fn halves<E: MmaInput, const N: usize>(v: [u16; N]) -> [E; N] {
    map(v, |x| E::from_bits(x as u64))
}

/// The 64x64 tile `(bx, by)` of `c = a · b`, the CTA's block of `c`: A's block row `by` and B's
/// block column `bx` (B stored column-major when `b_col_major`), K in steps of 32.
#[inline(always)]
pub fn gemm_tile<T: Thread, E: MmaInput>(
    t: &T,
    a: &BlockRows<E, GemmALoad>,
    b: &BlockCols<E, GemmBLoad>,
    c: &BlocksMut<E, GemmOut>,
    b_col_major: bool,
) {
    // The CTA's panels of A and B (CuTe's local_tile), their block indices read once, and A's
    // K steps, which index B's panels too.
    let (a, b, b_t) = (
        a.panel(t),
        b.panel(t),
        b.column_major::<GemmBLoadT>().panel(t),
    );
    let mut acc = Tile::splat(0.0);
    for s in a.steps() {
        let la = a.load_at(t, s);
        let fa = Tile::<GemmA, E, _>::new(halves(
            convert!(GemmALoad => GemmA, u16).run(t, &bits(la.values)),
        ));
        // The next conversion reuses the scratch A's was read from.
        t.sync_block();
        let fb = Tile::<GemmB, E, _>::new(halves(if b_col_major {
            let lb = b_t.load_at(t, s);
            convert!(GemmBLoadT => GemmB, u16).run(t, &bits(lb.values))
        } else {
            // Not a claim that row-major B is rare: a layout hint. NVPTX cannot invert a
            // branch, and LLVM's canonical `b_col_major == 0` test would otherwise be laid out
            // as a branch to this arm and a `bra.uni` to the other on every K step; with it,
            // one `@p bra` and a fall-through, as written by hand (ptxas lays out the SASS
            // itself: the K loop 82/94 instructions either way within two).
            core::hint::cold_path();
            let lb = b.load_at(t, s);
            convert!(GemmBLoad => GemmB, u16).run(t, &bits(lb.values))
        }));
        t.sync_block();
        acc = fa.dot(t, &fb, acc);
    }
    let out = convert!(GemmAcc => GemmOut, f32).run(t, &acc.values);
    c.store(t, &Tile::<GemmOut, f32, _>::new(out).to::<E>());
}

/// The grid of an `m x n` problem: one CTA per 64x64 tile of C.
pub const fn gemm_grid(m: u32, n: u32) -> [u32; 3] {
    [n / 64, m / 64, 1]
}

/// `c = a · b` in f16: grid [`gemm_grid`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = GEMM_THREADS, shared = GEMM_SMEM, extent(a = [64 * grid[1], k], b = [k, n], c = [64 * grid[1], n]))]
#[allow(clippy::too_many_arguments)]
pub fn gemm_f16(
    t: &impl Thread,
    a: BlockRows<F16, GemmALoad>,
    b: BlockCols<F16, GemmBLoad>,
    c: BlocksMut<F16, GemmOut>,
    n: u32,
    k: u32,
    b_col_major: u32,
) {
    gemm_tile(t, &a, &b, &c, b_col_major != 0);
}

/// `c = a · b` in bf16: grid [`gemm_grid`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = GEMM_THREADS, shared = GEMM_SMEM, extent(a = [64 * grid[1], k], b = [k, n], c = [64 * grid[1], n]))]
#[allow(clippy::too_many_arguments)]
pub fn gemm_bf16(
    t: &impl Thread,
    a: BlockRows<Bf16, GemmALoad>,
    b: BlockCols<Bf16, GemmBLoad>,
    c: BlocksMut<Bf16, GemmOut>,
    n: u32,
    k: u32,
    b_col_major: u32,
) {
    gemm_tile(t, &a, &b, &c, b_col_major != 0);
}
