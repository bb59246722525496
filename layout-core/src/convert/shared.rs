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
use super::{Cost, SharedPlan, SmemAccess, Target};
use crate::error::bail;
use crate::{LinearLayout, Result};
use layout_plan::fixed::Fixed;
use layout_plan::msg::Msg;
use layout_plan::solve::shared::{self, AccessError};

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
    let offsets = super::bits::flat_in_dim(smem, "offset", f.dim_shifts());
    let blocks = super::bits::flat_in_dim(smem, "block", f.dim_shifts());
    let why = |e: AccessError| {
        let mut m = Msg::new();
        e.describe(&mut m);
        crate::LayoutError::new(m.as_str())
    };
    let p = shared::prepare(&f, &offsets, &blocks, padding, elem_bits).map_err(why)?;
    let (best, cost) = shared::plan_prepared(&f, &p, elem_bits, store, target).map_err(why)?;
    if store {
        return Ok((owned_access(&best), cost));
    }
    // AMD's transposed read, for loads, as Triton takes it wherever it fits.
    let side = shared::layout_side(&f, store);
    match trans_read_access(&side, &p.span, elem_bits / 8, p.widest, target) {
        Some(mut t) if t.reg_offsets.len() < best.reg_offsets.len() => {
            t.padding = p.pads;
            let lanes = 1u32 << f.lane.len();
            let cost = shared::access_cost(&t, &p.span, elem_bits, lanes, store, target);
            Ok((owned_access(&t), cost))
        }
        _ => Ok((owned_access(&best), cost)),
    }
}
