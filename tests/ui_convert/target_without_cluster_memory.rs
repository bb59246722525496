use linear_layouts::{convert, layout};

layout! {
    // A 64x64 tile over a cluster of 2 CTAs, split by rows, then by columns: data crosses CTAs.
    pub Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [64, 64];
    pub Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [0, 1]) for [64, 64];
}

fn main() {
    // Fine on Hopper (distributed shared memory); Vulkan has no cluster memory.
    let _ = convert!(Rows => Cols, f32, target = sm_90);
    let _ = convert!(Rows => Cols, f32, target = spirv_32);
}
