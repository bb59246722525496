//! Tensor-core matrix multiply-accumulate over typed fragments: `C += A · B` with `A`, `B` and
//! `C` a thread's registers of three `layout!` types, by `mma.sync.aligned.m16n8k16` (f16 or
//! bf16 in, f32 accumulate). [`Mma`] checks at compile time that `A` and `B` are the dot operands
//! (`dot_op`, `kWidth = 2`) of the accumulator's `nvidia_mma` v2 layout (`instrShape = [16, 8]`)
//! with matching shapes and warps, and pairs their instruction tiles from the basis tables, so
//! a kernel never writes a fragment index. A mismatch is a compile error naming both layouts,
//! built with `const_format`.

use core::marker::PhantomData;

use const_format::StrWriter;

use crate::element::Element;
use crate::float16::{Bf16, F16};
use crate::layout::{InDim, Layout, Registers};
pub use crate::tensor_core::{m16n8k16_lane, widen, MmaKind};
use crate::thread::Thread;

/// An operand element type of `mma`: an `f32` rounds to it (an epilogue's narrowing) through
/// [`CastFrom`](crate::cast::CastFrom), two at a time where the GPU packs the conversion.
pub trait MmaInput: Element + crate::cast::CastFrom<f32> {
    /// Its PTX type.
    const KIND: MmaKind;
    /// Its value, exactly, as `f32`.
    fn to_f32(self) -> f32;
}

impl MmaInput for F16 {
    const KIND: MmaKind = MmaKind::F16;
    #[inline(always)]
    fn to_f32(self) -> f32 {
        F16::to_f32(self)
    }
}

impl MmaInput for Bf16 {
    const KIND: MmaKind = MmaKind::Bf16;
    #[inline(always)]
    fn to_f32(self) -> f32 {
        Bf16::to_f32(self)
    }
}

/// Registers per thread of one m16n8k16 instruction: A's 8 halves, B's 4, C's 4 floats.
const A_REGS: u32 = 8;
const B_REGS: u32 = 4;
const C_REGS: u32 = 4;
/// The most instruction steps (C tiles times K tiles) one [`Mma::run`] pairs.
const MAX_STEPS: usize = 512;

/// One instruction of [`Mma::run`]: the first register of its C, A and B fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// First of 4 accumulator registers.
    pub c: u16,
    /// First of 8 A registers.
    pub a: u16,
    /// First of 4 B registers.
    pub b: u16,
}

/// `C += A · B` for the thread's registers of layouts `A` (M x K), `B` (K x N) and `C`
/// (M x N), made as a constant so that a mismatch is a compile error even under `cargo check`:
///
/// ```ignore
/// const MMA: Mma<OpA, OpB, Acc> = Mma::new(); // an error here unless the layouts fit
/// MMA.run(t, &a, &b, &mut acc);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Mma<A, B, C>(PhantomData<Layouts<A, B, C>>);

/// What [`Mma`] is generic over (a function type: `Mma` is `Send`, `Sync` and `Copy` whatever
/// the layouts).
type Layouts<A, B, C> = fn() -> (A, B, C);

impl<A: Layout, B: Layout, C: Layout> Mma<A, B, C> {
    /// The instruction sequence for these layouts; evaluating it (in a `const`) checks them.
    #[allow(clippy::new_without_default)] // a Default impl would check the layouts at run time
    pub const fn new() -> Self {
        let _ = Self::STEPS;
        Mma(PhantomData)
    }

    /// The instructions, in order (K fastest), and their number; a compile error if `A`, `B`
    /// and `C` do not fit `mma.m16n8k16`.
    pub const STEPS: ([Step; MAX_STEPS], usize) = match plan(
        [A::IN_DIMS, B::IN_DIMS, C::IN_DIMS],
        [A::SHAPE, B::SHAPE, C::SHAPE],
    ) {
        Ok(s) => s,
        Err(why) => panic!("{}", Self::MESSAGES[why].r().as_str()),
    };

