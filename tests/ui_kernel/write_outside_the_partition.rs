// A partitioned output is written only as the CTA's own tile, and a view only inside its shape:
// neither can be made over a buffer without `unsafe` (their contracts are what the launcher
// checks before a launch), so safe code cannot aim them elsewhere.
use linear_layouts::{layout, GlobalMut, TilesMut, ViewMut};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
}

#[allow(dead_code)]
fn anywhere<'a>(y: GlobalMut<'a, f32>) -> TilesMut<'a, f32, Rows> {
    TilesMut::new_unchecked(y)
}

#[allow(dead_code)]
fn larger<'a>(y: GlobalMut<'a, f32>) -> ViewMut<'a, f32, 2> {
    ViewMut::new_unchecked(y, [1 << 16, 1 << 16])
}

fn main() {}
