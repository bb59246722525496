//! Conversions through shared memory, as `const fn`: every thread stores its distinct source
//! elements, a barrier, every thread loads its destination elements.
//!
//! The shared layout is Triton's `optimalSwizzlingLdSt` ([`swizzle`]): vectors first, then bank
//! bases, then segment bases chosen against bank conflicts. Each side then uses the widest
//! aligned vector its registers allow, or `ldmatrix`/`stmatrix` where they fit. Bank conflicts
//! of the resulting accesses are counted exactly, per instruction, from warp 0's addresses.
//!
//! Across CTAs (layouts of a cluster that split the tensor differently), each CTA's buffer holds
//! what the source CTA holds (Triton's choice: the shared layout's block bases are the source's),
//! and the accesses that reach another CTA's buffer go through distributed shared memory. An
//! address is then `byte offset | cta << CTA_SHIFT`, linear like the offset, so the same tables
//! carry both.

mod access;
pub mod gf2;
mod layout_access;
mod matrix;
pub mod smem;
pub mod swizzle;

pub use access::side_access;
pub use layout_access::{
    access_cost, layout_side, plan_layout_access, plan_prepared, prepare, AccessError, Prepared,
};
pub use matrix::matrix_access;
pub use smem::{access_groups, Groups, Side, Smem};
pub use swizzle::{optimal_swizzling, AccessKind, SmemBases};

use crate::banks::worst_conflicts;
use crate::cost::{Barrier, Cost, Strategy};
use crate::fixed::Fixed;
use crate::flat::{Flat, Span};
use crate::ir::SharedPlan;
use crate::Target;

/// Why a shared-memory plan could not be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unfit {
    /// The tensor's byte addresses pass 31 bits, or a side has more registers than a plan's
    /// tables hold.
    TooLarge,
    /// The shared layout found is no basis of the tensor (a bug: it is reported, not used).
    NotABasis,
}

impl Unfit {
    /// What went wrong, for messages.
    pub const fn describe(self) -> &'static str {
        match self {
            Unfit::TooLarge => "the tensor is too large to convert through shared memory",
            Unfit::NotABasis => {
                "internal: the shared layout found does not cover the tensor once (please report)"
            }
        }
    }
}

/// A shared-memory conversion: the plan, its cost, and the scratch buffer's bases.
#[derive(Clone, Copy, Debug)]
pub struct Solved {
    /// The tables.
    pub plan: SharedPlan<Fixed>,
    /// What it costs.
    pub cost: Cost,
    /// The shared layout (for printing the scratch buffer).
    pub bases: SmemBases,
}

/// The shared-memory plan of converting `s` to `t` (`crosses_warps`: the conversion moves data
/// between warps).
pub const fn plan_shared(
    s: &Flat,
    t: &Flat,
    elem_bits: u32,
    crosses_warps: bool,
    target: &Target,
) -> Result<Solved, Unfit> {
    let ebytes = elem_bits / 8;
    if s.total_bits + ebytes.trailing_zeros() > 31 {
        return Err(Unfit::TooLarge);
    }
    let s_side = Side::of(s);
    let t_whole = Side::of(t);
    // A load fills registers that hold copies from the one it loads; only stores skip threads.
    let t_side = t_whole.loading();
    let (sb, (ks, kd), span) = match scratch(s, t, elem_bits, target) {
        Ok(x) => x,
        Err(e) => return Err(e),
    };
    let (mut store, mut load) = match accesses(&s_side, &t_side, (ks, kd), &span, elem_bits) {
        Ok(x) => x,
        Err(e) => return Err(e),
    };
    if store.remote || load.remote {
        // Across CTAs: plain accesses on both sides (no ldmatrix into another CTA's buffer).
        let plain = (AccessKind::Plain, AccessKind::Plain);
        (store, load) = match accesses(&s_side, &t_side, plain, &span, elem_bits) {
            Ok(x) => x,
            Err(e) => return Err(e),
        };
    }
    let barrier = if store.remote || load.remote {
        Barrier::Cluster
    } else if s_side.warp_free != 0
        || t_whole.warp_free != 0
        || (crosses_warps && !same_warps(s, t))
    {
        Barrier::Block
    } else {
        Barrier::Warp
    };
    let rounds = 1u32 << sb.reps;
    let lanes = 1u32 << s.lane.len();
    let cost = Cost {
        shared_bytes: (1u32 << span.offset_bits) * ebytes,
        stores: store.reg_offsets.len() as u32,
        loads: load.reg_offsets.len() as u32,
        vector: if store.vec < load.vec {
            store.vec
        } else {
            load.vec
        },
        write_conflicts: worst_conflicts(&store, ebytes, lanes, false, target),
        read_conflicts: worst_conflicts(&load, ebytes, lanes, true, target),
        barriers: 2 * rounds - 1
            + if matches!(barrier, Barrier::Cluster) {
                1
            } else {
                0
            },
        ..Cost::of(Strategy::SharedMemory)
    };
    let plan = SharedPlan {
        store,
        load,
        barrier,
        rounds,
    };
    Ok(Solved {
        plan,
        cost,
        bases: sb,
    })
}

