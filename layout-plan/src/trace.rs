//! The executor as `const fn`s: a plan's operations recorded on a [`Tape`] while a const is
//! evaluated, in the order every machine of [`crate::exec`] sees them ([`crate::walk`]'s
//! executor, expanded here over the tape's own `const` methods).

use crate::ir::{Borrowed, Plan, SmemAccess};
use crate::tape::Tape;

/// A [`Map`] of borrowed bases.
macro_rules! static_map {
    ($e:expr) => {
        Map::of($e)
    };
}

mod record {
    use super::*;

    crate::walk::executor!(
        qual: [const],
        machine: [],
        plans: [],
        shared: [],
        m: Tape, s: Borrowed<'_>, word: u16, int: u16, zero: 0u16, map: static_map,
        each: each_loop, vis: pub(super)
    );
}

/// A whole plan's operations.
pub const fn trace(plan: &Plan<Borrowed<'_>>, bits: u32) -> Tape {
    let mut m = Tape::new(bits);
    record::run(&mut m, plan);
    m
}

/// A store into a shared layout.
pub const fn trace_store(s: &SmemAccess<Borrowed<'_>>, bits: u32) -> Tape {
    let mut m = Tape::new(bits);
    record::store(&mut m, s);
    m
}

/// A load from a shared layout.
pub const fn trace_load(l: &SmemAccess<Borrowed<'_>>, bits: u32) -> Tape {
    let mut m = Tape::new(bits);
    record::load(&mut m, l);
    m
}
