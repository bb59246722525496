use linear_layouts::layout;

layout! {
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [32, 32];
    pub S = slice(dim = 2, parent = Acc) for [32];
}

fn main() {}
