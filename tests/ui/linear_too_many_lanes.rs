use linear_layouts::layout;

layout! {
    pub L = linear(register = [], lane = [[1], [2], [4], [8], [16], [32]], warp = [], block = []) for [64];
}

fn main() {}
