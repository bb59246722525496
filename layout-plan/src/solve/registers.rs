//! Conversions where every thread already holds what it needs: a register permutation.

use crate::fixed::FixedList;
use crate::flat::{combine, Flat, Span};

/// `dst[i] = src[perm[i]]`, when no data crosses threads; `None` when a destination register
/// is not held by the same thread in the source, or there are more registers than a table holds.
pub const fn register_permutation(s: &Flat, t: &Flat) -> Option<FixedList<u16>> {
    let span = Span::new(s.reg.as_slice());
    let n = 1usize << t.reg.as_slice().len();
    let Some(mut perm) = FixedList::filled(0u16, n) else {
        return None;
    };
    let mut i = 0;
    while i < n {
        let e = combine(t.reg.as_slice(), i as u64);
        match span.express(e) {
            Some(m) => perm.set(i, m as u16),
            None => return None,
        }
        i += 1;
    }
    Some(perm)
}
