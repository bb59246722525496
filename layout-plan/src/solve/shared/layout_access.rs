//! Stores of a distributed layout's registers into a shared layout the kernel chose (Triton's
//! `local_store`), and loads from it (`local_load`), as `const fn`: the offsets are the shared
//! layout's, each access as wide as the registers and the padding allow, `ldmatrix`/`stmatrix`
//! where the layout fits them. The host planner (layout-core, for `convert!`) and the runtime's
//! generic conversions both plan with it.

use super::{matrix_access, side_access, AccessKind, Side, Smem, Unfit};
use crate::banks::worst_conflicts;
use crate::cost::{Cost, Strategy};
use crate::fixed::Fixed;
use crate::flat::Flat;
use crate::ir::{pad_address, Instr, Padding, SmemAccess, NO_PADDING};
use crate::msg::Msg;
use crate::Target;

/// Why a shared layout cannot be stored to or loaded from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessError {
    /// The accesses do not fit a plan's tables.
    Unfit(Unfit),
    /// More padding intervals than a plan keeps (the count given).
    Intervals(usize),
    /// An interval or a pad (in elements) that is no power of two within 2^24 bytes.
    Padding {
        /// Elements between pads.
        interval: u32,
        /// Elements of each pad.
        pad: u32,
    },
    /// The two layouts span different numbers of CTAs.
    Ctas {
        /// CTAs of the shared layout.
        shared: u32,
        /// CTAs of the distributed layout.
        dist: u32,
    },
    /// The shared layout does not map offsets (and CTAs) to the tensor's elements one to one.
    NotOneToOne,
    /// A store from a layout whose CTAs hold other elements than each CTA's buffer keeps.
    CtaHolds {
        /// Elements each CTA's shared memory holds.
        per_cta: u64,
        /// Elements each CTA holds in the distributed layout.
        held: u64,
    },
    /// The distributed layout holds elements in other CTAs than the shared layout keeps them.
    Remote {
        /// A store (else a load).
        store: bool,
    },
}

impl AccessError {
    /// The message, with its numbers, appended to `m`.
    pub const fn describe(self, m: &mut Msg) {
        match self {
            AccessError::Unfit(u) => {
                m.push(u.describe());
            }
            AccessError::Intervals(n) => {
                m.push("a padded layout has at most ")
                    .num(NO_PADDING.len() as u32)
                    .push(" intervals here, not ")
                    .num64(n as u64);
            }
            AccessError::Padding { interval, pad } => {
                m.push("padding [")
                    .num(interval)
                    .push(":+")
                    .num(pad)
                    .push("] must be powers of two (in elements) within 2^24 bytes");
            }
            AccessError::Ctas { shared, dist } => {
                m.push("the shared layout spans ")
                    .num(shared)
                    .push(" CTAs and the distributed one ")
                    .num(dist)
                    .push("; give both the same CGA layout");
            }
            AccessError::NotOneToOne => {
                m.push("the shared layout is not a one-to-one map of offsets (and CTAs) to the tensor's elements (padded or broadcast); it cannot be stored to or loaded from by convert!");
            }
            AccessError::CtaHolds { per_cta, held } => {
                m.push("each CTA's shared memory must hold ")
                    .num64(per_cta)
                    .push(" elements of this shared layout, but each CTA holds ")
                    .num64(held)
                    .push(" in the distributed layout (their CGA layouts differ): store from a layout with the shared layout's CGA layout");
            }
            AccessError::Remote { store } => {
                m.push("the distributed layout holds elements in other CTAs than the shared layout keeps them (their CGA layouts differ): a ")
                    .push(if store { "store" } else { "load" })
                    .push(" reaches only each CTA's own shared memory; convert to a layout with the shared layout's CGA layout first");
            }
        }
    }
}

/// The accesses of `dist`'s registers to the shared layout of flat `offsets` and `blocks`
/// bases (flattened with `dist`'s dim shifts) padded by `padding` (`(interval, pad)` in
/// elements), and their cost: stores if `store`, else loads.
pub const fn plan_layout_access(
    dist: &Flat,
    offsets: &[u64],
    blocks: &[u64],
    padding: &[(u32, u32)],
    elem_bits: u32,
    store: bool,
    target: &Target,
) -> Result<(SmemAccess<Fixed>, Cost), AccessError> {
    match prepare(dist, offsets, blocks, padding, elem_bits) {
        Ok(p) => plan_prepared(dist, &p, elem_bits, store, target),
        Err(e) => Err(e),
    }
}

