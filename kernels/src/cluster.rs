//! A conversion that moves data between the CTAs of a cluster (Hopper's distributed shared
//! memory): each 64x64 f32 tile is handled by a cluster of 2 CTAs, loaded with its rows split
//! between them and stored transposed with its columns split, so that half of every CTA's
//! elements end up in the other CTA. `convert!` plans it as Triton does: each CTA stores into its
//! own shared memory, a cluster barrier, loads from either CTA through `mapa` +
//! `ld.shared::cluster`, in rounds, and a closing cluster barrier.

use linear_layouts::{convert, kernel, layout, Thread, Tile, TileIndex, Tiled, TiledMut};

layout! {
    /// Rows split between the 2 CTAs; each thread holds 4 consecutive columns.
    pub ClusterRows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [64, 64];
    /// Columns split between the 2 CTAs; each thread holds 4 consecutive rows.
    pub ClusterCols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [0, 1]) for [64, 64];
}

/// Shared memory per CTA of `cluster_transpose`, in bytes.
pub const CLUSTER_SMEM: u32 = convert!(ClusterRows => ClusterCols, f32).cost.shared_bytes;

/// Elements per tile.
pub const TILE: usize = 64 * 64;

// Across CTAs: a shared-memory plan with cluster barriers.
const _: () = assert!(
    matches!(
        convert!(ClusterRows => ClusterCols, f32).cost.strategy,
        linear_layouts::runtime::Strategy::SharedMemory
    ) && ClusterRows::ELEMENTS_PER_THREAD == 16
        && ClusterCols::ELEMENTS_PER_THREAD == 16
);

/// Tile `k` of `inp` transposed into tile `k` of `out`, by CTA `cta_rank()` of a 2-CTA cluster:
/// 16-byte loads along rows, 16-byte stores along columns (the converted tile, read as its
/// transpose, is [`ClusterRows`] again).
#[inline(always)]
pub fn cluster_transpose_tile<T: Thread>(
    t: &T,
    inp: &Tiled<f32, ClusterRows>,
    out: &TiledMut<f32, ClusterRows>,
    k: TileIndex,
) {
    let v = inp.load(t, k);
    let w = Tile::<ClusterCols, f32, 16>::new(
        convert!(ClusterRows => ClusterCols, f32).run(t, &v.values),
    );
    out.store(t, k, &w.trans::<ClusterRows>());
}

/// `cluster_transpose_tile` over `tiles` tiles (`tiles * 4096` f32), grid-stride by cluster:
/// clusters of 2 CTAs along x, on sm_90.
#[kernel(block = ClusterRows::THREADS, shared = CLUSTER_SMEM, cluster = 2, extent(inp = tiles, out = tiles))]
pub fn cluster_transpose(
    t: &impl Thread,
    inp: Tiled<f32, ClusterRows>,
    out: TiledMut<f32, ClusterRows>,
    tiles: u32,
) {
    // Both CTAs of a cluster walk the same tiles (the conversion's barriers join them).
    out.each(t).for_each(|k| {
        cluster_transpose_tile(t, &inp, &out, k);
    });
}
