//! Conversions through shared memory: every thread stores its distinct source elements, a
//! barrier, every thread loads its destination elements.
//!
//! The shared layout is Triton's `optimalSwizzlingLdSt` ([`super::swizzle`]): vectors first,
//! then bank bases, then segment bases chosen against bank conflicts. Each side then uses the
//! widest aligned vector its registers allow. Bank conflicts of the resulting accesses are
//! counted exactly, per instruction, by simulating warp 0's addresses.
//!
//! Across CTAs (layouts of a cluster that split the tensor differently), each CTA's buffer holds
//! what the source CTA holds (Triton's choice: the shared layout's block bases are the source's),
//! and the accesses that reach another CTA's buffer go through distributed shared memory. An
//! address is then `byte offset | cta << CTA_SHIFT`, linear like the offset, so the same tables
//! carry both.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::bits::FlatLayout;
use super::{Cost, Instr, SharedPlan, SmemAccess, Strategy, Target};
use crate::error::bail;
use crate::{LinearLayout, Result};
use layout_plan::fixed::Fixed;
use layout_plan::solve::shared::{self, side_access, AccessKind, Side, Smem};

use super::trans_read::trans_read_access;

/// A const planner's list as the run-time planner's.
fn owned<T: Copy>(l: &[T]) -> Vec<T> {
    l.to_vec()
}

/// A const planner's access as the run-time planner's.
pub(super) fn owned_access(a: &layout_plan::SmemAccess<Fixed>) -> SmemAccess {
    SmemAccess {
        vec: a.vec,
        regs: owned(&a.regs),
        reg_offsets: owned(&a.reg_offsets),
        lane_bases: owned(&a.lane_bases),
        warp_bases: owned(&a.warp_bases),
        block_bases: owned(&a.block_bases),
        reg_skip: a.reg_skip,
        lane_skip: a.lane_skip,
        warp_skip: a.warp_skip,
        remote: a.remote,
        instr: a.instr,
        padding: a.padding,
    }
}

/// A shared-memory plan the const planner solved, in `Vec`s, with its cost and the scratch
/// buffer's layout (offset, block -> tensor coordinates of `src`).
pub fn solved(
    src: &LinearLayout,
    s: &FlatLayout,
    solved: &shared::Solved,
) -> Result<(SharedPlan, Cost, LinearLayout)> {
    let p = &solved.plan;
    let plan = SharedPlan {
        store: owned_access(&p.store),
        load: owned_access(&p.load),
        barrier: p.barrier,
        rounds: p.rounds,
    };
    let scratch = scratch_layout(src, s, solved.bases.bases.as_slice())?;
    Ok((plan, solved.cost, scratch))
}

/// The scratch buffer's layout (offset, block -> tensor coordinates), for printing.
fn scratch_layout(src: &LinearLayout, s: &FlatLayout, offsets: &[u64]) -> Result<LinearLayout> {
    let dims: Vec<(String, i32)> = src.out_dims().to_vec();
    // A flat vector back to coordinates: bit `b` lies in the dim whose bit range holds it.
    let unflat = |v: u64| -> Vec<i32> {
        (0..dims.len())
            .map(|d| {
                let (lo, n) = (s.dim_shift[d], dims[d].1.trailing_zeros());
                ((v >> lo) & ((1u64 << n) - 1)) as i32
            })
            .collect()
    };
    LinearLayout::from_parts(
        vec![
            (
                String::from("offset"),
                offsets.iter().map(|&b| unflat(b)).collect(),
            ),
            (
                String::from("block"),
                s.block.iter().map(|&b| unflat(b)).collect(),
            ),
        ],
        dims.clone(),
        true,
    )
}

/// Stores of a distributed layout's registers into shared memory laid out as `smem` (Triton's
/// `local_store`), or loads from it (`local_load`): the offsets are `smem`'s, the vector as wide
/// as the registers allow, `ldmatrix`/`stmatrix` where the layout fits them.
pub fn plan_shared_access(
    dist: &LinearLayout,
    smem: &LinearLayout,
    elem_bits: u32,
    store: bool,
    target: &Target,
) -> Result<(SmemAccess, Cost)> {
    plan_padded_access(dist, smem, &[], elem_bits, store, target)
}

/// `padding` as the access tables keep it: `(interval, pad)` in elements to log2 bytes, and the
/// widest access in bytes that neither crosses an interval nor loses alignment to a pad.
fn padding_bytes(padding: &[(u32, u32)], ebytes: u32) -> Result<(layout_plan::Padding, u32)> {
    let mut out = layout_plan::NO_PADDING;
    let mut widest = 16;
    if padding.len() > out.len() {
        bail!(
            "a padded layout has at most {} intervals here, not {}",
            out.len(),
            padding.len()
        );
    }
    for (k, &(interval, pad)) in padding.iter().enumerate() {
        let (ib, pb) = (interval as u64 * ebytes as u64, pad as u64 * ebytes as u64);
        if !ib.is_power_of_two()
            || !pb.is_power_of_two()
            || !(2..=1 << 24).contains(&ib)
            || pb > 1 << 24
        {
            bail!(
                "padding [{}:+{}] must be powers of two (in elements) within 2^24 bytes",
                interval,
                pad
            );
        }
        out[k] = (ib.trailing_zeros() as u8, pb.trailing_zeros() as u8);
        widest = widest.min(ib.min(pb) as u32);
    }
    Ok((out, widest))
}

