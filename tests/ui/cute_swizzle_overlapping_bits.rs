use linear_layouts::layout;

layout! {
    pub Sm = Swizzle<3, 3, 2> for [64, 64];
}

fn main() {}