/// A shared layout as a side's accesses read it.
#[derive(Clone, Copy, Debug)]
pub struct Prepared {
    /// The layout's span.
    pub span: Smem,
    /// Whether the distributed layout spreads the tensor over CTAs differently
    /// (`Some((offsets per CTA, elements per CTA))`).
    pub cgas_differ: Option<(u64, u64)>,
    /// The padding as the access tables keep it.
    pub pads: Padding,
    /// The widest access in bytes the padding allows.
    pub widest: u32,
}

/// The shared layout of flat `offsets` and `blocks` padded by `padding`, checked for `dist`'s
/// accesses: one to one over offsets and CTAs, the buffer within 2^31 bytes.
pub const fn prepare(
    dist: &Flat,
    offsets: &[u64],
    blocks: &[u64],
    padding: &[(u32, u32)],
    elem_bits: u32,
) -> Result<Prepared, AccessError> {
    let ebytes = elem_bits / 8;
    if dist.total_bits + ebytes.trailing_zeros() > 31 {
        return Err(AccessError::Unfit(Unfit::TooLarge));
    }
    let (span, cgas_differ) = match layout_span(dist, offsets, blocks) {
        Ok(x) => x,
        Err(e) => return Err(e),
    };
    let (pads, widest) = match padding_bytes(padding, ebytes) {
        Ok(x) => x,
        Err(e) => return Err(e),
    };
    let last = ((1u64 << span.offset_bits) - 1) * ebytes as u64;
    if padded(last, &pads) + ebytes as u64 > 1 << 31 {
        return Err(AccessError::Unfit(Unfit::TooLarge));
    }
    Ok(Prepared {
        span,
        cgas_differ,
        pads,
        widest,
    })
}

/// [`plan_layout_access`] of a [`prepare`]d layout.
pub const fn plan_prepared(
    dist: &Flat,
    p: &Prepared,
    elem_bits: u32,
    store: bool,
    target: &Target,
) -> Result<(SmemAccess<Fixed>, Cost), AccessError> {
    let side = layout_side(dist, store);
    let mut best = match layout_access(&side, &p.span, elem_bits, p.widest, store, target) {
        Ok(a) => a,
        Err(e) => return Err(e),
    };
    // `layout_access` took only accesses within each CTA's own buffer.
    if let (true, Some((per_cta, held))) = (store, p.cgas_differ) {
        return Err(AccessError::CtaHolds { per_cta, held });
    }
    best.padding = p.pads;
    let cost = access_cost(
        &best,
        &p.span,
        elem_bits,
        1 << dist.lane.len(),
        store,
        target,
    );
    Ok((best, cost))
}

/// [`pad_address`] without its 32-bit limit: whether a padded buffer's size fits is asked of
/// this before any address is made.
const fn padded(addr: u64, padding: &Padding) -> u64 {
    let mut out = addr;
    let mut k = 0;
    while k < padding.len() {
        let (interval, pad) = padding[k];
        if interval != 0 || pad != 0 {
            out += (addr >> interval) << pad;
        }
        k += 1;
    }
    out
}

/// The side that stores (every thread with distinct elements) or loads (every thread: copies
/// are loaded from the one they copy).
pub const fn layout_side(dist: &Flat, store: bool) -> Side<'_> {
    if store {
        Side::of(dist)
    } else {
        Side::of(dist).loading()
    }
}