/// Both sides' accesses for the access kinds chosen.
const fn accesses(
    s: &Side,
    t: &Side,
    (ks, kd): (AccessKind, AccessKind),
    span: &Smem,
    elem_bits: u32,
) -> Result<(crate::SmemAccess<Fixed>, crate::SmemAccess<Fixed>), Unfit> {
    match (
        side_access(s, ks, true, span, elem_bits, 16),
        side_access(t, kd, false, span, elem_bits, 16),
    ) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

/// Whether every basis of `f` (lanes, warps, CTAs) stays in round 0 of `m`.
const fn in_round_0(f: &Flat, m: &Smem) -> bool {
    let dims = [&f.lane, &f.warp, &f.block];
    let mut d = 0;
    while d < dims.len() {
        let mut i = 0;
        while i < dims[d].len() {
            if m.round_of(dims[d].get(i)) != 0 {
                return false;
            }
            i += 1;
        }
        d += 1;
    }
    true
}

/// Triton's scratch layout for the pair (computed without register broadcasting) and the access
/// kind it chose for each side. Rounds need every lane and warp basis to stay within one round
/// (true of Triton's layouts; a random XOR-mixed one may not), else it goes without them.
const fn scratch(
    s: &Flat,
    t: &Flat,
    elem_bits: u32,
    target: &Target,
) -> Result<(SmemBases, (AccessKind, AccessKind), Smem), Unfit> {
    let (ss, ts) = (strip(s), strip(t));
    let (mut sb, mut ks, mut kd) = optimal_swizzling(&ss, &ts, elem_bits, true, target);
    // CTA bits follow the offset and rep bits: one per source block bit, zero ones included
    // (never used by the span), so that bit `i` of an address's CTA is bit `i` of a rank.
    let mut span = Smem::new(sb.bases.as_slice(), sb.reps, s.block.as_slice());
    if sb.reps > 0 && !(in_round_0(s, &span) && in_round_0(t, &span)) {
        (sb, ks, kd) = optimal_swizzling(&ss, &ts, elem_bits, false, target);
        span = Smem::new(sb.bases.as_slice(), sb.reps, s.block.as_slice());
    }
    if sb.bases.len() + sb.block.len() != s.total_bits as usize {
        return Err(Unfit::NotABasis);
    }
    Ok((sb, (ks, kd), span))
}

/// `f` without its zero register bases (register broadcasting).
const fn strip(f: &Flat) -> Flat {
    Flat {
        reg: f.reg.non_zero(),
        ..*f
    }
}

/// Whether every element is held by the same warp in both layouts (each layout one-to-one apart
/// from zero bases): then, with every access in the CTA's own buffer, a warp barrier orders each
/// load after the store it reads, even when the conversion moves data between CTAs' copies
/// (Triton's `isCvtDimSync` over warps).
const fn same_warps(s: &Flat, t: &Flat) -> bool {
    let (Some(a), Some(b)) = (Holders::of(s), Holders::of(t)) else {
        return false;
    };
    if s.total_bits != t.total_bits {
        return false;
    }
    // Bit by bit, so that the first that differs ends it.
    let mut bit = 0;
    while bit < s.total_bits {
        match (a.warp(1u64 << bit), b.warp(1u64 << bit)) {
            (Some(x), Some(y)) if x == y => {}
            _ => return false,
        }
        bit += 1;
    }
    true
}

/// Who holds each element of a layout that is one-to-one apart from zero bases.
struct Holders {
    /// The register, lane, warp and block bases, in that order.
    span: Span,
    /// The position of the warp bits in a combination, and their mask.
    shift: usize,
    mask: u64,
}

impl Holders {
    /// `f`'s holders, if `f` is one-to-one apart from zero bases.
    const fn of(f: &Flat) -> Option<Holders> {
        let mut all = gf2::concat(f.reg.as_slice(), f.lane.as_slice());
        all.extend(f.warp.as_slice());
        all.extend(f.block.as_slice());
        let all = all.as_slice();
        let mut nonzero = 0;
        let mut i = 0;
        while i < all.len() {
            if all[i] != 0 {
                nonzero += 1;
            }
            i += 1;
        }
        let span = Span::new(all);
        if span.rank() != nonzero {
            return None;
        }
        Some(Holders {
            span,
            shift: f.reg.len() + f.lane.len(),
            mask: (1u64 << f.warp.len()) - 1,
        })
    }

    /// The warp bits of the holder of tensor vector `v`, if `v` is held.
    const fn warp(&self, v: u64) -> Option<u64> {
        match self.span.express(v) {
            Some(m) => Some((m >> self.shift) & self.mask),
            None => None,
        }
    }
}
