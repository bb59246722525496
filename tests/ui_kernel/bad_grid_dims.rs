use linear_layouts::{kernel, Thread};

#[kernel(grid_dims = 0)]
pub fn k(t: &impl Thread) {
    let _ = t;
}

fn main() {}
