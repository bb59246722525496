//! Host side of conversions: layout-core's plans as the tables gpu-runtime executes.

use gpu_runtime::convert as rt;
use layout_core::convert as core_cvt;

fn access(a: &core_cvt::SmemAccess) -> rt::SmemAccess<'_> {
    rt::SmemAccess {
        vec: a.vec,
        regs: &a.regs,
        reg_offsets: &a.reg_offsets,
        lane_bases: &a.lane_bases,
        warp_bases: &a.warp_bases,
        block_bases: &a.block_bases,
        lane_skip: a.lane_skip,
        warp_skip: a.warp_skip,
        remote: a.remote,
        matrix: a.matrix,
    }
}

/// Borrow a plan solved at run time as gpu-runtime's tables (what `convert!` writes as consts).
pub fn runtime_plan(p: &core_cvt::ConversionPlan) -> rt::Plan<'_> {
    match &p.body {
        core_cvt::PlanBody::Registers(perm) => rt::Plan::Registers(perm),
        core_cvt::PlanBody::Shuffles(s) => rt::Plan::Shuffles(rt::ShufflePlan {
            pack: s.pack,
            gather: &s.gather,
            swaps: &s.swaps,
            lane_map: &s.lane_map,
            ship: s.ship,
            scatter: &s.scatter,
        }),
        core_cvt::PlanBody::Shared(s) => rt::Plan::Shared(rt::SharedPlan {
            store: access(&s.store),
            load: access(&s.load),
            barrier: s.barrier,
            rounds: s.rounds,
        }),
    }
}
