//! Warpgroup MMAs over typed tiles: `acc += A · B` with `A` and `B` shared layouts (Triton's
//! `nvmma_shared`) and `acc` a thread's registers of an `nvidia_mma` v3 accumulator, by
//! `wgmma.mma_async.m64nNk16` (f16 or bf16 in, f32 accumulate); or with `A` a distributed layout
//! whose warps hold `mma.m16n8k16`'s A fragments (Triton's `dot_op(opIdx = 0, parent = C,
//! kWidth = 2)`: wgmma's A from registers, [`Wgmma::run_registers`]). [`Wgmma::new`] checks at
//! compile time that the accumulator is wgmma's fragment (warpgroups of 4 warps over 64 rows,
//! `instrShape = [16, N, 16]`) and that A and B are tiles the tensor cores read through a
//! descriptor, and derives every instruction's descriptors (start, leading and stride byte
//! offsets, swizzle) from the layouts, checking that the hardware's reading of each
//! ([`operand_address`]) is the layout's. A mismatch is a compile error naming the layouts.

use core::marker::PhantomData;

use const_format::StrWriter;

use crate::hopper::{operand_address, Descriptor, Hopper, WgmmaOp};
use crate::layout::{InDim, Layout, Registers};
use crate::mma::{a_fragments, basis, fragment_at, pair, reg_coord as coord, MmaInput};
use crate::nvmma::NvmmaTile;

/// The most instructions one [`Wgmma::run`] issues (what `unroll!` writes out), and
/// warpgroups a CTA has.
const MAX_STEPS: usize = crate::unroll::UNROLLED;
const MAX_GROUPS: usize = 4;

/// One `wgmma` of [`Wgmma::run`]: its first accumulator register and its descriptors for
/// warpgroup 0, relative to the tiles' bases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WgmmaStep {
    /// First of `N / 2` accumulator registers.
    pub acc: u16,
    /// A's descriptor, start relative to A's tile; or, with A in registers, the first of its
    /// fragment's 8 registers.
    pub a: u64,
    /// B's descriptor, start relative to B's tile.
    pub b: u64,
}

/// The instructions of a [`Wgmma`]: steps (K fastest within each accumulator block), the
/// operand orders, the registers per instruction and each warpgroup's start offsets.
#[derive(Clone, Copy, Debug)]
pub struct WgmmaPlan {
    /// The instructions.
    pub steps: [WgmmaStep; MAX_STEPS],
    /// How many.
    pub len: usize,
    /// `N / 2`: accumulator registers of one instruction.
    pub regs: usize,
    /// Whether A is M-major and B N-major.
    pub mn_major: [bool; 2],
    /// Byte offsets of each warpgroup's A and B starts from warpgroup 0's.
    pub group_offsets: [[u32; 2]; MAX_GROUPS],
    /// A is registers ([`Wgmma::run_registers`]), not a shared tile.
    pub a_registers: bool,
}

/// `acc += A · B` for shared tiles `A` (M x K) and `B` (K x N) and accumulator `C` (M x N) of
/// element type `E`, made as a constant so that a mismatch is a compile error:
///
/// ```ignore
/// const MMA: Wgmma<SharedA, SharedB, Acc, F16> = Wgmma::new();
/// unsafe { MMA.run(t, a_offset, b_offset, &mut acc) }; // then t.wgmma_wait::<0>() before reading acc
/// ```
///
/// Safe code multiplies [`SharedTile`](crate::SharedTile)s, which call it:
/// `let pending = a.dot_async(t, &b, acc);` and later `let acc = pending.wait(t);`
/// ([`Pending`](crate::Pending) holds the accumulator while the tensor cores write it).
#[derive(Clone, Copy, Debug)]
pub struct Wgmma<A, B, C, E>(PhantomData<Types<A, B, C, E>>);

/// What [`Wgmma`] is generic over (a function type: `Wgmma` is `Send`, `Sync` and `Copy`
/// whatever the types).
type Types<A, B, C, E> = fn() -> (A, B, C, E);

