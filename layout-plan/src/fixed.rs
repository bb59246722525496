//! Plans in fixed-size tables: what the const planner builds (no allocation while the compiler
//! evaluates a const), executed like any other [`Storage`]; their maps keep their shift-and-mask
//! terms ([`FixedBases`]).

use core::fmt;
use core::ops::Deref;

use crate::ir::Storage;
use crate::linear::{terms_of, Term, SHORT_TERMS, ZERO};

/// The most entries one table of a [`Fixed`] plan holds.
pub const FIXED_CAP: usize = 4096;

/// A list of at most `CAP` entries in an array (a plan's tables, or a layout's bases in
/// [`crate::flat::Bases`]). Entries past the length keep the fill value they were made with.
#[derive(Clone, Copy)]
pub struct FixedList<T, const CAP: usize = FIXED_CAP> {
    items: [T; CAP],
    len: usize,
}

impl<T: Copy, const CAP: usize> FixedList<T, CAP> {
    /// An empty list (`fill` marks the unused entries).
    pub const fn new(fill: T) -> Self {
        FixedList {
            items: [fill; CAP],
            len: 0,
        }
    }

    /// `n` entries of `v`; `None` past `CAP`.
    pub const fn filled(v: T, n: usize) -> Option<Self> {
        if n > CAP {
            return None;
        }
        Some(FixedList {
            items: [v; CAP],
            len: n,
        })
    }

    /// Append `v`; false (and no change) when the list is full.
    #[must_use = "a full list drops the item: handle `false` as an error"]
    pub const fn try_push(&mut self, v: T) -> bool {
        if self.len == CAP {
            return false;
        }
        self.items[self.len] = v;
        self.len += 1;
        true
    }

    /// Append `v` where the planner's bounds say it fits. A full list is a planner bug, never a
    /// shorter answer: a panic, which in a const (a plan `rustc` evaluates) is a compile error
    /// naming the const being planned.
    pub const fn push(&mut self, v: T) {
        if self.len == CAP {
            panic!("layout_plan::fixed: a planner table is full (its capacity is less than this plan needs); please report the layouts named below");
        }
        self.items[self.len] = v;
        self.len += 1;
    }

    /// Replace entry `i` (below the length).
    pub const fn set(&mut self, i: usize, v: T) {
        self.items[i] = v;
    }

    /// Entry `i` (below the length).
    pub const fn get(&self, i: usize) -> T {
        self.items[i]
    }

    /// The number of entries.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keep the first `n` entries (all of them when there are fewer).
    pub const fn truncate(&mut self, n: usize) {
        if n < self.len {
            self.len = n;
        }
    }

    /// Remove and return the last entry.
    pub const fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.items[self.len])
    }

    /// Append every entry of `vs`; false (and the entries that fit appended) when some did not.
    #[must_use = "a full list drops entries: handle `false` as an error"]
    pub const fn try_extend(&mut self, vs: &[T]) -> bool {
        let mut i = 0;
        while i < vs.len() {
            if !self.try_push(vs[i]) {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Append every entry of `vs` where the planner's bounds say they fit; a full list is a
    /// panic (a compile error in a const), as [`FixedList::push`].
    pub const fn extend(&mut self, vs: &[T]) {
        let mut i = 0;
        while i < vs.len() {
            self.push(vs[i]);
            i += 1;
        }
    }

    /// The entries.
    pub const fn as_slice(&self) -> &[T] {
        crate::slices::prefix(&self.items, self.len)
    }
}

impl<T, const CAP: usize> Deref for FixedList<T, CAP> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.items.split_at(self.len).0
    }
}

impl<'a, T, const CAP: usize> IntoIterator for &'a FixedList<T, CAP> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: PartialEq, const CAP: usize> PartialEq for FixedList<T, CAP> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq, const CAP: usize> Eq for FixedList<T, CAP> {}

impl<T: fmt::Debug, const CAP: usize> fmt::Debug for FixedList<T, CAP> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

/// The most bases of a [`FixedBases`]: one per bit of a 32-bit hardware index.
pub const MAX_BASES: usize = 32;

/// The bases of a map in a fixed-size table, with their terms kept up to date: a [`Fixed`]
/// plan's lane, warp and CTA maps.
#[derive(Clone, Copy)]
pub struct FixedBases {
    bases: FixedList<u32, MAX_BASES>,
    /// The terms of the bases, zero masks after the last; all zero when there are more than
    /// [`SHORT_TERMS`] (`fits` false).
    terms: [Term; SHORT_TERMS],
    fits: bool,
}

