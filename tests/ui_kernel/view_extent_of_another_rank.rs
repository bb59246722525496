// A view's extent is its shape, one size per dim: a 1-D view given two sizes is an error at
// the extent (the GPU's entry could not make the view of it).
use linear_layouts::{kernel, Thread, View};

#[kernel(block = 128, extent(bias = [1, n]))]
fn add_bias(t: &impl Thread, bias: View<f32, 1>, n: u32) {
    let _ = (t, bias, n);
}

fn main() {}
