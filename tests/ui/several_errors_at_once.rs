use linear_layouts::layout;

layout! {
    pub A = blocked(sizePerThread = [3, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]) for [64, 16];
    pub B = blocked(sizePerThread = [4, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [0, 0]) for [64, 16];
}

fn main() {}
