// An indexed global access is `unsafe`: on the GPU nothing checks the index against the buffer.
// Safe kernels reach global memory through views and partitioned tensors.
use linear_layouts::{kernel, Global, GlobalMut, Thread};

#[kernel(block = 128)]
fn copy(t: &impl Thread, x: Global<f32>, y: GlobalMut<f32>) {
    let i = t.index_1d() as usize;
    y.store1(i, x.load1(i + 1_000_000));
}

fn main() {}
