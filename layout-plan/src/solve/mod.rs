//! The planner as `const fn`: how far a conversion moves data, and the plans that keep it
//! within each warp (nothing, a register permutation, selects and shuffles). The runtime
//! evaluates them in a const for generic layouts (`Tile::convert`); layout-core's planner calls
//! the same functions for the layouts it parses, so both give one answer.
//!
//! Conversions that move data between warps or CTAs, or that several lanes read alike, are
//! planned by layout-core (shared memory, gathers); [`plan_in_warp`] says which of those a
//! conversion needs ([`Unplanned`]).

mod registers;
pub mod shared;
mod shuffle;

pub use registers::register_permutation;
pub use shuffle::{is_permutation, plan_shuffles};

use crate::cost::{Cost, Strategy};
use crate::fixed::Fixed;
use crate::flat::{Flat, Span};
use crate::ir::Plan;
use crate::Target;

/// How far a conversion moves data: the slowest hardware dim whose bases differ between the
/// layouts (Triton's `minimalCvtLayout`, whose in-dims are those left after quotienting the
/// dims that map identically, slowest first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reach {
    /// The same layout.
    Nothing,
    /// Within each thread.
    Registers,
    /// Between the lanes of each warp.
    Lanes,
    /// Between the warps of each CTA.
    Warps,
    /// Between the CTAs of a cluster.
    Blocks,
}

/// Why two layouts cannot be converted into each other at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// They cover different tensors (ranks or shapes).
    Shape,
    /// Different numbers of lanes per warp, warps or CTAs (`which`: 0, 1, 2), and the two
    /// counts.
    Threads {
        /// 0: lanes per warp, 1: warps, 2: CTAs.
        which: usize,
        /// The source's count.
        src: u32,
        /// The destination's count.
        dst: u32,
    },
}

impl Mismatch {
    /// What the thread count of `which` counts.
    pub const fn what(which: usize) -> &'static str {
        match which {
            0 => "lanes per warp",
            1 => "warps",
            _ => "CTAs",
        }
    }
}

/// The checks every conversion passes: the same tensor, and the same numbers of lanes per
/// warp, warps and CTAs (a conversion keeps them).
pub const fn check_pair(s: &Flat, t: &Flat) -> Result<(), Mismatch> {
    if s.rank != t.rank || s.total_bits != t.total_bits {
        return Err(Mismatch::Shape);
    }
    let mut k = 0;
    while k < s.rank {
        if s.dim_shift[k] != t.dim_shift[k] {
            return Err(Mismatch::Shape);
        }
        k += 1;
    }
    let counts = [
        (s.lane.len(), t.lane.len()),
        (s.warp.len(), t.warp.len()),
        (s.block.len(), t.block.len()),
    ];
    let mut which = 0;
    while which < counts.len() {
        let (a, b) = counts[which];
        if a != b {
            return Err(Mismatch::Threads {
                which,
                src: 1 << a,
                dst: 1 << b,
            });
        }
        which += 1;
    }
    Ok(())
}

/// How far converting `s` to `t` moves data.
pub const fn reach(s: &Flat, t: &Flat) -> Reach {
    if !s.block.same(&t.block) {
        Reach::Blocks
    } else if !s.warp.same(&t.warp) {
        Reach::Warps
    } else if !s.lane.same(&t.lane) {
        Reach::Lanes
    } else if !s.reg.same(&t.reg) {
        Reach::Registers
    } else {
        Reach::Nothing
    }
}

/// Why [`plan_in_warp`] has no plan: what the conversion needs instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unplanned {
    /// Data moves between the CTAs of a cluster (distributed shared memory).
    Blocks,
    /// Data moves between warps (shared memory).
    Warps,
    /// Lanes read the same elements, or the bits do not permute: a gather or shared memory.
    NotAPermutation,
    /// Two or more (register bit, lane bit) transpositions: Triton prefers shared memory.
    Transpositions,
    /// More than [`MAX_SHUFFLE_WORDS`](crate::MAX_SHUFFLE_WORDS) words per thread, or more
    /// registers than a plan's tables hold.
    TooLarge,
    /// Lanes read the same source elements within each warp: shuffles that several lanes read
    /// alike may beat shared memory, a choice only layout-core's planner makes.
    Gather,
    /// No shared-memory plan either.
    Shared(shared::Unfit),
}

