//! Conversion planning: how to move a tensor from one distributed layout to another, solved at
//! compile time as Triton does in `ConvertLayoutOpToLLVM`.
//!
//! [`plan_conversion`] computes Triton's minimal conversion (`dst.invertAndCompose(src)` with
//! the unchanged slow in-dims quotiented away) and picks: nothing, a register permutation, warp
//! shuffles (the decomposition P = P_mixed . P_lane . P_reg of Triton PR 7558, used when it has
//! fewer than two mixed transpositions, Triton's rule), a gather (shuffles that several lanes
//! read alike, where the destination holds copies or every warp holds the whole source; chosen
//! over shared memory by [`Cost::weight`]), or a shared-memory round trip (through
//! distributed shared memory and cluster barriers when data moves between CTAs). Every plan
//! is data ([`ConversionPlan`]); the `convert!` macro writes it as const tables and gpu-runtime
//! executes it. Shuffle plans are checked by executing them symbolically here before they are
//! returned.

mod banks;
mod bits;
mod describe;
mod gather;
mod shared;
mod shuffle;
mod symbolic;
mod trans_read;

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::bail;
use crate::{ErrorKind, LayoutError, LinearLayout, Result};

pub use banks::{bank_conflicts, bank_conflicts_of_warp, InstrConflicts, Phase};
pub use bits::FlatLayout;
pub use describe::{
    instruction_name, strategy_name, summarize, summarize_padded, PlanKind, PlanSummary, SideAccess,
};
pub use shared::{plan_padded_access, plan_shared_access};

pub use bits::flatten;
use layout_plan::solve::Decision;
pub use layout_plan::solve::{self, reach, Force, Reach};

pub use layout_plan::exec;
pub use layout_plan::ir::Instr;
pub use layout_plan::linear;
pub use layout_plan::{
    pad_address, padding_of, Barrier, Cost, Padding, Strategy, Target, MAX_SHUFFLE_WORDS,
    NO_PADDING,
};

/// Plans as the planner builds them: tables in `Vec`s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Owned;

impl layout_plan::Storage for Owned {
    type List<T: Copy + core::fmt::Debug + Eq + 'static> = Vec<T>;
    type Bases = Vec<u32>;
}

/// The gather strategy's tables (see [`layout_plan::GatherPlan`]).
pub type GatherPlan = layout_plan::GatherPlan<Owned>;
/// The shuffle strategy's tables (see [`layout_plan::ShufflePlan`]).
pub type ShufflePlan = layout_plan::ShufflePlan<Owned>;
/// One side of a shared-memory round trip (see [`layout_plan::SmemAccess`]).
pub type SmemAccess = layout_plan::SmemAccess<Owned>;
/// The shared-memory strategy's tables (see [`layout_plan::SharedPlan`]).
pub type SharedPlan = layout_plan::SharedPlan<Owned>;
/// The data movement of a plan (see [`layout_plan::Plan`]).
pub type PlanBody = layout_plan::Plan<Owned>;

/// A solved conversion: what it costs and how it moves data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionPlan {
    /// The cost, public as consts by `convert!`.
    pub cost: Cost,
    /// The tables.
    pub body: PlanBody,
    /// Registers per thread in the source and destination layouts.
    pub src_regs: usize,
    /// Registers per thread in the destination.
    pub dst_regs: usize,
    /// For a shared-memory plan, the scratch buffer's layout: offset (then round) and block ->
    /// tensor coordinates.
    pub scratch: Option<LinearLayout>,
}

/// Triton's `minimalCvtLayout`: `dst.invertAndCompose(src)`, then the slow in-dims (block, warp,
/// lane, register) quotiented away while they map identically. The planner decides by
/// [`reach`] instead (the slowest in-dim whose bases differ, a `const fn` the runtime also
/// evaluates); the random-pair tests check that it names the slowest in-dim this keeps.
pub fn minimal_cvt_layout(src: &LinearLayout, dst: &LinearLayout) -> Result<LinearLayout> {
    let mut comp = dst.invert_and_compose(src)?;
    for d in ["block", "warp", "lane", "register"] {
        if !comp.has_in_dim(d) {
            continue;
        }
        match comp.quotient(&[d]) {
            Some(q) => comp = q,
            None => break,
        }
    }
    Ok(comp)
}

/// Plan the conversion of `elem_bits`-bit elements from `src` to `dst` (distributed layouts of
/// the same tensor, in-dims `register, lane, warp, block`) as Triton does for NVIDIA sm_90, with
/// the layouts' own warp size ([`Target::unspecified`]).
pub fn plan_conversion(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    force: Force,
) -> Result<ConversionPlan> {
    let lanes = src.in_dim_size("lane").max(1) as u32;
    plan_conversion_for(&Target::unspecified(lanes), src, dst, elem_bits, force)
}

