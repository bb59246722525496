//! A linear map's code: the XOR of `bases[b]` over the set bits `b` of an integer, written as a
//! few shift-and-mask terms. Bits that move by the same distance share one `(x & mask) << shift`
//! term (Triton's `matrixVectorProd`), so bases that are runs of consecutive powers of two cost
//! one or two instructions per run, not one per basis. One grouping serves every user: layout-core's
//! index math (`LinearLayout::apply_plan`), `convert!`'s emitted address arithmetic, and the
//! runtime's interpreter, which reads the terms a [`crate::fixed::Fixed`] plan carries next to
//! its bases, so a plan in a const folds to the same instructions `convert!` writes.

use core::fmt;
use core::ops::Deref;

use crate::banks::xor_of;
use crate::fixed::FixedList;

/// One term: `(x & mask) << shift`, a right shift when `shift < 0`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Term {
    /// The bits of `x` this term moves.
    pub mask: u32,
    /// How far they move: left if positive, right if negative.
    pub shift: i8,
}

impl Term {
    /// The term on `x`, with no branch on the direction (so that terms written out one after
    /// another stay in one block).
    #[inline(always)]
    pub const fn eval(&self, x: u32) -> u32 {
        let (left, right) = if self.shift >= 0 {
            (self.shift as u32, 0)
        } else {
            (0, self.shift.unsigned_abs() as u32)
        };
        ((x & self.mask) << left) >> right
    }
}

/// The most terms of one map: one per distance a bit can move (-31 ..= 31), and one spare.
pub const MAX_TERMS: usize = 64;

/// The terms of one map, sorted by shift (distinct shifts).
pub type Terms = FixedList<Term, MAX_TERMS>;

/// The terms of `bases`.
pub const fn terms_of(bases: &[u32]) -> Terms {
    let mut t = Terms::new(Term { mask: 0, shift: 0 });
    let mut c = 0;
    while c < bases.len() && c < 32 {
        add_basis(&mut t, c as u32, bases[c]);
        c += 1;
    }
    t
}

/// Add basis `c` (value `v`) to `t`: each set bit `r` of `v` puts bit `c` in the term of shift
/// `r - c`, made where it is missing at its place in shift order.
const fn add_basis(t: &mut Terms, c: u32, v: u32) {
    let mut bits = v;
    while bits != 0 {
        let r = bits.trailing_zeros();
        bits &= bits - 1;
        let shift = r as i8 - c as i8;
        let mut i = 0;
        while i < t.len() && t.get(i).shift < shift {
            i += 1;
        }
        if i < t.len() && t.get(i).shift == shift {
            let old = t.get(i);
            t.set(
                i,
                Term {
                    mask: old.mask | 1 << c,
                    shift,
                },
            );
        } else {
            // Insert at `i`: append, then move the tail up one.
            t.push(Term { mask: 0, shift: 0 });
            let mut j = t.len() - 1;
            while j > i {
                t.set(j, t.get(j - 1));
                j -= 1;
            }
            t.set(
                i,
                Term {
                    mask: 1 << c,
                    shift,
                },
            );
        }
    }
}

/// The terms a [`Map`] carries: the first [`SHORT_TERMS`], zero masks after the last.
pub const SHORT_TERMS: usize = 16;

/// `acc` XOR each of `terms` on `x`, in order, written out with no branch between them (a zero
/// mask folds away), so that terms of one map and of maps summed next to it sit in one block
/// when LLVM first simplifies them, as `convert!`'s written-out expressions do.
#[inline(always)]
pub fn apply(acc: u32, t: &[Term; SHORT_TERMS], x: u32) -> u32 {
    acc ^ t[0].eval(x)
        ^ t[1].eval(x)
        ^ t[2].eval(x)
        ^ t[3].eval(x)
        ^ t[4].eval(x)
        ^ t[5].eval(x)
        ^ t[6].eval(x)
        ^ t[7].eval(x)
        ^ t[8].eval(x)
        ^ t[9].eval(x)
        ^ t[10].eval(x)
        ^ t[11].eval(x)
        ^ t[12].eval(x)
        ^ t[13].eval(x)
        ^ t[14].eval(x)
        ^ t[15].eval(x)
}

/// One map of a plan as a machine reads it: its bases, and its terms where the plan carries them.
#[derive(Clone, Copy, Debug)]
pub struct Map<'a> {
    /// `bases[b]`: what bit `b` of the integer contributes.
    pub bases: &'a [u32],
    /// The same map as terms ([`terms_of`]), where the plan's storage keeps them.
    pub terms: Option<&'a [Term; SHORT_TERMS]>,
}

impl<'a> Map<'a> {
    /// A map given by its bases alone.
    pub const fn of(bases: &'a [u32]) -> Self {
        Map { bases, terms: None }
    }

    /// `acc` XOR the map on `x`: through the terms where there are some, else basis by basis.
    #[inline(always)]
    pub fn xor_into(&self, acc: u32, x: u32) -> u32 {
        match self.terms {
            Some(t) => apply(acc, t, x),
            None => acc ^ xor_of(self.bases, x),
        }
    }
}

/// The most bases of a [`FixedBases`]: one per bit of a 32-bit hardware index.
pub const MAX_BASES: usize = 32;

/// The bases of a map in a fixed-size table, with their terms kept up to date: a
/// [`crate::fixed::Fixed`] plan's lane, warp and CTA maps.
#[derive(Clone, Copy)]
pub struct FixedBases {
    bases: FixedList<u32, MAX_BASES>,
    terms: Terms,
    /// `terms` as [`short_terms`] gives them (zero masks when they do not fit).
    short: [Term; SHORT_TERMS],
    fits: bool,
}

