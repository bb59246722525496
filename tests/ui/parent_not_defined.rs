use linear_layouts::layout;

layout! {
    pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [32, 16];
}

fn main() {}
