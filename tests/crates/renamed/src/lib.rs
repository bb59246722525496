//! linear-layouts under the name `ll` (edition 2024): the macros' expansions name no crate.

ll::layout! {
    /// Rows of a 64x64 tile, 16-bit.
    pub Rows = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}> : tensor<64x64xf16>;
    /// An MMA accumulator and its operand A.
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]) for [64, 64];
    pub(crate) Swz = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
}
