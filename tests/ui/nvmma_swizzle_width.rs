use linear_layouts::layout;

layout! {
    pub Sm = #ttg.nvmma_shared<{swizzlingByteWidth = 48, transposed = false, elementBitWidth = 16}> : tensor<64x64xf16>;
}

fn main() {}
