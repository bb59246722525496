use linear_layouts::sim::{launch, Launch};
use linear_layouts::{layout, Thread, Tile, F16};

layout! {
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [32, 16];
    pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [32, 16];
    pub OpB = dot_op(opIdx = 1, parent = Acc, kWidth = 2) for [16, 16];
}

// B where A belongs: `b.dot(a)` for `a.dot(b)`.
fn product(t: &impl Thread, a: &Tile<OpA, F16, 8>, b: &Tile<OpB, F16, 4>) -> Tile<Acc, f32, 4> {
    b.dot(t, a, Tile::splat(0.0))
}

fn main() {
    let _ = launch(Launch::new(1, 128, 0), |t| {
        let (a, b) = (Tile::splat(F16::from_f32(1.0)), Tile::splat(F16::from_f32(1.0)));
        let _ = product(t, &a, &b);
    });
}