    /// The error for each reason, naming the three layouts (a table, so each is a `'static`
    /// constant).
    const MESSAGES: [StrWriter<[u8; 1024]>; REASONS.len()] =
        {
            let mut out = [const { StrWriter::new([0; 1024]) }; REASONS.len()];
            let mut i = 0;
            while i < REASONS.len() {
                out[i] = message(&[
                "mma::<", A::NAME, ", ", B::NAME, " => ", C::NAME, ">: ", REASONS[i],
                "\n  A = ", A::SOURCE, "\n  B = ", B::SOURCE, "\n  C = ", C::SOURCE,
                "\n  help: C must be nvidia_mma(versionMajor = 2, ..., instrShape = [16, 8]), A ",
                "dot_op(opIdx = 0, parent = C, kWidth = 2) of shape [M, K] and B dot_op(opIdx = 1,",
                " parent = C, kWidth = 2) of shape [K, N], K a multiple of 16",
            ]);
                i += 1;
            }
            out
        };

    /// `c += a · b`: every thread of the CTA calls it with its registers of `A`, `B` and `C`
    /// (arrays of each layout's register count: another count is a type error at
    /// `cargo check`). The steps are [`Mma::STEPS`], constants: no index is computed at run time.
    #[inline(always)]
    pub fn run<T: Thread, E: MmaInput, const NA: usize, const NB: usize, const NC: usize>(
        &self,
        t: &T,
        a: &[E; NA],
        b: &[E; NB],
        c: &mut [f32; NC],
    ) where
        A: Registers<NA>,
        B: Registers<NB>,
        C: Registers<NC>,
    {
        // Each step's registers are constants (the steps are written out): the fragments stay
        // in registers.
        crate::unroll!(Self::STEPS.1, |i| Self::step(t, Self::STEPS.0[i], a, b, c));
    }

    /// One `mma.m16n8k16`: the fragments of step `s` packed into words, the result back in `c`.
    #[inline(always)]
    fn step<T: Thread, E: MmaInput, const NA: usize, const NB: usize, const NC: usize>(
        t: &T,
        s: Step,
        a: &[E; NA],
        b: &[E; NB],
        c: &mut [f32; NC],
    ) {
        let (ra, rb, rc) = (s.a as usize, s.b as usize, s.c as usize);
        let wa = [
            pair(a, ra),
            pair(a, ra + 2),
            pair(a, ra + 4),
            pair(a, ra + 6),
        ];
        let wb = [pair(b, rb), pair(b, rb + 2)];
        let d = t.mma_m16n8k16(E::KIND, wa, wb, [c[rc], c[rc + 1], c[rc + 2], c[rc + 3]]);
        c[rc] = d[0];
        c[rc + 1] = d[1];
        c[rc + 2] = d[2];
        c[rc + 3] = d[3];
    }
}

/// A layout of a tensor-core operand (`dot_op(opIdx = .., parent = Acc, ..)`), with the
/// accumulator it multiplies into: `layout!` implements it for a `dot_op` whose parent its
/// block declares, so `a.dot(t, &b, Tile::splat(0.0))` infers the accumulator's layout (Triton's
/// `DotOperandEncodingAttr` and its parent).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tensor-core operand layout of its `layout!` block",
    label = "`dot` multiplies tiles of `dot_op` layouts",
    note = "declare `{Self}` as `dot_op(opIdx = .., parent = <the accumulator>, kWidth = ..)` in the block that declares the accumulator"
)]
pub trait DotOperand {
    /// The accumulator layout (the `dot_op`'s parent).
    type Acc;
}

