// A partition's layout spreads over exactly the kernel's block: a block of half its threads
// would leave half its elements unstored. The error names both sizes.
use linear_layouts::{kernel, layout, Thread, Tiles, TilesMut};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
}

#[kernel(block = 64)]
fn copy(t: &impl Thread, x: Tiles<f32, Rows>, y: TilesMut<f32, Rows>) {
    y.store(t, &x.load(t));
}

fn main() {}
