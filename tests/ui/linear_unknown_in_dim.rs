use linear_layouts::layout;

layout! {
    pub L = linear(register = [], lanes = [[1], [2], [4], [8], [16]], warp = [], block = []) for [32];
}

fn main() {}
