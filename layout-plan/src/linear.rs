//! A linear map's code: the XOR of `bases[b]` over the set bits `b` of an integer, written as a
//! few shift-and-mask terms. Bits that move by the same distance share one `(x & mask) << shift`
//! term (Triton's `matrixVectorProd`), so bases that are runs of consecutive powers of two cost
//! one or two instructions per run, not one per basis. One grouping ([`terms_of`]) serves every
//! user: layout-core's index math (`LinearLayout::apply_plan`), `convert!`'s emitted address
//! arithmetic, and the runtime's interpreter, which reads the terms a [`crate::fixed::Fixed`]
//! plan carries next to its bases ([`crate::fixed::FixedBases`]), so a plan in a const folds to
//! shifts and masks instead of a select per basis.

use core::ops::Deref;

/// The XOR of `bases[b]` over the set bits `b` of `x`, basis by basis (bases past 32 ignored).
#[inline(always)]
pub const fn xor_of(bases: &[u32], x: u32) -> u32 {
    let mut acc = 0;
    let mut b = 0;
    while b < bases.len() && b < 32 {
        if (x >> b) & 1 == 1 {
            acc ^= bases[b];
        }
        b += 1;
    }
    acc
}

/// One term: `(x & mask) << shift`, a right shift when `shift < 0`. [`terms_of`] makes shifts
/// in -31 ..= 31; a term made by hand with a larger one shifts by it modulo 32.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Term {
    /// The bits of `x` this term moves.
    pub mask: u32,
    /// How far they move: left if positive, right if negative.
    pub shift: i8,
}

/// The term of no bits.
pub const ZERO: Term = Term { mask: 0, shift: 0 };

impl Term {
    /// The term on `x`. Both shifts are written and one of them is by 0, rather than an `if` on
    /// the direction, so that terms applied one after another are one expression to LLVM.
    #[inline(always)]
    pub const fn eval(&self, x: u32) -> u32 {
        let (left, right) = if self.shift >= 0 {
            (self.shift as u32, 0)
        } else {
            (0, self.shift.unsigned_abs() as u32)
        };
        (x & self.mask).wrapping_shl(left).wrapping_shr(right)
    }
}

/// The most terms of one map: one per distance a bit can move (-31 ..= 31), and one spare.
pub const MAX_TERMS: usize = 64;

/// The terms of one map, sorted by shift (distinct shifts).
#[derive(Clone, Copy)]
pub struct Terms {
    items: [Term; MAX_TERMS],
    len: usize,
}

impl Terms {
    /// The terms.
    pub const fn as_slice(&self) -> &[Term] {
        crate::slices::prefix(&self.items, self.len)
    }
}

impl Deref for Terms {
    type Target = [Term];
    fn deref(&self) -> &[Term] {
        self.as_slice()
    }
}

/// The terms of `bases` (bases past 32 ignored, as [`xor_of`] does): each set bit `r` of basis
/// `c` puts bit `c` in the term of shift `r - c`.
pub const fn terms_of(bases: &[u32]) -> Terms {
    let mut t = Terms {
        items: [ZERO; MAX_TERMS],
        len: 0,
    };
    let mut c = 0;
    while c < bases.len() && c < 32 {
        let mut bits = bases[c];
        while bits != 0 {
            let r = bits.trailing_zeros();
            bits &= bits - 1;
            add_bit(&mut t, c as u32, r as i8 - c as i8);
        }
        c += 1;
    }
    t
}

/// Put bit `c` in the term of `shift`, made at its place in shift order where it is missing
/// (63 distinct shifts at most, so the list never fills).
const fn add_bit(t: &mut Terms, c: u32, shift: i8) {
    let mut i = 0;
    while i < t.len && t.items[i].shift < shift {
        i += 1;
    }
    if i < t.len && t.items[i].shift == shift {
        t.items[i].mask |= 1 << c;
        return;
    }
    let mut j = t.len;
    while j > i {
        t.items[j] = t.items[j - 1];
        j -= 1;
    }
    t.items[i] = Term {
        mask: 1 << c,
        shift,
    };
    t.len += 1;
}

/// The terms a [`Map`] carries: at most this many, written out by [`apply`].
pub const SHORT_TERMS: usize = 16;

/// `acc` joined with each of `t` on `x` (zero masks past the map's last term), written out one
/// after another: terms of one map and of the maps summed with it form one expression, as in
/// `convert!`'s code, rather than one block per term. Joined by OR where the terms' bits are
/// [`disjoint`] (as `convert!` writes them, so LLVM sees the same operations), else by XOR.
#[inline(always)]
pub fn apply(acc: u32, t: &[Term; SHORT_TERMS], x: u32, disjoint: bool) -> u32 {
    let mut r = acc;
    each_term!(r = join(r, t[k].eval(x), disjoint));
    r
}

/// Sixteen copies of a statement, `k` the term's index in each.
macro_rules! each_term {
    (@ [$($k:literal)*] $body:tt) => {
        $({
            #[allow(non_upper_case_globals)]
            const k: usize = $k;
            each_term!(@body $body);
        })*
    };
    (@body ($($body:tt)*)) => { $($body)* };
    ($($body:tt)*) => {
        each_term!(@ [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15] ($($body)*))
    };
}
use each_term;

/// `a | b` where their bits are known apart, else `a ^ b` (the same value then).
#[inline(always)]
fn join(a: u32, b: u32, disjoint: bool) -> u32 {
    if disjoint {
        a | b
    } else {
        a ^ b
    }
}

