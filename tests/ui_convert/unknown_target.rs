use linear_layouts::{convert, layout};

layout! {
    pub A = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    pub B = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
}

fn main() {
    let _ = convert!(A => B, f32, target = sm_75);
}
