use linear_layouts::{convert, layout};

layout! {
    pub A = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
}

fn main() {
    // A misspelt key inside an inline layout points at the key, as in layout!.
    let _ = convert!(A => blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], ordr = [0, 1]) for [64, 64], f32);
}
