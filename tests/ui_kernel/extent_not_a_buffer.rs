// `extent(..)` states what a buffer parameter must hold; naming a scalar (or a name that is
// not a parameter) is an error at that name, listing the buffers.
use linear_layouts::{kernel, Global, GlobalMut, Thread};

#[kernel(block = 128, extent(x = n, n = 4))]
fn copy(t: &impl Thread, x: Global<f32>, y: GlobalMut<f32>, n: u32) {
    let _ = (t, x, y, n);
}

fn main() {}