impl Unplanned {
    /// What the conversion needs, for messages.
    pub const fn describe(self) -> &'static str {
        match self {
            Unplanned::Blocks => "it moves data between the CTAs of a cluster",
            Unplanned::Warps => "it moves data between warps",
            Unplanned::NotAPermutation => {
                "several lanes read the same elements (a gather or shared memory)"
            }
            Unplanned::Transpositions => {
                "it exchanges two or more register bits with lane bits (shared memory is cheaper)"
            }
            Unplanned::TooLarge => "it moves more words per thread than shuffles are planned for",
            Unplanned::Gather => {
                "lanes of a warp read the same elements, where shuffles that several lanes read alike (planned by `convert!` only) may beat shared memory"
            }
            Unplanned::Shared(why) => why.describe(),
        }
    }
}

/// The plan of a conversion that stays within each warp, and its cost: nothing, a register
/// permutation, or selects and shuffles (`forced`: with any number of transpositions). Both
/// layouts have the same shape, lanes, warps and CTAs (the caller checked).
pub const fn plan_in_warp(
    s: &Flat,
    t: &Flat,
    elem_bits: u32,
    forced: bool,
) -> Result<(Plan<Fixed>, Cost), Unplanned> {
    match reach(s, t) {
        Reach::Blocks => Err(Unplanned::Blocks),
        Reach::Warps => Err(Unplanned::Warps),
        Reach::Lanes => match plan_shuffles(s, t, elem_bits, forced) {
            Ok((p, cost)) => Ok((Plan::Shuffles(p), cost)),
            Err(why) => Err(why),
        },
        r => match register_permutation(s, t) {
            Some(perm) => {
                let strategy = match r {
                    Reach::Nothing => Strategy::Nothing,
                    _ => Strategy::Registers,
                };
                Ok((Plan::Registers(perm), Cost::of(strategy)))
            }
            None => Err(Unplanned::TooLarge),
        },
    }
}

/// The cheapest plan of converting `s` to `t` on `target`, as layout-core's planner picks it
/// (nothing, a register permutation, shuffles, or shared memory, across a cluster too), for
/// the conversions it decides without a gather. Both layouts have the same shape, lanes, warps
/// and CTAs (the caller checked).
pub const fn plan(
    s: &Flat,
    t: &Flat,
    elem_bits: u32,
    target: &Target,
) -> Result<(Plan<Fixed>, Cost), Unplanned> {
    let r = reach(s, t) as u8;
    match plan_in_warp(s, t, elem_bits, false) {
        Ok(p) => return Ok(p),
        Err(why) if r < Reach::Lanes as u8 => return Err(why),
        Err(_) => {}
    }
    let permutes = r < Reach::Warps as u8 && is_permutation(s, t);
    if r < Reach::Blocks as u8 && !permutes && held_in_warp(s, t) {
        return Err(Unplanned::Gather);
    }
    if r == Reach::Blocks as u8 && !target.cluster_memory {
        return Err(Unplanned::Blocks);
    }
    match shared::plan_shared(s, t, elem_bits, r >= Reach::Warps as u8, target) {
        Ok(x) => Ok((Plan::Shared(x.plan), x.cost)),
        Err(e) => Err(Unplanned::Shared(e)),
    }
}

/// Whether each warp of the source holds every element the same warp of the destination does
/// (what a gather needs: every destination register, lane and warp basis is reached from the
/// source's registers and lanes, a warp basis relative to the source's).
pub const fn held_in_warp(s: &Flat, t: &Flat) -> bool {
    let held = shared::gf2::concat(s.reg.as_slice(), s.lane.as_slice());
    let span = Span::new(held.as_slice());
    let mut i = 0;
    while i < t.reg.len() {
        if !span.contains(t.reg.get(i)) {
            return false;
        }
        i += 1;
    }
    let mut i = 0;
    while i < t.lane.len() {
        if !span.contains(t.lane.get(i)) {
            return false;
        }
        i += 1;
    }
    let mut i = 0;
    while i < t.warp.len() && i < s.warp.len() {
        if !span.contains(t.warp.get(i) ^ s.warp.get(i)) {
            return false;
        }
        i += 1;
    }
    true
}
