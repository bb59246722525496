// A load into rows every CTA holds whole from a shared layout split between the 2 CTAs: each
// CTA would have to read the other's memory.
use linear_layouts::layout;
use linear_layouts::planned::Planned;

layout! {
    pub SwzSplit = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [128, 64];
    pub Whole = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]) for [128, 64];
}

const LOADS: u32 = Planned::<SwzSplit, Whole, u16>::COST.loads;

fn main() {
    let _ = LOADS;
}