/// The first [`SHORT_TERMS`] of `t` in an array (zero masks after its end), or `None` when it
/// has more.
pub const fn short_terms(t: &Terms) -> Option<[Term; SHORT_TERMS]> {
    if t.len() > SHORT_TERMS {
        return None;
    }
    let mut out = [Term { mask: 0, shift: 0 }; SHORT_TERMS];
    let mut i = 0;
    while i < t.len() {
        out[i] = t.get(i);
        i += 1;
    }
    Some(out)
}

impl FixedBases {
    /// No bases.
    pub const fn new() -> Self {
        FixedBases {
            bases: FixedList::new(0),
            terms: Terms::new(Term { mask: 0, shift: 0 }),
            short: [Term { mask: 0, shift: 0 }; SHORT_TERMS],
            fits: true,
        }
    }

    /// Append basis `v`; false when there are already [`MAX_BASES`].
    pub const fn push(&mut self, v: u32) -> bool {
        let c = self.bases.len() as u32;
        if !self.bases.push(v) {
            return false;
        }
        add_basis(&mut self.terms, c, v);
        self.sync();
        true
    }

    /// Recompute the short terms from the terms.
    const fn sync(&mut self) {
        match short_terms(&self.terms) {
            Some(t) => (self.short, self.fits) = (t, true),
            None => (self.short, self.fits) = ([Term { mask: 0, shift: 0 }; SHORT_TERMS], false),
        }
    }

    /// Append every basis of `vs` that fits; false when some did not.
    pub const fn extend(&mut self, vs: &[u32]) -> bool {
        let mut i = 0;
        while i < vs.len() {
            if !self.push(vs[i]) {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Replace basis `i` (below the length).
    pub const fn set(&mut self, i: usize, v: u32) {
        self.bases.set(i, v);
        self.terms = terms_of(self.bases.as_slice());
        self.sync();
    }

    /// Basis `i` (below the length).
    pub const fn get(&self, i: usize) -> u32 {
        self.bases.get(i)
    }

    /// The number of bases.
    pub const fn len(&self) -> usize {
        self.bases.len()
    }

    /// Whether there are none.
    pub const fn is_empty(&self) -> bool {
        self.bases.is_empty()
    }

    /// Keep the first `n` bases.
    pub const fn truncate(&mut self, n: usize) {
        self.bases.truncate(n);
        self.terms = terms_of(self.bases.as_slice());
        self.sync();
    }

    /// The bases.
    pub const fn as_slice(&self) -> &[u32] {
        self.bases.as_slice()
    }

    /// The terms.
    pub const fn terms(&self) -> &[Term] {
        self.terms.as_slice()
    }

    /// The terms as [`apply`] reads them, where there are at most [`SHORT_TERMS`].
    pub const fn short(&self) -> Option<&[Term; SHORT_TERMS]> {
        if self.fits {
            Some(&self.short)
        } else {
            None
        }
    }
}

impl Default for FixedBases {
    fn default() -> Self {
        Self::new()
    }
}

impl Deref for FixedBases {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        self.as_slice()
    }
}

impl PartialEq for FixedBases {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for FixedBases {}

impl fmt::Debug for FixedBases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert_eq!(apply(0, &short_terms(&t).unwrap(), x), xor_of(&bases, x));
        }
        let mut f = FixedBases::new();
        for b in bases {
            f.push(b);
        }
        assert_eq!(f.terms(), t.as_slice());
        f.set(3, 1);
        assert_eq!(f.terms(), terms_of(&[4, 8, 16, 1]).as_slice());
        f.truncate(1);
        assert_eq!(f.terms(), &[Term { mask: 1, shift: 2 }]);
    }

    #[test]
    fn random_maps_agree_basis_by_basis() {
        // A small LCG: no dependency for a few thousand draws.
        let mut seed = 0x2545_f491_u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 32) as u32
        };
        for _ in 0..500 {
            let n = (next() % 8) as usize;
            let mut f = FixedBases::new();
            for _ in 0..n {
                // Mostly single bits (blocked and MMA maps), some swizzled pairs.
                let v = (1u32 << (next() % 32))
                    | if next() % 3 == 0 {
                        1 << (next() % 32)
                    } else {
                        0
                    };
                f.push(v);
            }
            let map = Map {
                bases: f.as_slice(),
                terms: f.short(),
            };
            assert!(map.terms.is_some());
            for _ in 0..16 {
                let x = next() & ((1u32 << n) - 1);
                assert_eq!(
                    map.xor_into(7, x),
                    7 ^ xor_of(f.as_slice(), x),
                    "{:?} at {}",
                    f,
                    x
                );
            }
        }
    }

    #[test]
    fn maps_of_many_terms_fall_back_to_the_bases() {
        // Basis `c` is bit `(2c + 1) mod 32`: 17 bases that move by 17 distinct distances.
        let mut f = FixedBases::new();
        for c in 0..17u32 {
            f.push(1 << ((2 * c + 1) % 32));
        }
        assert_eq!(f.terms().len(), 17);
        assert!(f.short().is_none());
        let map = Map {
            bases: f.as_slice(),
            terms: f.short(),
        };
        assert_eq!(map.xor_into(0, 0x1_ffff), xor_of(f.as_slice(), 0x1_ffff));
        f.truncate(16);
        assert!(f.short().is_some());
    }

    #[test]
    fn right_shifts_and_high_bits() {
        let bases = [1 << 31, 1, 2, 1 << 24];
        let t = terms_of(&bases);
        for x in [0u32, 1, 2, 3, 5, 7, 9, 15, 0xffff_ffff] {
            assert_eq!(apply(0, &short_terms(&t).unwrap(), x), xor_of(&bases, x));
        }
    }
}
