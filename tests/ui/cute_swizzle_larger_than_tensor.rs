use linear_layouts::layout;

layout! {
    pub Sm = Swizzle<3, 4, 3> for [8, 8];
}

fn main() {}
