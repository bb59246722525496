//! Plans in fixed-size tables: what the const planner builds (no allocation while the compiler
//! evaluates a const), executed like any other [`Storage`].

use core::fmt;
use core::ops::Deref;

use crate::ir::Storage;

/// The most entries one table of a [`Fixed`] plan holds.
pub const FIXED_CAP: usize = 4096;

/// A list of at most [`FIXED_CAP`] entries in an array.
#[derive(Clone, Copy)]
pub struct FixedList<T> {
    items: [T; FIXED_CAP],
    len: usize,
}

impl<T: Copy> FixedList<T> {
    /// An empty list (`fill` marks the unused entries).
    pub const fn new(fill: T) -> Self {
        FixedList {
            items: [fill; FIXED_CAP],
            len: 0,
        }
    }

    /// `n` entries of `v`; `None` past [`FIXED_CAP`].
    pub const fn filled(v: T, n: usize) -> Option<Self> {
        if n > FIXED_CAP {
            return None;
        }
        Some(FixedList {
            items: [v; FIXED_CAP],
            len: n,
        })
    }

    /// Append `v`; false when the list is full.
    pub const fn push(&mut self, v: T) -> bool {
        if self.len == FIXED_CAP {
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

    /// The entries.
    pub const fn as_slice(&self) -> &[T] {
        self.items.split_at(self.len).0
    }
}

impl<T> Deref for FixedList<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.items.split_at(self.len).0
    }
}

impl<T: PartialEq> PartialEq for FixedList<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for FixedList<T> {}

impl<T: fmt::Debug> fmt::Debug for FixedList<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

/// Tables in [`FixedList`]s: the const planner's plans.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fixed;

impl Storage for Fixed {
    type List<T: Copy + fmt::Debug + Eq + 'static> = FixedList<T>;
}

impl Copy for crate::ir::ShufflePlan<Fixed> {}
impl Copy for crate::ir::GatherPlan<Fixed> {}
impl Copy for crate::ir::SmemAccess<Fixed> {}
impl Copy for crate::ir::SharedPlan<Fixed> {}
impl Copy for crate::ir::Plan<Fixed> {}
