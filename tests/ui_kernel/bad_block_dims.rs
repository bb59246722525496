use linear_layouts::{kernel, Thread, ViewMut};

#[kernel(block_dims = 4)]
pub fn k(t: &impl Thread, out: ViewMut<u32, 1>) {
    let _ = (t, out);
}

fn main() {}
