//! Prefix sums of f32 tensors with `Tile::scan` (Triton's `tl.cumsum`): along rows, where each
//! row's 64 elements lie in one warp (two per thread: a register step, then five shuffles), and
//! along 512 elements spread over 8 warps (a register step, five shuffles, then one cross-warp
//! phase through shared memory: one store, a barrier, seven loads). The same two shapes scan
//! from the end (`reverse=True`) and exclusively (each element's result leaves it out): suffix
//! sums, and stream compaction's offsets (an exclusive count of the kept elements before each).

use linear_layouts::scan;
use linear_layouts::{kernel, layout, Thread, Tile, Tiles, TilesMut};

layout! {
    /// 16 rows of 64: each warp holds 4 whole rows, 2 consecutive elements of each per thread.
    pub ScanRows = blocked(sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 64];
    /// 512 consecutive elements over 8 warps, 2 per thread.
    pub ScanLine = blocked(sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]) for [512];
}

/// Rows per CTA of [`cumsum_rows_f32`].
pub const SCAN_ROWS: u32 = ScanRows::SHAPE[0];
/// Row length of [`cumsum_rows_f32`].
pub const SCAN_ROW: u32 = ScanRows::SHAPE[1];
/// Elements per CTA of [`cumsum_line_f32`].
pub const SCAN_LINE: u32 = ScanLine::SHAPE[0];

/// `y[i][j] = x[i][0] + ... + x[i][j]` for rows of 64 f32, 16 rows per CTA: grid
/// `[n_rows / 16, 1, 1]`.
#[kernel(block = ScanRows::THREADS)]
pub fn cumsum_rows_f32(t: &impl Thread, x: Tiles<f32, ScanRows>, y: TilesMut<f32, ScanRows>) {
    y.store(t, &x.load(t).scan::<1>(t, |a, b| a + b));
}

/// The inclusive prefix sums of each CTA's 512 consecutive f32 (a segmented `cumsum`): grid
/// `[n / 512, 1, 1]`; the cross-warp phase through [`scan::shared_bytes`] of scratch.
#[kernel(block = ScanLine::THREADS, shared = scan::shared_bytes::<ScanLine, 0, f32>())]
pub fn cumsum_line_f32(t: &impl Thread, x: Tiles<f32, ScanLine>, y: TilesMut<f32, ScanLine>) {
    y.store(t, &x.load(t).scan::<0>(t, |a, b| a + b));
}

/// Stream compaction's offsets for rows of 64 f32, 16 rows per CTA: `y[i][j]` is how many
/// positive elements precede `x[i][j]` in its row (where a positive element goes in the row's
/// compacted output): the flags `x > 0` as 1 or 0, scanned exclusively. Grid `[n_rows / 16,
/// 1, 1]`.
#[kernel(block = ScanRows::THREADS)]
pub fn compaction_offsets_rows(
    t: &impl Thread,
    x: Tiles<f32, ScanRows>,
    y: TilesMut<u32, ScanRows>,
) {
    let kept = Tile::<ScanRows, u32, _>::splat(1).select(&x.load(t).gt(0.0), 0);
    y.store(t, &kept.scan_exclusive::<1>(t, 0, |a, b| a + b));
}

/// `y[i][j] = x[i][j] + ... + x[i][63]` for rows of 64 f32 (Triton's `tl.cumsum(x, 1,
/// reverse=True)`), 16 rows per CTA: grid `[n_rows / 16, 1, 1]`.
#[kernel(block = ScanRows::THREADS)]
pub fn suffix_sums_rows_f32(t: &impl Thread, x: Tiles<f32, ScanRows>, y: TilesMut<f32, ScanRows>) {
    y.store(t, &x.load(t).scan_reverse::<1>(t, |a, b| a + b));
}

/// For each CTA's 512 consecutive f32, the sum of the elements after each one in the segment
/// (an exclusive scan from the end; the last element's is 0): grid `[n / 512, 1, 1]`, the
/// cross-warp phase through [`scan::shared_bytes`] of scratch.
#[kernel(block = ScanLine::THREADS, shared = scan::shared_bytes::<ScanLine, 0, f32>())]
pub fn suffix_sums_exclusive_line_f32(
    t: &impl Thread,
    x: Tiles<f32, ScanLine>,
    y: TilesMut<f32, ScanLine>,
) {
    y.store(
        t,
        &x.load(t).scan_exclusive_reverse::<0>(t, 0.0, |a, b| a + b),
    );
}