impl FixedBases {
    /// No bases.
    pub const fn new() -> Self {
        FixedBases {
            bases: FixedList::new(0),
            terms: [ZERO; SHORT_TERMS],
            fits: true,
        }
    }

    /// The bases `vs`; `None` past [`MAX_BASES`].
    pub const fn from_slice(vs: &[u32]) -> Option<Self> {
        let mut f = Self::new();
        if !f.bases.try_extend(vs) {
            return None;
        }
        f.sync();
        Some(f)
    }

    /// Append basis `v`; false (and no change) when there are already [`MAX_BASES`].
    #[must_use = "a full table drops the basis: handle `false` as an error"]
    pub const fn try_push(&mut self, v: u32) -> bool {
        let pushed = self.bases.try_push(v);
        self.sync();
        pushed
    }

    /// Append basis `v` where the planner's bounds say it fits; a full table is a panic (a
    /// compile error in a const), as [`FixedList::push`].
    pub const fn push(&mut self, v: u32) {
        self.bases.push(v);
        self.sync();
    }

    /// Replace basis `i` (below the length).
    pub const fn set(&mut self, i: usize, v: u32) {
        self.bases.set(i, v);
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
        self.sync();
    }

    /// The bases.
    pub const fn as_slice(&self) -> &[u32] {
        self.bases.as_slice()
    }

    /// The terms as [`apply`](crate::linear::apply) reads them, where there are at most
    /// [`SHORT_TERMS`].
    pub const fn terms(&self) -> Option<&[Term; SHORT_TERMS]> {
        if self.fits {
            Some(&self.terms)
        } else {
            None
        }
    }

    /// Recompute the terms from the bases.
    const fn sync(&mut self) {
        let all = terms_of(self.as_slice());
        let all = all.as_slice();
        self.fits = all.len() <= SHORT_TERMS;
        self.terms = [ZERO; SHORT_TERMS];
        let mut i = 0;
        while self.fits && i < all.len() {
            self.terms[i] = all[i];
            i += 1;
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

/// Tables in [`FixedList`]s: the const planner's plans.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fixed;

impl Storage for Fixed {
    type List<T: Copy + fmt::Debug + Eq + 'static> = FixedList<T>;
    type Bases = FixedBases;

    fn terms(b: &FixedBases) -> Option<&[Term; SHORT_TERMS]> {
        b.terms()
    }
}

impl crate::ir::SmemAccess<Fixed> {
    /// The same accesses as [`crate::ir::Static`] tables, slices of this one's (a const's, so
    /// they live as long as the program): what takes the accesses `convert!` writes, such as an
    /// async copy's. Its maps drop their terms, as `convert!`'s tables have none.
    pub const fn as_static(&'static self) -> crate::ir::SmemAccess {
        self.as_borrowed()
    }

    /// The same accesses as slices of this one's, for as long as it is borrowed.
    pub const fn as_borrowed(&self) -> crate::ir::SmemAccess<crate::ir::Borrowed<'_>> {
        crate::ir::SmemAccess {
            vec: self.vec,
            regs: self.regs.as_slice(),
            reg_offsets: self.reg_offsets.as_slice(),
            lane_bases: self.lane_bases.as_slice(),
            warp_bases: self.warp_bases.as_slice(),
            block_bases: self.block_bases.as_slice(),
            reg_skip: self.reg_skip,
            lane_skip: self.lane_skip,
            warp_skip: self.warp_skip,
            remote: self.remote,
            instr: self.instr,
            padding: self.padding,
        }
    }
}

impl crate::ir::Plan<Fixed> {
    /// The same plan as [`crate::ir::Static`] tables, slices of this one's (a const's).
    pub const fn as_static(&'static self) -> crate::ir::Plan {
        self.as_borrowed()
    }

    /// The same plan as slices of this one's, for as long as it is borrowed.
    pub const fn as_borrowed(&self) -> crate::ir::Plan<crate::ir::Borrowed<'_>> {
        use crate::ir::{Plan, SharedPlan};
        match self {
            Plan::Registers(p) => Plan::Registers(p.as_slice()),
            Plan::Shuffles(p) => Plan::Shuffles(p.as_borrowed()),
            Plan::Gather(p) => Plan::Gather(p.as_borrowed()),
            Plan::Shared(p) => Plan::Shared(SharedPlan {
                store: p.store.as_borrowed(),
                load: p.load.as_borrowed(),
                barrier: p.barrier,
                rounds: p.rounds,
            }),
        }
    }
}

impl crate::ir::ShufflePlan<Fixed> {
    /// The same plan as slices of this one's, for as long as it is borrowed.
    pub const fn as_borrowed(&self) -> crate::ir::ShufflePlan<crate::ir::Borrowed<'_>> {
        crate::ir::ShufflePlan {
            pack: self.pack,
            gather: self.gather.as_slice(),
            swaps: self.swaps.as_slice(),
            lane_map: self.lane_map.as_slice(),
            ship: self.ship,
            scatter: self.scatter.as_slice(),
        }
    }
}

