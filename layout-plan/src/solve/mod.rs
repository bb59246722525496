//! The planner as `const fn`: how far a conversion moves data, the strategy ladder
//! ([`decide`]: nothing, a register permutation, selects and shuffles, a gather, shared memory)
//! and the plans of every rung. The runtime evaluates it in a const for generic layouts
//! (`Tile::convert`, through [`plan`]); layout-core's planner climbs the same ladder for the
//! layouts it parses (and checks the plans it gets on a warp of element ids), so both give one
//! answer.

pub mod gather;
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

pub use shared::Solved;

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

/// Which strategy a conversion takes: the cheapest (as Triton decides), or forced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Force {
    /// Triton's choice.
    #[default]
    Auto,
    /// Shuffles where the conversion stays within warps and is a permutation of bits.
    Shuffles,
    /// Always shared memory (unless nothing or registers suffice).
    SharedMemory,
}

/// What [`decide`] chose.
// Both plan variants are large; a const fn cannot box either.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug)]
pub enum Decision {
    /// Nothing, a register permutation, selects and shuffles, or a gather (shuffles that
    /// several lanes read alike).
    InWarp(Plan<Fixed>, Cost),
    /// A round trip through shared memory.
    Shared(Solved),
}

/// The strategy ladder, the one both planners climb (layout-core's for the layouts it parses,
/// the runtime's in a const for generic layouts): nothing or a register permutation when no
/// data leaves a thread; shuffles within a warp (unless forced to shared memory); where lanes
/// read alike, a gather if it weighs less than the round trip through shared memory (forced to
/// shuffles, the gather or nothing); otherwise shared memory, across a cluster where the
/// target has one. Both layouts have the same shape, lanes, warps and CTAs (the caller
/// checked).
pub const fn decide(
    s: &Flat,
    t: &Flat,
    elem_bits: u32,
    target: &Target,
    force: Force,
) -> Result<Decision, Unplanned> {
    // One result that each rung overwrites, and rungs in their own functions: a plan's fixed
    // tables take tens of kilobytes, so a debug build keeps one copy of them on this frame.
    let r = reach(s, t) as u8;
    if r < Reach::Lanes as u8 {
        return in_warp(s, t, elem_bits, false);
    }
    let in_warp_only = r < Reach::Warps as u8;
    let (shuffles, shared) = (
        matches!(force, Force::Shuffles),
        matches!(force, Force::SharedMemory),
    );
    if in_warp_only && !shared {
        let d = in_warp(s, t, elem_bits, shuffles);
        if d.is_ok() {
            return d;
        }
    }
    let permutes = in_warp_only && is_permutation(s, t);
    let gather = r < Reach::Blocks as u8 && !shared && !permutes && held_in_warp(s, t);
    if shuffles {
        let why = if !in_warp_only {
            Unplanned::Warps
        } else if permutes {
            Unplanned::TooLarge
        } else {
            Unplanned::NotAPermutation
        };
        return if gather {
            gather_decision(s, t, elem_bits, why)
        } else {
            Err(why)
        };
    }
    if gather {
        return gather_or_shared(s, t, elem_bits, target);
    }
    shared_decision(s, t, elem_bits, target)
}

/// The gather, or `why` there is none.
const fn gather_decision(
    s: &Flat,
    t: &Flat,
    elem_bits: u32,
    why: Unplanned,
) -> Result<Decision, Unplanned> {
    match gather::plan_gather(s, t, elem_bits) {
        Some((g, cost)) => Ok(Decision::InWarp(Plan::Gather(g), cost)),
        None => Err(why),
    }
}

/// The gather where it weighs less than the round trip through shared memory (which must
/// exist: a gather is weighed against it, never taken for want of it).
const fn gather_or_shared(
    s: &Flat,
    t: &Flat,
    elem_bits: u32,
    target: &Target,
) -> Result<Decision, Unplanned> {
    let through = shared_decision(s, t, elem_bits, target);
    let weight = match &through {
        Ok(Decision::Shared(x)) => x.cost.weight(),
        _ => return through,
    };
    match gather::plan_gather(s, t, elem_bits) {
        Some((g, cost)) if cost.weight() < weight => Ok(Decision::InWarp(Plan::Gather(g), cost)),
        _ => through,
    }
}

/// [`plan_in_warp`] as a [`Decision`].
const fn in_warp(s: &Flat, t: &Flat, elem_bits: u32, forced: bool) -> Result<Decision, Unplanned> {
    match plan_in_warp(s, t, elem_bits, forced) {
        Ok((p, c)) => Ok(Decision::InWarp(p, c)),
        Err(why) => Err(why),
    }
}

/// [`through_shared`] as a [`Decision`].
const fn shared_decision(
    s: &Flat,
    t: &Flat,
    elem_bits: u32,
    target: &Target,
) -> Result<Decision, Unplanned> {
    match through_shared(s, t, elem_bits, target) {
        Ok(x) => Ok(Decision::Shared(x)),
        Err(why) => Err(why),
    }
}

/// The shared-memory plan of converting `s` to `t` on `target`: the last rung of [`decide`],
/// and what a gather is weighed against.
pub const fn through_shared(
    s: &Flat,
    t: &Flat,
    elem_bits: u32,
    target: &Target,
) -> Result<Solved, Unplanned> {
    let r = reach(s, t) as u8;
    if r == Reach::Blocks as u8 && !target.cluster_memory {
        return Err(Unplanned::Blocks);
    }
    match shared::plan_shared(s, t, elem_bits, r >= Reach::Warps as u8, target) {
        Ok(x) => Ok(x),
        Err(e) => Err(Unplanned::Shared(e)),
    }
}

/// The cheapest plan of converting `s` to `t` on `target`: [`decide`] with Triton's choice,
/// for the runtime's const planner.
pub const fn plan(
    s: &Flat,
    t: &Flat,
    elem_bits: u32,
    target: &Target,
) -> Result<(Plan<Fixed>, Cost), Unplanned> {
    match decide(s, t, elem_bits, target, Force::Auto) {
        Ok(Decision::InWarp(p, c)) => Ok((p, c)),
        Ok(Decision::Shared(x)) => Ok((Plan::Shared(x.plan), x.cost)),
        Err(why) => Err(why),
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