/// [`plan_conversion`] for `target`: plans use only the instructions it has; a conversion that
/// needs what it lacks (another CTA's shared memory, a warp size it does not have) is an error
/// naming that, and so is a forced strategy that cannot do the conversion.
pub fn plan_conversion_for(
    target: &Target,
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    force: Force,
) -> Result<ConversionPlan> {
    let (s, t) = check_pair(target, src, dst, elem_bits)?;
    let (src_regs, dst_regs) = (1usize << s.reg.len(), 1usize << t.reg.len());
    let done = |cost: Cost, body: PlanBody, scratch| ConversionPlan {
        cost,
        body,
        src_regs,
        dst_regs,
        scratch,
    };
    let shared = |x: &solve::Solved| -> Result<ConversionPlan> {
        let (p, cost, smem) = shared::solved(src, &s, x)?;
        Ok(done(cost, PlanBody::Shared(p), Some(smem)))
    };
    // By reference: a decision holds a plan's fixed tables (tens of kilobytes).
    let decided = solve::decide(&s, &t, elem_bits, target, force);
    let decision = match &decided {
        Ok(d) => d,
        Err(_) if solve::reach(&s, &t) < Reach::Lanes => bail!(
            "internal: a destination register is not held by the source thread, or there are more than {} registers",
            layout_plan::fixed::FIXED_CAP
        ),
        Err(why) => return Err(unplanned(*why, target)),
    };
    match decision {
        Decision::InWarp(layout_plan::Plan::Registers(perm), cost) => {
            Ok(done(*cost, PlanBody::Registers(perm.to_vec()), None))
        }
        Decision::InWarp(layout_plan::Plan::Shuffles(p), cost) => {
            let p = shuffle::checked(p, &s, &t, elem_bits)?;
            Ok(done(*cost, PlanBody::Shuffles(p), None))
        }
        Decision::InWarp(layout_plan::Plan::Gather(g), cost) => {
            let g = gather::checked(g, &s, &t, elem_bits)?;
            Ok(done(*cost, PlanBody::Gather(g), None))
        }
        Decision::InWarp(layout_plan::Plan::Shared(_), _) => {
            bail!("internal: a plan within warps through shared memory")
        }
        Decision::Shared(x) => shared(x),
    }
}

/// Why the ladder found no plan, as the planner's error.
fn unplanned(why: solve::Unplanned, target: &Target) -> LayoutError {
    use solve::Unplanned as U;
    let no_shuffles = |why: String| {
        LayoutError::of(ErrorKind::Strategy, alloc::format!(
            "this conversion cannot be done with shuffles: {}; use shared memory (or let the planner choose)",
            why
        ))
    };
    match why {
        U::Warps => no_shuffles(String::from("it moves data between warps")),
        U::TooLarge => no_shuffles(alloc::format!(
            "it would shuffle more than {} words per thread",
            MAX_SHUFFLE_WORDS
        )),
        U::NotAPermutation => no_shuffles(alloc::format!(
            "each lane would choose among more than {} source registers, or shuffle more than {} words",
            1 << solve::gather::MAX_CHOICE_BITS,
            MAX_SHUFFLE_WORDS
        )),
        U::Blocks => LayoutError::of(ErrorKind::Target, alloc::format!(
            "this conversion moves data between the CTAs of a cluster, and target {} has no cluster shared memory; convert to a layout with the same CGA layout instead",
            target.name
        )),
        U::Shared(e) => LayoutError::new(String::from(e.describe())),
        other => LayoutError::new(alloc::format!("internal: {}", other.describe())),
    }
}

/// The checks every conversion passes first, and both layouts flattened.
fn check_pair(
    target: &Target,
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
) -> Result<(FlatLayout, FlatLayout)> {
    check_element(elem_bits)?;
    if src.out_dims() != dst.out_dims() {
        bail!(kind: Shape,
            "the layouts cover different tensors: {:?} and {:?}; a conversion keeps the shape",
            src.out_dims(),
            dst.out_dims()
        );
    }
    for (l, which) in [(src, "source"), (dst, "destination")] {
        if l.has_in_dim("offset") || !l.has_in_dim("register") {
            bail!(kind: Kind,
                "the {} is not a distributed layout (in-dims register, lane, warp, block)",
                which
            );
        }
    }
    let s = bits::flatten(src)?;
    let t = bits::flatten(dst)?;
    match solve::check_pair(&s, &t) {
        Ok(()) => {}
        Err(solve::Mismatch::Threads { which, src, dst }) => bail!(kind: Shape,
            "the layouts have different numbers of {} ({} and {}); a conversion keeps them",
            solve::Mismatch::what(which),
            src,
            dst
        ),
        // The out-dims compared equal above; flattening keeps them.
        Err(solve::Mismatch::Shape) => bail!(kind: Shape, "the layouts cover different tensors"),
    }
    if 1u32 << s.lane.len() != target.lanes {
        bail!(kind: Target,
            "the layouts have {} lanes per warp and target {} has {}; write the layouts for the target's warp size (#[warp_size = {}])",
            1u32 << s.lane.len(),
            target.name,
            target.lanes,
            target.lanes
        );
    }
    Ok((s, t))
}

/// Elements of 8, 16, 32 or 64 bits.
pub(crate) fn check_element(elem_bits: u32) -> Result<()> {
    if !matches!(elem_bits, 8 | 16 | 32 | 64) {
        bail!(kind: Element,
            "element size {} bits is not supported: use 8, 16, 32 or 64-bit elements",
            elem_bits
        );
    }
    Ok(())
}
