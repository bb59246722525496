// A wgmma's A from registers is each warp's 16 rows as mma.m16n8k16's A fragment: Triton's
// dot_op(opIdx = 0, parent = C, kWidth = 2). A blocked layout is neither that nor a shared tile.
use linear_layouts::{layout, Wgmma, F16};

layout! {
    Acc = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]) for [64, 64];
    A = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    B = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
}

const MMA: Wgmma<A, B, Acc, F16> = Wgmma::new();

fn main() {
    let _ = MMA;
}
