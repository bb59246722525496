// A view's shape is set by the launcher, which checks it against the buffer: the attribute must
// say what it is, over the kernel's integer parameters.
use linear_layouts::{kernel, Thread, View};

#[kernel(block = 128)]
fn rows(t: &impl Thread, x: View<f32, 2>, n_rows: u32) {
    let _ = (t, x, n_rows);
}

fn main() {}
