// `dot` multiplies into the operands' parent: an accumulator of another layout is a type error
// at the call, naming both.
use linear_layouts::{layout, Thread, Tile, TileOf, F16};

layout! {
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [32, 16];
    pub Other = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]) for [32, 16];
    pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [32, 16];
    pub OpB = dot_op(opIdx = 1, parent = Acc, kWidth = 2) for [16, 16];
}

fn product(t: &impl Thread, a: &TileOf<OpA, F16>, b: &TileOf<OpB, F16>) -> TileOf<Other, f32> {
    a.dot(t, b, Tile::splat(0.0))
}

fn main() {}
