// A load into a layout of 2 CTAs from a shared layout of one: the CGA layouts must agree.
use linear_layouts::layout;
use linear_layouts::planned::Planned;

layout! {
    pub Swz = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [128, 64];
    pub Split = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [128, 64];
}

const LOADS: u32 = Planned::<Swz, Split, u16>::COST.loads;

fn main() {
    let _ = LOADS;
}
