use linear_layouts::layout;

layout! {
    /// A Vulkan subgroup of 8 lanes, but a threadsPerWarp written for NVIDIA's 32.
    #[warp_size = 8]
    pub T = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
}

fn main() {}
