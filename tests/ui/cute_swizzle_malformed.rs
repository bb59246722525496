use linear_layouts::layout;

layout! {
    pub Sm = Swizzle<3, 4> for [64, 64];
}

fn main() {}
