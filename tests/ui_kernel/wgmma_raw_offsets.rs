// The tensor cores read whatever shared bytes a raw offset names: `Wgmma::run` is `unsafe`, and
// safe code multiplies `SharedTile`s, checked inside the kernel's shared memory when made.
use linear_layouts::{layout, Hopper, Wgmma, F16};

layout! {
    Acc = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]) for [64, 64];
    A = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
    B = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
}

#[allow(dead_code)]
fn multiply(t: &impl Hopper, acc: &mut [f32; 32]) {
    const { Wgmma::<A, B, Acc, F16>::new() }.run(t, 1 << 20, 0, acc);
}

fn main() {}
