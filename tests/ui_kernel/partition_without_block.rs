// A partition's layout (or a thread partition's numbering) is checked against the kernel's
// block: a kernel with such a parameter and no `block = ..` is an error at the parameter.
use linear_layouts::{kernel, layout, ChunksMut, Thread, VectorsMut};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]) for [4, 128];
}

#[kernel(extent(y = [n, 128]))]
pub fn rows_without_block(t: &impl Thread, y: ChunksMut<f32, Rows, 2>, n: u32) {
    let _ = (t, y, n);
}

#[kernel(extent(y = n))]
pub fn vectors_without_block(t: &impl Thread, y: VectorsMut<f32, 4>, n: u32) {
    let _ = (t, y, n);
}

fn main() {}
