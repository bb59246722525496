use linear_layouts::layout;

layout! {
    pub Acc = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 64, 16]) for [128, 128];
}

fn main() {}
