use linear_layouts::layout;

layout! {
    pub Sm = swizzled_shared(vec = 8, perPhase = 0, maxPhase = 8, order = [1, 0]) for [64, 64];
}

fn main() {}
