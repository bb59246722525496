use linear_layouts::layout;

// Sw<3,4,3> over byte addresses of halves reaches element bit 9; 8x32 halves have 8 bits.
layout! {
    pub Sm = Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_32):(_32,_1) : tensor<8x32xf16>;
}

fn main() {}
