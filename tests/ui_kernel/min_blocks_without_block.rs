use linear_layouts::{kernel, Thread, ViewMut};

#[kernel(min_blocks = 2)]
pub fn k(t: &impl Thread, out: ViewMut<u32, 1>) {
    let _ = (t, out);
}

#[kernel(block = 128, min_blocks = 0)]
pub fn zero(t: &impl Thread, out: ViewMut<u32, 1>) {
    let _ = (t, out);
}

fn main() {}
