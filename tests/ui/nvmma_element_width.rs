use linear_layouts::layout;

layout! {
    pub Sm = nvmma_shared(swizzling_byte_width = 128, transposed = false, element_bit_width = 12) for [64, 64];
}

fn main() {}
