use linear_layouts::{kernel, GlobalMut, Thread};

#[kernel(block_dims = 4)]
pub fn k(t: &impl Thread, out: GlobalMut<u32>) {
    out.store1(t.index_1d() as usize, 1);
}

fn main() {}
