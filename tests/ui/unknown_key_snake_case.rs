use linear_layouts::layout;

layout! {
    pub T = blocked(size_per_thred = [4, 2], threads_per_warp = [8, 4], warps_per_cta = [2, 2], order = [1, 0]) for [64, 16];
}

fn main() {}
