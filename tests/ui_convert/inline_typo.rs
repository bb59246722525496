use linear_layouts::{convert, layout};

layout! {
    pub A = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    pub B = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
    pub Small = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 64];
    pub Flat = blocked(sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [4096];
    pub Smem = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
    #[warp_size = 64]
    pub Wave = blocked(sizePerThread = [1, 2], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
}

fn main() {
    // A misspelt key inside an inline layout points at the key, as in layout!.
    let _ = convert!(A => blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], ordr = [0, 1]) for [64, 64], f32);
}
