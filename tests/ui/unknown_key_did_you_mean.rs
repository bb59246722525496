use linear_layouts::layout;

layout! {
    pub T = #ttg.blocked<{sizePerThred = [4, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}> : tensor<64x16xf16>;
}

fn main() {}
