use linear_layouts::layout;

layout! {
    #[warp_size = 64]
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [32, 32];
}

fn main() {}
