use linear_layouts::{layout, Mma, Thread, F16};

layout! {
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [64, 64];
    pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [64, 32];
    pub OpB = dot_op(opIdx = 1, parent = Acc, kWidth = 2) for [32, 64];
}

const MMA: Mma<OpA, OpB, Acc> = Mma::new();

// A helper nothing calls, with an accumulator of 16 registers where Acc holds 32: `cargo check`
// reports it.
#[allow(dead_code)]
fn step(t: &impl Thread, a: &[F16; 16], b: &[F16; 16], acc: &mut [f32; 16]) {
    MMA.run(t, a, b, acc);
}

fn main() {}
