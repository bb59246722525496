// A conversion past the const planner's capacity (8,192 registers per thread, 4,096 planned at
// most) is an error naming the layout and the limit, not a shorter plan or a const evaluation
// that runs past rustc's budget.
use linear_layouts::{convert, layout};

layout! {
    pub Big = blocked(sizePerThread = [8, 32], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]) for [512, 512];
    pub BigT = blocked(sizePerThread = [16, 16], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [0, 1]) for [512, 512];
}

const SHUFFLES: u32 = convert!(Big => BigT, f32).cost.shuffles;

fn main() {
    let _ = SHUFFLES;
}
