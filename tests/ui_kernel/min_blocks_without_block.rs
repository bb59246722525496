use linear_layouts::{kernel, Thread, ViewMut};

#[kernel(min_blocks = 2)]
pub fn k(t: &impl Thread, out: ViewMut<u32, 1>) {
    out.store_one([t.index_1d()], 1);
}

#[kernel(block = 128, min_blocks = 0)]
pub fn zero(t: &impl Thread, out: ViewMut<u32, 1>) {
    out.store_one([t.index_1d()], 1);
}

fn main() {}
