use linear_layouts::{kernel, Thread};

#[kernel(block = 128, sharde = 0)]
pub fn k(t: &impl Thread, (a, b): (u32, u32)) {
    let _ = (t.lane(), a, b);
}

fn main() {}
