use linear_layouts::layout;

layout! {
    pub T = blocked(sizePerThread = [4, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0], order = [0, 1]) for [64, 16];
}

fn main() {}
