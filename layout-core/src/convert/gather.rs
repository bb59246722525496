//! Conversions within a warp where lanes read the same source (a gather): the const planner's
//! plan (`layout_plan::solve::gather`, which the runtime also evaluates for generic layouts),
//! its tables moved into `Vec`s and checked here by running them on a warp of element ids.

use layout_plan::fixed::Fixed;

use super::bits::FlatLayout;
use super::symbolic;
use super::GatherPlan;
use crate::Result;

/// The const planner's gather plan `p` in `Vec`s, checked by running it on the element ids of
/// every warp.
pub fn checked(
    p: &layout_plan::GatherPlan<Fixed>,
    s: &FlatLayout,
    t: &FlatLayout,
    elem_bits: u32,
) -> Result<GatherPlan> {
    let plan = GatherPlan {
        pack: p.pack,
        words: p.words.to_vec(),
        lane_map: p.lane_map.to_vec(),
        warp_map: p.warp_map.to_vec(),
        rounds: p.rounds.to_vec(),
        sel_lane: p.sel_lane.to_vec(),
        sel_warp: p.sel_warp.to_vec(),
        choices: p.choices,
        pick: p.pick.to_vec(),
        pos: p.pos.to_vec(),
    };
    let run = symbolic::run_gather(&plan, s, t, elem_bits);
    run.confirms("gather")?;
    Ok(plan)
}
