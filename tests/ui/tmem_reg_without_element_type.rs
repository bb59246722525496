use linear_layouts::layout;

layout! {
    pub Acc = tmem_reg(atom = "32x32b", warps = 4, blockM = 128, blockN = 64, colStride = 1) for [128, 64];
}

fn main() {}
