//! Plans in fixed-size tables: what the const planner builds (no allocation while the compiler
//! evaluates a const), executed like any other [`Storage`].

use core::fmt;
use core::ops::Deref;

use crate::ir::Storage;
use crate::linear::{FixedBases, Term, SHORT_TERMS};

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

    /// Append `v`; false when the list is full.
    pub const fn push(&mut self, v: T) -> bool {
        if self.len == CAP {
            return false;
        }
        self.items[self.len] = v;
        self.len += 1;
        true
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

    /// Append every entry of `vs` that fits; false when some did not.
    pub const fn extend(&mut self, vs: &[T]) -> bool {
        let mut i = 0;
        while i < vs.len() {
            if !self.push(vs[i]) {
                return false;
            }
            i += 1;
        }
        true
    }

    /// The entries.
    pub const fn as_slice(&self) -> &[T] {
        self.items.split_at(self.len).0
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

impl Copy for crate::ir::ShufflePlan<Fixed> {}
impl Copy for crate::ir::GatherPlan<Fixed> {}
impl Copy for crate::ir::SmemAccess<Fixed> {}
impl Copy for crate::ir::SharedPlan<Fixed> {}
impl Copy for crate::ir::Plan<Fixed> {}