impl<A: Layout, B: Layout, C: Layout, E: MmaInput> Wgmma<A, B, C, E> {
    /// The instructions for these layouts; evaluating it (in a `const`) checks them.
    pub const PLAN: WgmmaPlan = match plan::<E>(
        [A::IN_DIMS, B::IN_DIMS, C::IN_DIMS],
        [A::SHAPE, B::SHAPE, C::SHAPE],
    ) {
        Ok(p) => p,
        Err(why) => panic!("{}", Self::MESSAGES[why].r().as_str()),
    };

    const MESSAGES: [StrWriter<[u8; 1280]>; REASONS.len()] = {
        let mut out = [const { StrWriter::new([0; 1280]) }; REASONS.len()];
        let mut i = 0;
        while i < REASONS.len() {
            out[i] = crate::mma::message(&[
                "wgmma::<", A::NAME, ", ", B::NAME, " => ", C::NAME, ">: ", REASONS[i],
                "\n  A = ", A::SOURCE, "\n  B = ", B::SOURCE, "\n  C = ", C::SOURCE,
                "\n  help: C must be nvidia_mma(versionMajor = 3, ..., warpsPerCTA = [4 w, 1], ",
                "instrShape = [16, N, 16]) with N 64, 128 or 256, A of shape [M, K] and B [K, N] ",
                "nvmma_shared(swizzlingByteWidth = 128 (or 64, 32), transposed = ..., ",
                "elementBitWidth = 16) tiles (or A in registers: dot_op(opIdx = 0, parent = C, kWidth = 2)), ",
                "K a multiple of 16",
            ]);
            i += 1;
        }
        out
    };

    /// The instructions, checked.
    #[allow(clippy::new_without_default)] // a Default impl would check the layouts at run time
    pub const fn new() -> Self {
        let _ = Self::PLAN;
        Wgmma(PhantomData)
    }

    /// Issue `acc += A · B` for A's tile at shared byte `a` and B's at `b` (each aligned to
    /// its swizzle pattern), as one wgmma group: every thread of each warpgroup calls it with
    /// its registers of `C`. The tensor cores read the tiles and write `acc` asynchronously:
    /// wait for the group ([`Hopper::wgmma_wait`]) before reading `acc` or overwriting the
    /// tiles.
    ///
    /// Safe code multiplies [`SharedTile`](crate::SharedTile)s ([`SharedTile::dot_async`](crate::SharedTile::dot_async)).
    ///
    /// # Safety
    /// `a` and `b` are the byte offsets of A's and B's tiles inside the kernel's dynamic shared
    /// memory (all of each tile), each aligned to its swizzle pattern in the shared window;
    /// until the group completes, nothing but further wgmmas touches `acc` and nothing writes
    /// the tiles.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn run<T: Hopper, const NC: usize>(&self, t: &T, a: u32, b: u32, acc: &mut [f32; NC])
    where
        C: Registers<NC>,
    {
        const {
            assert!(
                !Self::PLAN.a_registers,
                "Wgmma::run: A is a distributed layout (registers): call run_registers"
            )
        };
        let p = &Self::PLAN;
        let op = WgmmaOp {
            kind: E::KIND,
            a_mn_major: p.mn_major[0],
            b_mn_major: p.mn_major[1],
        };
        // Selects, not a table lookup: a load could not move out of a loop past the wgmmas.
        let (g, mut off) = ((t.warp() / 4) as usize, [0, 0]);
        crate::unroll!(MAX_GROUPS, |i| if i == g {
            off = p.group_offsets[i % MAX_GROUPS];
        });
        // The start field is the low 14 bits: the tiles' addresses (in 16-byte units) add to
        // the low word alone, the high word stays an immediate.
        let base_a = (t.shared_base() + a + off[0]) >> 4;
        let base_b = (t.shared_base() + b + off[1]) >> 4;
        let at = |d: u64, base: u32| (d & !0xffff_ffff) | ((d as u32).wrapping_add(base) as u64);
        // The accumulators' values are settled before the fence (zeros of a fresh tile
        // included): a register the compiler writes between the fence and a wgmma that reads
        // it makes ptxas serialise the wgmmas (its warning C7513), as CUTLASS's
        // `warpgroup_fence_operand` before `warpgroup_arrive` prevents.
        t.wgmma_fence_operand(acc);
        t.wgmma_fence();
        crate::unroll!(Self::PLAN.len, |i| {
            let s = p.steps[i];
            let r = s.acc as usize;
            // SAFETY: the descriptors address the caller's tiles (its contract).
            unsafe {
                t.wgmma(
                    op,
                    at(s.a, base_a),
                    at(s.b, base_b),
                    &mut acc[r..r + p.regs],
                    true,
                )
            };
        });
        t.wgmma_commit();
    }

