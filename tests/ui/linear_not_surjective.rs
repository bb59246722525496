use linear_layouts::layout;

layout! {
    pub L = linear(register = [[0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [], block = []) for [32, 4];
}

fn main() {}
