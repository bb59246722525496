use linear_layouts::layout;

layout! {
    pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [32, 16];
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [32, 32];
}

fn main() {}