    /// `acc += A · B` with A this thread's registers of a distributed layout (wgmma's A from
    /// registers) and B's tile at shared byte `b`: as [`Wgmma::run`], and `a` must not change
    /// until the group completes. Safe code calls [`Tile::dot_async`](crate::Tile::dot_async).
    ///
    /// # Safety
    /// `b` is the byte offset of B's tile inside the kernel's dynamic shared memory (all of
    /// it), aligned to its swizzle pattern in the shared window; until the group completes,
    /// nothing but further wgmmas touches `acc`, nothing writes the tile, and `a` stays as it
    /// is.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn run_registers<T: Hopper, const NA: usize, const NC: usize>(
        &self,
        t: &T,
        a: &[E; NA],
        b: u32,
        acc: &mut [f32; NC],
    ) where
        A: Registers<NA>,
        C: Registers<NC>,
    {
        const {
            assert!(
                Self::PLAN.a_registers,
                "Wgmma::run_registers: A is a shared tile: call run"
            )
        };
        let p = &Self::PLAN;
        let op = WgmmaOp {
            kind: E::KIND,
            a_mn_major: false,
            b_mn_major: p.mn_major[1],
        };
        let base_b = (t.shared_base() + b) >> 4;
        let at = |d: u64| (d & !0xffff_ffff) | ((d as u32).wrapping_add(base_b) as u64);
        // As in `run`: nothing the wgmmas read is written after the fence.
        t.wgmma_fence_operand(acc);
        t.wgmma_fence();
        crate::unroll!(Self::PLAN.len, |i| {
            let s = p.steps[i];
            let (r, ra) = (s.acc as usize, s.a as usize);
            let wa = [
                pair(a, ra),
                pair(a, ra + 2),
                pair(a, ra + 4),
                pair(a, ra + 6),
            ];
            // SAFETY: the descriptor addresses the caller's tile of B (its contract).
            unsafe { t.wgmma_rs(op, wa, at(s.b), &mut acc[r..r + p.regs], true) };
        });
        t.wgmma_commit();
    }
}

/// Why the layouts do not fit.
const REASONS: [&str; 6] = [
    "C is not a rank-2 distributed layout of whole warpgroups",
    "C is not a wgmma accumulator (lanes and first registers as m64nNk16's, warps 0-3 stacked over 64 rows, N 64, 128 or 256)",
    "A is not a tile the tensor cores read (an nvmma_shared tile of shape [M, K]: rows of 32, 64 or 128 bytes, 8-row aligned) nor registers holding wgmma's A fragments (dot_op(opIdx = 0, parent = C, kWidth = 2))",
    "B is not a tile the tensor cores read (an nvmma_shared tile of shape [K, N]: rows of 32, 64 or 128 bytes, 8-row aligned)",
    "the shapes do not chain: A must be [M, K], B [K, N] and C [M, N], with the same M, N and K, K a multiple of 16",
    "some instruction's operands are not where one descriptor reads them (or there are more than 128 instructions)",
];

const LANES: [[u32; 2]; 5] = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]];

