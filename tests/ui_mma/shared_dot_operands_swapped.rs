// `dot` of two shared tiles is a wgmma, checked as `Wgmma` checks its layouts: B where A
// belongs (`b.dot(a)` for `a.dot(b)`) is an error at the call, naming the three layouts.
use linear_layouts::sim::{launch, Launch};
use linear_layouts::{layout, Hopper, SharedTile, Tile, F16};

layout! {
    pub Acc = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]) for [64, 64];
    pub A = nvmma_shared(swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16) for [64, 32];
    pub B = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [32, 64];
}

fn product(t: &impl Hopper, a: &SharedTile<A, F16>, b: &SharedTile<B, F16>) -> Tile<Acc, f32, 32> {
    b.dot(t, a, Tile::splat(0.0))
}

fn main() {
    let _ = launch(Launch::new(1, 128, 3 * 8192), |t| {
        let (a, b) = (SharedTile::new(t, 1024), SharedTile::new(t, 9216));
        let _ = product(t, &a, &b);
    });
}