/// [`plan_shared_access`] for a padded shared layout (Triton's `#ttg.padded_shared`): `smem` is
/// its linear component, `padding` its `(interval, pad)` pairs in elements.
pub fn plan_padded_access(
    dist: &LinearLayout,
    smem: &LinearLayout,
    padding: &[(u32, u32)],
    elem_bits: u32,
    store: bool,
    target: &Target,
) -> Result<(SmemAccess, Cost)> {
    super::check_element(elem_bits)?;
    if dist.out_dims() != smem.out_dims() {
        bail!(
            "the layouts cover different tensors: {:?} and {:?}",
            dist.out_dims(),
            smem.out_dims()
        );
    }
    let f = super::bits::flatten(dist)?;
    let (span, cgas_differ) = shared_span(&f, smem)?;
    let ebytes = elem_bits / 8;
    // A load fills registers that hold copies from the one it loads; only stores skip threads.
    let side = if store {
        Side::of(&f)
    } else {
        Side::of(&f).loading()
    };
    let (pads, widest) = padding_bytes(padding, ebytes)?;
    let mut best = best_access(&side, &span, elem_bits, widest, store, target, cgas_differ)?;
    best.padding = pads;
    let lanes = 1u32 << f.lane.len();
    let conflicts = layout_plan::banks::worst_conflicts(&best, ebytes, lanes, !store, target);
    let n = best.reg_offsets.len() as u32;
    let bytes = (1u32 << span.offset_bits) * ebytes;
    let cost = Cost {
        shared_bytes: layout_plan::pad_address(bytes - ebytes, &pads) + ebytes,
        stores: if store { n } else { 0 },
        loads: if store { 0 } else { n },
        vector: best.vec,
        write_conflicts: if store { conflicts } else { 0 },
        read_conflicts: if store { 0 } else { conflicts },
        ..Cost::of(Strategy::SharedMemory)
    };
    Ok((owned_access(&best), cost))
}

/// A shared layout as the planner's span, checked one-to-one over offsets and CTAs, and whether
/// the distributed side spreads the tensor over CTAs differently (`Some((offsets per CTA,
/// elements per CTA))`).
fn shared_span(f: &FlatLayout, smem: &LinearLayout) -> Result<(Smem, Option<(u64, u64)>)> {
    let offsets = super::bits::flat_in_dim(smem, "offset", f.dim_shifts());
    let blocks = super::bits::flat_in_dim(smem, "block", f.dim_shifts());
    // Over several CTAs: each CTA reaches its own shared memory only (zero block bases of the
    // shared layout: every CTA keeps a copy).
    let nonzero = |v: &[u64]| v.iter().filter(|&&b| b != 0).count();
    let (nb, nf) = (nonzero(&blocks), nonzero(&f.block));
    if (nb > 0 || nf > 0) && blocks.len() != f.block.len() {
        bail!(
            "the shared layout spans {} CTAs and the distributed one {}; give both the same CGA layout",
            1u32 << blocks.len(),
            1u32 << f.block.len()
        );
    }
    let total = f.total_bits as usize;
    let span = Smem::new(&offsets, 0, &blocks);
    if offsets.len() + nb != total || span.span.rank() != total {
        bail!("the shared layout is not a one-to-one map of offsets (and CTAs) to the tensor's elements (padded or broadcast); it cannot be stored to or loaded from by convert!");
    }
    let differ = (nf != nb).then(|| (1u64 << span.offset_bits, 1u64 << (total - nf)));
    Ok((span, differ))
}

/// The plain vector accesses, or a matrix instruction the target has where it takes fewer.
fn best_access(
    side: &Side,
    span: &Smem,
    elem_bits: u32,
    widest: u32,
    store: bool,
    target: &Target,
    cgas_differ: Option<(u64, u64)>,
) -> Result<layout_plan::SmemAccess<Fixed>> {
    let plain = match side_access(side, AccessKind::Plain, store, span, elem_bits, widest) {
        Ok(a) => a,
        Err(e) => bail!("{}", e.describe()),
    };
    if let (true, false, Some((per_cta, held))) = (store, plain.remote, cgas_differ) {
        bail!(
            "each CTA's shared memory must hold {} elements of this shared layout, but each CTA holds {} in the distributed layout (their CGA layouts differ): store from a layout with the shared layout's CGA layout",
            per_cta,
            held
        );
    }
    if plain.remote {
        bail!(
            "the distributed layout holds elements in other CTAs than the shared layout keeps them (their CGA layouts differ): a {} reaches only each CTA's own shared memory; convert to a layout with the shared layout's CGA layout first",
            if store { "store" } else { "load" }
        );
    }
    let mut best = plain;
    // A matrix row is 16 bytes: a padded layout must keep rows whole and aligned.
    for trans in [false, true].into_iter().filter(|_| widest >= 16) {
        let Some(m) = shared::matrix_access(side, span, trans, elem_bits / 8, store) else {
            continue;
        };
        let count = match m.instr {
            Instr::Matrix { count, .. } => count,
            _ => 0,
        };
        if target.matrix.has(store, count, trans) && m.reg_offsets.len() < best.reg_offsets.len() {
            best = m;
        }
    }
    // AMD's transposed read, for loads, as Triton takes it wherever it fits.
    if !store {
        if let Some(t) = trans_read_access(side, span, elem_bits / 8, widest, target) {
            if t.reg_offsets.len() < best.reg_offsets.len() {
                best = t;
            }
        }
    }
    Ok(best)
}
