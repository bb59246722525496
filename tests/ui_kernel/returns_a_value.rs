use linear_layouts::{kernel, Thread};

#[kernel]
pub fn k(t: &impl Thread) -> u32 {
    t.lane()
}

fn main() {}
