use linear_layouts::{kernel, Thread};

#[kernel(block = 128, cluster = [1, 2, 1], grid_dims = 1)]
pub fn k(t: &impl Thread) {
    let _ = t;
}

fn main() {}
