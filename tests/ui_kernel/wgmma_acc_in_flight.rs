// The tensor cores write a wgmma's accumulator until its group is waited for: `dot_async` takes
// the tile and returns a `Pending`, which gives the registers back only through `wait` (the
// tile passed in is a copy of their values before the group).
use linear_layouts::{layout, Hopper, SharedTile, Tile, F16};

layout! {
    Acc = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]) for [64, 64];
    A = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
    B = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
}

#[allow(dead_code)]
fn multiply(t: &impl Hopper, a: SharedTile<A, F16>, b: SharedTile<B, F16>) -> f32 {
    let acc = Tile::<Acc, f32, 32>::splat(0.0);
    let pending = a.dot_async(t, &b, acc);
    let early = pending.acc.values[0];
    let _ = pending.wait(t);
    early
}

fn main() {}