/// C's register, lane and warp dims, and the columns one instruction covers (N), if C is a
/// wgmma accumulator.
const fn accumulator(c: &[InDim], shape: &[u32]) -> Result<(InDim, InDim, u32), usize> {
    if c.len() < 3 || shape.len() != 2 || !crate::mma::eq(c[0].name, "register") {
        return Err(0);
    }
    let (r, l, w) = (c[0], c[1], c[2]);
    if !w.size.is_multiple_of(4) || w.size / 4 > MAX_GROUPS as u32 || (c.len() > 3 && c[3].size > 1)
    {
        return Err(0);
    }
    let mut i = 0;
    while i < 5 {
        let b = basis(&l, i);
        if l.size != 32 || b[0] != LANES[i as usize][0] || b[1] != LANES[i as usize][1] {
            return Err(1);
        }
        i += 1;
    }
    let (w0, w1, r0, r1) = (basis(&w, 0), basis(&w, 1), basis(&r, 0), basis(&r, 1));
    if w0[0] != 16 || w0[1] != 0 || w1[0] != 32 || w1[1] != 0 {
        return Err(1);
    }
    if r0[0] != 0 || r0[1] != 1 || r1[0] != 8 || r1[1] != 0 {
        return Err(1);
    }
    let mut n = 8;
    let mut bit = 2;
    while (1u32 << bit) < r.size && basis(&r, bit)[0] == 0 && basis(&r, bit)[1] == n {
        n *= 2;
        bit += 1;
    }
    if !matches!(n, 64 | 128 | 256) {
        return Err(1);
    }
    Ok((r, w, n))
}

/// The descriptor of the instruction whose operand starts at `origin` of tile `t` (`mn_dim`:
/// which of the tile's dims is M or N), checked against the layout over `extent` M/N rows and
/// 16 K: every element when `all`, else each coordinate bit (the reading is linear in them).
const fn descriptor(
    t: &NvmmaTile,
    mn_dim: usize,
    origin: [u32; 2],
    extent: u32,
    all: bool,
) -> Option<u64> {
    let mn_major = t.contiguous == mn_dim;
    let d = Descriptor {
        start: t.byte_of(origin),
        lbo: if mn_major { t.box_bytes() } else { 16 },
        sbo: 8 * t.swizzle.bytes(),
        swizzle: t.swizzle,
    };
    if !d.start.is_multiple_of(16) {
        return None;
    }
    if all {
        let mut i = 0;
        while i < extent * 16 {
            if !reads_layout(t, d, mn_dim, origin, i / 16, i % 16) {
                return None;
            }
            i += 1;
        }
    } else {
        let mut bit = 0;
        while (1u32 << bit) < extent {
            let (mn, k) = (1u32 << bit, if bit < 4 { 1u32 << bit } else { 0 });
            if !reads_layout(t, d, mn_dim, origin, mn, 0)
                || !reads_layout(t, d, mn_dim, origin, 0, k)
            {
                return None;
            }
            bit += 1;
        }
    }
    Some(d.encode())
}

/// Whether the tensor cores read element `(mn, k)` of the instruction at `origin` where the
/// layout has it.
const fn reads_layout(
    t: &NvmmaTile,
    d: Descriptor,
    mn_dim: usize,
    origin: [u32; 2],
    mn: u32,
    k: u32,
) -> bool {
    let mut c = origin;
    c[mn_dim] += mn;
    c[1 - mn_dim] += k;
    operand_address(d, t.contiguous == mn_dim, t.eb, mn, k) == t.byte_of(c)
}

/// The instructions of `C += A · B`, or the index in [`REASONS`] of why the layouts do not fit.
const fn plan<E: MmaInput>(
    [a, b, c]: [&[InDim]; 3],
    [sa, sb, sc]: [&[u32]; 3],
) -> Result<WgmmaPlan, usize> {
    let (cr, cw, n) = match accumulator(c, sc) {
        Ok(x) => x,
        Err(e) => return Err(e),
    };
    let eb = E::BITS / 8;
    if let Some(ar) = a_fragments(a, &cw) {
        return match NvmmaTile::of(b, sb, eb) {
            Some(tb) if sa[0] == sc[0] && sb[1] == sc[1] && sa[1] == sb[0] => {
                plan_registers(&ar, &tb, &cr, n, sa[1])
            }
            Some(_) => Err(4),
            None => Err(3),
        };
    }
    let (ta, tb) = match (NvmmaTile::of(a, sa, eb), NvmmaTile::of(b, sb, eb)) {
        (Some(x), Some(y)) => (x, y),
        (None, _) => return Err(2),
        (_, None) => return Err(3),
    };
    if sa[0] != sc[0] || sb[1] != sc[1] || sa[1] != sb[0] || !sa[1].is_multiple_of(16) {
        return Err(4);
    }
    let regs = n / 2;
    let mut p = WgmmaPlan {
        steps: [WgmmaStep { acc: 0, a: 0, b: 0 }; MAX_STEPS],
        len: 0,
        regs: regs as usize,
        mn_major: [ta.contiguous == 0, tb.contiguous == 1],
        group_offsets: [[0, 0]; MAX_GROUPS],
        a_registers: false,
    };
    let mut blk = 0;
    while blk * regs < cr.size {
        let o = coord(&cr, blk * regs);
        let mut k0 = 0;
        while k0 < sa[1] {
            let first = p.len == 0;
            let da = descriptor(&ta, 0, [o[0], k0], 64, first);
            let db = descriptor(&tb, 1, [k0, o[1]], n, first);
            match (da, db) {
                (Some(da), Some(db)) if p.len < MAX_STEPS => {
                    p.steps[p.len] = WgmmaStep {
                        acc: (blk * regs) as u16,
                        a: da,
                        b: db,
                    };
                    p.len += 1;
                }
                _ => return Err(5),
            }
            k0 += 16;
        }
        blk += 1;
    }
    match groups(&p, &ta, &tb, &cw, n) {
        Some(g) => p.group_offsets = g,
        None => return Err(5),
    }
    Ok(p)
}

