//! Layouts defined through a crate that re-exports the macros.

use reexporter::layout;

layout! {
    /// Columns of a 64x64 tile.
    pub Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
}
