// The tensor cores read B through a descriptor: rows of one swizzle width, swizzled in 16-byte
// chunks. A swizzled_shared tile with 8-element vectors over 4 phases is not such a tile.
use linear_layouts::{layout, Wgmma, F16};

layout! {
    Acc = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]) for [64, 64];
    A = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
    B = swizzled_shared(vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]) for [64, 64];
}

const MMA: Wgmma<A, B, Acc, F16> = Wgmma::new();

fn main() {
    let _ = MMA;
}
