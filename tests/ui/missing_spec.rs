use linear_layouts::layout;

layout! {
    pub T = for [64, 16];
}

fn main() {}