/// Whether no two terms of three maps put bits in the same place: their sum is then an OR of
/// its terms (`convert!`'s rule: no two bases of the summed maps share a bit). Written out, as
/// [`apply`] is, so that a plan in a const folds it to a constant before its terms are joined.
#[inline(always)]
pub fn disjoint(a: &[Term; SHORT_TERMS], b: &[Term; SHORT_TERMS], c: &[Term; SHORT_TERMS]) -> bool {
    let (mut seen, mut overlap) = (0u32, 0u32);
    each_term!(let out = a[k].eval(u32::MAX); overlap |= seen & out; seen |= out);
    each_term!(let out = b[k].eval(u32::MAX); overlap |= seen & out; seen |= out);
    each_term!(let out = c[k].eval(u32::MAX); overlap |= seen & out; seen |= out);
    let _ = seen;
    overlap == 0
}

/// One map of a plan as a machine reads it: its bases, and its terms where the plan carries them.
#[derive(Clone, Copy, Debug)]
pub struct Map<'a> {
    /// `bases[b]`: what bit `b` of the integer contributes.
    pub bases: &'a [u32],
    /// The same map as terms ([`terms_of`], zero masks after the last), where the plan's storage
    /// keeps them: a [`crate::fixed::FixedBases`] of at most [`SHORT_TERMS`] terms.
    pub terms: Option<&'a [Term; SHORT_TERMS]>,
}

impl<'a> Map<'a> {
    /// A map given by its bases alone.
    pub const fn of(bases: &'a [u32]) -> Self {
        Map { bases, terms: None }
    }

    /// Its terms, or none (all zero masks) where it carries none.
    #[inline(always)]
    pub fn terms(&self) -> &'a [Term; SHORT_TERMS] {
        self.terms.unwrap_or(&NO_TERMS)
    }

    /// `acc` XOR the map on `x`: its terms, then, for a map without terms, its bases one by
    /// one (bases past 32 ignored). The terms are applied whether or not there are any (zero
    /// masks add nothing) rather than under a branch: a plan in a const folds them to the
    /// shifts and masks `convert!` writes, and in straight-line code LLVM merges the terms two
    /// sums share (a store and a load address masking the lane alike) before it reshapes each
    /// on its own, as it does `convert!`'s code for the same plan.
    #[inline(always)]
    pub fn xor_into(&self, acc: u32, x: u32) -> u32 {
        self.join_into(acc, x, false)
    }

    /// [`Map::xor_into`], the terms joined by OR where `disjoint` says no two terms of the
    /// sum this map is part of share a bit ([`disjoint`]).
    #[inline(always)]
    pub fn join_into(&self, acc: u32, x: u32, disjoint: bool) -> u32 {
        let acc = apply(acc, self.terms(), x, disjoint);
        if self.terms.is_some() {
            return acc;
        }
        // One bound, taken before the loop: tables without terms (written by `convert!` or
        // made at run time) fold to a select per basis, the code kernels that interpret them
        // were measured with; `xor_of`'s bound on each step folds differently.
        let (bases, mut r) = (self.bases, acc);
        let n = if bases.len() < 32 { bases.len() } else { 32 };
        let mut b = 0;
        while b < n {
            if (x >> b) & 1 == 1 {
                r ^= bases[b];
            }
            b += 1;
        }
        r
    }
}

/// The terms of a map without any.
pub const NO_TERMS: [Term; SHORT_TERMS] = [ZERO; SHORT_TERMS];

/// A small LCG for tests: no dependency for a few thousand draws.
#[cfg(test)]
pub(crate) fn test_rng(mut seed: u64) -> impl FnMut() -> u32 {
    move || {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The XOR of every term of `t` on `x`.
    fn eval_all(t: &[Term], x: u32) -> u32 {
        t.iter().fold(0, |a, t| a ^ t.eval(x))
    }

    #[test]
    fn runs_share_a_term_and_terms_equal_the_bases() {
        // Bits 0..3 move up by 2 (one term), bit 3 goes to bits 9 and 4 (a swizzle: two terms).
        let bases = [4, 8, 16, (1 << 9) | (1 << 4)];
        let t = terms_of(&bases);
        assert_eq!(
            t.as_slice(),
            &[
                Term { mask: 8, shift: 1 },
                Term { mask: 7, shift: 2 },
                Term { mask: 8, shift: 6 }
            ]
        );
        for x in 0..16 {
            assert_eq!(eval_all(&t, x), xor_of(&bases, x));
        }
        let mut short = [ZERO; SHORT_TERMS];
        short[..3].copy_from_slice(&t);
        for x in 0..16 {
            assert_eq!(apply(5, &short, x, false), 5 ^ xor_of(&bases, x));
            assert_eq!(
                apply(0, &short, x, disjoint(&short, &NO_TERMS, &NO_TERMS)),
                xor_of(&bases, x)
            );
        }
    }

    #[test]
    fn terms_equal_the_bases_for_any_bases() {
        let mut next = test_rng(0x2545_f491);
        for _ in 0..300 {
            // Up to 32 bases of any bits (more than 16 terms, shifts -31 and 31 included).
            let n = (next() % 33) as usize;
            let mut all = [0u32; 32];
            all.iter_mut().for_each(|b| *b = next());
            let bases = &all[..n];
            let t = terms_of(bases);
            for _ in 0..32 {
                let x = next();
                assert_eq!(eval_all(&t, x), xor_of(bases, x), "{:?} at {}", bases, x);
            }
        }
        let extreme = [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 1,
        ];
        assert_eq!(
            terms_of(&extreme).as_slice(),
            &[Term {
                mask: 1 << 31,
                shift: -31
            }]
        );
        assert_eq!(eval_all(&terms_of(&[1 << 31]), 1), 1 << 31);
    }
}
