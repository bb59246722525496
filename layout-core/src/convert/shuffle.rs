//! Conversions within a warp by selects and shuffles (Triton PR 7558's decomposition): the
//! const planner's plan (`layout_plan::solve::plan_shuffles`, which the runtime also evaluates
//! for generic layouts), its tables moved into `Vec`s and checked here by running them on a
//! warp of element ids.

use layout_plan::fixed::Fixed;

use super::bits::FlatLayout;
use super::symbolic;
use super::ShufflePlan;
use crate::Result;

/// The const planner's shuffle plan `p` in `Vec`s, checked by running it on a warp of element
/// ids.
pub fn checked(
    p: &layout_plan::ShufflePlan<Fixed>,
    s: &FlatLayout,
    t: &FlatLayout,
    elem_bits: u32,
) -> Result<ShufflePlan> {
    let plan = owned(p);
    let run = symbolic::run(&plan, s, t, elem_bits);
    run.confirms("shuffle")?;
    Ok(plan)
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
