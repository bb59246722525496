use linear_layouts::{layout, Mma};

layout! {
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [64, 64];
    pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [64, 32];
    // K = 64 here, 32 in A.
    pub OpB = dot_op(opIdx = 1, parent = Acc, kWidth = 2) for [64, 64];
}

const MMA: Mma<OpA, OpB, Acc> = Mma::new();

fn main() {}
