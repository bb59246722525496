use linear_layouts::layout;

layout! {
    pub M = amd_mfma(version = 3, warpsPerCTA = [2, 2], instrShape = [8, 8], isTransposed = false) for [64, 64];
}

fn main() {}
