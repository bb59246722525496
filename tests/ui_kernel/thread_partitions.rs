// Thread partitions number the grid's threads along x: a 2-D block would give two threads one
// vector; a per-thread output is checked against the grid, so an extent for it is refused; a
// block of a grouped partition comes only from the CTA's own loop.
use linear_layouts::runtime::grouped::BlockIndex;
use linear_layouts::{kernel, PerThreadMut, Thread, VectorsMut};

#[kernel(block = [16, 16, 1], extent(y = n))]
pub fn two_d_block(t: &impl Thread, y: VectorsMut<f32, 4>, n: u32) {
    for k in y.each(t) {
        y.store(k, [0.0; 4]);
    }
}

#[kernel(block = 128, extent(y = n))]
pub fn per_thread_with_extent(t: &impl Thread, y: PerThreadMut<u32, 2>, n: u32) {
    y.store(t, [n, n]);
}

#[allow(dead_code)]
fn forged() -> BlockIndex {
    BlockIndex { origin: [0, 0] }
}

fn main() {}
