// A is [M, K] and B [K, N]: a B tile of 32 rows of K does not multiply A's 64.
use linear_layouts::{layout, Wgmma, F16};

layout! {
    Acc = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]) for [64, 64];
    A = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
    B = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [32, 64];
}

const MMA: Wgmma<A, B, Acc, F16> = Wgmma::new();

fn main() {
    let _ = MMA;
}
