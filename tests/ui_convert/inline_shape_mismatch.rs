use linear_layouts::{convert, layout};

layout! {
    pub B = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
}

fn main() {
    // The two sides must describe the same tensor.
    let _ = convert!(#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}> : tensor<32x64xf32> => B, f32);
}
