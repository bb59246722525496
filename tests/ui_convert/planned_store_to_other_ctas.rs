// The const planner refuses what `convert!` refuses, with the same reason and numbers: a store
// from rows split between 2 CTAs into a shared layout every CTA keeps whole.
use linear_layouts::layout;
use linear_layouts::planned::Planned;

layout! {
    pub Split = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [128, 64];
    pub Whole = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]) for [128, 64];
}

const STORES: u32 = Planned::<Split, Whole, u16>::COST.stores;

fn main() {
    let _ = STORES;
}
