// The launcher checks a block partition against its transpose's shape when the type says
// `true`: a flag written any other way is refused rather than read as `false`.
use linear_layouts::{kernel, layout, BlocksMut, Thread};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
}

const T: bool = true;

#[kernel(block = 128, extent(out = [n, n]))]
fn flagged(t: &impl Thread, out: BlocksMut<f32, Rows, T>, n: u32) {
    let _ = (t, out, n);
}

fn main() {}
