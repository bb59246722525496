use linear_layouts::layout;

// A 16x256b message reads 8 columns of 32 bits; this f32 tensor has 4.
layout! {
    pub Acc = tmem_reg(atom = "16x256b", warps = 4, blockM = 128, blockN = 4, colStride = 1) : tensor<128x4xf32>;
}

fn main() {}
