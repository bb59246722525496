use linear_layouts::layout;

layout! {
    pub Sm = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
    pub S = slice(dim = 0, parent = Sm) for [64];
}

fn main() {}