impl<A: Registers<NA>, E: MmaInput, const NA: usize> crate::tile::Tile<A, E, NA> {
    /// `acc + self · b` (Triton's `tl.dot(a, b, acc)`): `self` the M x K operand (a
    /// `dot_op(opIdx = 0)` layout), `b` the K x N one (`opIdx = 1`), `acc` the M x N
    /// accumulator (their `nvidia_mma` parent), by `mma.sync.m16n8k16` in f32 (f16 or bf16
    /// operands, chosen by `E`). Layouts that do not fit are a compile error naming all three
    /// and what to change ([`Mma::STEPS`]); the steps are constants, so the fragments stay in
    /// registers.
    ///
    /// ```
    /// use linear_layouts::sim::{launch, Launch};
    /// use linear_layouts::{layout, Thread, Tile, F16};
    /// layout! {
    ///     pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [32, 16];
    ///     pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [32, 16];
    ///     pub OpB = dot_op(opIdx = 1, parent = Acc, kWidth = 2) for [16, 16];
    /// }
    /// launch(Launch::new(1, 128, 0), |t| {
    ///     // Small integers: every f16 product and f32 sum is exact.
    ///     let (fa, fb) = (|m: u32, k: u32| ((m + 3 * k) % 5) as f32, |k: u32, n: u32| (n + k % 3) as f32);
    ///     let a = Tile::<OpA, F16, 8>::from_coords(t, |[m, k]| F16::from_f32(fa(m, k)));
    ///     let b = Tile::<OpB, F16, 4>::from_coords(t, |[k, n]| F16::from_f32(fb(k, n)));
    ///     // The accumulator's layout is the operands' parent: `Tile::splat` needs no type.
    ///     let c = a.dot(t, &b, Tile::splat(1.0));
    ///     let want = Tile::<Acc, f32, 4>::from_coords(t, |[m, n]| (0..16).map(|k| fa(m, k) * fb(k, n)).sum::<f32>() + 1.0);
    ///     assert_eq!(c.values, want.values);
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn dot<B, C, T: Thread, const NB: usize, const NC: usize>(
        &self,
        t: &T,
        b: &crate::tile::Tile<B, E, NB>,
        mut acc: crate::tile::Tile<C, f32, NC>,
    ) -> crate::tile::Tile<C, f32, NC>
    where
        A: DotOperand<Acc = C>,
        B: Registers<NB>,
        C: Registers<NC>,
    {
        const { Mma::<A, B, C>::new() }.run(t, &self.values, &b.values, &mut acc.values);
        acc
    }
}

/// `parts` written one after another into a buffer of `N` bytes (a compile-time error message
/// naming layouts; a source too long for the buffer is truncated rather than failing).
pub(crate) const fn message<const N: usize>(parts: &[&str]) -> StrWriter<[u8; N]> {
    let mut w = StrWriter::new([0; N]);
    let mut p = 0;
    while p < parts.len() {
        let _ = w.as_mut().write_str(parts[p]);
        p += 1;
    }
    w
}

/// Registers `r` and `r + 1` packed into one word, `r` in the low half.
#[inline(always)]
pub(crate) fn pair<E: Element, const N: usize>(v: &[E; N], r: usize) -> u32 {
    (v[r].to_bits() as u32 & 0xffff) | ((v[r + 1].to_bits() as u32) << 16)
}

/// Registers `2i` and `2i + 1` of `v` as word `i` (`2i` in the low half): an MMA operand's
/// fragment words, to carry across a loop as 32-bit registers (LLVM keeps separate 16-bit
/// registers apart across a loop's back edge, and packs them again at each use).
#[inline(always)]
pub fn pack_pairs<E: MmaInput, const N: usize, const W: usize>(v: &[E; N]) -> [u32; W] {
    const { assert!(2 * W == N, "pack_pairs: W words hold N = 2 W registers") };
    let mut out = [0u32; W];
    crate::unroll!(W, |i| out[i] = pair(v, 2 * i));
    out
}

/// The registers of [`pack_pairs`]' words again (the two fold away into the words' uses).
#[inline(always)]
pub fn unpack_pairs<E: MmaInput, const N: usize, const W: usize>(w: &[u32; W]) -> [E; N] {
    const { assert!(2 * W == N, "unpack_pairs: W words hold N = 2 W registers") };
    let mut out = [E::default(); N];
    crate::unroll!(W, |i| {
        out[2 * i] = E::from_bits((w[i] & 0xffff) as u64);
        out[2 * i + 1] = E::from_bits((w[i] >> 16) as u64);
    });
    out
}