/// `padding` as the access tables keep it (`(interval, pad)` in elements to log2 bytes), and
/// the widest access in bytes that neither crosses an interval nor loses alignment to a pad.
const fn padding_bytes(padding: &[(u32, u32)], ebytes: u32) -> Result<(Padding, u32), AccessError> {
    let mut out = NO_PADDING;
    let mut widest = 16u64;
    if padding.len() > out.len() {
        return Err(AccessError::Intervals(padding.len()));
    }
    let mut k = 0;
    while k < padding.len() {
        let (interval, pad) = padding[k];
        let (ib, pb) = (interval as u64 * ebytes as u64, pad as u64 * ebytes as u64);
        if !ib.is_power_of_two() || !pb.is_power_of_two() || ib < 2 || ib > 1 << 24 || pb > 1 << 24
        {
            return Err(AccessError::Padding { interval, pad });
        }
        out[k] = (ib.trailing_zeros() as u8, pb.trailing_zeros() as u8);
        let narrow = if ib < pb { ib } else { pb };
        if narrow < widest {
            widest = narrow;
        }
        k += 1;
    }
    Ok((out, widest as u32))
}

/// The shared layout of flat `offsets` and `blocks` as the planner's span, checked one to one
/// over offsets and CTAs, and whether `dist` spreads the tensor over CTAs differently
/// (`Some((offsets per CTA, elements per CTA))`).
const fn layout_span(
    dist: &Flat,
    offsets: &[u64],
    blocks: &[u64],
) -> Result<(Smem, Option<(u64, u64)>), AccessError> {
    // Over several CTAs: each CTA reaches its own shared memory only (zero block bases of the
    // shared layout: every CTA keeps a copy).
    let (nb, nf) = (non_zero(blocks), non_zero(dist.block.as_slice()));
    if (nb > 0 || nf > 0) && blocks.len() != dist.block.len() {
        return Err(AccessError::Ctas {
            shared: 1 << blocks.len(),
            dist: 1 << dist.block.len(),
        });
    }
    let total = dist.total_bits as usize;
    let span = Smem::new(offsets, 0, blocks);
    if offsets.len() + nb != total || span.span.rank() != total {
        return Err(AccessError::NotOneToOne);
    }
    let differ = if nf != nb {
        Some((1u64 << span.offset_bits, 1u64 << total.saturating_sub(nf)))
    } else {
        None
    };
    Ok((span, differ))
}

/// How many of `v` are not zero.
const fn non_zero(v: &[u64]) -> usize {
    let (mut n, mut i) = (0, 0);
    while i < v.len() {
        if v[i] != 0 {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The plain vector accesses, or a matrix instruction the target has where it takes fewer.
const fn layout_access(
    side: &Side,
    span: &Smem,
    elem_bits: u32,
    widest: u32,
    store: bool,
    target: &Target,
) -> Result<SmemAccess<Fixed>, AccessError> {
    let plain = match side_access(side, AccessKind::Plain, store, span, elem_bits, widest) {
        Ok(a) => a,
        Err(e) => return Err(AccessError::Unfit(e)),
    };
    if plain.remote {
        return Err(AccessError::Remote { store });
    }
    let mut best = plain;
    // A matrix row is 16 bytes: a padded layout must keep rows whole and aligned.
    let mut trans = 0;
    while trans < 2 && widest >= 16 {
        if let Some(m) = matrix_access(side, span, trans == 1, elem_bits / 8, store) {
            let count = match m.instr {
                Instr::Matrix { count, .. } => count,
                _ => 0,
            };
            if target.matrix.has(store, count, trans == 1)
                && m.reg_offsets.len() < best.reg_offsets.len()
            {
                best = m;
            }
        }
        trans += 1;
    }
    Ok(best)
}

/// What access `a` (its padding set) to `span` costs per thread.
pub const fn access_cost(
    a: &SmemAccess<Fixed>,
    span: &Smem,
    elem_bits: u32,
    lanes: u32,
    store: bool,
    target: &Target,
) -> Cost {
    let ebytes = elem_bits / 8;
    let conflicts = worst_conflicts(a, ebytes, lanes, !store, target);
    let n = a.reg_offsets.len() as u32;
    let bytes = (1u32 << span.offset_bits) * ebytes;
    Cost {
        shared_bytes: pad_address(bytes - ebytes, &a.padding) + ebytes,
        stores: if store { n } else { 0 },
        loads: if store { 0 } else { n },
        vector: a.vec,
        write_conflicts: if store { conflicts } else { 0 },
        read_conflicts: if store { 0 } else { conflicts },
        ..Cost::of(Strategy::SharedMemory)
    }
}
