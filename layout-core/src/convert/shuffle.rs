//! Conversions within a warp by selects and shuffles (Triton PR 7558's decomposition): the
//! const planner's plan (`layout_plan::solve::plan_shuffles`, which the runtime also evaluates
//! for generic layouts), its tables moved into `Vec`s and checked here by running them on a
//! warp of element ids, which also recounts their selects and shuffles.

use layout_plan::fixed::Fixed;
use layout_plan::solve;

use super::bits::FlatLayout;
use super::symbolic;
use super::{Cost, ShufflePlan};
use crate::error::bail;
use crate::Result;

/// The shuffle plan, or `None` when the conversion is not a permutation of bits or, unless
/// forced, needs two or more mixed transpositions (Triton then prefers shared memory).
pub fn plan(
    s: &FlatLayout,
    t: &FlatLayout,
    elem_bits: u32,
    forced: bool,
) -> Result<Option<(ShufflePlan, Cost)>> {
    let Ok((p, cost)) = solve::plan_shuffles(s, t, elem_bits, forced) else {
        return Ok(None);
    };
    let plan = owned(&p);
    let run = symbolic::run(&plan, s, t, elem_bits);
    if !run.correct || (run.shuffles, run.selects) != (cost.shuffles, cost.selects) {
        bail!(
            "internal: the shuffle plan is {} (it issues {} shuffles and {} selects; its cost says {} and {})",
            if run.correct { "correct" } else { "wrong" },
            run.shuffles,
            run.selects,
            cost.shuffles,
            cost.selects
        );
    }
    Ok(Some((plan, cost)))
}

/// Whether the conversion is a permutation of (register, lane) bits: the shuffle plan's domain.
pub fn is_permutation(s: &FlatLayout, t: &FlatLayout) -> bool {
    solve::is_permutation(s, t)
}

/// The const planner's tables in `Vec`s.
pub fn owned(p: &layout_plan::ShufflePlan<Fixed>) -> ShufflePlan {
    ShufflePlan {
        pack: p.pack,
        gather: p.gather.to_vec(),
        swaps: p.swaps.to_vec(),
        lane_map: p.lane_map.to_vec(),
        ship: p.ship,
        scatter: p.scatter.to_vec(),
    }
}