/// Why three layouts do not fit the instruction.
const REASONS: [&str; 7] = [
    "a layout is not a rank-2 distributed layout",
    "C is not an nvidia_mma v2 accumulator with instrShape [16, 8] (its first registers and its lanes are not the m16n8 fragment's)",
    "A is not C's opIdx = 0 dot operand with kWidth = 2 (its first registers and its lanes are not the m16k16 fragment's)",
    "B is not C's opIdx = 1 dot operand with kWidth = 2 (its first registers and its lanes are not the k16n8 fragment's)",
    "the shapes do not chain: A must be [M, K], B [K, N] and C [M, N], with the same M, N and K",
    "the warps do not match: A's warps must split C's rows and B's C's columns, as dot operands of C do",
    "some C tile has no A or B fragment for some K step (or there are more than 512 steps)",
];

/// The in-dim named `name` of a layout.
const fn dim(dims: &[InDim], name: &str) -> Option<InDim> {
    let mut i = 0;
    while i < dims.len() {
        if eq(dims[i].name, name) {
            return Some(dims[i]);
        }
        i += 1;
    }
    None
}

/// Whether two names are the same (`a == b`, which a `const fn` cannot call).
pub(crate) const fn eq(a: &str, b: &str) -> bool {
    layout_plan::slices::same_u8(a.as_bytes(), b.as_bytes())
}

/// Basis `bit` of a rank-2 in-dim, `[0, 0]` past its bits.
pub(crate) const fn basis(d: &InDim, bit: u32) -> [u32; 2] {
    if (1u32 << bit) >= d.size {
        return [0, 0];
    }
    let i = 2 * bit as usize;
    [d.bases[i], d.bases[i + 1]]
}

/// Whether the first bases of `d` are `want`.
const fn starts_with(d: &InDim, want: &[[u32; 2]]) -> bool {
    if d.size < (1 << want.len()) {
        return false;
    }
    let mut i = 0;
    while i < want.len() {
        let b = basis(d, i as u32);
        if b[0] != want[i][0] || b[1] != want[i][1] {
            return false;
        }
        i += 1;
    }
    true
}

/// The coordinates of index `r` of in-dim `d` (of a register: at lane 0, warp 0): the XOR of
/// its bits' bases.
pub(crate) const fn reg_coord(d: &InDim, r: u32) -> [u32; 2] {
    let mut c = [0, 0];
    let mut bit = 0;
    while (1u32 << bit) < d.size {
        if (r >> bit) & 1 == 1 {
            let b = basis(d, bit);
            c = [c[0] ^ b[0], c[1] ^ b[1]];
        }
        bit += 1;
    }
    c
}

/// The first register of `d`'s fragment (`regs` registers each) at `origin`, if any.
pub(crate) const fn fragment_at(d: &InDim, regs: u32, origin: [u32; 2]) -> Option<u16> {
    let mut g = 0;
    while g * regs < d.size {
        let c = reg_coord(d, g * regs);
        if c[0] == origin[0] && c[1] == origin[1] {
            return Some((g * regs) as u16);
        }
        g += 1;
    }
    None
}

/// The m16n8k16 fragments: lanes `4g + t` hold rows `g` (bits 2..5) and column pairs `2t`.
const LANES_AC: [[u32; 2]; 5] = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]];
const LANES_B: [[u32; 2]; 5] = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]];
const REGS_A: [[u32; 2]; 3] = [[0, 1], [8, 0], [0, 8]];
const REGS_B: [[u32; 2]; 2] = [[1, 0], [8, 0]];
const REGS_C: [[u32; 2]; 2] = [[0, 1], [8, 0]];

type Dims = (InDim, InDim, InDim);

/// A layout's register, lane and warp dims, if it is rank-2 distributed.
const fn parts(dims: &[InDim]) -> Option<Dims> {
    match (dim(dims, "register"), dim(dims, "lane"), dim(dims, "warp")) {
        (Some(r), Some(l), Some(w)) if r.bases.len() == 2 * r.size.trailing_zeros() as usize => {
            Some((r, l, w))
        }
        _ => None,
    }
}

