use linear_layouts::layout;

// CuTe's 128-byte swizzle over halves, on a tensor of floats.
layout! {
    pub Sm = Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1) : tensor<8x64xf32>;
}

fn main() {}
