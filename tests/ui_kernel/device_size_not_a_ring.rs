// A view's shape is computed twice: by the launcher (in i128, to check it) and by the device
// (in the parameters' types). Only sums, differences and products agree modulo 2^32, so a
// division, a remainder or a cast is refused, as is `grid`, which the device does not know.
use linear_layouts::{kernel, Thread, View};

#[kernel(block = 128, extent(x = [n / 2, 4]))]
fn halves(t: &impl Thread, x: View<f32, 2>, n: u32) {
    let _ = (t, x, n);
}

#[kernel(block = 128, extent(x = [grid[0], 4]))]
fn per_block(t: &impl Thread, x: View<f32, 2>) {
    let _ = (t, x);
}

fn main() {}
