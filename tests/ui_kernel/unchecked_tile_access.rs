// A tile load or store at an origin and strides of the caller's choosing is `unsafe`: nothing
// checks them against the buffer. A view (masked against its shape) or the CTA's own tile of a
// partitioned tensor is the safe form.
use linear_layouts::{kernel, layout, Global, Thread, Tile};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
}

#[kernel(block = 128)]
fn far(t: &impl Thread, x: Global<f32>) {
    let _ = Tile::<Rows, f32, 32>::load(t, &x, [1 << 20, 0], [64, 1]);
}

fn main() {}
