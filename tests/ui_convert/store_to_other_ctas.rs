use linear_layouts::{convert, layout};

layout! {
    // Rows split between 2 CTAs, and a shared layout every CTA keeps whole: a CTA holds only
    // half of what its buffer must receive.
    pub Split = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [128, 64];
    pub Whole = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]) for [128, 64];
}

fn main() {
    let _ = convert!(Split => Whole, u16);
}