/// A's register dim, if A (in-dims `a`) holds `mma.m16n8k16`'s A fragments (8 registers each)
/// in every warp, each warp at the rows warp dim `warps` gives it: what a wgmma with A from
/// registers reads too (a warpgroup's warps each give 16 rows).
#[cfg(not(target_arch = "spirv"))]
pub(crate) const fn a_fragments(a: &[InDim], warps: &InDim) -> Option<InDim> {
    let (ar, al, aw) = match parts(a) {
        Some(p) => p,
        None => return None,
    };
    if !starts_with(&ar, &REGS_A) || al.size != 32 || !starts_with(&al, &LANES_AC) {
        return None;
    }
    if aw.size != warps.size {
        return None;
    }
    let mut bit = 0;
    while (1u32 << bit) < aw.size {
        let (x, z) = (basis(&aw, bit), basis(warps, bit));
        if x[0] != z[0] || x[1] != 0 || z[1] != 0 {
            return None;
        }
        bit += 1;
    }
    Some(ar)
}

/// The instruction steps of `C += A · B` from the in-dims and shapes of A, B and C, or the
/// index in [`REASONS`] of why the layouts do not fit.
const fn plan(
    [a, b, c]: [&[InDim]; 3],
    [sa, sb, sc]: [&[u32]; 3],
) -> Result<([Step; MAX_STEPS], usize), usize> {
    let ((ar, al, aw), (br, bl, bw), (cr, cl, cw)) = match (parts(a), parts(b), parts(c)) {
        (Some(a), Some(b), Some(c)) if sa.len() == 2 && sb.len() == 2 && sc.len() == 2 => (a, b, c),
        _ => return Err(0),
    };
    if sa[0] != sc[0] || sb[1] != sc[1] || sa[1] != sb[0] || !sa[1].is_multiple_of(16) {
        return Err(4);
    }
    if !starts_with(&cr, &REGS_C) || cl.size != 32 || !starts_with(&cl, &LANES_AC) {
        return Err(1);
    }
    if !starts_with(&ar, &REGS_A) || al.size != 32 || !starts_with(&al, &LANES_AC) {
        return Err(2);
    }
    if !starts_with(&br, &REGS_B) || bl.size != 32 || !starts_with(&bl, &LANES_B) {
        return Err(3);
    }
    if aw.size != cw.size || bw.size != cw.size {
        return Err(5);
    }
    let mut bit = 0;
    while (1u32 << bit) < cw.size {
        let (x, y, z) = (basis(&aw, bit), basis(&bw, bit), basis(&cw, bit));
        if x[0] != z[0] || x[1] != 0 || y[0] != 0 || y[1] != z[1] {
            return Err(5);
        }
        bit += 1;
    }
    steps(&ar, &br, &cr, sa[1])
}

/// Every C fragment, each K step of 16 up to `k`: the A and B fragments at the same rows, K and
/// columns.
const fn steps(
    ar: &InDim,
    br: &InDim,
    cr: &InDim,
    k: u32,
) -> Result<([Step; MAX_STEPS], usize), usize> {
    let mut out = [Step { c: 0, a: 0, b: 0 }; MAX_STEPS];
    let mut n = 0;
    let mut g = 0;
    while g * C_REGS < cr.size {
        let [row, col] = reg_coord(cr, g * C_REGS);
        let mut k0 = 0;
        while k0 < k {
            let (fa, fb) = (
                fragment_at(ar, A_REGS, [row, k0]),
                fragment_at(br, B_REGS, [k0, col]),
            );
            match (fa, fb) {
                (Some(a), Some(b)) if n < MAX_STEPS => {
                    out[n] = Step {
                        c: (g * C_REGS) as u16,
                        a,
                        b,
                    };
                    n += 1;
                }
                _ => return Err(6),
            }
            k0 += 16;
        }
        g += 1;
    }
    Ok((out, n))
}
