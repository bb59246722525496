use linear_layouts::layout;

layout! {
    pub Acc = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1> for [128, 64];
}

fn main() {}