impl crate::ir::GatherPlan<Fixed> {
    /// The same plan as slices of this one's, for as long as it is borrowed.
    pub const fn as_borrowed(&self) -> crate::ir::GatherPlan<crate::ir::Borrowed<'_>> {
        crate::ir::GatherPlan {
            pack: self.pack,
            words: self.words.as_slice(),
            lane_map: self.lane_map.as_slice(),
            warp_map: self.warp_map.as_slice(),
            rounds: self.rounds.as_slice(),
            sel_lane: self.sel_lane.as_slice(),
            sel_warp: self.sel_warp.as_slice(),
            choices: self.choices,
            pick: self.pick.as_slice(),
            pos: self.pos.as_slice(),
        }
    }
}

impl Copy for crate::ir::ShufflePlan<Fixed> {}
impl Copy for crate::ir::GatherPlan<Fixed> {}
impl Copy for crate::ir::SmemAccess<Fixed> {}
impl Copy for crate::ir::SharedPlan<Fixed> {}
impl Copy for crate::ir::Plan<Fixed> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linear::{apply, test_rng, xor_of, Map};

    #[test]
    fn fixed_bases_keep_their_terms() {
        let bases = [4, 8, 16, (1 << 9) | (1 << 4)];
        let mut f = FixedBases::from_slice(&bases).unwrap();
        assert_eq!(&f.terms().unwrap()[..3], terms_of(&bases).as_slice());
        f.set(3, 1);
        assert_eq!(
            &f.terms().unwrap()[..2],
            terms_of(&[4, 8, 16, 1]).as_slice()
        );
        f.truncate(1);
        assert_eq!(f.terms().unwrap()[0], Term { mask: 1, shift: 2 });
        assert_eq!(f.terms().unwrap()[1], ZERO);
    }

    #[test]
    fn maps_apply_their_short_terms() {
        let mut next = test_rng(7);
        for _ in 0..500 {
            // Mostly single bits (blocked and MMA maps), some swizzled pairs.
            let n = (next() % 8) as usize;
            let mut f = FixedBases::new();
            for _ in 0..n {
                let swizzle = if next().is_multiple_of(3) {
                    1 << (next() % 32)
                } else {
                    0
                };
                assert!(f.try_push((1u32 << (next() % 32)) | swizzle));
            }
            let terms = f.terms().unwrap();
            for _ in 0..16 {
                let x = next() & ((1u32 << n) - 1);
                assert_eq!(apply(7, terms, x, false), 7 ^ xor_of(f.as_slice(), x));
            }
        }
    }

    #[test]
    fn maps_of_many_terms_fall_back_to_the_bases() {
        // Basis `c` is bit `(2c + 1) mod 32`: 17 bases that move by 17 distinct distances.
        let bases: [u32; 17] = core::array::from_fn(|c| 1 << ((2 * c + 1) % 32));
        assert_eq!(terms_of(&bases).len(), 17);
        let mut f = FixedBases::from_slice(&bases).unwrap();
        assert!(f.terms().is_none());
        let map = Map {
            bases: f.as_slice(),
            terms: f.terms(),
        };
        assert_eq!(map.xor_into(3, 0x1_ffff), 3 ^ xor_of(&bases, 0x1_ffff));
        f.truncate(16);
        assert!(f.terms().is_some());
        assert!(FixedBases::from_slice(&[1; 33]).is_none());
        let mut full = FixedBases::from_slice(&[1; 32]).unwrap();
        assert!(!full.try_push(1));
        assert_eq!(full.len(), 32);
    }
}
