// wgmma writes the accumulator as an nvidia_mma v3 layout holds it (warpgroups over 64 rows,
// m16n8 fragments side by side); a blocked layout of the same shape is not that fragment. (A v2
// layout with warps [4, 1] over 64 columns is: linear layouts compare the maps, not the names.)
use linear_layouts::{layout, Wgmma, F16};

layout! {
    Acc = blocked(sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    A = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
    B = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
}

const MMA: Wgmma<A, B, Acc, F16> = Wgmma::new();

fn main() {
    let _ = MMA;
}