/// The instructions of `C += A · B` with A's fragments in registers `ar` (every warpgroup at
/// its own rows: B's start is the same for all), or the index in [`REASONS`] of why not.
const fn plan_registers(
    ar: &InDim,
    tb: &NvmmaTile,
    cr: &InDim,
    n: u32,
    k: u32,
) -> Result<WgmmaPlan, usize> {
    let regs = n / 2;
    let mut p = WgmmaPlan {
        steps: [WgmmaStep { acc: 0, a: 0, b: 0 }; MAX_STEPS],
        len: 0,
        regs: regs as usize,
        mn_major: [false, tb.contiguous == 1],
        group_offsets: [[0, 0]; MAX_GROUPS],
        a_registers: true,
    };
    if !k.is_multiple_of(16) {
        return Err(4);
    }
    let mut blk = 0;
    while blk * regs < cr.size {
        let o = coord(cr, blk * regs);
        let mut k0 = 0;
        while k0 < k {
            let db = descriptor(tb, 1, [k0, o[1]], n, p.len == 0);
            match (fragment_at(ar, 8, [o[0], k0]), db) {
                (Some(ra), Some(db)) if p.len < MAX_STEPS => {
                    p.steps[p.len] = WgmmaStep {
                        acc: (blk * regs) as u16,
                        a: ra as u64,
                        b: db,
                    };
                    p.len += 1;
                }
                _ => return Err(5),
            }
            k0 += 16;
        }
        blk += 1;
    }
    Ok(p)
}

/// Each warpgroup's start offsets: its rows (and columns) moved by the warp bases of warp `4g`,
/// checked to be a plain addition to every instruction's warpgroup-0 descriptors.
const fn groups(
    p: &WgmmaPlan,
    ta: &NvmmaTile,
    tb: &NvmmaTile,
    cw: &InDim,
    n: u32,
) -> Option<[[u32; 2]; MAX_GROUPS]> {
    let mut out = [[0u32; 2]; MAX_GROUPS];
    let mut g = 1;
    while g < cw.size / 4 {
        let o = coord(cw, 4 * g);
        out[g as usize] = [ta.byte_of([o[0], 0]), tb.byte_of([0, o[1]])];
        let mut i = 0;
        while i < p.len {
            let s = p.steps[i];
            let (da, db) = (Descriptor::decode(s.a), Descriptor::decode(s.b));
            let (a0, b0) = (ta.coord_of(da.start), tb.coord_of(db.start));
            let want_a = descriptor(ta, 0, [a0[0] + o[0], a0[1]], 64, false);
            let want_b = descriptor(tb, 1, [b0[0], b0[1] + o[1]], n, false);
            let [oa, ob] = out[g as usize];
            match (want_a, want_b) {
                (Some(x), Some(y))
                    if x == s.a + (oa >> 4) as u64 && y == s.b + (ob >> 4) as u64 => {}
                _ => return None,
            }
            i += 1;
        }
        g += 1;
    }
    Some(out)
}
