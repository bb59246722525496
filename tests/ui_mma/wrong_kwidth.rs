use linear_layouts::{layout, Mma};

layout! {
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [64, 64];
    // kWidth = 4 is the 8-bit operand's fragment, not the 16-bit one mma.m16n8k16 takes.
    pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 4) for [64, 32];
    pub OpB = dot_op(opIdx = 1, parent = Acc, kWidth = 2) for [32, 64];
}

const MMA: Mma<OpA, OpB, Acc> = Mma::new();

fn main() {}
