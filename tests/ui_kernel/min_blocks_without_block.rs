use linear_layouts::{kernel, GlobalMut, Thread};

#[kernel(min_blocks = 2)]
pub fn k(t: &impl Thread, out: GlobalMut<u32>) {
    out.store1(t.index_1d() as usize, 1);
}

#[kernel(block = 128, min_blocks = 0)]
pub fn zero(t: &impl Thread, out: GlobalMut<u32>) {
    out.store1(t.index_1d() as usize, 1);
}

fn main() {}
